#pragma once

// One probe of this host's RDMA devices: passive checks, counters, loopback,
// verdict. Blocking (verbs calls, file I/O); no shared state; one probe per
// VerbsApi at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "rdma_probe/clock.h"
#include "rdma_probe/probe_options.h"
#include "rdma_probe/report.h"
#include "rdma_probe/verbs_api.h"

namespace bplace::rdma {

// An entry of IbConfig::devices / `--device`: "mlx5_0" or "mlx5_0:1".
struct DeviceSelector {
  std::string device;
  std::optional<std::uint32_t> port;  // nullopt: every port
};

// Parses the entries. Fails with kInvalidArgument naming the entry when a
// device name is empty or a port is not an integer in 1..255.
Result<std::vector<DeviceSelector>> ParseDeviceSelectors(const std::vector<std::string>& entries);

struct ProbeSettings {
  ProbeOptions ib;
  bool use_state = true;  // false (`--no-state`): no baseline is read or written
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  std::string host;                // short host name, copied into the report
  std::vector<std::string> notes;  // copied into the report's notes
};

// Probes the devices selected by settings.ib.devices (empty: every device;
// then ports whose link layer differs from settings.ib.link_layer are listed
// but not checked) and returns the report; never throws on device trouble.
//   - no RDMA stack / no HCA / a selected device or port missing: kUnhealthy
//     with a reason ("no RDMA stack (ibv_get_device_list: Function not
//     implemented)", "no HCA (no RDMA device found)", "mlx5_1: no such device",
//     "mlx5_0 port 3: no such port (the device has 1)");
//   - a bad selector: kError ("config: ib.devices: ...");
//   - otherwise kHealthy when no checked port has a reason and at least one
//     port was checked.
// Counter baselines come from and go to settings.ib.state_file unless
// use_state is false; an unusable state file is a note, never a failure.
// Time comes from `clock`.
Report RunProbe(VerbsApi& api, Clock& clock, const ProbeSettings& settings);

}  // namespace bplace::rdma
