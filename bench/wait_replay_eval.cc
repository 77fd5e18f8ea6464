#include "bench/wait_replay_eval.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace bplace::bench {
namespace {

using Seconds = std::chrono::seconds;

struct ReplayJob {
  std::int64_t submit_s = 0;
  std::int64_t wait_s = 0;
  std::int64_t run_s = 0;
  std::int64_t slots = 1;
  std::string queue;
  bool could_start = false;  // set at its submission by the occupancy model
  std::int64_t queue_pending = 0;
  std::int64_t free_procs = 0;
  // Share of the machine that must free up before it can start, as
  // placement's slots_to_free() / capacity.
  double backlog = 0;
  std::string method;  // of bplace's estimate
};

SystemTime At(std::int64_t s) { return SystemTime{} + Seconds(s); }

// A way of bounding a job's wait at its submission, learning from waits as
// jobs start.
class Method {
 public:
  virtual ~Method() = default;
  virtual const char* Name() const = 0;
  virtual std::optional<std::int64_t> Bound(const ReplayJob& job) = 0;
  virtual void Learn(const ReplayJob& job) = 0;
};

// bplace's predictor, or plain QBETS: the same one (binomial bound, slot
// classes, change-point trimming) told neither which jobs could start now
// nor their backlog, and without the adaptive correction.
class PredictorMethod final : public Method {
 public:
  PredictorMethod(const char* name, WaitPredictorOptions options, bool knows_starts_now,
                  bool knows_backlog)
      : name_(name),
        predictor_(std::move(options)),
        knows_starts_now_(knows_starts_now),
        knows_backlog_(knows_backlog) {}
  const char* Name() const override { return name_; }
  std::optional<std::int64_t> Bound(const ReplayJob& job) override {
    const WaitEstimate e = predictor_.Predict(
        WaitQuery{job.queue, job.slots, knows_starts_now_ && job.could_start, Backlog(job)});
    ++methods_used_[WaitMethodName(e.method)];
    last_method_ = WaitMethodName(e.method);
    if (!e.bound) return std::nullopt;
    return e.bound->count();
  }
  void Learn(const ReplayJob& job) override {
    predictor_.Observe(WaitObservation{job.queue, job.slots, At(job.submit_s),
                                       At(job.submit_s + job.wait_s),
                                       knows_starts_now_ && job.could_start, Backlog(job)});
  }
  std::map<std::string, std::size_t> methods_used_;
  const char* last_method_ = "";

 private:
  std::optional<double> Backlog(const ReplayJob& job) const {
    if (!knows_backlog_) return std::nullopt;
    return job.backlog;
  }

  const char* name_;
  WaitPredictor predictor_;
  bool knows_starts_now_;
  bool knows_backlog_;
};

// The last wait learned in the job's queue.
class LastWaitMethod final : public Method {
 public:
  const char* Name() const override { return "last wait per queue"; }
  std::optional<std::int64_t> Bound(const ReplayJob& job) override {
    const auto it = last_.find(job.queue);
    if (it == last_.end()) return std::nullopt;
    return it->second;
  }
  void Learn(const ReplayJob& job) override { last_[job.queue] = job.wait_s; }

 private:
  std::unordered_map<std::string, std::int64_t> last_;
};

// The plain empirical quantile of the queue's newest waits (no confidence
// margin, no classes, no trimming).
class WindowQuantileMethod final : public Method {
 public:
  WindowQuantileMethod(double quantile, std::size_t window) : quantile_(quantile) {
    params_.max_history = window;
    params_.trim_on_change = false;
  }
  const char* Name() const override { return "window 95th percentile"; }
  std::optional<std::int64_t> Bound(const ReplayJob& job) override {
    const auto it = series_.find(job.queue);
    if (it == series_.end()) return std::nullopt;
    return it->second.EmpiricalQuantile(quantile_);
  }
  void Learn(const ReplayJob& job) override {
    series_.try_emplace(job.queue, params_).first->second.Add(job.wait_s);
  }

 private:
  double quantile_;
  WaitSeriesParams params_;
  std::unordered_map<std::string, WaitSeries> series_;
};

std::vector<ReplayJob> CollectJobs(const SwfTrace& trace) {
  const auto names = trace.QueueNames();
  std::vector<ReplayJob> jobs;
  for (const SwfJob& j : trace.jobs) {
    if (j.submit_s < 0 || j.wait_s < 0) continue;
    const auto name = names.find(j.queue);
    ReplayJob job;
    job.submit_s = j.submit_s;
    job.wait_s = j.wait_s;
    job.run_s = std::max<std::int64_t>(j.run_s, 0);
    job.slots = j.Slots();
    job.queue = name != names.end() ? name->second : std::to_string(j.queue);
    jobs.push_back(std::move(job));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const ReplayJob& a, const ReplayJob& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

enum class EventKind { kEnd = 0, kSubmit = 1, kStart = 2 };
using Event = std::tuple<std::int64_t, EventKind, std::size_t>;

// Every job's submission, start and end, in time order. At one second,
// ends first (their processors are free), then submissions, then starts: a
// job that starts in the second it was submitted is predicted before its
// own wait is learned.
std::vector<Event> Events(const std::vector<ReplayJob>& jobs) {
  std::vector<Event> events;
  events.reserve(3 * jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::int64_t start = jobs[i].submit_s + jobs[i].wait_s;
    events.emplace_back(jobs[i].submit_s, EventKind::kSubmit, i);
    events.emplace_back(start, EventKind::kStart, i);
    events.emplace_back(start + jobs[i].run_s, EventKind::kEnd, i);
  }
  std::sort(events.begin(), events.end());
  return events;
}

std::pair<std::int64_t, std::string> MachineSize(const SwfTrace& trace,
                                                 const std::vector<Event>& events,
                                                 const std::vector<ReplayJob>& jobs) {
  if (const std::int64_t size = trace.MachineSize(); size > 0) {
    return {size, trace.HeaderValue("MaxProcs").empty() ? "MaxNodes" : "MaxProcs"};
  }
  std::int64_t used = 0, peak = 0;
  for (const auto& [time, kind, i] : events) {
    if (kind == EventKind::kStart) peak = std::max(peak, used += jobs[i].slots);
    if (kind == EventKind::kEnd) used -= jobs[i].slots;
  }
  return {peak, "peak use"};
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

MethodFigures Score(const char* name, const std::vector<std::optional<std::int64_t>>& bounds,
                    const std::vector<ReplayJob>& jobs, const std::vector<std::size_t>& evaluated,
                    const ReplayOptions& options) {
  MethodFigures f;
  f.name = name;
  f.jobs = evaluated.size();
  const double q = options.predictor.quantile;
  const auto floor = static_cast<double>(options.ratio_floor_s);
  std::vector<double> ratios, must_wait_ratios, bound_values;
  std::size_t covered = 0, window_covered = 0, window_n = 0, good_windows = 0;
  double pinball = 0;
  for (const std::size_t i : evaluated) {
    const auto bound = static_cast<double>(*bounds[i]);
    const auto wait = static_cast<double>(jobs[i].wait_s);
    const bool hit = wait <= bound;
    covered += hit;
    window_covered += hit;
    if (++window_n == options.window_jobs) {
      ++f.windows;
      f.window_coverage.push_back(static_cast<double>(window_covered) / window_n);
      good_windows += static_cast<double>(window_covered) >= options.window_goal * window_n;
      window_covered = window_n = 0;
    }
    ratios.push_back(std::max(bound, floor) / std::max(wait, floor));
    if (!jobs[i].could_start) must_wait_ratios.push_back(ratios.back());
    bound_values.push_back(bound);
    pinball += hit ? (1 - q) * (bound - wait) : q * (wait - bound);
  }
  if (f.jobs == 0) return f;
  f.coverage = static_cast<double>(covered) / f.jobs;
  f.windows_meeting_goal = f.windows ? static_cast<double>(good_windows) / f.windows : 0;
  f.median_ratio = Median(std::move(ratios));
  f.median_ratio_must_wait = Median(std::move(must_wait_ratios));
  f.median_bound_s = Median(std::move(bound_values));
  f.pinball_s = pinball / f.jobs;
  return f;
}

}  // namespace

Result<ReplayReport> Replay(const SwfTrace& trace, const ReplayOptions& options) {
  std::vector<ReplayJob> jobs = CollectJobs(trace);
  if (jobs.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "the log has no job with a known submit time and wait (SWF fields 2 and 3)");
  }
  const std::vector<Event> events = Events(jobs);
  ReplayReport report;
  report.jobs_in_log = trace.jobs.size();
  report.jobs_with_wait = jobs.size();
  report.quantile = options.predictor.quantile;
  report.confidence = options.predictor.confidence;
  std::tie(report.machine_procs, report.machine_from) = MachineSize(trace, events, jobs);

  WaitPredictorOptions plain = options.predictor;
  plain.adaptive_rate = 0;
  PredictorMethod ours("bplace", options.predictor, true, options.use_backlog);
  PredictorMethod qbets("plain QBETS", plain, false, false);
  LastWaitMethod last;
  WindowQuantileMethod window(options.predictor.quantile, options.predictor.max_history);
  const std::vector<Method*> methods = {&ours, &qbets, &last, &window};
  std::vector<std::vector<std::optional<std::int64_t>>> bounds(
      methods.size(), std::vector<std::optional<std::int64_t>>(jobs.size()));

  std::int64_t running = 0, pending_all = 0;
  std::unordered_map<std::string, std::int64_t> pending;
  for (const auto& [time, kind, i] : events) {
    ReplayJob& job = jobs[i];
    if (kind == EventKind::kSubmit) {
      const std::int64_t ahead = options.machine_wide_pending ? pending_all : pending[job.queue];
      job.could_start = report.machine_procs - running >= ahead + job.slots;
      job.queue_pending = pending[job.queue];
      job.free_procs = report.machine_procs - running;
      job.backlog =
          static_cast<double>(std::max<std::int64_t>(ahead + job.slots - job.free_procs, 0)) /
          static_cast<double>(report.machine_procs);
      for (std::size_t m = 0; m < methods.size(); ++m) bounds[m][i] = methods[m]->Bound(job);
      job.method = ours.last_method_;
      pending[job.queue] += job.slots;
      pending_all += job.slots;
    } else if (kind == EventKind::kStart) {
      running += job.slots;
      pending[job.queue] -= job.slots;
      pending_all -= job.slots;
      for (Method* m : methods) m->Learn(job);
    } else {
      running -= job.slots;
    }
  }

  std::vector<std::size_t> evaluated;
  std::size_t started_soon = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!std::all_of(bounds.begin(), bounds.end(),
                     [&](const auto& b) { return b[i].has_value(); })) {
      continue;
    }
    evaluated.push_back(i);
    if (jobs[i].could_start) {
      ++report.starts_now_jobs;
      started_soon += jobs[i].wait_s <= 60;
    }
  }
  report.jobs_evaluated = evaluated.size();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ReplayJob& j = jobs[i];
    ReplayedJob row{j.submit_s,   j.queue,       j.slots, j.wait_s, j.queue_pending,
                    j.free_procs, j.could_start, {},      j.method};
    for (const auto& b : bounds) row.bounds.push_back(b[i]);
    report.jobs.push_back(std::move(row));
  }
  report.starts_now_started_within_60s =
      report.starts_now_jobs ? static_cast<double>(started_soon) / report.starts_now_jobs : 0;
  report.methods_used = ours.methods_used_;
  for (std::size_t m = 0; m < methods.size(); ++m) {
    report.methods.push_back(Score(methods[m]->Name(), bounds[m], jobs, evaluated, options));
  }
  return report;
}

std::string FormatReport(const ReplayReport& r) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "jobs: %zu in the log, %zu with a known wait, %zu evaluated (every method had a "
                "bound); machine %lld processors (%s); bound: %.2f quantile at %.2f confidence\n",
                r.jobs_in_log, r.jobs_with_wait, r.jobs_evaluated,
                static_cast<long long>(r.machine_procs), r.machine_from.c_str(), r.quantile,
                r.confidence);
  out += line;
  std::snprintf(
      line, sizeof line,
      "could start at submission: %zu jobs (%.1f%%), of which %.1f%% started within 60 s\n",
      r.starts_now_jobs, r.jobs_evaluated ? 100.0 * r.starts_now_jobs / r.jobs_evaluated : 0.0,
      100.0 * r.starts_now_started_within_60s);
  out += line;
  out += "bplace's estimates by method:";
  for (const auto& [name, count] : r.methods_used) out += " " + name + "=" + std::to_string(count);
  out +=
      "\n\n| method | coverage | windows >= goal | median bound/actual (all; must wait) | "
      "median bound (s) | pinball loss (s) |\n|---|---|---|---|---|---|\n";
  for (const MethodFigures& m : r.methods) {
    std::snprintf(line, sizeof line,
                  "| %s | %.3f | %.2f (%zu windows) | %.2f; %.2f | %.0f | %.0f |\n", m.name.c_str(),
                  m.coverage, m.windows_meeting_goal, m.windows, m.median_ratio,
                  m.median_ratio_must_wait, m.median_bound_s, m.pinball_s);
    out += line;
  }
  return out;
}

std::string ReportJson(const ReplayReport& r) {
  nlohmann::json methods = nlohmann::json::array();
  for (const MethodFigures& m : r.methods) {
    methods.push_back({{"name", m.name},
                       {"jobs", m.jobs},
                       {"coverage", m.coverage},
                       {"windows", m.windows},
                       {"windows_meeting_goal", m.windows_meeting_goal},
                       {"window_coverage", m.window_coverage},
                       {"median_bound_over_actual", m.median_ratio},
                       {"median_bound_over_actual_must_wait", m.median_ratio_must_wait},
                       {"median_bound_s", m.median_bound_s},
                       {"pinball_loss_s", m.pinball_s}});
  }
  const nlohmann::json out = {{"jobs_in_log", r.jobs_in_log},
                              {"jobs_with_wait", r.jobs_with_wait},
                              {"jobs_evaluated", r.jobs_evaluated},
                              {"machine_procs", r.machine_procs},
                              {"machine_from", r.machine_from},
                              {"quantile", r.quantile},
                              {"confidence", r.confidence},
                              {"starts_now_jobs", r.starts_now_jobs},
                              {"starts_now_started_within_60s", r.starts_now_started_within_60s},
                              {"bplace_methods", r.methods_used},
                              {"methods", methods}};
  return out.dump(2) + "\n";
}

}  // namespace bplace::bench
