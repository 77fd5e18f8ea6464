#pragma once

// The command line of `rdma_probe` (CLI11). Reads the --config file through
// the loader it is given; no other I/O. Safe from any thread.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "rdma_probe/probe_options.h"

namespace bplace::rdma {

struct CliOptions {
  ProbeOptions ib;  // [ib] of --config (or the defaults), then the options over it
  bool use_state = true;
  bool elim = false;
  bool pretty = false;
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  // The arguments again without --elim and --interval: what an elim cycle
  // passes to its one-shot child. Starts with args[0].
  std::vector<std::string> child_args;
};

struct CliOutcome {
  // Set when the program should stop at once with this status: 0 after
  // --help, 2 after a usage error. `text` is then what to print (to stdout
  // for 0, stderr for 2).
  std::optional<int> exit_now;
  std::string text;
  // Set when --config could not be loaded ("PATH:LINE: ..."): a probe error.
  std::string config_error;
  CliOptions options;
};

// Parses `args` (args[0] is the program name):
//   rdma_probe [--config FILE] [--device DEV[:PORT]]... [--link-layer infiniband|ethernet|any]
//              [--min-rate GBPS] [--no-loopback] [--timeout S] [--sysfs-root DIR]
//              [--state-file FILE] [--no-state] [--elim] [--interval S] [--pretty]
//              [--boot-id-file FILE]
// Options given override the [ib] values of --config, which is read with
// `load_config` (the composition root passes config::LoadProbeOptions; it
// blocks on the file). --device replaces ib.devices as a whole.
using ProbeConfigLoader = std::function<Result<ProbeOptions>(const std::string& path)>;
CliOutcome ParseCommandLine(const std::vector<std::string>& args,
                            const ProbeConfigLoader& load_config);

}  // namespace bplace::rdma
