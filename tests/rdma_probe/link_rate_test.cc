#include "rdma_probe/link_rate.h"

#include <gtest/gtest.h>

namespace bplace::rdma {
namespace {

double Rate(std::uint32_t width, std::uint32_t speed) {
  Result<LinkRate> rate = DecodeLinkRate(width, speed);
  EXPECT_TRUE(rate) << (rate ? "" : rate.error().message);
  return rate ? rate->gbps : -1;
}

TEST(LinkRateTest, DecodesIbtaWidthCodes) {
  EXPECT_EQ(WidthLanes(1), 1);
  EXPECT_EQ(WidthLanes(2), 4);
  EXPECT_EQ(WidthLanes(4), 8);
  EXPECT_EQ(WidthLanes(8), 12);
  EXPECT_EQ(WidthLanes(16), 2);
  EXPECT_FALSE(WidthLanes(3));
}

TEST(LinkRateTest, UsesEffectiveDataRatesPerLane) {
  EXPECT_DOUBLE_EQ(Rate(1, 1), 2.5);    // 1x SDR
  EXPECT_DOUBLE_EQ(Rate(2, 2), 20);     // 4x DDR
  EXPECT_DOUBLE_EQ(Rate(2, 4), 40);     // 4x QDR
  EXPECT_DOUBLE_EQ(Rate(2, 8), 40);     // 4x FDR10
  EXPECT_DOUBLE_EQ(Rate(2, 16), 56);    // 4x FDR
  EXPECT_DOUBLE_EQ(Rate(2, 32), 100);   // 4x EDR
  EXPECT_DOUBLE_EQ(Rate(2, 64), 200);   // 4x HDR
  EXPECT_DOUBLE_EQ(Rate(2, 128), 400);  // 4x NDR
  EXPECT_DOUBLE_EQ(Rate(16, 64), 100);  // 2x HDR (HDR100)
  EXPECT_DOUBLE_EQ(Rate(8, 4), 120);    // 12x QDR
  EXPECT_DOUBLE_EQ(Rate(2, 256), 800);  // 4x XDR, when rdma-core reports it
}

TEST(LinkRateTest, NamesWidthAndSpeed) {
  Result<LinkRate> rate = DecodeLinkRate(16, 128);
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->width, "2x");
  EXPECT_EQ(rate->speed, "NDR");
}

TEST(LinkRateTest, UnknownCodesAreErrors) {
  Result<LinkRate> width = DecodeLinkRate(3, 64);
  ASSERT_FALSE(width);
  EXPECT_EQ(width.error().message, "unknown active_width code 3");
  Result<LinkRate> speed = DecodeLinkRate(2, 0);
  ASSERT_FALSE(speed);
  EXPECT_EQ(speed.error().message, "unknown active_speed code 0");
}

TEST(LinkRateTest, ParsesKernelRateFile) {
  EXPECT_EQ(ParseSysfsRate("100 Gb/sec (4X EDR)\n"), 100.0);
  EXPECT_EQ(ParseSysfsRate("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_EQ(ParseSysfsRate("400 Gb/sec (4X NDR)\n"), 400.0);
  EXPECT_FALSE(ParseSysfsRate(""));
  EXPECT_FALSE(ParseSysfsRate("fast"));
  EXPECT_FALSE(ParseSysfsRate("100 Mb/sec"));
}

TEST(LinkRateTest, NamesStates) {
  EXPECT_EQ(PortStateName(1), "DOWN");
  EXPECT_EQ(PortStateName(4), "ACTIVE");
  EXPECT_EQ(PortStateName(9), "state 9");
  EXPECT_EQ(PhysStateName(2), "Polling");
  EXPECT_EQ(PhysStateName(5), "LinkUp");
  EXPECT_EQ(FormatGbps(200), "200");
  EXPECT_EQ(FormatGbps(2.5), "2.5");
}

}  // namespace
}  // namespace bplace::rdma
