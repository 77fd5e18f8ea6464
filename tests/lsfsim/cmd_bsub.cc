// bsub (LSF 10.1 messages and exit statuses; see docs/lsf-formats.md
// "bsub").

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "tests/lsfsim/bsub_options.h"
#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/job_array.h"
#include "tests/lsfsim/job_spool.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/openlava.h"
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

// The pending reason of a job no dispatch turn has looked at (lsb.reason.c).
constexpr const char* kNewJobReason = "New job is waiting for scheduling";

// Parses -W's "[hour:]minute[/host_name | /host_model]" into seconds.
std::optional<long long> ParseRunLimit(const std::string& text) {
  std::string limit = text.substr(0, text.find('/'));
  size_t colon = limit.find(':');
  long long hours = 0;
  long long minutes = 0;
  if (colon != std::string::npos && !ParseInt(limit.substr(0, colon), &hours)) return std::nullopt;
  if (!ParseInt(colon == std::string::npos ? limit : limit.substr(colon + 1), &minutes)) {
    return std::nullopt;
  }
  return (hours * 60 + minutes) * 60;
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

// mbatchd's checks for one queue, in the order LSF reports them, for a job
// of `elements` jobs (an array's size, else 1) of `slots` slots each.
SubmitOutcome CheckQueue(const Context& ctx, const ClusterView& view, Resolver& resolver,
                         const JobTable& jobs, const std::string& queue_name,
                         const std::vector<std::string>& asked_hosts, int slots, int elements) {
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
      if (job.queue == def.name && !IsFinished(job)) ++queued;
    }
    if (queued + elements > *def.job_limit) {
      return {false,
              std::string("The destination queue has reached its job limit") + kNotSubmitted};
    }
  }
  return {true, ""};
}

std::string DefaultJobName(const BsubRequest& request, const std::string& command) {
  auto it = request.options.find("-J");
  if (it != request.options.end()) return it->second.substr(0, it->second.find('['));
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

// What bsub asks mbatchd for, read from its command line.
struct SubmitPlan {
  BsubRequest request;
  std::string command;
  int slots = 1;
  long long run_limit_s = 0;
  std::vector<std::string> asked_hosts;
  std::vector<std::string> queues;  // -q, after the esub's rewrite
  bool default_queue = false;
};

// bsub's own checks, before it contacts anybody (no job id is used).
BsubRequest ParseForDialect(const ClusterDef& cluster, const std::vector<std::string>& args) {
  return cluster.dialect == Dialect::kOpenlava ? ParseBsubOpenlava(args) : ParseBsub(args);
}

tl::expected<SubmitPlan, CommandResult> PlanSubmit(const ClusterDef& cluster,
                                                   const std::vector<std::string>& args,
                                                   const std::string& stdin_script) {
  SubmitPlan plan;
  plan.request = ParseForDialect(cluster, args);
  if (!plan.request.refused.empty()) {
    return tl::unexpected(Fail(plan.request.refused + kNotSubmitted));
  }
  if (!plan.request.bad_usage && plan.request.command_words.empty()) {
    // A script on stdin: bsub applies its #BSUB options not on the command line.
    BsubRequest embedded = ParseForDialect(cluster, EmbeddedBsubArgs(stdin_script));
    if (!embedded.refused.empty()) return tl::unexpected(Fail(embedded.refused + kNotSubmitted));
    if (embedded.bad_usage || !embedded.command_words.empty()) {
      return tl::unexpected(CommandResult{
          .exit_code = 255,
          .out = "",
          .err =
              (embedded.bad_usage ? embedded.usage_error
                                  : "bsub: bad #BSUB option " + embedded.command_words[0] + "\n") +
              kBsubUsage});
    }
    ApplyEmbedded(&plan.request, embedded);
  }
  const BsubRequest& request = plan.request;
  if (request.bad_usage) {
    return tl::unexpected(
        CommandResult{.exit_code = 255, .out = "", .err = request.usage_error + kBsubUsage});
  }
  plan.command =
      request.command_words.empty() ? stdin_script : BsubCommandLine(request.command_words);
  if (SplitWs(plan.command).empty()) {
    return tl::unexpected(Fail(std::string("Empty job") + kNotSubmitted));
  }
  if (auto it = request.options.find("-n"); it != request.options.end()) {
    long long value = 0;
    if (!ParseInt(it->second.substr(0, it->second.find(',')), &value) || value < 1) {
      return tl::unexpected(Fail("Bad argument for option -n" + std::string(kNotSubmitted)));
    }
    plan.slots = static_cast<int>(value);
  }
  if (auto it = request.options.find("-W"); it != request.options.end()) {
    std::optional<long long> limit = ParseRunLimit(it->second);
    if (!limit)
      return tl::unexpected(Fail("Bad argument for option -W" + std::string(kNotSubmitted)));
    plan.run_limit_s = *limit;
  }
  if (auto it = request.options.find("-m"); it != request.options.end()) {
    plan.asked_hosts = SplitWs(it->second);
  }
  if (auto it = request.options.find("-q"); it != request.options.end()) {
    plan.queues = SplitWs(it->second);
  }
  if (plan.queues.empty()) {
    std::optional<size_t> q = cluster.DefaultQueue();
    if (!q) return tl::unexpected(Fail(std::string("No default queue defined") + kNotSubmitted));
    plan.queues.push_back(cluster.queues[*q].name);
    plan.default_queue = true;
  }
  return plan;
}

// The site esub runs on the submission host before mbatchd sees the job:
// it may print, reject the job (no job id is used), rewrite -q or set the
// job description. Returns false when it rejected the job.
bool RunSiteEsubs(const ClusterDef& cluster, SubmitPlan* plan, CommandResult* result) {
  if (cluster.esub_description) plan->request.options["-Jd"] = *cluster.esub_description;
  for (std::string& queue : plan->queues) {
    std::optional<size_t> q = cluster.FindQueue(queue);
    if (!q) continue;
    const QueueDef& def = cluster.queues[*q];
    if (!def.esub_banner.empty()) result->out += def.esub_banner + "\n";
    if (!def.esub_reject.empty()) {
      result->exit_code = 255;
      result->err += def.esub_reject + "\nRequest aborted by esub" + kNotSubmitted + "\n";
      return false;
    }
    if (!def.rewrite_to.empty()) {
      queue = def.rewrite_to;
      plan->default_queue = false;
    }
  }
  return true;
}

// mbatchd's answer to one submission.
struct MbatchdReply {
  bool accepted = false;
  bool retry = false;  // refused by a pending threshold: bsub tries again
  long long id = 0;
  std::string queue;
  std::string error;  // the stderr line without ". Job not submitted."
};

constexpr const char* kPendJobsReached = "Pending job threshold reached";
constexpr const char* kPendSlotsReached = "Pending job slots threshold reached";

// Returns the message of the first pending threshold a new job of
// `elements` x `slots` would cross, in mbatchd's order: the user's
// MAX_PEND_SLOTS and MAX_PEND_JOBS (lsb.users, else its "default" entry),
// the cluster's MAX_PEND_JOBS and MAX_PEND_SLOTS (lsb.params), then each
// user group entry the user belongs to. Empty when none is crossed.
std::string PendingThresholdCrossed(const Context& ctx, const JobTable& table, int elements,
                                    int slots) {
  const ClusterDef& cluster = *ctx.cluster;
  Resolver resolver(cluster);
  auto crossed = [&](const std::optional<int>& max_jobs, const std::optional<int>& max_slots,
                     auto counts, bool slots_first) -> std::string {
    int jobs = 0;
    int pend_slots = 0;
    for (const Job& job : table.jobs) {
      if (IsPending(job) && counts(job)) {
        ++jobs;
        pend_slots += job.slots;
      }
    }
    bool over_slots = max_slots && pend_slots + elements * slots > *max_slots;
    bool over_jobs = max_jobs && jobs + elements > *max_jobs;
    if (slots_first && over_slots) return kPendSlotsReached;
    if (over_jobs) return kPendJobsReached;
    return over_slots ? kPendSlotsReached : "";
  };
  const UserLimitDef* own = nullptr;
  const UserLimitDef* fallback = nullptr;
  for (const UserLimitDef& def : cluster.user_limits) {
    if (def.name == ctx.user) own = &def;
    if (def.name == "default") fallback = &def;
  }
  if (const UserLimitDef* user = own ? own : fallback) {
    auto mine = [&](const Job& job) { return job.user == ctx.user; };
    if (auto m = crossed(user->max_pend_jobs, user->max_pend_slots, mine, true); !m.empty())
      return m;
  }
  auto all = [](const Job&) { return true; };
  if (auto m = crossed(cluster.max_pend_jobs, cluster.max_pend_slots, all, false); !m.empty()) {
    return m;
  }
  for (const UserLimitDef& def : cluster.user_limits) {
    std::optional<size_t> group = cluster.FindUserGroup(def.name);
    if (!group || !resolver.UserInGroup(*group, ctx.user)) continue;
    auto members = [&](const Job& job) { return resolver.UserInGroup(*group, job.user); };
    if (auto m = crossed(def.max_pend_jobs, def.max_pend_slots, members, true); !m.empty()) {
      return m;
    }
  }
  return "";
}

// The job (or the array's elements) mbatchd records for an accepted plan.
std::vector<Job> MakeJobs(const Context& ctx, const SubmitPlan& plan, long long id,
                          const std::string& queue, const std::optional<ArraySpec>& array) {
  const BsubRequest& request = plan.request;
  Job job;
  job.id = id;
  job.user = ctx.user;
  job.queue = queue;
  job.asked_hosts = plan.asked_hosts;
  job.slots = plan.slots;
  job.name = DefaultJobName(request, plan.command);
  if (auto it = request.options.find("-Jd"); it != request.options.end()) {
    job.description = it->second;
  }
  if (auto it = request.options.find("-P"); it != request.options.end()) job.project = it->second;
  job.command = plan.command;
  job.from_host = ctx.from_host;
  job.submit_time = ctx.now;
  job.run_limit_s = plan.run_limit_s;
  job.options = request.options;
  job.res_reqs = request.res_reqs;
  job.pend_reason = kNewJobReason;
  job.cwd = ctx.cwd;
  job.umask = ctx.umask;
  job.script = request.command_words.empty();
  if (!array) return {job};
  std::vector<Job> elements;
  for (int index : array->indices) {
    elements.push_back(job);
    elements.back().index = index;
    elements.back().array_limit = array->slot_limit;
  }
  return elements;
}

// mbatchd judges the job in its order: the resource requirements, each
// queue of -q until one accepts, the array's index list, then the pending
// thresholds.
MbatchdReply JudgeJob(const Context& ctx, const SubmitPlan& plan, const LoadedState& state,
                      std::optional<ArraySpec>* array) {
  MbatchdReply reply;
  const std::vector<std::string>& res_reqs = plan.request.res_reqs;
  bool units_refused = ctx.cluster->dialect == Dialect::kOpenlava &&
                       std::any_of(res_reqs.begin(), res_reqs.end(), OpenlavaResReqHasUnit);
  if (units_refused || !std::all_of(res_reqs.begin(), res_reqs.end(), ResReqLooksValid)) {
    reply.error = "Bad resource requirement syntax";
    return reply;
  }
  std::string name;
  if (auto it = plan.request.options.find("-J"); it != plan.request.options.end()) {
    name = it->second;
  }
  auto parsed = ParseArrayJobName(name, ctx.cluster->max_job_array_size);
  int elements = parsed && *parsed ? static_cast<int>((*parsed)->indices.size()) : 1;
  ClusterView view(*ctx.cluster, state.overrides, state.jobs);
  Resolver resolver(*ctx.cluster);
  SubmitOutcome outcome;
  for (const std::string& queue : plan.queues) {
    outcome =
        CheckQueue(ctx, view, resolver, state.jobs, queue, plan.asked_hosts, plan.slots, elements);
    if (outcome.accepted) {
      reply.queue = queue;
      break;
    }
  }
  if (!outcome.accepted) {
    // CheckQueue's lines carry ". Job not submitted." already.
    reply.error = outcome.error.substr(0, outcome.error.size() - std::strlen(kNotSubmitted));
    return reply;
  }
  if (!parsed) {
    reply.error = ArrayErrorMessage(parsed.error());
    return reply;
  }
  *array = *parsed;
  reply.error = PendingThresholdCrossed(ctx, state.jobs, elements, plan.slots);
  reply.retry = !reply.error.empty();
  reply.accepted = !reply.retry;
  return reply;
}

// One submission to mbatchd under the state lock. mbatchd assigns the job
// id before it judges the job: a rejected submission still uses one up.
tl::expected<MbatchdReply, std::string> SubmitToMbatchd(const Context& ctx,
                                                        const SubmitPlan& plan) {
  StateLock lock(*ctx.state);
  if (!lock.ok()) return tl::unexpected(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return tl::unexpected(loaded.error());
  long long id = loaded->jobs.next_id++;
  std::optional<ArraySpec> array;
  MbatchdReply reply = JudgeJob(ctx, plan, *loaded, &array);
  reply.id = id;
  if (reply.accepted) {
    for (Job& job : MakeJobs(ctx, plan, id, reply.queue, array)) {
      loaded->jobs.jobs.push_back(std::move(job));
    }
    // The environment goes to the job's spool file, before the table names
    // the job, so that a runner never finds a job without one.
    if (auto spooled = SaveJobSpool(*ctx.state, id, JobSpool{ctx.environment}); !spooled) {
      return tl::unexpected(spooled.error());
    }
  }
  if (auto saved = ctx.state->SaveJobs(loaded->jobs); !saved) {
    return tl::unexpected(saved.error());
  }
  return reply;
}

}  // namespace

bool BsubNeedsStdin(const ClusterDef& cluster, const std::vector<std::string>& args) {
  BsubRequest request = ParseForDialect(cluster, args);
  return !request.bad_usage && request.command_words.empty();
}

CommandResult RunBsub(const Context& ctx, const std::vector<std::string>& args,
                      const std::string& stdin_script) {
  auto plan = PlanSubmit(*ctx.cluster, args, stdin_script);
  if (!plan) return plan.error();
  CommandResult result;
  if (!RunSiteEsubs(*ctx.cluster, &*plan, &result)) return result;
  // A job refused by a pending threshold is tried again every
  // SUB_TRY_INTERVAL seconds until LSB_NTRIES tries (forever when unset).
  for (long long attempt = 1;; ++attempt) {
    auto reply = SubmitToMbatchd(ctx, *plan);
    if (!reply) return InternalError(reply.error());
    if (reply->accepted) {
      result.out += StrPrintf("Job <%lld> is submitted to %squeue <%s>.\n", reply->id,
                              plan->default_queue ? "default " : "", reply->queue.c_str());
      return result;
    }
    if (!reply->retry || (ctx.lsb_ntries && attempt >= *ctx.lsb_ntries)) {
      result.exit_code = 255;
      result.err += reply->error + kNotSubmitted + "\n";
      return result;
    }
    std::string line = StrPrintf("%s. Retrying in %d seconds...\n", reply->error.c_str(),
                                 ctx.cluster->sub_try_interval_s);
    if (ctx.progress) {
      ctx.progress(line);
    } else {
      result.err += line;
    }
    std::this_thread::sleep_for(std::chrono::seconds(ctx.cluster->sub_try_interval_s));
  }
}

}  // namespace bplace::lsfsim
