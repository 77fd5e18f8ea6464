// bjobs (LSF 10.1 output, messages and exit statuses; see docs/lsf-formats.md
// "bjobs").

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "tests/lsfsim/bjobs_fields.h"
#include "tests/lsfsim/bjobs_long.h"
#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/job_usage.h"
#include "tests/lsfsim/openlava.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

constexpr const char* kBjobsUsage =
    "Usage: bjobs [-h] [-V] [-w] [-a | -d | -p | -r | -s] [-u user_name | -u all] [-q queue]\n"
    "             [-J job_name] [-Jd job_description] [-noheader] [-l]\n"
    "             [-o \"field_name ...\" [-json]] [jobId ...]\n";

struct BjobsArgs {
  bool wide = false;
  bool long_format = false;  // -l
  bool json = false;
  bool noheader = false;
  std::string state_filter;  // "", "a", "d", "p", "r", "s"
  std::optional<std::string> user;
  std::optional<std::string> queue;
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> format;
  std::vector<std::string> ids;
};

// Reads one option at args[*i] into `out`. Returns false on bad usage.
bool TakeValueOption(const std::vector<std::string>& args, size_t* i, BjobsArgs* out) {
  static const std::pair<const char*, std::optional<std::string> BjobsArgs::*> kOptions[] = {
      {"-u", &BjobsArgs::user},
      {"-q", &BjobsArgs::queue},
      {"-Jd", &BjobsArgs::description},
      {"-J", &BjobsArgs::name},
      {"-o", &BjobsArgs::format}};
  for (auto& [flag, member] : kOptions) {
    bool missing = false;
    if (auto v = TakeOptionValue(args, i, flag, &missing)) {
      if (missing) return false;
      out->*member = *v;
      return true;
    }
  }
  return false;
}

// Parses bjobs arguments. Returns the error result when they are bad.
// volclava's getopt refuses what its bjobs lacks or takes together
// (bjobs.c do_options): -noheader (no 'n' option), -w or -l with -o, -json
// without -o; each prints the usage and exits 255.
std::optional<CommandResult> OpenlavaRefusal(const BjobsArgs& parsed,
                                             const std::vector<std::string>& args) {
  CommandResult usage{.exit_code = 255, .out = "", .err = OpenlavaBjobsUsage()};
  for (const std::string& arg : args) {
    if (arg == "-noheader") {
      usage.err = "bjobs: invalid option -- 'n'\n" + usage.err;
      return usage;
    }
  }
  if ((parsed.format && (parsed.wide || parsed.long_format)) || (parsed.json && !parsed.format)) {
    return usage;
  }
  return std::nullopt;
}

// Splits bundled one-letter flags as getopt reads them: "-aw" is -a -w,
// "-aJ" takes the next word as the -J pattern, "-aJ*x*" holds it. A word
// that opens with a letter taking a value ("-uall", "-Jd") is left whole
// (TakeOptionValue reads it), and so is any word with a letter bjobs lacks.
std::vector<std::string> SplitBundles(const std::vector<std::string>& args) {
  constexpr std::string_view kFlags = "wadprslX";
  constexpr std::string_view kValued = "uqJo";
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    const bool bundle = arg.size() > 2 && arg[0] == '-' && kFlags.find(arg[1]) != std::string::npos;
    std::vector<std::string> words;
    bool known = bundle;
    for (size_t at = 1; bundle && at < arg.size(); ++at) {
      if (kFlags.find(arg[at]) != std::string::npos) {
        words.push_back(std::string("-") + arg[at]);
      } else if (kValued.find(arg[at]) != std::string::npos) {
        words.push_back(std::string("-") + arg[at]);
        if (at + 1 < arg.size()) words.push_back(arg.substr(at + 1));
        break;
      } else {
        known = false;
        break;
      }
    }
    if (known) {
      out.insert(out.end(), words.begin(), words.end());
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

tl::expected<BjobsArgs, CommandResult> ParseArgs(const ClusterDef& cluster,
                                                 const std::vector<std::string>& given) {
  const std::vector<std::string> args = SplitBundles(given);
  BjobsArgs out;
  CommandResult usage{.exit_code = 255, .out = "", .err = kBjobsUsage};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (cluster.dialect == Dialect::kOpenlava && arg == "-noheader") break;
    if (!cluster.bjobs_o && (arg == "-o" || arg == "-json")) {
      // An LSF older than 9.1 has no -o: getopt refuses it.
      usage.err = "bjobs: illegal option -- " + arg.substr(1) + "\n" + kBjobsUsage;
      return tl::unexpected(usage);
    }
    if (arg == "-w") {
      out.wide = true;
    } else if (arg == "-a" || arg == "-d" || arg == "-p" || arg == "-r" || arg == "-s") {
      out.state_filter = arg.substr(1);
    } else if (arg == "-json") {
      out.json = true;
    } else if (arg == "-noheader") {
      out.noheader = true;
    } else if (arg == "-l") {
      out.long_format = true;
    } else if (arg == "-hms" || arg == "-X") {
      // Not simulated: the output is as without them.
    } else if (!arg.empty() && arg[0] == '-') {
      if (!TakeValueOption(args, &i, &out)) return tl::unexpected(usage);
    } else {
      out.ids.push_back(arg);
    }
  }
  if (cluster.dialect == Dialect::kOpenlava) {
    if (auto refused = OpenlavaRefusal(out, args)) return tl::unexpected(*refused);
  }
  if (out.json && !out.format) {
    return tl::unexpected(
        Fail("bjobs: You cannot use the -json option when the -o option is not specified or the "
             "LSB_BJOBS_FORMAT parameter is not defined."));
  }
  return out;
}

// The state filter of -a/-d/-p/-r/-s (none: unfinished jobs).
bool PassesStateFilter(const Job& job, const std::string& filter) {
  if (filter.empty()) return !IsFinished(job);
  if (filter == "d") return IsFinished(job);
  if (filter == "p") return job.status == "PEND";
  if (filter == "r") return job.status == "RUN";
  if (filter == "s") return IsSuspended(job);
  return true;
}

// Running (and suspended) jobs first, then pending, then finished; within
// each, by queue priority, then job id and array index, as mbatchd lists them.
// volclava lists finished jobs in the order they ended (its captures).
void SortAsMbatchd(const ClusterDef& cluster, std::vector<const Job*>* jobs) {
  auto rank = [](const Job* job) { return IsFinished(*job) ? 2 : IsPending(*job) ? 1 : 0; };
  auto prio = [&](const Job* job) {
    std::optional<size_t> q = cluster.FindQueue(job->queue);
    return q ? cluster.queues[*q].priority : 0;
  };
  bool by_end = cluster.dialect == Dialect::kOpenlava;
  std::stable_sort(jobs->begin(), jobs->end(), [&](const Job* a, const Job* b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (by_end && rank(a) == 2 && a->end_time != b->end_time) return a->end_time < b->end_time;
    if (prio(a) != prio(b)) return prio(a) > prio(b);
    if (a->id != b->id) return a->id < b->id;
    return a->index < b->index;
  });
}

struct Selection {
  std::vector<const Job*> jobs;
  std::vector<std::pair<std::string, std::string>> missing;  // (JOBID, message)
};

// The jobs named on the command line, in the order given; an id mbatchd
// does not know (or has cleaned) is missing.
Selection SelectByIds(const Context& ctx, const JobTable& table,
                      const std::vector<std::string>& ids) {
  std::unordered_map<long long, std::vector<const Job*>> by_id;
  for (const Job& job : table.jobs) {
    if (!IsCleaned(job, ctx.now, ctx.cluster->clean_period_s)) by_id[job.id].push_back(&job);
  }
  Selection out;
  for (const std::string& text : ids) {
    std::optional<JobRef> ref = ParseJobRef(text);
    size_t before = out.jobs.size();
    if (ref) {
      for (const Job* job : by_id[ref->id]) {
        if (JobRefMatches(*ref, *job)) out.jobs.push_back(job);
      }
    }
    if (out.jobs.size() == before) {
      // JOBID of the error record is the job id without the index.
      std::string id = ref ? std::to_string(ref->id) : text;
      out.missing.emplace_back(id, "Job <" + text + "> is not found");
    }
  }
  return out;
}

Selection SelectByFilters(const Context& ctx, const JobTable& table, const BjobsArgs& args) {
  Selection out;
  std::string who = args.user.value_or(ctx.user);
  for (const Job& job : table.jobs) {
    if (IsCleaned(job, ctx.now, ctx.cluster->clean_period_s)) continue;
    if (who != "all" && job.user != who) continue;
    if (args.queue && job.queue != *args.queue) continue;
    if (args.name && !GlobMatch(*args.name, DisplayName(job)) && !GlobMatch(*args.name, job.name)) {
      continue;
    }
    if (args.description && !GlobMatch(*args.description, job.description)) continue;
    if (!PassesStateFilter(job, args.state_filter)) continue;
    out.jobs.push_back(&job);
  }
  SortAsMbatchd(*ctx.cluster, &out.jobs);
  return out;
}

std::string EmptyMessage(const std::string& state_filter) {
  if (state_filter == "a") return "No job found";
  if (state_filter == "d") return "No DONE/EXIT job found";
  if (state_filter == "p") return "No pending job found";
  if (state_filter == "r") return "No running job found";
  if (state_filter == "s") return "No suspended job found";
  return "No unfinished job found";
}

// `bjobs -o ... -json`: one record per job, string values, a record with
// ERROR for each id mbatchd does not know (LSF 10.1; stderr stays empty).
CommandResult FormatJson(const BjobsFormat& format, const Selection& selection) {
  std::vector<std::vector<std::pair<std::string, std::string>>> records;
  for (const Job* job : selection.jobs) {
    std::vector<std::pair<std::string, std::string>> record;
    for (const BjobsColumn& column : format.columns) {
      record.emplace_back(column.header, BjobsFieldValue(column.header, *job));
    }
    records.push_back(std::move(record));
  }
  for (const auto& [id, message] : selection.missing) {
    records.push_back({{"JOBID", id}, {"ERROR", message}});
  }
  CommandResult result;
  result.out = FormatLsfJson("bjobs", "JOBS", records);
  result.exit_code = selection.missing.empty() ? 0 : 255;
  return result;
}

// `bjobs -o ...` without -json: a header line and one line per job, cells
// joined by the delimiter.
std::string FormatColumns(const BjobsFormat& format, const Selection& selection, bool header) {
  std::string out;
  auto line = [&](auto cell) {
    std::vector<std::string> cells;
    for (const BjobsColumn& column : format.columns) cells.push_back(cell(column));
    return Join(cells, format.delimiter) + "\n";
  };
  if (header) {
    out += line([](const BjobsColumn& c) { return FormatBjobsCell(c, c.header); });
  }
  for (const Job* job : selection.jobs) {
    out += line(
        [&](const BjobsColumn& c) { return FormatBjobsCell(c, BjobsFieldValue(c.header, *job)); });
  }
  return out;
}

// The default table (LSF 10.1 layout, docs/lsf-formats.md "The bjobs table").
std::string FormatTable(const Selection& selection, bool wide) {
  std::string out =
      "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n";
  for (const Job* job : selection.jobs) {
    std::string host = ExecHostText(*job);
    // A pending job's EXEC_HOST is blank, except with -w (and for finished
    // jobs that never ran), where LSF prints "   -".
    if (host.empty() && (wide || IsFinished(*job))) host = "   -";
    std::string name = DisplayName(*job);
    if (!wide && name.size() > 10) name = "*" + name.substr(name.size() - 9);
    std::string id = std::to_string(job->id);
    out += StrPrintf(wide ? "%-7s %-7s %-5s %-10s %-11s %-11s %-10s %s\n"
                          : "%-7s %-7.7s %-5s %-10.10s %-11.11s %-11.11s %-10.10s %s\n",
                     id.c_str(), job->user.c_str(), job->status.c_str(), job->queue.c_str(),
                     job->from_host.c_str(), host.c_str(), name.c_str(),
                     FormatSubmitTime(job->submit_time).c_str());
  }
  return out;
}

// The selection a misanswering bjobs (`fault --chaos`) gives instead of
// `selection`: none of the jobs asked for (kDropIds), every other job of
// the cluster (kOtherIds), or "Job <N> is not found" for each job asked for
// (kNotFound). Only for a bjobs given ids: that is how bplace asks.
Selection Misanswered(const Context& ctx, const JobTable& table, const BjobsArgs& args,
                      Selection selection) {
  if (args.ids.empty()) return selection;
  switch (ctx.misbehaviour) {
    case Misbehaviour::kDropIds:
      return Selection{};
    case Misbehaviour::kOtherIds: {
      BjobsArgs every = args;
      every.user = "all";
      every.state_filter = "a";
      Selection others = SelectByFilters(ctx, table, every);
      std::erase_if(others.jobs, [&](const Job* job) {
        return std::find(selection.jobs.begin(), selection.jobs.end(), job) != selection.jobs.end();
      });
      return others;
    }
    case Misbehaviour::kNotFound: {
      Selection lost;
      for (const std::string& text : args.ids) {
        const std::optional<JobRef> ref = ParseJobRef(text);
        lost.missing.emplace_back(ref ? std::to_string(ref->id) : text,
                                  "Job <" + text + "> is not found");
      }
      return lost;
    }
    default:
      return selection;
  }
}

// `bjobs -o` in the OpenLava dialect (volclava's displayO/displayJson): the
// field names are checked only when a job is printed (exit 99); JSON in
// cJSON's layout, exit 255 when no job is printed; the table is a header
// and blank-separated values, without widths.
CommandResult OpenlavaFormatOutput(const BjobsArgs& args, const Selection& selection) {
  if (!selection.jobs.empty()) {
    auto [fields, error] = ParseOpenlavaFormat(*args.format, args.json);
    if (!error.empty()) return CommandResult{.exit_code = 99, .out = "", .err = error + "\n"};
    std::vector<std::vector<std::pair<std::string, std::string>>> records;
    for (const Job* job : selection.jobs) {
      std::vector<std::pair<std::string, std::string>> record;
      for (const std::string& field : fields) {
        record.emplace_back(field, OpenlavaFieldValue(field, *job, args.json));
      }
      records.push_back(std::move(record));
    }
    if (!args.json) {
      CommandResult result;
      result.out = Join(fields, " ") + "\n";
      for (const auto& record : records) {
        std::vector<std::string> values;
        for (const auto& [field, value] : record) values.push_back(value);
        result.out += Join(values, " ") + "\n";
      }
      for (const auto& [id, message] : selection.missing) result.err += message + "\n";
      result.exit_code = selection.missing.empty() ? 0 : 255;
      return result;
    }
    for (const auto& [id, message] : selection.missing) {
      records.push_back({{"JOBID", id}, {"ERROR", message}});
    }
    return CommandResult{.exit_code = 0, .out = OpenlavaBjobsJson(records), .err = ""};
  }
  if (args.json) {
    std::vector<std::vector<std::pair<std::string, std::string>>> records;
    for (const auto& [id, message] : selection.missing) {
      records.push_back({{"JOBID", id}, {"ERROR", message}});
    }
    return CommandResult{.exit_code = 255, .out = OpenlavaBjobsJson(records), .err = ""};
  }
  CommandResult result{.exit_code = 255, .out = "", .err = ""};
  for (const auto& [id, message] : selection.missing) result.err += message + "\n";
  if (selection.missing.empty()) {
    return CommandResult{
        .exit_code = 254, .out = "", .err = EmptyMessage(args.state_filter) + "\n"};
  }
  return result;
}

CommandResult Output(const ClusterDef& cluster, const BjobsArgs& args, const Selection& selection) {
  if (args.format && cluster.dialect == Dialect::kOpenlava) {
    return OpenlavaFormatOutput(args, selection);
  }
  std::optional<BjobsFormat> format;
  if (args.format) {
    auto parsed = ParseBjobsFormat(*args.format);
    if (!parsed) return Fail(parsed.error());
    format = *parsed;
  }
  if (format && args.json) return FormatJson(*format, selection);
  CommandResult result;
  for (const auto& [id, message] : selection.missing) {
    result.err += message + "\n";
    result.exit_code = 255;
  }
  if (selection.jobs.empty()) {
    if (!selection.missing.empty()) return result;
    return CommandResult{
        .exit_code = 254, .out = "", .err = EmptyMessage(args.state_filter) + "\n"};
  }
  if (args.long_format && !format) {
    result.out = FormatBjobsLong(selection.jobs, cluster);
    return result;
  }
  result.out = format ? FormatColumns(*format, selection, !args.noheader)
                      : FormatTable(selection, args.wide);
  if (!format && args.noheader) result.out.erase(0, result.out.find('\n') + 1);
  return result;
}

}  // namespace

CommandResult RunBjobs(const Context& ctx, const std::vector<std::string>& argv) {
  auto args = ParseArgs(*ctx.cluster, argv);
  if (!args) return args.error();
  if (args->format && ctx.cluster->dialect == Dialect::kLsf) {
    // Refuse a bad format before asking mbatchd, as bjobs does.
    if (auto parsed = ParseBjobsFormat(*args->format); !parsed) return Fail(parsed.error());
  }
  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  lock.Release();
  JobTable& table = loaded->jobs;
  if (args->long_format) {
    // sbatchd's sample of a running job's memory, for MEMORY USAGE.
    for (Job& job : table.jobs) {
      if (job.pgid > 0 && !IsFinished(job)) {
        job.max_mem_kb = RunningJobMemoryKb(job.pgid).value_or(job.max_mem_kb);
      }
    }
  }
  Selection selection =
      args->ids.empty() ? SelectByFilters(ctx, table, *args) : SelectByIds(ctx, table, args->ids);
  selection = Misanswered(ctx, table, *args, std::move(selection));
  if (ctx.misbehaviour == Misbehaviour::kDropIds && !args->ids.empty() &&
      !(args->format && args->json)) {
    // Exit 0 with nothing about the ids: the table's header alone.
    return CommandResult{.exit_code = 0,
                         .out = args->noheader ? "" : FormatTable(Selection{}, args->wide),
                         .err = ""};
  }
  if (!args->ids.empty() && ctx.cluster->dialect == Dialect::kOpenlava) {
    SortAsMbatchd(*ctx.cluster, &selection.jobs);
  }
  return Output(*ctx.cluster, *args, selection);
}

}  // namespace bplace::lsfsim
