#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "common/clock.h"
#include "daemon/cluster/ib_health.h"
#include "daemon/cluster/refresh_tier.h"
#include "daemon/cluster/snapshot_store.h"
#include "lsf_adapter/command_runner.h"

namespace bplace {

// What LocalIbProbe runs and how often.
struct LocalIbProbeOptions {
  std::string probe_path = "rdma_probe";  // absolute, or a name looked up in PATH of `env`
  std::string config_path;                // passed as --config when not empty
  std::string host;                       // the LSF name of this host
  std::chrono::seconds interval{60};
  std::chrono::seconds probe_timeout{10};  // passed as --timeout; the run is killed 5 s later
  std::vector<std::string> env;            // the probe's whole environment
};

// One run of `rdma_probe` as this host's InfiniBand verdict at `now`: its
// report (IbHealthFromProbe), or unhealthy with the reason when it could
// not start, was killed at `kill_after`, or died of a signal. Pure.
HostIbHealth HealthFromProbeRun(const Result<lsf::CommandResult>& run,
                                std::chrono::seconds kill_after, SystemTime now);

// [ib] source = "local": runs `rdma_probe --config FILE --timeout S` as a
// child process every interval (the daemon never calls verbs itself: verbs
// resources and fork() do not mix) and publishes the verdict for this host
// in the snapshot, on the RefreshTier engine (tier "ib"). A run that fails
// to start, times out or prints no report makes the host unhealthy with
// the reason.
// Thread-safe: Start and Stop may be called from any thread.
class LocalIbProbe {
 public:
  // All references must outlive the probe.
  LocalIbProbe(boost::asio::any_io_executor executor, lsf::CommandRunner& runner, Clock& clock,
               SnapshotStore& store, LocalIbProbeOptions options);

  // Runs the probe now, then every interval until Stop. The probe runs with
  // the daemon's identity (root in multi-user mode).
  void Start() { tier_.Start(); }
  // Cancels the timer and returns without waiting; a run in progress still
  // publishes, and its callback uses this object, so destroy it only after
  // the runner has shut down (the daemon does: runner.Shutdown() first).
  void Stop() { tier_.Stop(); }

 private:
  TierCycle Cycle() const;

  const LocalIbProbeOptions options_;
  RefreshTier tier_;
};

}  // namespace bplace
