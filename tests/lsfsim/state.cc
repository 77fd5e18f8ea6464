#include "tests/lsfsim/state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/event_log.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

using nlohmann::json;

json JobToJson(const Job& job) {
  return json{{"id", job.id},
              {"index", job.index},
              {"array_limit", job.array_limit},
              {"user", job.user},
              {"queue", job.queue},
              {"status", job.status},
              {"asked_hosts", job.asked_hosts},
              {"slots", job.slots},
              {"name", job.name},
              {"description", job.description},
              {"command", job.command},
              {"from_host", job.from_host},
              {"exec_host", job.exec_host},
              {"project", job.project},
              {"run_limit_s", job.run_limit_s},
              {"submit_time", job.submit_time},
              {"start_time", job.start_time},
              {"end_time", job.end_time},
              {"exit_code", job.exit_code},
              {"exit_reason", job.exit_reason},
              {"pend_reason", job.pend_reason},
              {"options", job.options},
              {"res_reqs", job.res_reqs},
              {"cwd", job.cwd},
              {"umask", job.umask},
              {"script", job.script},
              {"executed", job.executed},
              {"pgid", job.pgid},
              {"cpu_s", job.cpu_s},
              {"max_mem_kb", job.max_mem_kb}};
}

Job JobFromJson(const json& j) {
  Job job;
  job.id = j.value("id", 0LL);
  job.index = j.value("index", 0);
  job.array_limit = j.value("array_limit", 0);
  job.user = j.value("user", "");
  job.queue = j.value("queue", "");
  job.status = j.value("status", "PEND");
  job.asked_hosts = j.value("asked_hosts", std::vector<std::string>{});
  job.slots = j.value("slots", 1);
  job.name = j.value("name", "");
  job.description = j.value("description", "");
  job.command = j.value("command", "");
  job.from_host = j.value("from_host", "");
  job.exec_host = j.value("exec_host", "");
  job.project = j.value("project", "default");
  job.run_limit_s = j.value("run_limit_s", 0LL);
  job.submit_time = j.value("submit_time", 0LL);
  job.start_time = j.value("start_time", 0LL);
  job.end_time = j.value("end_time", 0LL);
  job.exit_code = j.value("exit_code", 0);
  job.exit_reason = j.value("exit_reason", "");
  job.pend_reason = j.value("pend_reason", "");
  job.options = j.value("options", std::map<std::string, std::string>{});
  job.res_reqs = j.value("res_reqs", std::vector<std::string>{});
  job.cwd = j.value("cwd", "");
  job.umask = j.value("umask", 022);
  job.script = j.value("script", false);
  job.executed = j.value("executed", false);
  job.pgid = j.value("pgid", 0);
  job.cpu_s = j.value("cpu_s", 0.0);
  job.max_mem_kb = j.value("max_mem_kb", -1LL);
  return job;
}

// Reads a JSON file; a missing file yields `null`.
tl::expected<json, std::string> LoadJson(const std::string& path) {
  if (!FileExists(path)) return json();
  auto text = ReadFile(path);
  if (!text) return Error(text.error());
  json parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return Error(path + ": corrupt JSON");
  return parsed;
}

tl::expected<void, std::string> SaveJson(const std::string& path, const json& value) {
  return AtomicWriteFile(path, value.dump(1) + "\n");
}

const char* ActivityName(QueueActivity activity) {
  switch (activity) {
    case QueueActivity::kActive:
      return "active";
    case QueueActivity::kInactAdm:
      return "inact_adm";
    case QueueActivity::kInactWin:
      return "inact_win";
  }
  return "active";
}

QueueActivity ActivityFromName(const std::string& name) {
  if (name == "inact_adm") return QueueActivity::kInactAdm;
  if (name == "inact_win") return QueueActivity::kInactWin;
  return QueueActivity::kActive;
}

}  // namespace

StateDir::StateDir(std::string path) : path_(std::move(path)) {}

bool StateDir::HasLsfConf() const { return !path_.empty() && FileExists(LsfConfPath()); }

tl::expected<JobTable, std::string> StateDir::LoadJobs() const {
  auto loaded = LoadJson(path_ + "/jobs.json");
  if (!loaded) return Error(loaded.error());
  JobTable table;
  if (loaded->is_null()) {
    known_jobs_ = table;
    return table;
  }
  try {
    table.next_id = loaded->value("next_id", 1LL);
    for (const json& j : loaded->value("jobs", json::array())) table.jobs.push_back(JobFromJson(j));
  } catch (const json::exception& e) {
    return Error(path_ + "/jobs.json: " + e.what());
  }
  known_jobs_ = table;
  return table;
}

tl::expected<void, std::string> StateDir::SaveJobs(const JobTable& table) const {
  // The event is logged before the state changes, as mbatchd logs first.
  const EventLogConfig log = EventLogOf(*this);
  if (log.format != EventLogFormat::kNone) {
    if (!known_jobs_) {
      if (auto stored = LoadJobs(); !stored) return Error(stored.error());
    }
    if (auto logged = AppendJobEvents(log, *known_jobs_, table, NowSeconds()); !logged) {
      return logged;
    }
  }
  auto saved = AtomicWriteFile(path_ + "/jobs.json", JobTableToJsonText(table));
  if (saved) known_jobs_ = table;
  return saved;
}

tl::expected<Overrides, std::string> StateDir::LoadOverrides() const {
  auto loaded = LoadJson(path_ + "/overrides.json");
  if (!loaded) return Error(loaded.error());
  Overrides out;
  if (loaded->is_null()) return out;
  try {
    out.host_status = loaded->value("host_status", std::map<std::string, std::string>{});
    out.queue_open = loaded->value("queue_open", std::map<std::string, bool>{});
    out.ib_ok = loaded->value("ib_ok", std::map<std::string, int>{});
    for (auto& [name, activity] :
         loaded->value("queue_activity", std::map<std::string, std::string>{})) {
      out.queue_activity[name] = ActivityFromName(activity);
    }
  } catch (const json::exception& e) {
    return Error(path_ + "/overrides.json: " + e.what());
  }
  return out;
}

tl::expected<void, std::string> StateDir::SaveOverrides(const Overrides& overrides) const {
  std::map<std::string, std::string> activity;
  for (auto& [name, value] : overrides.queue_activity) activity[name] = ActivityName(value);
  return SaveJson(path_ + "/overrides.json", json{{"host_status", overrides.host_status},
                                                  {"queue_open", overrides.queue_open},
                                                  {"queue_activity", activity},
                                                  {"ib_ok", overrides.ib_ok}});
}

tl::expected<FaultTable, std::string> StateDir::LoadFaults() const {
  auto loaded = LoadJson(path_ + "/faults.json");
  if (!loaded) return Error(loaded.error());
  FaultTable out;
  if (loaded->is_null()) return out;
  try {
    for (auto& [name, spec] : loaded->items()) {
      out[name] = FaultSpec{.down = spec.value("down", ""),
                            .slow_ms = spec.value("slow_ms", 0),
                            .truncate = spec.value("truncate", false),
                            .garbage = spec.value("garbage", false),
                            .chaos_seed = spec.value("chaos_seed", -1LL)};
    }
  } catch (const json::exception& e) {
    return Error(path_ + "/faults.json: " + e.what());
  }
  return out;
}

tl::expected<void, std::string> StateDir::SaveFaults(const FaultTable& faults) const {
  json out = json::object();
  for (auto& [name, spec] : faults) {
    out[name] = json{{"down", spec.down},
                     {"slow_ms", spec.slow_ms},
                     {"truncate", spec.truncate},
                     {"garbage", spec.garbage},
                     {"chaos_seed", spec.chaos_seed}};
  }
  return SaveJson(path_ + "/faults.json", out);
}

tl::expected<Counts, std::string> StateDir::LoadCounts() const {
  auto loaded = LoadJson(path_ + "/counts.json");
  if (!loaded) return Error(loaded.error());
  if (loaded->is_null()) return Counts{};
  try {
    return loaded->get<Counts>();
  } catch (const json::exception& e) {
    return Error(path_ + "/counts.json: " + e.what());
  }
}

tl::expected<void, std::string> StateDir::SaveCounts(const Counts& counts) const {
  return SaveJson(path_ + "/counts.json", json(counts));
}

StateLock::StateLock(const StateDir& state) {
  std::string path = state.LockPath();
  // Read-only is enough for flock, so a lock file that another user created
  // with a restrictive umask still works for everyone who can read it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error_ = "open " + path + ": " + std::strerror(errno);
    return;
  }
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    error_ = "flock " + path + ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return;
  }
}

StateLock::~StateLock() { Release(); }

void StateLock::Release() {
  if (fd_ >= 0) {
    // Closing the descriptor drops the flock.
    ::close(fd_);
    fd_ = -1;
  }
}

std::string JobToJsonText(const Job& job) { return JobToJson(job).dump(1); }

std::string JobTableToJsonText(const JobTable& table) {
  json jobs = json::array();
  for (const Job& job : table.jobs) jobs.push_back(JobToJson(job));
  return json{{"next_id", table.next_id}, {"jobs", jobs}}.dump(1) + "\n";
}

}  // namespace bplace::lsfsim
