// bsub, bjobs and bkill (LSF 10.1 messages and exit statuses; see
// lsf/FORMATS.md and lsf/openlava-samples.md).

#include <algorithm>
#include <cctype>
#include <set>

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {
namespace {

constexpr const char* kBsubUsage =
    "Usage: bsub [-h] [-V] [-x] [-B] [-N] [-q \"queue_name ...\"] [-m \"host_name[+[pref_level]] "
    "...\"]\n"
    "            [-n min_proc[,max_proc]] [-R \"res_req\"] [-J job_name] [-Jd \"description\"]\n"
    "            [-o out_file] [-e err_file] [-cwd dir] [-W [hour:]minute] [-M mem_limit]\n"
    "            [-P project] [-app app_profile] [-G user_group] [-g job_group] [-sla "
    "class]\n"
    "            [command [argument ...]]\n";

constexpr const char* kNotSubmitted = ". Job not submitted.";

// bsub options that take a value (LSF 10.1 `bsub -h`).
const std::set<std::string>& ValueOptions() {
  static const std::set<std::string> kOptions = {
      "-q",   "-m",   "-n",  "-J",   "-Jd", "-R",    "-o",     "-e",      "-oo",
      "-eo",  "-cwd", "-W",  "-We",  "-M",  "-P",    "-app",   "-u",      "-G",
      "-L",   "-E",   "-Ep", "-w",   "-b",  "-sp",   "-g",     "-sla",    "-outdir",
      "-i",   "-is",  "-k",  "-c",   "-D",  "-S",    "-v",     "-T",      "-Lp",
      "-U",   "-F",   "-C",  "-ext", "-a",  "-data", "-gpu",   "-jsdl",   "-pack",
      "-ptl", "-rnc", "-s",  "-t",   "-f",  "-Q",    "-cn_cu", "-cn_mem", "-eptl"};
  return kOptions;
}

// bsub options that take no value.
const std::set<std::string>& FlagOptions() {
  static const std::set<std::string> kOptions = {"-x",  "-B",  "-N",   "-H",   "-I",  "-Is",
                                                 "-Ip", "-IS", "-ISs", "-ISp", "-IX", "-K",
                                                 "-r",  "-rn", "-ul",  "-tty", "-hl", "-K"};
  return kOptions;
}

struct BsubRequest {
  std::map<std::string, std::string> options;  // last value wins, as in LSF
  std::vector<std::string> command_words;
  bool bad_usage = false;
  std::string usage_error;
};

BsubRequest ParseBsub(const std::vector<std::string>& args) {
  BsubRequest request;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') break;
    if (FlagOptions().contains(arg)) {
      request.options[arg] = "";
      continue;
    }
    if (ValueOptions().contains(arg)) {
      if (i + 1 >= args.size()) {
        request.bad_usage = true;
        request.usage_error = "bsub: option requires an argument -- " + arg.substr(1) + "\n";
        return request;
      }
      request.options[arg] = args[++i];
      continue;
    }
    // A single-letter option glued to its value: -n4, -qnormal.
    std::string flag = arg.substr(0, 2);
    if (ValueOptions().contains(flag)) {
      request.options[flag] = arg.substr(2);
      continue;
    }
    request.bad_usage = true;
    request.usage_error = "bsub: illegal option -- " + arg.substr(1) + "\n";
    return request;
  }
  for (; i < args.size(); ++i) request.command_words.push_back(args[i]);
  return request;
}

// Resource requirement syntax as far as the simulator checks it: not empty,
// brackets balanced and properly nested, known section names.
bool ResReqLooksValid(const std::string& text) {
  if (SplitWs(text).empty()) return false;
  std::vector<char> stack;
  for (char c : text) {
    if (c == '[' || c == '(' || c == '{') stack.push_back(c);
    if (c == ']' || c == ')' || c == '}') {
      char open = c == ']' ? '[' : c == ')' ? '(' : '{';
      if (stack.empty() || stack.back() != open) return false;
      stack.pop_back();
    }
  }
  if (!stack.empty()) return false;
  // Every `word[` at bracket depth zero must name a section LSF knows.
  static const std::set<std::string> kSections = {"select", "order", "rusage",  "span",
                                                  "same",   "cu",    "affinity"};
  int depth = 0;
  std::string word;
  for (char c : text) {
    if (c == '[') {
      if (depth == 0 && !word.empty() && !kSections.contains(word)) return false;
      ++depth;
      word.clear();
    } else if (c == ']') {
      --depth;
    } else if (depth == 0) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        word += c;
      } else {
        word.clear();
      }
    }
  }
  return true;
}

struct SubmitOutcome {
  bool accepted = false;
  std::string error;  // the full stderr line on rejection
};

// mbatchd's checks for one queue, in the order LSF reports them.
SubmitOutcome CheckQueue(const Context& ctx, const ClusterView& view, Resolver& resolver,
                         const JobTable& jobs, const std::string& queue_name,
                         const std::vector<std::string>& asked_hosts, int slots) {
  const ClusterDef& cluster = *ctx.cluster;
  std::optional<size_t> q = cluster.FindQueue(queue_name);
  if (!q) return {false, queue_name + ": No such queue" + kNotSubmitted};
  const QueueDef& def = cluster.queues[*q];
  if (!view.QueueOpen(*q)) return {false, queue_name + ": Queue has been closed" + kNotSubmitted};
  if (!resolver.UserCanUseQueue(*q, ctx.user)) {
    return {false, queue_name + ": User cannot use the queue" + kNotSubmitted};
  }
  const HostSet& queue_hosts = resolver.QueueHosts(*q);
  HostSet candidates = queue_hosts;
  if (!asked_hosts.empty()) {
    HostSet asked(cluster.hosts.size(), false);
    for (const std::string& token : asked_hosts) {
      std::optional<HostSet> hosts = resolver.HostsOfName(token);
      if (!hosts) {
        return {false, token + ": Bad host name, host group name or cluster name" + kNotSubmitted};
      }
      bool used = false;
      for (size_t h = 0; h < hosts->size(); ++h) {
        if ((*hosts)[h] && queue_hosts[h]) {
          used = true;
          asked[h] = true;
        }
      }
      if (!used) {
        return {false, token + ": Host or host group is not used by the queue" + kNotSubmitted};
      }
    }
    candidates = asked;
  }
  if (def.max_slots && slots > *def.max_slots) {
    return {false, std::string("Too many processors requested") + kNotSubmitted};
  }
  bool any_host = false;
  bool fits = false;
  for (size_t h = 0; h < candidates.size(); ++h) {
    if (!candidates[h]) continue;
    any_host = true;
    const std::optional<int>& max = cluster.hosts[h].max_slots;
    if (!max || slots <= *max) fits = true;
  }
  if (any_host && !fits) {
    return {false, std::string("Too many processors requested") + kNotSubmitted};
  }
  if (def.jl_u && slots > *def.jl_u) {
    return {false, std::string("Queue does not have enough per-user job slots") + kNotSubmitted};
  }
  if (def.job_limit) {
    int queued = 0;
    for (const Job& job : jobs.jobs) {
      if (job.queue == def.name && (job.status == "PEND" || job.status == "RUN")) ++queued;
    }
    if (queued >= *def.job_limit) {
      return {false,
              std::string("The destination queue has reached its job limit") + kNotSubmitted};
    }
  }
  return {true, ""};
}

std::string DefaultJobName(const BsubRequest& request, const std::string& command) {
  auto it = request.options.find("-J");
  if (it != request.options.end()) return it->second;
  if (!request.command_words.empty()) return command;
  // A script from stdin: LSF names the job after its first command line.
  size_t start = 0;
  while (start < command.size()) {
    size_t end = command.find('\n', start);
    std::string line = command.substr(start, end == std::string::npos ? end : end - start);
    std::vector<std::string> words = SplitWs(line);
    if (!words.empty() && words[0][0] != '#') return Join(words, " ");
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "sh";
}

bool IsFinished(const Job& job) { return job.status == "DONE" || job.status == "EXIT"; }

}  // namespace

bool BsubNeedsStdin(const std::vector<std::string>& args) {
  BsubRequest request = ParseBsub(args);
  return !request.bad_usage && request.command_words.empty();
}

CommandResult RunBsub(const Context& ctx, const std::vector<std::string>& args,
                      const std::string& stdin_script) {
  BsubRequest request = ParseBsub(args);
  if (request.bad_usage) {
    return CommandResult{.exit_code = 255, .out = "", .err = request.usage_error + kBsubUsage};
  }
  std::string command =
      request.command_words.empty() ? stdin_script : Join(request.command_words, " ");
  if (SplitWs(command).empty()) return Fail(std::string("Empty job") + kNotSubmitted);

  int slots = 1;
  if (auto it = request.options.find("-n"); it != request.options.end()) {
    std::string first = it->second.substr(0, it->second.find(','));
    long long value = 0;
    if (!ParseInt(first, &value) || value < 1) {
      return Fail("Bad argument for option -n" + std::string(kNotSubmitted));
    }
    slots = static_cast<int>(value);
  }
  std::vector<std::string> asked_hosts;
  if (auto it = request.options.find("-m"); it != request.options.end()) {
    asked_hosts = SplitWs(it->second);
  }

  const ClusterDef& cluster = *ctx.cluster;
  bool default_queue = false;
  std::vector<std::string> queues;
  if (auto it = request.options.find("-q"); it != request.options.end()) {
    queues = SplitWs(it->second);
  }
  if (queues.empty()) {
    std::optional<size_t> q = cluster.DefaultQueue();
    if (!q) return Fail(std::string("No default queue defined") + kNotSubmitted);
    queues.push_back(cluster.queues[*q].name);
    default_queue = true;
  }

  // The site esub runs on the submission host before mbatchd sees the job:
  // it may print, reject the job (no job id is used) or rewrite -q.
  CommandResult result;
  for (std::string& queue : queues) {
    std::optional<size_t> q = cluster.FindQueue(queue);
    if (!q) continue;
    const QueueDef& def = cluster.queues[*q];
    if (!def.esub_banner.empty()) result.out += def.esub_banner + "\n";
    if (!def.esub_reject.empty()) {
      result.exit_code = 255;
      result.err += def.esub_reject + "\nRequest aborted by esub" + kNotSubmitted + "\n";
      return result;
    }
    if (!def.rewrite_to.empty()) {
      queue = def.rewrite_to;
      default_queue = false;
    }
  }

  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  JobTable& jobs = loaded->jobs;
  ClusterView view(cluster, loaded->overrides, jobs);
  Resolver resolver(cluster);

  // mbatchd assigns the job id before it judges the job: a rejected
  // submission still uses one up.
  long long id = jobs.next_id++;
  SubmitOutcome outcome;
  std::string chosen;
  if (auto it = request.options.find("-R");
      it != request.options.end() && !ResReqLooksValid(it->second)) {
    outcome.error = std::string("Bad resource requirement syntax") + kNotSubmitted;
  } else {
    for (const std::string& queue : queues) {
      outcome = CheckQueue(ctx, view, resolver, jobs, queue, asked_hosts, slots);
      if (outcome.accepted) {
        chosen = queue;
        break;
      }
    }
  }
  if (outcome.accepted) {
    Job job;
    job.id = id;
    job.user = ctx.user;
    job.queue = chosen;
    job.asked_hosts = asked_hosts;
    job.slots = slots;
    job.name = DefaultJobName(request, command);
    if (auto it = request.options.find("-Jd"); it != request.options.end()) {
      job.description = it->second;
    }
    job.command = command;
    job.from_host = ctx.from_host;
    job.submit_time = ctx.now;
    job.options = request.options;
    jobs.jobs.push_back(std::move(job));
  }
  if (auto saved = ctx.state->SaveJobs(jobs); !saved) return InternalError(saved.error());
  lock.Release();

  if (!outcome.accepted) {
    result.exit_code = 255;
    result.err += outcome.error + "\n";
    return result;
  }
  result.out += StrPrintf("Job <%lld> is submitted to %squeue <%s>.\n", id,
                          default_queue ? "default " : "", chosen.c_str());
  return result;
}

CommandResult RunBjobs(const Context& ctx, const std::vector<std::string>& args) {
  const char* usage =
      "Usage: bjobs [-h] [-V] [-w] [-a | -d | -p | -r] [-u user_name | -u all] [-q queue]\n"
      "             [-o \"field_name ...\" [-json]] [jobId ...]\n";
  bool wide = false;
  bool json = false;
  std::string state_filter;  // "", "a", "d", "p", "r"
  std::optional<std::string> user;
  std::optional<std::string> queue;
  std::optional<std::string> format;
  std::vector<std::string> ids;
  for (size_t i = 0; i < args.size(); ++i) {
    bool missing = false;
    const std::string& arg = args[i];
    if (arg == "-w") {
      wide = true;
    } else if (arg == "-a" || arg == "-d" || arg == "-p" || arg == "-r") {
      state_filter = arg.substr(1);
    } else if (arg == "-json") {
      json = true;
    } else if (arg == "-l") {
      // Long format is not simulated; print the table.
    } else if (auto v = TakeOptionValue(args, &i, "-u", &missing)) {
      if (missing) return Fail(usage);
      user = *v;
    } else if (auto v = TakeOptionValue(args, &i, "-q", &missing)) {
      if (missing) return Fail(usage);
      queue = *v;
    } else if (auto v = TakeOptionValue(args, &i, "-o", &missing)) {
      if (missing) return Fail(usage);
      format = *v;
    } else if (!arg.empty() && arg[0] == '-') {
      return CommandResult{.exit_code = 255, .out = "", .err = usage};
    } else {
      ids.push_back(arg);
    }
  }
  if (json && !format) return Fail("bjobs: The -json option must be used with the -o option.");
  static const std::pair<const char*, const char*> kFields[] = {
      {"jobid", "JOBID"},
      {"stat", "STAT"},
      {"queue", "QUEUE"},
      {"exec_host", "EXEC_HOST"},
      {"job_description", "JOB_DESCRIPTION"},
      {"user", "USER"},
      {"job_name", "JOB_NAME"},
      {"from_host", "FROM_HOST"},
      {"submit_time", "SUBMIT_TIME"},
      {"slots", "SLOTS"},
      {"command", "COMMAND"}};
  std::vector<std::string> keys;
  if (format) {
    for (const std::string& field : SplitWs(*format)) {
      // A field may carry a width or delimiter (`jobid:7`); the name is before ':'.
      std::string name = field.substr(0, field.find(':'));
      const char* key = nullptr;
      for (auto& [f, k] : kFields) {
        if (name == f) key = k;
      }
      if (key == nullptr) return Fail(name + ": Illegal field name. Specify a valid field name.");
      keys.push_back(key);
    }
  }

  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  lock.Release();
  const ClusterDef& cluster = *ctx.cluster;
  const JobTable& table = loaded->jobs;

  CommandResult result;
  std::vector<const Job*> selected;
  std::vector<std::string> missing_ids;
  if (!ids.empty()) {
    for (const std::string& text : ids) {
      long long id = 0;
      const Job* found = nullptr;
      if (ParseInt(text, &id)) {
        for (const Job& job : table.jobs) {
          if (job.id == id) found = &job;
        }
      }
      if (found == nullptr) {
        missing_ids.push_back(text);
      } else {
        selected.push_back(found);
      }
    }
  } else {
    std::string who = user.value_or(ctx.user);
    for (const Job& job : table.jobs) {
      if (who != "all" && job.user != who) continue;
      if (queue && job.queue != *queue) continue;
      bool finished = IsFinished(job);
      if (state_filter.empty() && finished) continue;
      if (state_filter == "d" && !finished) continue;
      if (state_filter == "p" && job.status != "PEND") continue;
      if (state_filter == "r" && job.status != "RUN") continue;
      selected.push_back(&job);
    }
    // Running jobs first, then pending, then finished; within each, by queue
    // priority and then job id, as mbatchd lists them.
    auto rank = [](const Job* job) {
      return job->status == "RUN" ? 0 : job->status == "PEND" ? 1 : 2;
    };
    auto prio = [&](const Job* job) {
      std::optional<size_t> q = cluster.FindQueue(job->queue);
      return q ? cluster.queues[*q].priority : 0;
    };
    std::stable_sort(selected.begin(), selected.end(), [&](const Job* a, const Job* b) {
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      if (prio(a) != prio(b)) return prio(a) > prio(b);
      return a->id < b->id;
    });
  }
  for (const std::string& id : missing_ids) {
    if (!json) result.err += "Job <" + id + "> is not found\n";
    result.exit_code = 255;
  }

  auto exec_host = [](const Job& job) {
    if (job.exec_host.empty()) return std::string();
    return job.slots > 1 ? std::to_string(job.slots) + "*" + job.exec_host : job.exec_host;
  };
  if (format) {
    std::vector<std::vector<std::pair<std::string, std::string>>> records;
    for (const Job* job : selected) {
      std::vector<std::pair<std::string, std::string>> record;
      for (const std::string& key : keys) {
        std::string value;
        if (key == "JOBID") value = std::to_string(job->id);
        if (key == "STAT") value = job->status;
        if (key == "QUEUE") value = job->queue;
        if (key == "EXEC_HOST") value = exec_host(*job);
        if (key == "JOB_DESCRIPTION") value = job->description;
        if (key == "USER") value = job->user;
        if (key == "JOB_NAME") value = job->name;
        if (key == "FROM_HOST") value = job->from_host;
        if (key == "SUBMIT_TIME") value = FormatSubmitTime(job->submit_time);
        if (key == "SLOTS") value = std::to_string(job->slots);
        if (key == "COMMAND") value = job->command;
        record.emplace_back(key, value);
      }
      records.push_back(std::move(record));
    }
    if (json) {
      // LSF 10.1 reports a missing job inside the JSON as a record with ERROR.
      for (const std::string& id : missing_ids) {
        records.push_back({{"JOBID", id}, {"ERROR", "Job <" + id + "> is not found"}});
      }
      result.out = FormatLsfJson("bjobs", "JOBS", records);
      return result;
    }
    if (selected.empty() && missing_ids.empty()) {
      return CommandResult{.exit_code = 254, .out = "", .err = "No unfinished job found\n"};
    }
    for (const std::string& key : keys) result.out += key + " ";
    result.out += "\n";
    for (const auto& record : records) {
      for (const auto& [key, value] : record) result.out += (value.empty() ? "-" : value) + " ";
      result.out += "\n";
    }
    return result;
  }

  if (selected.empty()) {
    if (!missing_ids.empty()) return result;
    std::string message = "No unfinished job found";
    if (state_filter == "a") message = "No job found";
    if (state_filter == "d") message = "No DONE/EXIT job found";
    if (state_filter == "p") message = "No pending job found";
    if (state_filter == "r") message = "No running job found";
    return CommandResult{.exit_code = 254, .out = "", .err = message + "\n"};
  }
  result.out = "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n";
  for (const Job* job : selected) {
    std::string host = exec_host(*job);
    // A pending job's EXEC_HOST is blank, except with -w (and for finished
    // jobs that never ran), where LSF prints "   -".
    if (host.empty() && (wide || IsFinished(*job))) host = "   -";
    std::string name = job->name;
    if (!wide && name.size() > 10) name = "*" + name.substr(name.size() - 9);
    std::string id = std::to_string(job->id);
    result.out += StrPrintf(wide ? "%-7s %-7s %-5s %-10s %-11s %-11s %-10s %s\n"
                                 : "%-7s %-7.7s %-5s %-10.10s %-11.11s %-11.11s %-10.10s %s\n",
                            id.c_str(), job->user.c_str(), job->status.c_str(), job->queue.c_str(),
                            job->from_host.c_str(), host.c_str(), name.c_str(),
                            FormatSubmitTime(job->submit_time).c_str());
  }
  return result;
}

CommandResult RunBkill(const Context& ctx, const std::vector<std::string>& args) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-s") {
      ++i;  // The signal does not matter: every job ends as EXIT.
    } else if (!arg.empty() && arg[0] == '-') {
      return Fail("Usage: bkill [-h] [-V] [-s signal_value] [jobId ...]");
    } else {
      ids.push_back(arg);
    }
  }
  if (ids.empty()) return Fail("Usage: bkill [-h] [-V] [-s signal_value] [jobId ...]");

  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  JobTable& table = loaded->jobs;
  const ClusterDef& cluster = *ctx.cluster;

  auto may_kill = [&](const Job& job) {
    if (job.user == ctx.user || cluster.IsLsfAdmin(ctx.user)) return true;
    std::optional<size_t> q = cluster.FindQueue(job.queue);
    if (!q) return false;
    for (const std::string& admin : cluster.queues[*q].administrators) {
      if (admin == ctx.user) return true;
    }
    return false;
  };

  CommandResult result;
  bool changed = false;
  for (const std::string& text : ids) {
    long long id = 0;
    if (!ParseInt(text, &id)) {
      result.err += text + ": Illegal job ID.\n";
      result.exit_code = 255;
      continue;
    }
    if (id == 0) {
      // `bkill 0` kills all of the caller's unfinished jobs.
      int killed = 0;
      for (Job& job : table.jobs) {
        if (job.user != ctx.user || IsFinished(job)) continue;
        job.status = "EXIT";
        job.end_time = ctx.now;
        result.out += StrPrintf("Job <%lld> is being terminated\n", job.id);
        ++killed;
        changed = true;
      }
      if (killed == 0) {
        result.err += "No unfinished job found\n";
        result.exit_code = 255;
      }
      continue;
    }
    Job* found = nullptr;
    for (Job& job : table.jobs) {
      if (job.id == id) found = &job;
    }
    if (found == nullptr) {
      result.err += StrPrintf("Job <%lld>: No matching job found\n", id);
      result.exit_code = 255;
    } else if (IsFinished(*found)) {
      result.err += StrPrintf("Job <%lld>: Job has already finished\n", id);
      result.exit_code = 255;
    } else if (!may_kill(*found)) {
      result.err += StrPrintf("Job <%lld>: User permission denied\n", id);
      result.exit_code = 255;
    } else {
      found->status = "EXIT";
      found->end_time = ctx.now;
      result.out += StrPrintf("Job <%lld> is being terminated\n", id);
      changed = true;
    }
  }
  if (changed) {
    if (auto saved = ctx.state->SaveJobs(table); !saved) return InternalError(saved.error());
  }
  return result;
}

}  // namespace bplace::lsfsim
