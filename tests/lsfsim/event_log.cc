#include "tests/lsfsim/event_log.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

// The records follow lsb.events(5) of the LSF 10.1 configuration reference
// (field order, quoted strings with "" for a quote inside) and, for
// EventLogFormat::kOpenLava, OpenLava 2's lsbatch/lib/lsb.events.c where
// that layout differs: JOB_NEW has no options2 after options and 11
// rLimits (LSF 10.1: 12), and its tail is ordered differently; JOB_START
// has no userGroup before idx; JOB_STATUS has no jFlags before exitStatus;
// the version is an integer ("20"), where LSF writes "10.1". Fields the
// simulator has no value for are written as LSF writes an unset one: "" for
// a string, 0 or -1 for a number. This file shares no code with
// lsf_adapter/ (the reader of these records): the two sides must not share
// a bug.

namespace bplace::lsfsim {
namespace {

bool IsOpenLava(EventLogFormat format) { return format == EventLogFormat::kOpenLava; }

// A string field: a blank, then the text quoted with every quote doubled.
std::string Q(const std::string& text) {
  std::string out = " \"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string N(long long value) { return " " + std::to_string(value); }

std::string RecordHeader(const char* type, EventLogFormat format, long long time) {
  return "\"" + std::string(type) + "\" \"" + (IsOpenLava(format) ? "20" : "10.1") + "\"" + N(time);
}

// JOB_STAT_* of lsbatch.h for the simulator's status names.
int StatusCode(const std::string& status) {
  static const std::map<std::string, int> codes = {
      {"PEND", 0x01}, {"PSUSP", 0x02}, {"RUN", 0x04},      {"SSUSP", 0x08},   {"USUSP", 0x10},
      {"EXIT", 0x20}, {"DONE", 0x40},  {"UNKWN", 0x10000}, {"ZOMBI", 0x20000}};
  const auto it = codes.find(status);
  return it == codes.end() ? 0 : it->second;
}

long long Uid(const std::string& user) {
  const struct passwd* pw = ::getpwnam(user.c_str());
  return pw ? static_cast<long long>(pw->pw_uid) : -1;
}

// "name[1-3,7]" for an array's elements, the name alone otherwise.
std::string JobName(const Job& job, const std::vector<int>& indices) {
  if (job.index == 0 || indices.empty()) return job.name;
  std::string list;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!list.empty()) list += ",";
    list += std::to_string(indices[i]);
    if (j > i) list += "-" + std::to_string(indices[j]);
    i = j + 1;
  }
  return job.name + "[" + list + "]";
}

std::string JobNew(const Job& job, const std::string& name, EventLogFormat format) {
  const bool ol = IsOpenLava(format);
  std::string r =
      RecordHeader("JOB_NEW", format, job.submit_time) + N(job.id) + N(Uid(job.user)) + N(0);
  if (!ol) r += N(0);  // options2
  r += N(job.slots) + N(job.submit_time) + N(0) + N(0) + N(0) + N(0) + N(0) + Q(job.user);
  const long long run_limit = job.run_limit_s > 0 ? job.run_limit_s : -1;
  for (int i = 0; i < (ol ? 11 : 12); ++i) r += N(i == 9 ? run_limit : -1);  // 9: RUN limit
  r += Q("") + " 1.00" + N(18) + Q(job.queue) + Q("") + Q(job.from_host) + Q("") + Q("") + Q("") +
       Q("") + Q("");
  if (!ol) r += Q("") + Q("") + Q("");  // inFileSpool, commandSpool, jobSpoolDir
  r += Q("") + Q(std::to_string(job.submit_time) + "." + std::to_string(job.id));
  r += N(static_cast<long long>(job.asked_hosts.size()));
  for (const auto& host : job.asked_hosts) r += Q(host);
  r += Q("") + Q("") + Q(name) + Q(CommandAsShown(job)) + N(0) + Q("") + Q(job.project);
  if (ol) {
    r += N(job.slots) + Q("") + Q("") + N(0) + N(0) + Q("") + Q("") + Q("") + N(-1);
  } else {
    // niosPort maxNumProcessors schedHostType loginShell userGroup
    // exceptList idx userPriority rsvId jobGroup extsched warningTimePeriod
    // warningAction sla SLArunLimit licenseProject options3 app postExecCmd
    // runtimeEstimation requeueEValues resizeNotifyCmd jobDescription
    r += N(0) + N(job.slots) + Q("") + Q("") + Q("") + Q("") + N(0) + N(-1) + Q("") + Q("") +
         Q("") + N(0) + Q("") + Q("") + N(0) + Q("") + N(0) + Q("") + Q("") + N(0) + Q("") + Q("") +
         Q(job.description);
  }
  return r;
}

std::string JobStart(const Job& job, EventLogFormat format) {
  const long long time = job.start_time > 0 ? job.start_time : NowSeconds();
  std::string r = RecordHeader("JOB_START", format, time) + N(job.id) + N(StatusCode("RUN")) +
                  N(0) + N(0) + " 1.00" + N(job.slots);
  for (int i = 0; i < job.slots; ++i) r += Q(job.exec_host);
  r += Q("") + Q("") + N(0);  // queuePreCmd, queuePostCmd, jFlags
  if (IsOpenLava(format)) return r + N(job.index);
  // userGroup idx additionalInfo preemptBackfill jFlags2 effectiveResReq
  return r + Q("") + N(job.index) + Q("") + N(0) + N(0) + Q("");
}

std::string JobStatus(const Job& job, long long time, EventLogFormat format) {
  std::string r = RecordHeader("JOB_STATUS", format, time) + N(job.id) + N(StatusCode(job.status)) +
                  N(0) + N(0) + " 0.0" + N(IsFinished(job) ? time : 0) + N(0);  // ru 0
  if (!IsOpenLava(format)) r += N(0);                                           // jFlags
  r += N(job.status == "EXIT" ? job.exit_code : 0) + N(job.index);
  if (!IsOpenLava(format)) r += N(0);  // exitInfo
  return r;
}

std::string JobSwitch(const Job& job, long long time, EventLogFormat format) {
  return RecordHeader("JOB_SWITCH", format, time) + N(Uid(job.user)) + N(job.id) + Q(job.queue) +
         N(job.index) + Q(job.user);
}

std::map<long long, std::vector<int>> ArrayIndices(const JobTable& table) {
  std::map<long long, std::vector<int>> indices;
  for (const Job& job : table.jobs) {
    if (job.index > 0) indices[job.id].push_back(job.index);
  }
  for (auto& [id, list] : indices) std::sort(list.begin(), list.end());
  return indices;
}

tl::expected<void, std::string> AppendText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) return Error("open " + path + ": " + std::strerror(errno));
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) == 0 && st.st_size == 0) {
    // Created here (lsfsim init makes it): every submitting user appends.
    ::fchmod(fd, 0666);
    out = EventLogHeader(EventLogHeader(0).size());
  }
  out += text;
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string error = "write " + path + ": " + std::strerror(errno);
      ::close(fd);
      return Error(error);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return {};
}

}  // namespace

std::optional<EventLogFormat> EventLogFormatFromName(const std::string& name) {
  if (name == "lsf10") return EventLogFormat::kLsf10;
  if (name == "openlava") return EventLogFormat::kOpenLava;
  if (name == "none") return EventLogFormat::kNone;
  return std::nullopt;
}

const char* EventLogFormatName(EventLogFormat format) {
  switch (format) {
    case EventLogFormat::kLsf10:
      return "lsf10";
    case EventLogFormat::kOpenLava:
      return "openlava";
    case EventLogFormat::kNone:
      break;
  }
  return "none";
}

EventLogConfig EventLogOf(const StateDir& state) {
  EventLogConfig config;
  const auto conf = ReadFile(state.LsfConfPath());
  if (!conf) return config;
  std::map<std::string, std::string> values;
  for (const auto& line : SplitWs(*conf)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  const auto format = EventLogFormatFromName(values["LSFSIM_EVENT_LOG"]);
  if (!format || *format == EventLogFormat::kNone || values["LSB_SHAREDIR"].empty()) return config;
  config.format = *format;
  config.path = values["LSB_SHAREDIR"] + "/" + values["LSF_CLUSTER_NAME"] + "/logdir/lsb.events";
  return config;
}

std::string EventLogHeader(std::size_t history_offset) {
  std::string line = "#" + std::to_string(history_offset);
  line.resize(std::max<std::size_t>(line.size(), 79), ' ');
  return line + "\n";
}

tl::expected<void, std::string> AppendJobEvents(const EventLogConfig& config,
                                                const JobTable& before, const JobTable& after,
                                                long long now) {
  if (config.format == EventLogFormat::kNone) return {};
  std::map<std::pair<long long, int>, const Job*> old;
  std::set<long long> old_ids;
  for (const Job& job : before.jobs) {
    old[{job.id, job.index}] = &job;
    old_ids.insert(job.id);
  }
  const auto indices = ArrayIndices(after);
  std::set<long long> announced;
  std::vector<std::pair<long long, std::string>> records;  // (event time, line)
  for (const Job& job : after.jobs) {
    const auto it = old.find({job.id, job.index});
    const Job* previous = it == old.end() ? nullptr : it->second;
    if (!previous && !old_ids.count(job.id) && announced.insert(job.id).second) {
      const auto list = indices.find(job.id);
      records.emplace_back(
          job.submit_time,
          JobNew(job, JobName(job, list == indices.end() ? std::vector<int>{} : list->second),
                 config.format));
    }
    const std::string was = previous ? previous->status : "PEND";
    if (previous && previous->queue != job.queue) {
      records.emplace_back(now, JobSwitch(job, now, config.format));
    }
    if (was == job.status) continue;
    if (IsPendingState(was) && !IsPending(job) && !IsFinished(job)) {
      records.emplace_back(job.start_time > 0 ? job.start_time : now, JobStart(job, config.format));
    } else {
      const long long time = IsFinished(job) && job.end_time > 0 ? job.end_time : now;
      records.emplace_back(time, JobStatus(job, time, config.format));
    }
  }
  if (records.empty()) return {};
  std::stable_sort(records.begin(), records.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string text;
  for (const auto& [time, line] : records) text += line + "\n";
  return AppendText(config.path, text);
}

tl::expected<void, std::string> SwitchEventLog(const EventLogConfig& config,
                                               const JobTable& table) {
  if (config.format == EventLogFormat::kNone) return Error("no event log is written");
  namespace fs = std::filesystem;
  std::error_code ec;
  int last = 1;
  while (fs::exists(config.path + "." + std::to_string(last))) ++last;
  for (int k = last - 1; k >= 1; --k) {
    fs::rename(config.path + "." + std::to_string(k), config.path + "." + std::to_string(k + 1),
               ec);
    if (ec) return Error("rename " + config.path + "." + std::to_string(k) + ": " + ec.message());
  }
  if (fs::exists(config.path)) fs::rename(config.path, config.path + ".1", ec);
  if (ec) return Error("rename " + config.path + ": " + ec.message());
  // The unfinished jobs' records come first, so that mbatchd (and bhist)
  // can rebuild them from this file alone.
  const auto indices = ArrayIndices(table);
  std::set<long long> announced;
  std::string copies;
  for (const Job& job : table.jobs) {
    if (IsFinished(job)) continue;
    if (announced.insert(job.id).second) {
      const auto list = indices.find(job.id);
      copies += JobNew(job, JobName(job, list == indices.end() ? std::vector<int>{} : list->second),
                       config.format) +
                "\n";
    }
    if (!IsPending(job)) copies += JobStart(job, config.format) + "\n";
  }
  const std::size_t header = EventLogHeader(0).size();
  return AtomicWriteFile(config.path, EventLogHeader(header + copies.size()) + copies);
}

}  // namespace bplace::lsfsim
