#include "cli/render.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>

#include "cli/table.h"

namespace bplace::cli {
namespace {

using nlohmann::json;

// A member as text: "-" for missing or null, strings as they are, booleans
// as yes/no, numbers as JSON writes them.
std::string Text(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return "-";
  const json& value = object[key];
  if (value.is_null()) return "-";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  return value.dump();
}

const json& Array(const json& object, const char* key) {
  static const json kEmpty = json::array();
  if (!object.is_object() || !object.contains(key) || !object[key].is_array()) return kEmpty;
  return object[key];
}

std::string Join(const json& list, const char* separator) {
  std::string out;
  for (const json& item : list) {
    if (!out.empty()) out += separator;
    out += item.is_string() ? item.get<std::string>() : item.dump();
  }
  return out;
}

std::string ExclusionTable(const json& excluded, std::size_t width) {
  Table table{{"QUEUE", "CODE", "REASON"}, {}};
  for (const json& item : excluded) {
    std::string reason = Text(item, "reason");
    if (item.contains("until_refresh") && !item["until_refresh"].is_null()) {
      reason += " (until the next " + Text(item, "until_refresh") + " refresh)";
    } else if (item.contains("until") && !item["until"].is_null()) {
      reason += " (until " + Text(item, "until") + ")";
    }
    table.rows.push_back({Text(item, "queue"), Text(item, "code"), reason});
  }
  return RenderTable(table, width);
}

std::string IbText(const json& ib) {
  std::string text = Text(ib, "health");
  const json& reasons = Array(ib, "reasons");
  if (!reasons.empty()) text += " (" + Join(reasons, "; ") + ")";
  return text;
}

std::string ExecHosts(const json& job) {
  std::string out;
  for (const json& host : Array(job, "exec_hosts")) {
    if (!out.empty()) out += " ";
    const std::string slots = Text(host, "slots");
    out += (slots == "1" || slots == "-" ? "" : slots + "*") + Text(host, "host");
  }
  return out.empty() ? "-" : out;
}

// Seconds since the epoch of an RFC 3339 UTC time as bplaced writes it
// ("2026-12-01T17:00:35.532Z"); nullopt for anything else.
std::optional<double> EpochSeconds(const json& text) {
  if (!text.is_string()) return std::nullopt;
  std::tm utc{};
  int millis = 0;
  const std::string value = text.get<std::string>();
  if (std::sscanf(value.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &utc.tm_year, &utc.tm_mon,
                  &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &millis) != 7) {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return static_cast<double>(timegm(&utc)) + millis / 1000.0;
}

// The age of the InfiniBand verdicts: /v1/ib gives the load data's age and
// both times, so the source's age is the load age plus the gap between them.
json IbAge(const json& ib) {
  const auto as_of = EpochSeconds(ib.value("as_of", json()));
  const auto source_as_of = EpochSeconds(ib.value("source_as_of", json()));
  if (!as_of || !source_as_of || !ib.value("age_s", json()).is_number()) return json();
  return ib["age_s"].get<double>() + (*as_of - *source_as_of);
}

// A job's status in LSF's words: bplace's SUBMITTED (LSF took the job,
// bjobs has not listed it yet) is PEND, as LSF says of a job it accepted.
std::string LsfStatus(const json& job) {
  const std::string status = Text(job, "status");
  return status == "SUBMITTED" ? "PEND" : status;
}

// What bplace's placement said of a job's start, in the daemon's words, and
// the wait LSF gave it against that bound.
void AddWaitRows(Table& table, const json& job) {
  const std::string expected = Text(job.value("expected_start", json()), "summary");
  if (expected != "-") table.rows.push_back({"expected_start", expected});
  const json wait_s = job.value("wait_s", json());
  if (!wait_s.is_number()) return;
  std::string wait = FormatAge(wait_s);
  const json within = job.value("within_bound", json());
  if (within.is_boolean())
    wait += within.get<bool>() ? " (within the bound)" : " (beyond the bound)";
  table.rows.push_back({"wait", wait});
}

}  // namespace

std::string FormatAge(const json& age_s) {
  if (!age_s.is_number()) return "-";
  const long seconds = std::lround(age_s.get<double>());
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%lds", seconds);
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%ldm%02lds", seconds / 60, seconds % 60);
  } else {
    std::snprintf(text, sizeof text, "%ldh%02ldm", seconds / 3600, seconds / 60 % 60);
  }
  return text;
}

std::string ProblemLine(const std::string& body, int status) {
  const json problem = json::parse(body, nullptr, false);
  for (const char* key : {"detail", "title"}) {
    if (problem.is_object() && problem.contains(key) && problem[key].is_string() &&
        !problem[key].get<std::string>().empty()) {
      return problem[key].get<std::string>();
    }
  }
  return "HTTP " + std::to_string(status);
}

std::string RenderProblemExclusions(const std::string& body, std::size_t width) {
  const json problem = json::parse(body, nullptr, false);
  // The queues left out of -q were not asked for: counted, not listed.
  json asked = json::array();
  std::size_t not_requested = 0;
  for (const json& item : Array(problem, "excluded")) {
    if (Text(item, "code") == "not_requested") {
      ++not_requested;
    } else {
      asked.push_back(item);
    }
  }
  std::string out = asked.empty() ? std::string() : ExclusionTable(asked, width);
  if (not_requested > 0) {
    out += "(" + std::to_string(not_requested) + " other queues not among the requested ones)\n";
  }
  return out;
}

std::string RenderHost(const json& host, std::size_t width) {
  std::string out = Text(host, "host") + ": ";
  if (host.value("in_bhosts", false)) {
    out += "status " + Text(host, "status") +
           (host.value("takes_new_work", false) ? " (takes new work)" : " (takes no new work)") +
           ", " + Text(host, "njobs") + " of " + Text(host, "max") + " slots used";
  } else {
    out += "not in bhosts (named by a host group or a HOSTS line only)";
  }
  const json ib = host.value("ib", json::object());
  out += "; InfiniBand " + IbText(ib) + " (source " + Text(ib, "source") + ")\n";
  const json& queues = Array(host, "queues");
  if (queues.empty()) {
    out += "No queue admits " + Text(host, "host") + ".\n";
  } else {
    out += "Queues that admit it (" + std::to_string(queues.size()) + "):\n";
    // The reason names the deciding token: no column of its own.
    Table table{{"QUEUE", "VIA", "REASON"}, {}};
    for (const json& queue : queues) {
      table.rows.push_back({Text(queue, "queue"), Text(queue, "via"), Text(queue, "reason")});
    }
    out += RenderTable(table, width);
  }
  const json& excluded = Array(host, "excluded_by");
  if (!excluded.empty()) {
    out += "Queues that exclude it:\n";
    Table table{{"QUEUE", "TOKEN", "REASON"}, {}};
    for (const json& queue : excluded) {
      table.rows.push_back({Text(queue, "queue"), Text(queue, "token"), Text(queue, "reason")});
    }
    out += RenderTable(table, width);
  }
  return out;
}

std::string RenderHosts(const json& hosts, std::size_t width) {
  Table table{{"HOST", "STATUS", "NEW_WORK", "FREE", "MAX", "NJOBS", "IB", "QUEUES"}, {}};
  for (const json& host : Array(hosts, "hosts")) {
    table.rows.push_back({Text(host, "host"), Text(host, "status"), Text(host, "takes_new_work"),
                          Text(host, "free_slots"), Text(host, "max"), Text(host, "njobs"),
                          IbText(host.value("ib", json::object())),
                          Text(host, "queues_admitting")});
  }
  return RenderTable(table, width);
}

std::string RenderPlacement(const json& placement, std::size_t width) {
  std::string out;
  const std::string chosen = Text(placement, "chosen");
  const std::string host = Text(placement, "host");
  out += chosen == "-" ? "No queue can take the job" : "Chosen: " + chosen;
  out += " (for " + Text(placement, "user") + (host == "-" ? "" : " on " + host) + ")";
  const json& first = Array(placement, "candidates");
  if (chosen != "-" && !first.empty() && first[0].contains("expected_start")) {
    out += ": " + Text(first[0]["expected_start"], "summary");
  }
  out += "\n";
  if (placement.contains("host_ib")) {
    out += "InfiniBand of " + host + ": " + IbText(placement["host_ib"]) + "\n";
  }
  const json& candidates = Array(placement, "candidates");
  if (!candidates.empty()) {
    out += "Candidates, best first:\n";
    Table table{{"QUEUE", "STATUS", "PRIO", "PEND", "RUN", "FREE", "LIMITED_BY", "STARTS_NOW",
                 "SLOTS_TO_FREE", "EXPECTED_START"},
                {}};
    for (const json& c : candidates) {
      table.rows.push_back({Text(c, "queue"), Text(c, "status"), Text(c, "prio"), Text(c, "pend"),
                            Text(c, "run"), Text(c, "free_slots"), Text(c, "limited_by"),
                            Text(c, "starts_now"), Text(c, "slots_to_free"),
                            Text(c.value("expected_start", json::object()), "summary")});
    }
    out += RenderTable(table, width);
  }
  const json& excluded = Array(placement, "excluded");
  if (!excluded.empty()) {
    out += "Excluded (" + std::to_string(excluded.size()) + "):\n";
    out += ExclusionTable(excluded, width);
  }
  return out;
}

std::string RenderQueues(const json& queues, std::size_t width) {
  Table table{{"QUEUE", "PRIO", "STATUS", "MAX", "JL/U", "NJOBS", "PEND", "RUN", "SUSP", "HOSTS"},
              {}};
  for (const json& q : Array(queues, "queues")) {
    table.rows.push_back({Text(q, "name"), Text(q, "prio"), Text(q, "status"), Text(q, "max"),
                          Text(q, "jl_u"), Text(q, "njobs"), Text(q, "pend"), Text(q, "run"),
                          Text(q, "susp"),
                          Text(q, "hosts_usable") + "/" + Text(q, "hosts_admitted")});
  }
  return RenderTable(table, width);
}

std::string RenderQueueWaits(const json& waits, std::size_t width) {
  std::string out = "Expected start in " + Text(waits, "queue") + " for a job that must wait:\n";
  Table table{{"SLOTS", "EXPECTED_START", "METHOD", "SAMPLES"}, {}};
  for (const json& entry : Array(waits, "estimates")) {
    const json estimate = entry.value("expected_start", json::object());
    table.rows.push_back({Text(entry, "slots"), Text(estimate, "summary"), Text(estimate, "method"),
                          Text(estimate, "samples")});
  }
  out += RenderTable(table, width);
  const json& recent = Array(waits, "recent_waits_s");
  if (recent.empty()) return out + "No waits seen yet.\n";
  out += "Recent waits (s, newest first):";
  for (std::size_t i = 0; i < recent.size() && i < 20; ++i) out += " " + recent[i].dump();
  return out + "\n";
}

std::string RenderJobs(const json& jobs, std::size_t width) {
  const json& list = Array(jobs, "jobs");
  if (list.empty()) return "No jobs.\n";
  Table table{{"JOBID", "USER", "STAT", "QUEUE", "EXEC_HOST", "JOB_NAME", "SUBMITTED"}, {}};
  for (const json& job : list) {
    table.rows.push_back({Text(job, "id"), Text(job, "user"), LsfStatus(job), Text(job, "queue"),
                          ExecHosts(job), Text(job, "job_name"), Text(job, "submitted_at")});
  }
  std::string out = RenderTable(table, width);
  if (Text(jobs, "next_cursor") != "-" && !Text(jobs, "next_cursor").empty()) {
    out += "More: --cursor " + Text(jobs, "next_cursor") + "\n";
  }
  return out;
}

std::string RenderJob(const json& job, std::size_t width) {
  std::string out;
  if (job.value("array", false)) {
    out += "Job <" + Text(job, "id") + ">: array job";
    const json statuses = job.value("statuses", json::object());
    for (const auto& [status, count] : statuses.items()) {
      out += ", " + count.dump() + " " + (status == "SUBMITTED" ? "PEND" : status);
    }
    out += "\n";
    return out + RenderJobs({{"jobs", Array(job, "elements")}}, width);
  }
  static constexpr const char* kFields[] = {"id",           "user",
                                            "status",       "exit_code",
                                            "exit_reason",  "pend_reason",
                                            "queue",        "requested_queue",
                                            "job_name",     "slots",
                                            "submit_time",  "start_time",
                                            "finish_time",  "from_host",
                                            "project",      "job_description",
                                            "request_id",   "idempotency_key",
                                            "submitted_at", "updated_at"};
  Table table{{"FIELD", "VALUE"}, {}};
  for (const char* field : kFields) {
    const std::string value =
        std::string_view(field) == "status" ? LsfStatus(job) : Text(job, field);
    if (value != "-") table.rows.push_back({field, value});
  }
  table.rows.push_back({"exec_hosts", ExecHosts(job)});
  AddWaitRows(table, job);
  if (job.contains("labels") && job["labels"].is_object() && !job["labels"].empty()) {
    std::string labels;
    for (const auto& [key, value] : job["labels"].items()) {
      labels += (labels.empty() ? "" : " ") + key + "=" + value.get<std::string>();
    }
    table.rows.push_back({"labels", labels});
  }
  if (job.value("left_lsf", false)) table.rows.push_back({"left_lsf", "yes (LSF forgot it)"});
  // No header: a record, not a list.
  std::string rendered = RenderTable(table, width);
  return rendered.substr(rendered.find('\n') + 1);
}

std::string RenderSubmitted(const json& answer) {
  return "Job <" + Text(answer, "job_id") + "> is submitted to queue <" + Text(answer, "queue") +
         ">.\n";
}

KilledLines RenderKilled(const json& answer) {
  KilledLines lines;
  for (const json& result : Array(answer, "results")) {
    const std::string id = Text(result, "id");
    const std::string outcome = Text(result, "outcome");
    if (outcome == "terminating") {
      lines.out += "Job <" + id + "> is being terminated\n";
    } else if (outcome == "already_finished") {
      lines.err += "Job <" + id + ">: Job has already finished\n";
    } else if (outcome == "not_followed") {
      lines.err += "Job <" + id + ">: bplace does not follow this job (use bkill)\n";
    } else {
      const std::string message = Text(result, "message");
      lines.err +=
          "Job <" + id + ">: " + (message == "-" || message.empty() ? outcome : message) + "\n";
    }
  }
  return lines;
}

std::string RenderStatus(const StatusAnswers& answers, std::size_t width) {
  const json& cluster = answers.cluster;
  const json& hosts = answers.hosts;
  std::string out = "Cluster " + Text(cluster, "cluster_name") + " (master " +
                    Text(cluster, "master_name") + ", " + Text(cluster, "lsf_version") +
                    "), bplace " + Text(cluster, "bplace_version") + ", " +
                    (cluster.value("ready", false) ? "ready" : "NOT ready") + "\n";
  const json counts = cluster.value("counts", json::object());
  out += Text(counts, "queues") + " queues, " + Text(counts, "hosts") + " hosts, " +
         Text(counts, "host_groups") + " host groups, " + Text(counts, "user_groups") +
         " user groups\n";
  Table tiers{{"TIER", "AGE", "FAILURES", "LAST_ERROR"}, {}};
  for (const char* tier : {"load", "topology"}) {
    const json t = cluster.value(tier, json::object());
    tiers.rows.push_back({tier, FormatAge(t.value("age_s", json())),
                          Text(t, "consecutive_failures"), Text(t, "last_error")});
  }
  if (answers.ib.is_object() && answers.ib.contains("source") && answers.ib["source"] != "none") {
    tiers.rows.push_back({"ib (" + Text(answers.ib, "source") + ")", FormatAge(IbAge(answers.ib)),
                          "-", Text(answers.ib, "source_error")});
  }
  if (answers.jobs.is_object() && answers.jobs.contains("age_s")) {
    tiers.rows.push_back(
        {"jobs", FormatAge(answers.jobs["age_s"]), "-", Text(answers.jobs, "jobs_error")});
  }
  out += RenderTable(tiers, width);
  for (const json& warning : Array(cluster, "warnings")) {
    out += "warning: " + (warning.is_string() ? warning.get<std::string>() : warning.dump()) + "\n";
  }
  const json record = cluster.value("wait_predictions", json());
  if (record.is_object()) {
    const std::string percent =
        std::to_string(static_cast<int>(std::lround(record.value("quantile", 0.95) * 100))) + "%";
    out += "Wait bounds: " + Text(record, "within_bound") + " of " + Text(record, "predictions") +
           " jobs bplace submitted started within their " + percent + " bound";
    const json coverage = record.value("coverage", json());
    if (coverage.is_number()) {
      char text[16];
      std::snprintf(text, sizeof text, "%.2f", coverage.get<double>());
      out += std::string(" (coverage ") + text + ")";
    }
    out += "; " + Text(record, "learned") + " waits learned\n";
  }
  Table sick{{"HOST", "STATUS", "IB"}, {}};
  const json& all = Array(hosts, "hosts");
  for (const json& host : all) {
    const json ib = host.value("ib", json::object());
    if (!host.value("takes_new_work", true) || Text(ib, "health") == "unhealthy") {
      sick.rows.push_back({Text(host, "host"), Text(host, "status"), IbText(ib)});
    }
  }
  if (sick.rows.empty()) {
    out += "No sick hosts (" + std::to_string(all.size()) + " hosts).\n";
  } else {
    out += "Sick hosts (" + std::to_string(sick.rows.size()) + " of " + std::to_string(all.size()) +
           "; no new work, or InfiniBand unhealthy):\n";
    out += RenderTable(sick, width);
  }
  return out;
}

}  // namespace bplace::cli
