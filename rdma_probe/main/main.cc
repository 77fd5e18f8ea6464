// rdma_probe: one-shot probe (JSON report, exit status) or LSF elim loop.
// The composition root: parses the command line, builds LibibverbsApi and
// the clock, and guards the probe with a watchdog.

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "config/config.h"
#include "rdma_probe/cli.h"
#include "rdma_probe/clock.h"
#include "rdma_probe/elim.h"
#include "rdma_probe/libibverbs_api.h"
#include "rdma_probe/probe.h"
#include "rdma_probe/report.h"
#include "rdma_probe/watchdog.h"

namespace {

using bplace::rdma::Report;

void WriteAll(int fd, const std::string& text) { bplace::rdma::WriteAllToFd(fd, text); }

std::string ShortHostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  std::string host = name;
  return host.substr(0, host.find('.'));
}

std::string Render(const Report& report, bool pretty) {
  return bplace::rdma::ReportToJson(report).dump(pretty ? 2 : -1) + "\n";
}

// Runs the probe under a watchdog: past the probe timeout an error report
// is printed and the process exits with status 2 (a verbs call stuck in the
// driver cannot be cancelled).
int RunOneShot(const bplace::rdma::CliOptions& options, const std::string& host) {
  bplace::rdma::SystemClock clock;
  const auto timeout = options.ib.probe_timeout;
  auto work = [&]() -> bplace::rdma::WatchdogOutput {
    Report report;
    try {
      bplace::rdma::LibibverbsApi api(options.ib.sysfs_root);
      bplace::rdma::ProbeSettings settings;
      settings.ib = options.ib;
      settings.use_state = options.use_state;
      settings.boot_id_path = options.boot_id_path;
      settings.host = host;
      if (!api.fork_init_error().empty()) settings.notes.push_back(api.fork_init_error());
      report = bplace::rdma::RunProbe(api, clock, settings);
    } catch (const std::exception& e) {
      report = bplace::rdma::ErrorReport(host, clock.Now(), std::string("internal: ") + e.what());
    }
    return {Render(report, options.pretty), bplace::rdma::ExitCodeFor(report.verdict)};
  };
  auto on_timeout = [&] {
    return Render(
        bplace::rdma::ErrorReport(
            host, clock.Now(),
            "probe timed out after " + std::to_string(timeout.count()) + " s (a verbs call hung?)"),
        options.pretty);
  };
  return bplace::rdma::RunWithWatchdog(
      std::chrono::duration_cast<std::chrono::milliseconds>(timeout), work, on_timeout,
      bplace::rdma::ExitCodeFor(bplace::rdma::Verdict::kError), STDOUT_FILENO);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv, argv + argc);
    bplace::rdma::CliOutcome cli =
        bplace::rdma::ParseCommandLine(args, bplace::config::LoadProbeOptions);
    if (cli.exit_now) {
      WriteAll(*cli.exit_now == 0 ? STDOUT_FILENO : STDERR_FILENO, cli.text);
      return *cli.exit_now;
    }
    const std::string host = ShortHostname();
    if (!cli.config_error.empty()) {
      WriteAll(STDERR_FILENO, "rdma_probe: " + cli.config_error + "\n");
      // In elim mode a bad config is a start-up error: LIM restarts the elim
      // and the message is in its log. One-shot callers still get a report.
      if (!cli.options.elim) {
        const Report report = bplace::rdma::ErrorReport(host, std::chrono::system_clock::now(),
                                                        "config: " + cli.config_error);
        WriteAll(STDOUT_FILENO, Render(report, cli.options.pretty));
      }
      return 2;
    }
    if (cli.options.elim) {
      bplace::rdma::ElimSettings elim;
      elim.child_args = cli.options.child_args;
      elim.interval = cli.options.ib.elim_interval;
      // The child's watchdog answers at the probe timeout; two more seconds
      // for it to print and exit before it is killed.
      elim.child_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(
          cli.options.ib.probe_timeout + std::chrono::seconds(2));
      return bplace::rdma::RunElim(elim);
    }
    return RunOneShot(cli.options, host);
  } catch (const std::exception& e) {
    WriteAll(STDERR_FILENO, std::string("rdma_probe: internal error: ") + e.what() + "\n");
    return 2;
  }
}
