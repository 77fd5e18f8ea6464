#pragma once

// `rdma_probe --elim`: the LSF external load indicator loop. LIM's MELIM
// starts the elim and reads lines "N name1 value1 ... nameN valueN" from its
// stdout for as long as it runs.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bplace::rdma {

// The elim line for a one-shot report: "2 ib_ok 1 ib_rate 200\n" when the
// report's verdict is "healthy" and it has a rate_gbps, "1 ib_ok 0\n" for
// anything else: unhealthy, error, unparseable text or no text (a child
// that was killed or crashed). `report_json` is the child's stdout. Pure.
std::string ElimLineForReport(std::string_view report_json);

struct ElimSettings {
  std::string exe = "/proc/self/exe";   // the one-shot probe, run once per cycle
  std::vector<std::string> child_args;  // its argv (argv[0] included), without --elim
  std::chrono::seconds interval{60};    // from the start of one cycle to the next
  // A child still running this long after it started is killed (SIGKILL)
  // and the cycle reports "1 ib_ok 0". The child's own watchdog fires at the
  // probe timeout, so callers pass that plus a grace period.
  std::chrono::milliseconds child_deadline{12000};
  int out_fd = 1;  // where the lines go, written with write(2), unbuffered
};

// Runs the elim loop until SIGTERM or SIGINT; returns the exit status:
// 0 after a signal, 2 when a line cannot be written (EPIPE: LIM went away;
// SIGPIPE is ignored so that write reports it) or no signalfd can be made.
// A child that cannot be started gives "1 ib_ok 0" and a message on stderr
// for that cycle, and the loop goes on. Blocks the calling
// thread; must be called from the only thread of the process, because it
// blocks SIGTERM, SIGINT in the signal mask and reads them from a signalfd.
// Children get an empty signal mask and default dispositions. A child that
// cannot be reaped after SIGKILL (stuck in the driver) is retried in later
// cycles, never waited for.
int RunElim(const ElimSettings& settings);

}  // namespace bplace::rdma
