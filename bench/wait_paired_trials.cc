#include "bench/wait_paired_trials.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/bench_util.h"

namespace bplace::bench {
namespace {

using nlohmann::json;
using testing::DaemonProcess;
using testing::SimCluster;
using SteadyClock = std::chrono::steady_clock;

// The dispatch sessions, and in which one each trial job started. The
// mutex is held for a session and the reading of the job table after it,
// and for a trial's placement and submissions: a pair is always submitted
// between two sessions, and a job seen started after session n and not
// after n-1 was dispatched by session n.
struct Sessions {
  std::mutex mutex;
  int count = 0;
  std::set<std::string> waiting;          // trial job ids not seen started
  std::map<std::string, int> started_in;  // trial job id -> its session
  int unreadable_tables = 0;              // `lsfsim jobs` answers not read
};

// One dispatch session, then the trial jobs it started.
void Dispatch(const SimCluster& sim, Sessions& sessions) {
  std::lock_guard lock(sessions.mutex);
  sim.Lsf({"lsfsim", "schedule", "--run"});
  ++sessions.count;
  if (sessions.waiting.empty()) return;
  const json table = json::parse(sim.Lsf({"lsfsim", "jobs"}).out, nullptr, false);
  if (!table.is_object() || !table.contains("jobs")) {
    ++sessions.unreadable_tables;  // a start would be put one session late: reported
    return;
  }
  for (const json& job : table["jobs"]) {
    const std::string id = std::to_string(job.value("id", 0LL));
    if (sessions.waiting.contains(id) && job.value("start_time", 0LL) > 0) {
      sessions.started_in[id] = sessions.count;
      sessions.waiting.erase(id);
    }
  }
}

// Runs a dispatch session every interval until `stop`.
void SchedulingClock(const SimCluster& sim, int interval_ms, Sessions& sessions,
                     const std::atomic<bool>& stop) {
  while (!stop) {
    Dispatch(sim, sessions);
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
}

SteadyClock::duration Seconds(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

// Submits `sleep` jobs straight to LSF until `stop`, each queue with its
// run times and at a load drawn every phase (PairedOptions). Returns the
// jobs submitted.
int BackgroundLoad(const SimCluster& sim, const PairedOptions& options,
                   const std::atomic<bool>& stop) {
  constexpr std::array<double, 4> kLoads{0.3, 0.6, 1.0, 1.4};
  std::mt19937 random(static_cast<unsigned>(options.seed) + 1000);
  std::uniform_int_distribution<std::size_t> pick(0, kLoads.size() - 1);
  const std::size_t n = options.queues.size();
  std::vector<std::uniform_int_distribution<int>> run_s;
  for (const LoadedQueue& queue : options.queues)
    run_s.emplace_back(queue.min_run_s, queue.max_run_s);
  std::vector<std::exponential_distribution<double>> gap(n);
  std::vector<SteadyClock::time_point> next(n);
  SteadyClock::time_point phase_end{};
  int submitted = 0;
  while (!stop) {
    const auto now = SteadyClock::now();
    if (now >= phase_end) {
      for (std::size_t q = 0; q < n; ++q) {
        const LoadedQueue& queue = options.queues[q];
        const double mean_run_s = (queue.min_run_s + queue.max_run_s) / 2.0;
        const double rate = kLoads[pick(random)] * queue.slots / mean_run_s;
        gap[q] = std::exponential_distribution<double>(rate);
        next[q] = now + Seconds(gap[q](random));
      }
      phase_end = now + std::chrono::seconds(options.phase_s);
    }
    const auto q =
        static_cast<std::size_t>(std::min_element(next.begin(), next.end()) - next.begin());
    if (next[q] > now) {
      // Short naps: `stop` and the phase's end are seen in time.
      std::this_thread::sleep_for(std::min<SteadyClock::duration>(next[q] - now, Seconds(0.1)));
      continue;
    }
    sim.Lsf({"bsub", "-q", options.queues[q].name, "sleep " + std::to_string(run_s[q](random))});
    ++submitted;
    next[q] += Seconds(gap[q](random));
  }
  return submitted;
}

// One trial: bplace's order of the two queues and what each judge picked.
struct Pair {
  std::array<std::string, 2> queue;  // bplace's order: queue[0] ranked first
  std::array<std::int64_t, 2> bound_s{};
  std::array<std::string, 2> method;  // expected_start.method
  std::array<std::string, 2> job_id;
  std::array<double, 2> backlog{};  // slots_to_free / capacity
  std::array<double, 2> pend{};
  std::array<double, 2> p50_s{-1, -1};  // -1: none
  int fewer_pend = -1;                  // index of the queue with fewer PEND; -1 equal
  int smaller_backlog = -1;             // index of the smaller slots_to_free / capacity; -1 equal
  int smaller_bound = -1;               // index of the smaller expected_start.bound_s; -1 equal
  int smaller_p50 = -1;  // index of the smaller expected_start.p50_s; -1 equal or unknown
};

// bplace's two candidates, in its order, when both must wait and have a
// bound; none otherwise (a queue could start the job now, had no bound,
// or was not a candidate).
std::optional<std::array<json, 2>> WaitingCandidates(const json& placement) {
  const json list = placement.value("candidates", json::array());
  if (list.size() != 2) return std::nullopt;
  for (const json& candidate : list) {
    if (candidate.value("starts_now", true)) return std::nullopt;
    if (!candidate.value("expected_start", json::object()).value("bound_s", json()).is_number()) {
      return std::nullopt;
    }
  }
  return std::array<json, 2>{list[0], list[1]};
}

// The index of the smaller of two values; -1 when equal.
int Smaller(double a, double b) { return a < b ? 0 : (b < a ? 1 : -1); }

double Backlog(const json& candidate) {
  const double capacity = std::max(1.0, candidate.value("capacity", 1.0));
  return candidate.value("slots_to_free", 0.0) / capacity;
}

// The job id of a `sleep 1` submitted through bplace to `queue` alone;
// empty when bplace refused it.
std::string SubmitPinned(const DaemonProcess& daemon, const std::string& queue) {
  const json body{{"queues", {queue}}, {"command", "sleep 1"}};
  const testing::HttpReply reply = daemon.Post("/v1/jobs", body.dump());
  return reply.status == 201 ? reply.Json().value("job_id", "") : "";
}

// At this moment, between two sessions: a pair when both queues must wait
// with a bound (both submitted, in alternating order), else none.
std::optional<Pair> TryPair(const DaemonProcess& daemon, const std::string& placement_target,
                            bool reversed, Sessions& sessions) {
  std::lock_guard lock(sessions.mutex);
  const auto candidates = WaitingCandidates(daemon.Get(placement_target).Json());
  if (!candidates) return std::nullopt;
  Pair pair;
  for (int i = 0; i < 2; ++i) {
    const json& c = (*candidates)[i];
    pair.queue[i] = c.value("queue", "");
    pair.bound_s[i] = c["expected_start"]["bound_s"].get<std::int64_t>();
    pair.method[i] = c["expected_start"].value("method", "");
    pair.backlog[i] = Backlog(c);
    pair.pend[i] = c.value("pend", 0.0);
    const json p50 = c["expected_start"].value("p50_s", json());
    if (p50.is_number()) pair.p50_s[i] = p50.get<double>();
  }
  pair.fewer_pend = Smaller(pair.pend[0], pair.pend[1]);
  pair.smaller_backlog = Smaller(pair.backlog[0], pair.backlog[1]);
  pair.smaller_bound =
      Smaller(static_cast<double>(pair.bound_s[0]), static_cast<double>(pair.bound_s[1]));
  if (pair.p50_s[0] >= 0 && pair.p50_s[1] >= 0) {
    pair.smaller_p50 = Smaller(pair.p50_s[0], pair.p50_s[1]);
  }
  // Who is submitted first alternates: no queue gains from it.
  for (int k = 0; k < 2; ++k) {
    const int i = reversed ? 1 - k : k;
    pair.job_id[i] = SubmitPinned(daemon, pair.queue[i]);
  }
  if (pair.job_id[0].empty() || pair.job_id[1].empty()) return std::nullopt;
  sessions.waiting.insert(pair.job_id.begin(), pair.job_id.end());
  return pair;
}

// How the pairs came out for one way of choosing the first queue.
struct Tally {
  int first = 0;   // the chosen queue's job started first
  int second = 0;  // the other's did
  int ties = 0;    // same session
  int equal = 0;   // the judge could not choose (equal values)
  std::string Ratio() const {
    if (first + second == 0) return "-";
    char text[64];
    std::snprintf(text, sizeof text, "%.3f (%d of %d)",
                  static_cast<double>(first) / (first + second), first, first + second);
    return text;
  }
};

// Counts a decided pair for a judge that picked index `pick` (-1: none).
void Count(Tally& tally, int pick, int session0, int session1) {
  if (session0 == session1) {
    ++tally.ties;
  } else if (pick < 0) {
    ++tally.equal;
  } else if ((pick == 0) == (session0 < session1)) {
    ++tally.first;
  } else {
    ++tally.second;
  }
}

void PrintTable(const std::vector<Pair>& pairs, const Sessions& sessions, int skipped,
                const PairedOptions& options) {
  Tally bplace;
  Tally pend;
  Tally backlog;
  Tally bound;
  Tally p50;
  int undecided = 0;
  int equal_bounds = 0;
  std::map<std::string, int> ranked_first;
  std::map<std::string, int> methods;
  for (const Pair& pair : pairs) {
    ++ranked_first[pair.queue[0]];
    ++methods[pair.queue[0] + " " + pair.method[0]];
    ++methods[pair.queue[1] + " " + pair.method[1]];
    if (pair.bound_s[0] == pair.bound_s[1]) ++equal_bounds;
    const auto s0 = sessions.started_in.find(pair.job_id[0]);
    const auto s1 = sessions.started_in.find(pair.job_id[1]);
    if (s0 == sessions.started_in.end() || s1 == sessions.started_in.end()) {
      ++undecided;
      continue;
    }
    Count(bplace, 0, s0->second, s1->second);
    Count(pend, pair.fewer_pend, s0->second, s1->second);
    Count(backlog, pair.smaller_backlog, s0->second, s1->second);
    Count(bound, pair.smaller_bound, s0->second, s1->second);
    Count(p50, pair.smaller_p50, s0->second, s1->second);
  }
  std::string ranked;
  for (const auto& [queue, count] : ranked_first) {
    ranked += (ranked.empty() ? "" : ", ") + queue + " " + std::to_string(count);
  }
  std::string used;
  for (const auto& [method, count] : methods) {
    used += (used.empty() ? "" : ", ") + method + " " + std::to_string(count);
  }
  std::printf("| figure | value |\n|---|---|\n");
  std::printf("| pairs submitted (both queues must wait, both bounded) | %zu |\n", pairs.size());
  std::printf("| moments skipped (a queue could start it now, or had no bound) | %d |\n", skipped);
  std::printf("| bplace ranked first | %s |\n", ranked.c_str());
  std::printf("| methods of the bounds (queue, method, count) | %s |\n", used.c_str());
  std::printf("| pairs with equal bounds | %d |\n", equal_bounds);
  std::printf("| ties: both dispatched in the same session (left out) | %d |\n", bplace.ties);
  std::printf("| undecided: not both started by the deadline | %d |\n", undecided);
  std::printf("| **job in bplace's first queue started first** | **%s** |\n",
              bplace.Ratio().c_str());
  std::printf("| baseline: the queue with fewer PEND jobs | %s, %d equal |\n", pend.Ratio().c_str(),
              pend.equal);
  std::printf("| baseline: smaller backlog (slots_to_free / capacity) | %s, %d equal |\n",
              backlog.Ratio().c_str(), backlog.equal);
  std::printf("| the queue with the smaller bound_s (the issue's ranking) | %s, %d equal |\n",
              bound.Ratio().c_str(), bound.equal);
  std::printf("| the same predictions ranked by p50_s | %s, %d equal |\n", p50.Ratio().c_str(),
              p50.equal);
  std::printf("| dispatch sessions (every %d ms); job tables not read | %d; %d |\n",
              options.interval_ms, sessions.count, sessions.unreadable_tables);
}

// Writes every pair to `out`, one tab-separated line each
// (PairedOptions::dump_path), and closes it; false when a write failed.
bool DumpPairs(const std::vector<Pair>& pairs, const Sessions& sessions, std::FILE* out) {
  std::fprintf(out,
               "pair\tqueue0\tqueue1\tbacklog0\tbacklog1\tpend0\tpend1\tbound0\tbound1"
               "\tp50_0\tp50_1\tmethod0\tmethod1\tsession0\tsession1\n");
  for (std::size_t n = 0; n < pairs.size(); ++n) {
    const Pair& p = pairs[n];
    const auto session = [&](int i) {
      const auto it = sessions.started_in.find(p.job_id[i]);
      return it == sessions.started_in.end() ? -1 : it->second;
    };
    std::fprintf(
        out, "%zu\t%s\t%s\t%.3f\t%.3f\t%.0f\t%.0f\t%lld\t%lld\t%.0f\t%.0f\t%s\t%s\t%d\t%d\n", n,
        p.queue[0].c_str(), p.queue[1].c_str(), p.backlog[0], p.backlog[1], p.pend[0], p.pend[1],
        static_cast<long long>(p.bound_s[0]), static_cast<long long>(p.bound_s[1]), p.p50_s[0],
        p.p50_s[1], p.method[0].c_str(), p.method[1].c_str(), session(0), session(1));
  }
  const bool written = !std::ferror(out);
  return std::fclose(out) == 0 && written;
}

}  // namespace

int RunPairedTrials(const SimCluster& sim, const DaemonProcess& daemon,
                    const PairedOptions& options) {
  // Opened first: a path that cannot be written fails now, not after the run.
  std::FILE* dump = nullptr;
  if (!options.dump_path.empty()) {
    dump = std::fopen(options.dump_path.c_str(), "w");
    if (!dump) {
      std::fprintf(stderr, "wait_live_bench: cannot write %s: %s\n", options.dump_path.c_str(),
                   std::strerror(errno));
      return 2;
    }
  }
  const auto start = SteadyClock::now();
  const std::string load_at_start = LoadAverage();
  Sessions sessions;
  std::atomic<bool> stop{false};
  std::thread clock([&] { SchedulingClock(sim, options.interval_ms, sessions, stop); });
  int background = 0;
  std::thread load([&] { background = BackgroundLoad(sim, options, stop); });
  std::this_thread::sleep_for(std::chrono::seconds(options.warmup_s));
  const std::string target =
      "/v1/placement?queue=" + options.queues.at(0).name + "," + options.queues.at(1).name;
  std::vector<Pair> pairs;
  int skipped = 0;
  // Bounded: a cluster that never makes both queues wait ends the run.
  const auto deadline = SteadyClock::now() +
                        std::chrono::milliseconds(options.pairs * options.pair_gap_ms * 4) +
                        std::chrono::minutes(5);
  while (static_cast<int>(pairs.size()) < options.pairs && SteadyClock::now() < deadline) {
    if (auto pair = TryPair(daemon, target, pairs.size() % 2 == 1, sessions)) {
      pairs.push_back(std::move(*pair));
      std::this_thread::sleep_for(std::chrono::milliseconds(options.pair_gap_ms));
    } else {
      ++skipped;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  const auto settle = SteadyClock::now() + std::chrono::minutes(5);
  while (SteadyClock::now() < settle) {
    {
      std::lock_guard lock(sessions.mutex);
      if (sessions.waiting.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  stop = true;
  clock.join();
  load.join();
  std::lock_guard lock(sessions.mutex);
  std::printf(
      "wait_live_bench paired %s, load %s at the start, %s at the end, %.0f s "
      "(warm-up %d s), seed %d\n",
      Timestamp().c_str(), load_at_start.c_str(), LoadAverage().c_str(), SecondsSince(start),
      options.warmup_s, options.seed);
  std::string run_times;
  for (const LoadedQueue& queue : options.queues) {
    run_times += (run_times.empty() ? "" : ", ") + queue.name + " sleep " +
                 std::to_string(queue.min_run_s) + ".." + std::to_string(queue.max_run_s);
  }
  std::printf("background jobs straight to LSF: %d (%s; load per queue redrawn every %d s)\n",
              background, run_times.c_str(), options.phase_s);
  PrintTable(pairs, sessions, skipped, options);
  if (dump && !DumpPairs(pairs, sessions, dump)) {
    std::fprintf(stderr, "wait_live_bench: writing %s failed\n", options.dump_path.c_str());
    return 1;
  }
  return sessions.started_in.empty() ? 1 : 0;
}

}  // namespace bplace::bench
