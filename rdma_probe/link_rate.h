#pragma once

// Decoding of InfiniBand port attributes into names and rates. Pure: no I/O,
// safe from any thread.

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "rdma_probe/verbs_api.h"

namespace bplace::rdma {

// Port state code (enum ibv_port_state) as ibv_devinfo prints it: "DOWN",
// "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER", "NOP"; "state N" otherwise.
std::string PortStateName(int state);
inline constexpr int kPortStateActive = 4;

// PortPhysicalState (IBTA PortInfo) as the kernel's sysfs `phys_state` names
// it: 1 "Sleep", 2 "Polling", 3 "Disabled", 4 "PortConfigurationTraining",
// 5 "LinkUp", 6 "LinkErrorRecovery", 7 "PhyTest"; "phys_state N" otherwise.
std::string PhysStateName(int phys_state);
inline constexpr int kPhysStateLinkUp = 5;

// "InfiniBand", "Ethernet" or "unspecified".
std::string LinkLayerName(LinkLayer link_layer);

// Number of lanes of an IBTA active_width code: 1 -> 1, 2 -> 4, 4 -> 8,
// 8 -> 12, 16 -> 2. nullopt for any other code.
std::optional<int> WidthLanes(std::uint32_t active_width);

// One lane of an IBTA active_speed code: its name and effective data rate in
// Gb/s, the figures the kernel's sysfs `rate` and ibstat use (after line
// coding): 1 SDR 2.5, 2 DDR 5, 4 QDR 10, 8 FDR10 10, 16 FDR 14, 32 EDR 25,
// 64 HDR 50, 128 NDR 100, and 256 XDR 200 when the installed rdma-core
// reports it (active_speed_ex). nullopt for any other code.
struct LaneSpeed {
  std::string_view name;
  double gbps;
};
std::optional<LaneSpeed> DecodeSpeed(std::uint32_t active_speed);

// A port's active link: width and speed decoded, rate = lanes x lane rate
// (4x HDR = 200 Gb/s, 4x NDR = 400 Gb/s).
struct LinkRate {
  std::string width;  // "4x"
  std::string speed;  // "HDR"
  double gbps = 0;
};

// Decodes the active width and speed of `port`. Fails with kInvalidArgument
// naming the unknown code ("unknown active_width code 3").
Result<LinkRate> DecodeLinkRate(std::uint32_t active_width, std::uint32_t active_speed);

// Reads the leading rate of a sysfs `ports/N/rate` file, in Gb/s. The kernel
// writes "%d%s Gb/sec (%dX%s)", e.g. "100 Gb/sec (4X EDR)" or
// "2.5 Gb/sec (1X SDR)"; trailing whitespace is ignored. Fails with
// kParseError quoting the text when it does not start with "<number> Gb/sec".
Result<double> ParseSysfsRate(std::string_view text);

// Formats a rate for people and elim lines: "200", "2.5", "10.3".
std::string FormatGbps(double gbps);

}  // namespace bplace::rdma
