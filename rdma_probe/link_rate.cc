#include "rdma_probe/link_rate.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace bplace::rdma {

std::string PortStateName(int state) {
  switch (state) {
    case 0:
      return "NOP";
    case 1:
      return "DOWN";
    case 2:
      return "INIT";
    case 3:
      return "ARMED";
    case 4:
      return "ACTIVE";
    case 5:
      return "ACTIVE_DEFER";
    default:
      return "state " + std::to_string(state);
  }
}

std::string PhysStateName(int phys_state) {
  switch (phys_state) {
    case 1:
      return "Sleep";
    case 2:
      return "Polling";
    case 3:
      return "Disabled";
    case 4:
      return "PortConfigurationTraining";
    case 5:
      return "LinkUp";
    case 6:
      return "LinkErrorRecovery";
    case 7:
      return "PhyTest";
    default:
      return "phys_state " + std::to_string(phys_state);
  }
}

std::string LinkLayerName(LinkLayer link_layer) {
  switch (link_layer) {
    case LinkLayer::kInfiniband:
      return "InfiniBand";
    case LinkLayer::kEthernet:
      return "Ethernet";
    case LinkLayer::kUnspecified:
      break;
  }
  return "unspecified";
}

std::optional<int> WidthLanes(std::uint32_t active_width) {
  switch (active_width) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return std::nullopt;
  }
}

std::optional<LaneSpeed> DecodeSpeed(std::uint32_t active_speed) {
  // Signalling rates are higher (FDR 14.0625, EDR 25.78125, HDR 53.125,
  // NDR 106.25 Gbaud per lane); minimum rates in the config are data rates,
  // as in the kernel's sysfs `rate` (drivers/infiniband/core/sysfs.c).
  switch (active_speed) {
    case 1:
      return LaneSpeed{"SDR", 2.5};
    case 2:
      return LaneSpeed{"DDR", 5};
    case 4:
      return LaneSpeed{"QDR", 10};
    case 8:
      return LaneSpeed{"FDR10", 10};
    case 16:
      return LaneSpeed{"FDR", 14};
    case 32:
      return LaneSpeed{"EDR", 25};
    case 64:
      return LaneSpeed{"HDR", 50};
    case 128:
      return LaneSpeed{"NDR", 100};
    case 256:
      // Only reachable through active_speed_ex (rdma-core >= 48); the 8-bit
      // active_speed cannot carry it.
      return LaneSpeed{"XDR", 200};
    default:
      return std::nullopt;
  }
}

Result<LinkRate> DecodeLinkRate(std::uint32_t active_width, std::uint32_t active_speed) {
  const std::optional<int> lanes = WidthLanes(active_width);
  if (!lanes) {
    return Fail(ErrorCode::kInvalidArgument,
                "unknown active_width code " + std::to_string(active_width));
  }
  const std::optional<LaneSpeed> lane = DecodeSpeed(active_speed);
  if (!lane) {
    return Fail(ErrorCode::kInvalidArgument,
                "unknown active_speed code " + std::to_string(active_speed));
  }
  return LinkRate{std::to_string(*lanes) + "x", std::string(lane->name), *lanes * lane->gbps};
}

Result<double> ParseSysfsRate(std::string_view text) {
  std::string_view rest = text;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  const std::string_view shown = rest;
  std::size_t digits = 0;
  while (digits < rest.size() &&
         ((rest[digits] >= '0' && rest[digits] <= '9') || rest[digits] == '.')) {
    ++digits;
  }
  double gbps = 0;
  // std::from_chars for double is in libstdc++ 11+, which Debian 12 has.
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + digits, gbps);
  if (digits == 0 || ec != std::errc() || end != rest.data() + digits ||
      rest.substr(digits).rfind(" Gb/sec", 0) != 0) {
    return Fail(ErrorCode::kParseError, "unreadable rate \"" + std::string(shown) + "\"");
  }
  return gbps;
}

std::string FormatGbps(double gbps) {
  char buf[32];
  if (std::fabs(gbps - std::round(gbps)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f", gbps);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", gbps);
  }
  return buf;
}

}  // namespace bplace::rdma
