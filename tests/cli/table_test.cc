#include "cli/table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace bplace::cli {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const Table kQueues{{"QUEUE", "CODE", "REASON"},
                    {{"maint", "queue_closed", "queue is Closed:Active: LSF rejects new jobs"},
                     {"io", "host_excluded", "host node007 is excluded by ~node007 in HOSTS"}}};

TEST(RenderTable, ColumnsAsWideAsTheirWidestCellTwoBlanksApart) {
  EXPECT_EQ(RenderTable(kQueues, 200),
            "QUEUE  CODE           REASON\n"
            "maint  queue_closed   queue is Closed:Active: LSF rejects new jobs\n"
            "io     host_excluded  host node007 is excluded by ~node007 in HOSTS\n");
}

TEST(RenderTable, ShrinksTheWidestColumnAndCutsWithTheMarker) {
  const std::string out = RenderTable(kQueues, 40);
  EXPECT_EQ(out,
            "QUEUE  CODE           REASON\n"
            "maint  queue_closed   queue is Closed:A…\n"
            "io     host_excluded  host node007 is e…\n");
  for (const std::string& line : Lines(out)) EXPECT_LE(DisplayWidth(line), 40u) << line;
}

TEST(RenderTable, EveryWidthDownToTheMinimumFits) {
  // Minimum: 5 + 6 + 6 columns and two gaps of 2.
  for (std::size_t width = 21; width <= 80; ++width) {
    for (const std::string& line : Lines(RenderTable(kQueues, width))) {
      EXPECT_LE(DisplayWidth(line), width) << width << ": " << line;
      EXPECT_NE(line.back(), ' ') << width;
    }
  }
}

TEST(RenderTable, BelowTheMinimumStaysAtTheMinimum) {
  for (const std::string& line : Lines(RenderTable(kQueues, 5))) {
    EXPECT_LE(DisplayWidth(line), 21u) << line;
  }
  EXPECT_EQ(Lines(RenderTable(kQueues, 5))[1], "maint  queue…  queue…");
}

TEST(RenderTable, CutsBetweenCodePointsNeverInsideOne) {
  const Table table{{"A"}, {{"ääääääääää"}}};
  const std::string out = RenderTable(table, 7);
  EXPECT_EQ(Lines(out)[1], "ääääää…");
  EXPECT_EQ(DisplayWidth(Lines(out)[1]), 7u);
}

TEST(RenderTable, ShortColumnsAreNeverCut) {
  const Table table{{"ID", "TEXT"}, {{"1234", std::string(100, 'x')}}};
  const auto lines = Lines(RenderTable(table, 30));
  EXPECT_EQ(lines[1].substr(0, 6), "1234  ");
  EXPECT_EQ(DisplayWidth(lines[1]), 30u);
}

TEST(DisplayWidth, CountsCodePoints) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth(kCutMarker), 1u);
  EXPECT_EQ(DisplayWidth("ä…"), 2u);
}

}  // namespace
}  // namespace bplace::cli
