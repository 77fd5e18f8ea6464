#include "lsf_adapter/bhosts_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::ReadTestdata;
using testing::WithCrlf;

TEST(ParseBhostsTest, ParsesLsf10SampleWithEveryStatus) {
  auto hosts = ParseBhosts(ReadTestdata("lsf/lsf10/bhosts_w.txt"));
  ASSERT_TRUE(hosts.has_value()) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 4u);
  const std::vector<std::pair<std::string, std::string>> expected = {{"login01", "closed_Adm"},
                                                                     {"node001", "ok"},
                                                                     {"node002", "closed_Full"},
                                                                     {"node003", "unavail"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*hosts)[i].name, expected[i].first);
    EXPECT_EQ((*hosts)[i].status, expected[i].second);
    EXPECT_FALSE((*hosts)[i].jl_u.has_value());
  }
  EXPECT_EQ((*hosts)[0].max, 0);
  const HostStatus& node002 = (*hosts)[2];
  EXPECT_EQ(node002.max, 48);
  EXPECT_EQ(node002.njobs, 48);
  EXPECT_EQ(node002.run, 48);
  EXPECT_EQ(node002.ssusp, 0);
  EXPECT_EQ(node002.ususp, 0);
  EXPECT_EQ(node002.rsv, 0);
}

struct BhostsCapture {
  const char* file;
  const char* status;
  std::int64_t njobs;
};

class OpenLavaBhostsTest : public ::testing::TestWithParam<BhostsCapture> {};

TEST_P(OpenLavaBhostsTest, ParsesTheOneHost) {
  for (const std::string& text :
       {ReadTestdata(GetParam().file), WithCrlf(ReadTestdata(GetParam().file))}) {
    auto hosts = ParseBhosts(text);
    ASSERT_TRUE(hosts.has_value()) << hosts.error().message;
    ASSERT_EQ(hosts->size(), 1u);
    EXPECT_EQ((*hosts)[0].name, "vm");
    EXPECT_EQ((*hosts)[0].status, GetParam().status);
    EXPECT_EQ((*hosts)[0].max, 4);
    EXPECT_EQ((*hosts)[0].njobs, GetParam().njobs);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Captures, OpenLavaBhostsTest,
    ::testing::Values(BhostsCapture{"lsf/openlava/bhosts.txt", "ok", 0},
                      BhostsCapture{"lsf/openlava/bhosts_w.txt", "ok", 0},
                      BhostsCapture{"lsf/openlava/bhosts_w_unreach.txt", "unreach", 4},
                      BhostsCapture{"lsf/openlava/bhosts_w_closed_full.txt", "closed_Full", 4}));

TEST(ParseBhostsTest, FindsColumnsByHeaderNameWhenASiteAddsOneOrReorders) {
  auto hosts = ParseBhosts(
      "STATUS   HOST_NAME  EXTRA  MAX  JL/U  NJOBS  RUN  SSUSP  USUSP  RSV  \n"
      "ok       node1      x       -     2     3     2      1      0    0\n");
  ASSERT_TRUE(hosts.has_value()) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 1u);
  EXPECT_EQ((*hosts)[0].name, "node1");
  EXPECT_EQ((*hosts)[0].status, "ok");
  EXPECT_FALSE((*hosts)[0].max.has_value());
  EXPECT_EQ((*hosts)[0].jl_u, 2);
  EXPECT_EQ((*hosts)[0].njobs, 3);
  EXPECT_EQ((*hosts)[0].run, 2);
  EXPECT_EQ((*hosts)[0].ssusp, 1);
}

TEST(ParseBhostsTest, SkipsChatterAndReturnsNoHostsForAHeaderWithoutRows) {
  auto hosts = ParseBhosts(
      "LSF is down. Please wait...\n"
      "HOST_NAME          STATUS          JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n");
  ASSERT_TRUE(hosts.has_value()) << hosts.error().message;
  EXPECT_TRUE(hosts->empty());
}

TEST(ParseBhostsTest, FailsWithNoHeaderOnEmptyOrErrorOutput) {
  for (const char* text : {"", "Connection refused by server\n",
                           "Failed in an LSF library call: LIM is down; try later\n"}) {
    auto hosts = ParseBhosts(text);
    ASSERT_FALSE(hosts.has_value());
    EXPECT_EQ(hosts.error().code, ErrorCode::kParseError);
    EXPECT_NE(hosts.error().message.find("no header"), std::string::npos);
  }
}

TEST(ParseBhostsTest, NamesTheMissingColumnAndBadRows) {
  auto missing = ParseBhosts("HOST_NAME STATUS JL/U MAX NJOBS RUN SSUSP USUSP\n");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "bhosts -w line 1: header has no RSV column");
  auto short_row = ParseBhosts(ReadTestdata("lsf/lsf10/bhosts_w.txt") + "node004 ok\n");
  ASSERT_FALSE(short_row.has_value());
  EXPECT_EQ(short_row.error().message, "bhosts -w line 6: expected 9 columns, got 2");
  auto bad_number =
      ParseBhosts("HOST_NAME STATUS JL/U MAX NJOBS RUN SSUSP USUSP RSV\nn1 ok - 4 0 0 0 0 x\n");
  ASSERT_FALSE(bad_number.has_value());
  EXPECT_EQ(bad_number.error().message, "bhosts -w line 2: RSV is \"x\", not a whole number");
}

}  // namespace
}  // namespace bplace::lsf
