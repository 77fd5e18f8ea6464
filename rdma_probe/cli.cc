#include "rdma_probe/cli.h"

#include <CLI/CLI.hpp>

namespace bplace::rdma {
namespace {

constexpr const char* kFooter = R"(Output (one-shot mode): a JSON report on stdout,
  {"host", "verdict": "healthy"|"unhealthy"|"error", "reasons": [...],
   "rate_gbps": <lowest rate of the healthy checked ports, or null>,
   "probed_at": "<ISO-8601 UTC>", "notes": [...], "devices": [...]}
Exit status: 0 healthy, 1 unhealthy (including no RDMA stack and no HCA),
  2 probe error (bad options or config, timeout, internal failure).
--elim: runs as an LSF external load indicator: every interval prints
  "2 ib_ok 1 ib_rate <Gb/s>" or "1 ib_ok 0", each probe in a child process
  killed at --timeout; exits 0 on SIGTERM/SIGINT, non-zero when stdout breaks.
See deploy/elim/README.md.)";

LinkLayerWanted LinkLayerFromName(const std::string& name) {
  if (name == "ethernet") return LinkLayerWanted::kEthernet;
  if (name == "any") return LinkLayerWanted::kAny;
  return LinkLayerWanted::kInfiniband;
}

// The child of an elim cycle gets every argument but the elim ones.
std::vector<std::string> ChildArgs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (i > 0 && arg == "--elim") continue;
    if (i > 0 && arg == "--interval") {
      ++i;  // and its value
      continue;
    }
    if (i > 0 && arg.rfind("--interval=", 0) == 0) continue;
    out.push_back(arg);
  }
  return out;
}

}  // namespace

CliOutcome ParseCommandLine(const std::vector<std::string>& args,
                            const ProbeConfigLoader& load_config) {
  CliOutcome outcome;
  CLI::App app{
      "rdma_probe: checks this host's InfiniBand/RoCE ports (state, link, rate, error "
      "counters, an RC loopback message) and reports a verdict as JSON, or as LSF elim lines.",
      "rdma_probe"};
  app.footer(kFooter);

  std::string config_path;
  std::vector<std::string> devices;
  std::string link_layer;
  double min_rate = 0;
  int timeout_s = 0;
  int interval_s = 0;
  std::string sysfs_root;
  std::string state_file;
  std::string boot_id_file;
  bool no_loopback = false;
  bool no_state = false;
  bool elim = false;
  bool pretty = false;

  app.add_option("--config", config_path,
                 "bplaced TOML file whose [ib] table sets the defaults (e.g. "
                 "/etc/bplace/bplaced.toml); without it, built-in defaults")
      ->check(CLI::ExistingFile);
  auto* device_opt = app.add_option("--device", devices,
                                    "device or DEV:PORT to check (repeatable); default: every "
                                    "port of the configured link layer on every device");
  auto* link_opt = app.add_option("--link-layer", link_layer, "link layer the ports must have")
                       ->check(CLI::IsMember({"infiniband", "ethernet", "any"}));
  auto* rate_opt =
      app.add_option("--min-rate", min_rate, "minimum active rate per port in Gb/s (0 = none)")
          ->check(CLI::Range(0.0, 100000.0));
  app.add_flag("--no-loopback", no_loopback, "skip the RC loopback message");
  auto* timeout_opt =
      app.add_option("--timeout", timeout_s, "whole-probe timeout in seconds; past it: error")
          ->check(CLI::Range(1, 3600));
  auto* sysfs_opt = app.add_option("--sysfs-root", sysfs_root,
                                   "where the RDMA devices are in sysfs "
                                   "(default /sys/class/infiniband)");
  auto* state_opt =
      app.add_option("--state-file", state_file, "counter baseline file (JSON, rewritten)");
  app.add_flag("--no-state", no_state, "neither read nor write a counter baseline");
  app.add_flag("--elim", elim, "run as an LSF elim (see below)");
  auto* interval_opt = app.add_option("--interval", interval_s, "--elim: seconds between reports")
                           ->check(CLI::Range(1, 86400));
  app.add_flag("--pretty", pretty, "indent the JSON report");
  auto* boot_opt = app.add_option("--boot-id-file", boot_id_file,
                                  "boot id file (default /proc/sys/kernel/random/boot_id; "
                                  "for tests)");

  std::vector<std::string> reversed(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    outcome.exit_now = 0;
    outcome.text = app.help();
    return outcome;
  } catch (const CLI::ParseError& e) {
    outcome.exit_now = 2;
    outcome.text =
        std::string("rdma_probe: ") + e.what() + "\nRun with --help for more information.\n";
    return outcome;
  }

  CliOptions& options = outcome.options;
  if (!config_path.empty()) {
    Result<ProbeOptions> loaded = load_config(config_path);
    if (!loaded) {
      outcome.config_error = loaded.error().message;
    } else {
      options.ib = std::move(*loaded);
    }
  }
  ProbeOptions& ib = options.ib;
  if (device_opt->count() > 0) ib.devices = devices;
  if (link_opt->count() > 0) ib.link_layer = LinkLayerFromName(link_layer);
  if (rate_opt->count() > 0) ib.min_rate_gbps = min_rate;
  if (no_loopback) ib.loopback = false;
  if (timeout_opt->count() > 0) ib.probe_timeout = std::chrono::seconds(timeout_s);
  if (sysfs_opt->count() > 0) ib.sysfs_root = sysfs_root;
  if (state_opt->count() > 0) ib.state_file = state_file;
  if (interval_opt->count() > 0) ib.elim_interval = std::chrono::seconds(interval_s);
  if (boot_opt->count() > 0) options.boot_id_path = boot_id_file;
  options.use_state = !no_state;
  options.elim = elim;
  options.pretty = pretty;
  options.child_args = ChildArgs(args);
  return outcome;
}

}  // namespace bplace::rdma
