#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "daemon/cluster_cache.h"
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

// [ib] source = "local": runs `rdma_probe --config FILE --timeout S` as a
// child process every interval (the daemon never calls verbs itself: verbs
// resources and fork() do not mix) and publishes the verdict for this host
// in the cache. A run that fails to start, times out or prints no report
// makes the host unhealthy with the reason.
// Thread-safe: Start and Stop may be called from any thread.
class LocalIbProbe {
 public:
  LocalIbProbe(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
               ClusterCache& cache, LocalIbProbeOptions options);

  // Runs the probe now, then every interval until Stop. The probe runs with
  // the daemon's identity (root in multi-user mode).
  void Start();
  // Cancels the timer and returns without waiting; a run in progress still
  // publishes, and its callback uses this object, so destroy it only after
  // the runner has shut down (the daemon does: runner.Shutdown() first).
  void Stop();

 private:
  void RunOnce();
  void Schedule();

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  lsf::CommandRunner& runner_;
  ClusterCache& cache_;
  const LocalIbProbeOptions options_;
  boost::asio::steady_timer timer_;  // on strand_
  bool stopped_ = false;             // on strand_
};

}  // namespace bplace
