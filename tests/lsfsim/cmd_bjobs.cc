// bjobs (LSF 10.1 messages and exit statuses; see lsf/FORMATS.md and
// lsf/openlava-samples.md).

#include <algorithm>
#include <cctype>
#include <set>

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {

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

}  // namespace bplace::lsfsim
