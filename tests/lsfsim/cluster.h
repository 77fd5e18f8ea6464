#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tl/expected.hpp>

namespace bplace::lsfsim {

// The simulated cluster's static definition, read from a TOML file (format in
// tests/lsfsim/README.md). It mirrors what lsf.cluster, lsb.hosts, lsb.users
// and lsb.queues would hold. Immutable after loading; safe to share between
// threads for reading.

// Host states bhosts -w prints (LSF 10.1).
inline constexpr const char* kHostStatuses[] = {
    "ok",          "closed_Adm",  "closed_Busy", "closed_Excl", "closed_Full", "closed_LIM",
    "closed_Lock", "closed_Wind", "closed_RC",   "closed_EGO",  "unavail",     "unreach"};

// Returns true when `status` is one of kHostStatuses (case-sensitive).
bool IsValidHostStatus(std::string_view status);

struct HostDef {
  std::string name;
  std::string status = "ok";
  std::optional<int> max_slots;  // MAX; nullopt prints "-" (no limit)
  int ib_ok = 1;                 // value of the `ib_ok` elim index
  int busy = 0;                  // slots used by work the simulator does not track
  std::optional<int> jl_u;       // JL/U (lsb.hosts): slots one user may use on the host
};

// A host group (lsb.hosts HostGroup) or a user group (lsb.users UserGroup).
struct GroupDef {
  std::string name;
  std::vector<std::string> members;  // tokens as written: names, ranges, `sub/`, `all`, `~x`
  std::vector<std::string> admins;   // group administrators, may be empty
};

// Counters added to a queue's job counts to stand for jobs the simulator does
// not hold, so that a demo shows non-zero PEND and RUN.
struct Background {
  int pend = 0;
  int run = 0;
  int ssusp = 0;
  int ususp = 0;
  int rsv = 0;
};

enum class QueueActivity { kActive, kInactAdm, kInactWin };

// Which product the simulator answers as: IBM Spectrum LSF 10.1, or an
// OpenLava-family cluster (volclava 2.2) where its captures differ
// (docs/lsf-formats.md "Sources"; tests/lsfsim/README.md lists where).
enum class Dialect { kLsf, kOpenlava };

struct QueueDef {
  std::string name;
  int priority = 1;
  int nice = 0;
  bool open = true;
  QueueActivity activity = QueueActivity::kActive;
  std::string description;
  bool is_default = false;
  std::vector<std::string> users{"all"};  // USERS tokens
  std::vector<std::string> hosts{"all"};  // HOSTS tokens
  std::vector<std::string> administrators;
  std::optional<int> max_slots;  // MAX
  std::optional<int> jl_u;       // JL/U
  std::optional<double> jl_p;    // JL/P
  std::optional<int> jl_h;       // JL/H
  std::optional<int> job_limit;  // bsub refuses when this many unfinished jobs are queued
  std::optional<int> runlimit_min;
  std::string res_req;
  Background background;
  std::string rewrite_to;   // a site esub rewrites `-q name` to this queue
  std::string esub_reject;  // a site esub rejects every job for this queue with this line
  std::string esub_banner;  // a line the site esub prints on stdout before bsub's reply
};

// Pending-job thresholds of one lsb.users User entry: a user, a user group
// (the group's members together) or "default" (every user without an entry).
struct UserLimitDef {
  std::string name;
  std::optional<int> max_pend_jobs;   // MAX_PEND_JOBS: pending jobs (array elements count)
  std::optional<int> max_pend_slots;  // MAX_PEND_SLOTS: slots of pending jobs
};

struct ClusterDef {
  std::string name;
  std::string master;
  std::vector<std::string> admins;  // LSF administrators
  // CLEAN_PERIOD (lsb.params): seconds a finished job stays visible to bjobs.
  long long clean_period_s = 3600;
  // MAX_JOB_ARRAY_SIZE (lsb.params): most elements one job array may have.
  long long max_job_array_size = 1000;
  // MAX_PEND_JOBS / MAX_PEND_SLOTS (lsb.params): pending jobs and slots in
  // the whole cluster; bsub is refused (and retries) beyond them.
  std::optional<int> max_pend_jobs;
  std::optional<int> max_pend_slots;
  // SUB_TRY_INTERVAL (lsb.params): seconds bsub waits before it retries a
  // job refused by a pending threshold.
  int sub_try_interval_s = 60;
  std::vector<UserLimitDef> user_limits;  // [[user]] entries, lsb.users User section
  // false: bjobs has no -o (and so no -json), as before LSF 9.1.
  bool bjobs_o = true;
  Dialect dialect = Dialect::kLsf;
  // LSF_UNIT_FOR_LIMITS (lsf.conf): the unit of -M and rusage[mem] values
  // without one; LSF's default is KB.
  std::string lsf_unit_for_limits = "KB";
  // RESOURCE_RESERVE_PER_TASK (lsb.params): rusage is per task (Y) or per
  // job (N, LSF's default).
  bool resource_reserve_per_task = false;
  // JOB_TERMINATE_INTERVAL (lsb.params): seconds between bkill's first
  // signal and its SIGKILL to a job that still runs; LSF's default is 10.
  int job_terminate_interval_s = 10;
  // The event log mbatchd writes (lsb.events): "lsf10" (LSF 10.1's
  // layout), "openlava" (the OpenLava family's) or "none".
  std::string event_log = "lsf10";
  // A site esub that sets every job's description to this text (it writes
  // LSB_SUB_JOB_DESCRIPTION to $LSB_SUB_MODIFY_FILE), whatever -Jd said.
  std::optional<std::string> esub_description;
  std::vector<HostDef> hosts;  // in definition order
  std::vector<GroupDef> host_groups;
  std::vector<GroupDef> user_groups;
  std::vector<QueueDef> queues;  // in definition order
  std::unordered_map<std::string, size_t> host_index;
  std::unordered_map<std::string, size_t> host_group_index;
  std::unordered_map<std::string, size_t> user_group_index;
  std::unordered_map<std::string, size_t> queue_index;

  // Returns the index of the named entity, or nullopt. Names are
  // case-sensitive and matched whole.
  std::optional<size_t> FindHost(std::string_view name) const;
  std::optional<size_t> FindHostGroup(std::string_view name) const;
  std::optional<size_t> FindUserGroup(std::string_view name) const;
  std::optional<size_t> FindQueue(std::string_view name) const;
  // Returns the default queue's index, or nullopt when none is marked default.
  std::optional<size_t> DefaultQueue() const;
  // Returns true when `user` is an LSF administrator of the cluster.
  bool IsLsfAdmin(std::string_view user) const;
};

// Parses a cluster definition from TOML text. `source` names the text in
// error messages ("file:line: message"). Unknown keys, duplicate names, bad
// statuses, bad ranges and a rewrite_to naming no queue are errors.
tl::expected<ClusterDef, std::string> ParseClusterDef(std::string_view text,
                                                      std::string_view source);

// Reads and parses the cluster definition at `path`; errors as ParseClusterDef
// or the read failure.
tl::expected<ClusterDef, std::string> LoadClusterDef(const std::string& path);

}  // namespace bplace::lsfsim
