// The wait-prediction replay (bench/README.md "Wait prediction (issue 23)"):
//
//   wait_replay replay LOG.swf [--quantile 0.95] [--confidence 0.95] [--history 1000]
//                              [--classes 1,4,16,64,256] [--backlog-classes 0.5,2]
//                              [--backlog-scale-from 2] [--backlog-learn-from 0.25]
//                              [--no-backlog] [--adaptive-rate 0] [--no-trim]
//                              [--machine-pending] [--json] [--jobs-csv PATH]
//   wait_replay generate [--jobs 40000] [--seed 1] [--procs 512] [--load 0.7]
//                        [--load-after 0.9] [--change-at 0.5] > LOG.swf
//   wait_replay schedule LOG.swf --procs N [--session-s 10] > WITH_WAITS.swf
//   wait_replay tail-cpu [--jobs 100000]   (lsb.events tail CPU per 1,000 records)
//   wait_replay smoke   (the ctest wait_replay_smoke: a tiny generated log, replayed)
//
// replay: reads a Standard Workload Format log (a Parallel Workloads Archive
//   log, or one from `generate`) and replays it in time order, predicting
//   every job's wait at its submission with bplace's WaitPredictor and three
//   baselines; prints coverage, coverage per 1,000-job window, tightness and
//   pinball loss (bench/wait_replay_eval.h).
// generate: a synthetic log with queues, bursts and a change point
//   (bench/swf_generate.h).
// schedule: gives a log without waits (a workload model's output, such as
//   Lublin-Feitelson's) the waits of an EASY-backfilling scheduler.
// Exit status: 0, 1 on an unreadable or malformed log, 2 on bad usage.

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/swf.h"
#include "bench/swf_generate.h"
#include "bench/swf_schedule.h"
#include "bench/wait_replay_eval.h"
#include "daemon/placement/event_log_tail.h"

namespace bplace::bench {
namespace {

// `--name value` and bare `--name` switches after the mode, plus positional
// arguments. Throws std::invalid_argument on an unknown name or bad value.
class Args {
 public:
  Args(int argc, char** argv, const std::set<std::string>& switches) {
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.rfind("--", 0) != 0) {
        positional.push_back(arg);
      } else if (switches.count(arg.substr(2))) {
        values_[arg.substr(2)] = "1";
      } else if (i + 1 < argc) {
        values_[arg.substr(2)] = argv[++i];
      } else {
        throw std::invalid_argument(arg + " needs a value");
      }
    }
  }
  double Number(const std::string& name, double fallback) {
    used_.insert(name);
    const auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    std::size_t end = 0;
    const double value = std::stod(it->second, &end);
    if (end != it->second.size()) throw std::invalid_argument("--" + name + ": not a number");
    return value;
  }
  bool Switch(const std::string& name) {
    used_.insert(name);
    return values_.count(name) > 0;
  }
  std::string Text(const std::string& name, const std::string& fallback) {
    used_.insert(name);
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  void CheckAllKnown() const {
    for (const auto& [name, value] : values_) {
      if (!used_.count(name)) throw std::invalid_argument("unknown option --" + name);
    }
  }
  std::vector<std::string> positional;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

std::vector<std::int64_t> ParseCounts(const std::string& text) {
  std::vector<std::int64_t> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoll(item));
  return out;
}

std::vector<double> ParseShares(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

Result<SwfTrace> ReadLog(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(ErrorCode::kNotFound, "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return ParseSwf(text.str());
}

// One line per replayed job: what it was, what each method bounded it at.
void WriteJobsCsv(const ReplayReport& report, const std::string& path) {
  std::ofstream out(path);
  out << "submit_s,queue,slots,wait_s,queue_pending,free_procs,could_start,bplace_method";
  for (const MethodFigures& m : report.methods) out << ",bound:" << m.name;
  out << "\n";
  for (const ReplayedJob& j : report.jobs) {
    out << j.submit_s << ',' << j.queue << ',' << j.slots << ',' << j.wait_s << ','
        << j.queue_pending << ',' << j.free_procs << ',' << j.could_start << ',' << j.bplace_method;
    for (const auto& b : j.bounds) {
      out << ',';
      if (b) out << *b;
    }
    out << "\n";
  }
}

int ReplayMode(Args& args) {
  ReplayOptions options;
  WaitPredictorOptions& p = options.predictor;
  p.quantile = args.Number("quantile", p.quantile);
  p.confidence = args.Number("confidence", p.confidence);
  p.max_history =
      static_cast<std::size_t>(args.Number("history", static_cast<double>(p.max_history)));
  p.adaptive_rate = args.Number("adaptive-rate", p.adaptive_rate);
  p.trim_on_change = !args.Switch("no-trim");
  const std::string classes = args.Text("classes", "");
  if (!classes.empty()) p.slot_class_limits = ParseCounts(classes);
  const std::string backlog = args.Text("backlog-classes", "");
  if (!backlog.empty()) p.backlog_class_limits = ParseShares(backlog);
  options.machine_wide_pending = args.Switch("machine-pending");
  options.use_backlog = !args.Switch("no-backlog");
  p.backlog_scale_from = args.Number("backlog-scale-from", p.backlog_scale_from);
  p.backlog_scale_learn_from = args.Number("backlog-learn-from", p.backlog_scale_learn_from);
  const bool json = args.Switch("json");
  const std::string jobs_csv = args.Text("jobs-csv", "");
  args.CheckAllKnown();
  if (args.positional.size() != 1) throw std::invalid_argument("replay takes one log path");
  const auto trace = ReadLog(args.positional[0]);
  if (!trace) {
    std::cerr << "wait_replay: " << args.positional[0] << ": " << trace.error().message << "\n";
    return 1;
  }
  const auto report = Replay(*trace, options);
  if (!report) {
    std::cerr << "wait_replay: " << args.positional[0] << ": " << report.error().message << "\n";
    return 1;
  }
  std::cout << (json ? ReportJson(*report) : FormatReport(*report));
  if (!jobs_csv.empty()) WriteJobsCsv(*report, jobs_csv);
  return 0;
}

int GenerateMode(Args& args) {
  GenerateOptions options;
  options.jobs = static_cast<std::size_t>(args.Number("jobs", static_cast<double>(options.jobs)));
  options.seed = static_cast<std::uint64_t>(args.Number("seed", static_cast<double>(options.seed)));
  options.machine_procs =
      static_cast<std::int64_t>(args.Number("procs", static_cast<double>(options.machine_procs)));
  options.load = args.Number("load", options.load);
  options.load_after = args.Number("load-after", options.load_after);
  options.change_at = args.Number("change-at", options.change_at);
  args.CheckAllKnown();
  if (!args.positional.empty()) throw std::invalid_argument("generate writes to stdout");
  std::cout << FormatSwf(GenerateSwf(options));
  return 0;
}

int ScheduleMode(Args& args) {
  ScheduleOptions options;
  options.machine_procs = static_cast<std::int64_t>(args.Number("procs", 0));
  options.session_s =
      static_cast<std::int64_t>(args.Number("session-s", static_cast<double>(options.session_s)));
  args.CheckAllKnown();
  if (args.positional.size() != 1) throw std::invalid_argument("schedule takes one log path");
  auto trace = ReadLog(args.positional[0]);
  if (!trace) {
    std::cerr << "wait_replay: " << trace.error().message << "\n";
    return 1;
  }
  if (options.machine_procs <= 0) options.machine_procs = trace->MachineSize();
  if (options.machine_procs <= 0)
    throw std::invalid_argument("schedule needs --procs (no MaxProcs)");
  ScheduleEasy(trace->jobs, options);
  // The replay reads the machine from MaxProcs: it must be the one scheduled on.
  std::erase_if(trace->header, [](const auto& field) { return field.first == "MaxProcs"; });
  trace->header.emplace_back("MaxProcs", std::to_string(options.machine_procs));
  trace->header.emplace_back("Note",
                             "waits from bplace wait_replay schedule (FCFS, EASY backfilling, " +
                                 std::to_string(options.session_s) + " s sessions)");
  std::cout << FormatSwf(*trace);
  return 0;
}

// The event-log tail's CPU per 1,000 records (the replay's cost figure): a
// temporary lsb.events of LSF 10.1 JOB_NEW, JOB_START and JOB_STATUS
// records (as written by lsb.events(5), the tail of JOB_NEW included), read
// by EventLogTail in polls of 256 KiB as the daemon would. Prints the
// process CPU time per 1,000 records.
int TailCpuMode(Args& args) {
  const auto jobs = static_cast<int>(args.Number("jobs", 100000));
  args.CheckAllKnown();
  const auto path = std::filesystem::temp_directory_path() /
                    ("wait_replay_tail_" + std::to_string(::getpid()) + ".events");
  {
    std::ofstream out(path);
    out << "#0\n";
    for (int i = 1; i <= jobs; ++i) {
      const std::string id = std::to_string(i), t = std::to_string(1700000000 + i);
      out << "\"JOB_NEW\" \"10.1\" " << t << " " << id << " 1001 33554434 0 4 " << t
          << " 0 0 0 0 0 \"alice\" -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 \"\" 1.00 18 \"normal\" "
             "\"span[hosts=1]\" \"login1\" \"/home/alice\" \"\" \"\" \"/home/alice/out.%J\" \"\" "
             "\"\" "
             "\"\" \"\" \"/home/alice\" \"1700000100.1234\" 0 \"\" \"\" \"job\" \"sleep 60\" 0 "
             "\"\" "
             "\"\" 0 4 \"\" \"/bin/sh\" \"\" \"\" 0 0 \"\" \"\" \"\" 0 \"\"\n";
      out << "\"JOB_START\" \"10.1\" " << t << " " << id
          << " 4 0 0 1.00 2 \"node01\" \"node02\" \"\" \"\" 0 \"\" 0 \"\" 0\n";
      out << "\"JOB_STATUS\" \"10.1\" " << t << " " << id << " 64 0 0 12.5 " << t
          << " 1 10.1 2.4 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 \"\"\n";
    }
  }
  EventLogTailOptions options;
  options.file = path;
  options.max_bytes_per_poll = 256 << 10;
  EventLogTail tail(options);
  std::size_t events = 0, errors = 0;
  const std::clock_t start = std::clock();
  for (;;) {
    const EventLogBatch batch = tail.Poll();
    if (batch.events.empty() && batch.errors.empty()) break;
    events += batch.events.size();
    errors += batch.errors.size();
  }
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  std::filesystem::remove(path);
  std::printf("%zu records (%zu errors), %.0f ms CPU: %.3f ms per 1,000 records\n", events, errors,
              cpu_ms, events ? cpu_ms / (static_cast<double>(events) / 1000.0) : 0.0);
  return errors == 0 && events == static_cast<std::size_t>(3 * jobs) ? 0 : 1;
}

// A tiny generated log written to a file and replayed from that path; fails
// when the output is not the JSON the replay promises (numbers in range, four
// methods). Asserts nothing about the figures themselves.
int SmokeMode() {
  const auto path = std::filesystem::temp_directory_path() /
                    ("wait_replay_smoke_" + std::to_string(::getpid()) + ".swf");
  GenerateOptions generate;
  generate.jobs = 3000;
  generate.machine_procs = 128;
  { std::ofstream(path) << FormatSwf(GenerateSwf(generate)); }
  const auto trace = ReadLog(path.string());
  std::filesystem::remove(path);
  if (!trace) {
    std::cerr << "smoke: " << trace.error().message << "\n";
    return 1;
  }
  const auto report = Replay(*trace, ReplayOptions{});
  if (!report) {
    std::cerr << "smoke: " << report.error().message << "\n";
    return 1;
  }
  const auto json = nlohmann::json::parse(ReportJson(*report), nullptr, false);
  bool ok = !json.is_discarded() && json["jobs_in_log"] == 3000 && json["methods"].size() == 4 &&
            json["jobs_evaluated"].get<int>() > 0;
  for (const auto& m : json["methods"]) {
    const double coverage = m["coverage"].get<double>();
    ok = ok && coverage >= 0 && coverage <= 1 && m["median_bound_over_actual"].get<double>() > 0 &&
         m["pinball_loss_s"].get<double>() >= 0 && m["name"].is_string();
  }
  std::cout << FormatReport(*report);
  std::cout << (ok ? "smoke: well formed\n" : "smoke: MALFORMED\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace bplace::bench

int main(int argc, char** argv) {
  using namespace bplace::bench;
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    Args args(argc, argv, {"no-trim", "machine-pending", "no-backlog", "json"});
    if (mode == "replay") return ReplayMode(args);
    if (mode == "generate") return GenerateMode(args);
    if (mode == "schedule") return ScheduleMode(args);
    if (mode == "smoke") return SmokeMode();
    if (mode == "tail-cpu") return TailCpuMode(args);
  } catch (const std::exception& e) {
    std::cerr << "wait_replay: " << e.what() << "\n";
    return 2;
  }
  std::cerr
      << "usage: wait_replay replay LOG.swf [options] | generate [options] | schedule LOG.swf "
         "[--procs N] | tail-cpu | smoke\n";
  return 2;
}
