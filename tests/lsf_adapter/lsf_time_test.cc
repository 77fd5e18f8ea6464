#include "lsf_adapter/lsf_time.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace bplace::lsf {
namespace {

using namespace std::chrono_literals;
using std::chrono::sys_days;

// 2026-11-30 (a Monday) at hh:mm:ss UTC, and other fixed instants: the tests
// never read the wall clock.
SystemTime At(std::chrono::year_month_day date, std::chrono::hours h = 0h,
              std::chrono::minutes m = 0min, std::chrono::seconds s = 0s) {
  return SystemTime{sys_days{date} + h + m + s};
}

const SystemTime kNow = At(2026y / 11 / 30, 12h);

TEST(ParseLsfTimeTest, ReadsTheTableFormInTheYearOfNow) {
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40", kNow, 0), At(2026y / 11 / 30, 11h, 40min));
  EXPECT_EQ(ParseLsfTime("Jan  3 08:05", kNow, 0), At(2026y / 1 / 3, 8h, 5min));
  EXPECT_EQ(ParseLsfTime("Nov  3 11:40", kNow, 0), At(2026y / 11 / 3, 11h, 40min));
}

TEST(ParseLsfTimeTest, IgnoresSurroundingAndRepeatedBlanks) {
  EXPECT_EQ(ParseLsfTime("  Nov   3\t11:40 ", kNow, 0), At(2026y / 11 / 3, 11h, 40min));
}

TEST(ParseLsfTimeTest, ConvertsFromTheClustersLocalTime) {
  // 11:40 in CET (UTC+1) is 10:40 UTC; 11:40 in EST (UTC-5) is 16:40 UTC.
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40", kNow, 60), At(2026y / 11 / 30, 10h, 40min));
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40", kNow, -300), At(2026y / 11 / 30, 16h, 40min));
}

TEST(ParseLsfTimeTest, ChoosesTheYearFromNowInLocalTime) {
  // 2026-12-31 23:30 UTC is already 2027-01-01 00:30 in UTC+1.
  const SystemTime now = At(2026y / 12 / 31, 23h, 30min);
  EXPECT_EQ(ParseLsfTime("Jan  1 00:10", now, 60), At(2026y / 12 / 31, 23h, 10min));
}

TEST(ParseLsfTimeTest, TakesLastYearForADateLaterInTheYearThanNow) {
  const SystemTime now = At(2026y / 1 / 5, 9h);
  EXPECT_EQ(ParseLsfTime("Dec 31 23:00", now, 0), At(2025y / 12 / 31, 23h));
  EXPECT_EQ(ParseLsfTime("Jan  5 10:00", now, 0), At(2026y / 1 / 5, 10h));  // skew
  EXPECT_EQ(ParseLsfTime("Jan  7 09:00", now, 0), At(2025y / 1 / 7, 9h));
}

TEST(ParseLsfTimeTest, AllowsOneDayOfClockSkewIntoTheFuture) {
  EXPECT_EQ(ParseLsfTime("Dec  1 11:59", kNow, 0), At(2026y / 12 / 1, 11h, 59min));
  EXPECT_EQ(ParseLsfTime("Dec  1 12:01", kNow, 0), At(2025y / 12 / 1, 12h, 1min));
  const SystemTime new_years_eve = At(2026y / 12 / 31, 23h, 59min);
  EXPECT_EQ(ParseLsfTime("Jan  1 00:01", new_years_eve, 0), At(2027y / 1 / 1, 0h, 1min));
}

TEST(ParseLsfTimeTest, PutsFebruary29InTheLatestLeapYear) {
  EXPECT_EQ(ParseLsfTime("Feb 29 10:00", At(2026y / 3 / 1), 0), At(2024y / 2 / 29, 10h));
  EXPECT_EQ(ParseLsfTime("Feb 29 10:00", At(2028y / 3 / 1), 0), At(2028y / 2 / 29, 10h));
  EXPECT_EQ(ParseLsfTime("Feb 29 10:00", At(2028y / 2 / 28), 0), At(2024y / 2 / 29, 10h));
  // 2100 is not a leap year.
  EXPECT_EQ(ParseLsfTime("Feb 29 10:00", At(2101y / 3 / 1), 0), At(2096y / 2 / 29, 10h));
}

TEST(ParseLsfTimeTest, ReadsTheLongFormWithWeekdayAndSeconds) {
  EXPECT_EQ(ParseLsfTime("Mon Nov 30 11:40:47", kNow, 0), At(2026y / 11 / 30, 11h, 40min, 47s));
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40:47", kNow, 0), At(2026y / 11 / 30, 11h, 40min, 47s));
}

TEST(ParseLsfTimeTest, LetsTheWeekdayPickAnEarlierYear) {
  // Nov 30 is a Monday in 2026 and a Sunday in 2025.
  EXPECT_EQ(ParseLsfTime("Sun Nov 30 11:40:47", kNow, 0), At(2025y / 11 / 30, 11h, 40min, 47s));
}

TEST(ParseLsfTimeTest, UsesAYearWhenLsfPrintsOne) {
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40 2019", kNow, 0), At(2019y / 11 / 30, 11h, 40min));
  EXPECT_EQ(ParseLsfTime("Dec 24 18:00 2026", kNow, 0), At(2026y / 12 / 24, 18h));
  EXPECT_EQ(ParseLsfTime("Mon Nov 30 11:40:47 2026", kNow, 0),
            At(2026y / 11 / 30, 11h, 40min, 47s));
  EXPECT_EQ(ParseLsfTime("Tue Nov 30 11:40:47 2026", kNow, 0), std::nullopt);
  EXPECT_EQ(ParseLsfTime("Feb 29 10:00 2025", kNow, 0), std::nullopt);
}

TEST(ParseLsfTimeTest, ReadsEveryMonthAndWeekdayName) {
  for (unsigned m = 0; m < kLsfMonths.size(); ++m) {
    const std::string text = std::string(kLsfMonths[m]) + " 1 00:00 2026";
    EXPECT_EQ(ParseLsfTime(text, kNow, 0), At(2026y / std::chrono::month{m + 1} / 1)) << text;
  }
  // 2026-11-01 is a Sunday (c_encoding 0): Nov 1 to 7 are kLsfWeekdays in order.
  for (unsigned d = 0; d < kLsfWeekdays.size(); ++d) {
    const std::string text =
        std::string(kLsfWeekdays[d]) + " Nov " + std::to_string(d + 1) + " 00:00:00 2026";
    EXPECT_EQ(ParseLsfTime(text, kNow, 0), At(2026y / 11 / std::chrono::day{d + 1})) << text;
  }
}

TEST(ParseLsfTimeTest, ReadsVolclavasNumericForm) {
  EXPECT_EQ(ParseLsfTime("11/30-11:40:51", kNow, 0), At(2026y / 11 / 30, 11h, 40min, 51s));
  EXPECT_EQ(ParseLsfTime("12/31-23:00:00", At(2026y / 1 / 2), 0), At(2025y / 12 / 31, 23h));
}

TEST(ParseLsfTimeTest, RefusesGarbage) {
  for (const char* text : {"",
                           " ",
                           "-",
                           "Nov",
                           "Nov 30",
                           "Nov 30 11",
                           "Foo 30 11:40",
                           "nov 30 11:40",
                           "NOV 30 11:40",
                           "Nov 31 11:40",
                           "Feb 30 10:00",
                           "Nov 0 11:40",
                           "Nov 123 11:40",
                           "Nov 30 24:00",
                           "Nov 30 11:60",
                           "Nov 30 11:4",
                           "Nov 30 111:40",
                           "Nov 30 11:40:60",
                           "Nov 30 11:40:5",
                           "Nov 30 11:40 L",
                           "Nov 30 11:40 26",
                           "Nov 30 11:40 2026 x",
                           "Nov 30 11:40:47:",
                           "Xyz Nov 30 11:40",
                           "Mon Nov 30",
                           "Nov 30 1140",
                           "Nov 30 :40",
                           "Nov -3 11:40",
                           "13/30-11:40:51",
                           "00/30-11:40:51",
                           "11/31-11:40:51",
                           "11/30 11:40:51",
                           "11-30/11:40:51",
                           "11/30-",
                           "/-",
                           "11/30-11:40:51:00"}) {
    EXPECT_EQ(ParseLsfTime(text, kNow, 0), std::nullopt) << '"' << text << '"';
  }
}

TEST(ParseLsfTimeTest, RefusesAnOffsetNoTimeZoneHas) {
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40", kNow, 19 * 60), std::nullopt);
  EXPECT_EQ(ParseLsfTime("Nov 30 11:40", kNow, -19 * 60), std::nullopt);
  EXPECT_NE(ParseLsfTime("Nov 30 11:40", kNow, 14 * 60), std::nullopt);
}

// Sets TZ for one test and puts the old value back.
class ScopedTimeZone {
 public:
  explicit ScopedTimeZone(const char* tz) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ScopedTimeZone() {
    if (old_) {
      setenv("TZ", old_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  ScopedTimeZone(const ScopedTimeZone&) = delete;
  ScopedTimeZone& operator=(const ScopedTimeZone&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(LocalUtcOffsetMinutesTest, FollowsTheProcessTimeZoneAndDaylightSaving) {
  {
    const ScopedTimeZone utc("UTC0");
    EXPECT_EQ(LocalUtcOffsetMinutes(kNow), 0);
  }
  const ScopedTimeZone cet("CET-1CEST,M3.5.0,M10.5.0/3");
  EXPECT_EQ(LocalUtcOffsetMinutes(kNow), 60);
  EXPECT_EQ(LocalUtcOffsetMinutes(At(2026y / 7 / 1)), 120);
}

}  // namespace
}  // namespace bplace::lsf
