#include "lsf_adapter/lsid_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::ReadTestdata;
using testing::WithCrlf;

TEST(ParseLsidTest, ReadsIbmLsf10Output) {
  auto info = ParseLsid(ReadTestdata("lsf/lsf10/lsid.txt"));
  ASSERT_TRUE(info.has_value()) << info.error().message;
  EXPECT_EQ(info->version, "IBM Spectrum LSF Standard 10.1.0.13, Jun 03 2022");
  EXPECT_EQ(info->cluster_name, "cluster1");
  EXPECT_EQ(info->master_name, "lsfmaster01");
}

TEST(ParseLsidTest, ReadsVolclavaOutputWithCrlfToo) {
  for (const std::string& text :
       {ReadTestdata("lsf/openlava/lsid.txt"), WithCrlf(ReadTestdata("lsf/openlava/lsid.txt"))}) {
    auto info = ParseLsid(text);
    ASSERT_TRUE(info.has_value()) << info.error().message;
    EXPECT_EQ(info->version, "volclava project 2.2, Nov 30 2026");
    EXPECT_EQ(info->cluster_name, "olcluster");
    EXPECT_EQ(info->master_name, "vm");
  }
}

TEST(ParseLsidTest, SkipsChatterBeforeTheVersionLine) {
  auto info = ParseLsid("LSF is down. Please wait...\n" + ReadTestdata("lsf/openlava/lsid.txt"));
  ASSERT_TRUE(info.has_value()) << info.error().message;
  EXPECT_EQ(info->version, "volclava project 2.2, Nov 30 2026");
}

TEST(ParseLsidTest, AcceptsTheManagementHostWording) {
  auto info = ParseLsid(
      "IBM Spectrum LSF Standard 10.1.0.15, Oct 10 2024\n\nMy cluster name is c1\n"
      "My management host name is mgmt01\n");
  ASSERT_TRUE(info.has_value()) << info.error().message;
  EXPECT_EQ(info->master_name, "mgmt01");
}

TEST(ParseLsidTest, FailsWhenLimIsDownAndOnlyTheVersionIsPrinted) {
  auto info = ParseLsid(ReadTestdata("lsf/openlava/lsid_lim_down.txt"));
  ASSERT_FALSE(info.has_value());
  EXPECT_EQ(info.error().code, ErrorCode::kParseError);
  EXPECT_EQ(info.error().message, "lsid: no \"My cluster name is\" line");
}

TEST(ParseLsidTest, FailsOnEmptyInputOrAMissingMaster) {
  EXPECT_FALSE(ParseLsid("").has_value());
  auto info = ParseLsid("volclava project 2.2, Nov 30 2026\nMy cluster name is c\n");
  ASSERT_FALSE(info.has_value());
  EXPECT_EQ(info.error().message, "lsid: no \"My master name is\" line");
}

}  // namespace
}  // namespace bplace::lsf
