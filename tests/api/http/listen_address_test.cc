#include "api/http/listen_address.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace::api {
namespace {

using ::testing::HasSubstr;

TEST(ParseListenAddressTest, AcceptsIpv4WithPortZero) {
  auto address = ParseListenAddress("127.0.0.1:0");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 0);
}

TEST(ParseListenAddressTest, AcceptsBracketedIpv6) {
  auto address = ParseListenAddress("[::1]:8080");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "::1");
  EXPECT_EQ(address->port, 8080);
  EXPECT_EQ(FormatListenAddress(*address), "[::1]:8080");
}

TEST(ParseListenAddressTest, LocalhostMeansIpv4Loopback) {
  auto address = ParseListenAddress("localhost:80");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 80);
}

TEST(ParseListenAddressTest, AcceptsAnyAddressAndTopPort) {
  auto address = ParseListenAddress("0.0.0.0:65535");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(FormatListenAddress(*address), "0.0.0.0:65535");
  EXPECT_TRUE(ParseListenAddress("[::]:0").has_value());
}

struct BadListenCase {
  const char* text;
  const char* problem;  // a substring the message must contain
};

class BadListenAddressTest : public ::testing::TestWithParam<BadListenCase> {};

TEST_P(BadListenAddressTest, IsRefusedWithReason) {
  auto address = ParseListenAddress(GetParam().text);
  ASSERT_FALSE(address.has_value()) << GetParam().text;
  EXPECT_EQ(address.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(address.error().message, HasSubstr(GetParam().problem));
}

INSTANTIATE_TEST_SUITE_P(
    EdgeCases, BadListenAddressTest,
    ::testing::Values(
        BadListenCase{"", "empty"}, BadListenCase{"127.0.0.1", "missing port"},
        BadListenCase{"127.0.0.1:70000", "between 0 and 65535"},
        BadListenCase{"127.0.0.1:99999999999999999999", "between 0 and 65535"},
        BadListenCase{"host:", "missing port"}, BadListenCase{":80", "missing host"},
        BadListenCase{"127.0.0.1:+80", "decimal"}, BadListenCase{"127.0.0.1:8o", "decimal"},
        BadListenCase{"127.0.0.1: 80", "decimal"}, BadListenCase{"login01:80", "host must be"},
        BadListenCase{"127.1:80", "host must be"}, BadListenCase{"256.0.0.1:80", "host must be"},
        BadListenCase{"::1:80", "brackets"}, BadListenCase{"[::1]", "missing port"},
        BadListenCase{"[::1]:", "missing port"}, BadListenCase{"[::1:80", "missing `]`"},
        BadListenCase{"[]:80", "missing host"},
        BadListenCase{"[127.0.0.1]:80", "not an IPv6 address"},
        BadListenCase{"[::1]x80", "missing port"}));

TEST(ParseListenAddressTest, AcceptsUnixSocketPath) {
  auto address = ParseListenAddress("unix:/run/bplace/bplace.sock");
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->unix_path, "/run/bplace/bplace.sock");
  EXPECT_EQ(FormatListenAddress(*address), "unix:/run/bplace/bplace.sock");
}

TEST(ParseListenAddressTest, RefusesRelativeLongAndDirectoryUnixPaths) {
  EXPECT_THAT(ParseListenAddress("unix:bplace.sock").error().message,
              HasSubstr("needs an absolute path"));
  EXPECT_THAT(ParseListenAddress("unix:").error().message, HasSubstr("needs an absolute path"));
  EXPECT_THAT(ParseListenAddress("unix:/" + std::string(107, 'a')).error().message,
              HasSubstr("longer than 107 bytes"));
  EXPECT_THAT(ParseListenAddress("unix:/run/bplace/").error().message,
              HasSubstr("names a directory"));
}

}  // namespace
}  // namespace bplace::api
