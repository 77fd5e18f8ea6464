#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "tests/lsfsim/cluster.h"

namespace bplace::lsfsim {

// One job, or one element of a job array, in the simulated mbatchd's table.
// The elements of an array share `id` and differ in `index`.
struct Job {
  long long id = 0;
  int index = 0;        // array element index (1...); 0 for a job that is no array
  int array_limit = 0;  // the array's %N: elements that may run at once; 0 = no limit
  std::string user;
  std::string queue;
  // PEND PSUSP RUN USUSP SSUSP UNKWN ZOMBI DONE EXIT (job_state.h groups them).
  std::string status = "PEND";
  std::vector<std::string> asked_hosts;  // -m tokens as given
  int slots = 1;
  std::string name;  // -J exactly (an array's name without its [index_list]), else the command
  std::string description;  // -Jd exactly
  std::string command;
  std::string from_host;
  std::string exec_host;            // set when dispatched
  std::string project = "default";  // -P; LSF's default project is "default"
  long long run_limit_s = 0;        // -W in seconds; 0 = none
  long long submit_time = 0;
  long long start_time = 0;                    // 0 until dispatched
  long long end_time = 0;                      // 0 until DONE or EXIT (FINISH_TIME)
  int exit_code = 0;                           // the job's exit status; printed for EXIT only
  std::string exit_reason;                     // e.g. "TERM_OWNER: job killed by owner"
  std::string pend_reason;                     // why the last dispatch turn left it pending
  std::map<std::string, std::string> options;  // every bsub option as given (last wins)
  std::vector<std::string> res_reqs;           // every -R in order: LSF merges them
  // What bsub recorded of the submitter for sbatchd (LSF 10.1 bsub: the job
  // gets the submitter's working directory, file creation mask and
  // environment; the environment is in the job's spool file, see
  // job_spool.h). The command above is the job script when it came on stdin.
  std::string cwd;      // where bsub ran (SUB_CWD); empty for jobs of older tables
  int umask = 022;      // the submitter's umask
  bool script = false;  // `command` is a job script read from stdin
  // Real execution (`lsfsim schedule --run`, `lsfsim daemon`): set once a
  // job runner has been started for the job, kept after it ends.
  bool executed = false;
  int pgid = 0;               // process group of the running job; 0 when none runs
  double cpu_s = 0;           // user + system CPU seconds, once it ended
  long long max_mem_kb = -1;  // peak resident memory (KB), once it ended; -1 unknown
};

struct JobTable {
  long long next_id = 1;
  std::vector<Job> jobs;
};

// Run-time changes to the definition made by control subcommands
// (`set-host`, `set-queue`, `set-ib`).
struct Overrides {
  std::map<std::string, std::string> host_status;
  std::map<std::string, bool> queue_open;
  std::map<std::string, QueueActivity> queue_activity;
  std::map<std::string, int> ib_ok;
};

// Faults injected into one LSF command (or into all, under the key "all").
struct FaultSpec {
  std::string down;  // "", "hang" or "fail"
  int slow_ms = 0;
  bool truncate = false;
  bool garbage = false;
  long long chaos_seed = -1;  // >= 0: each invocation misbehaves as ChaosPick says (chaos.h)
};

using FaultTable = std::map<std::string, FaultSpec>;
using Counts = std::map<std::string, long long>;

// The simulator's state directory ($LSF_ENVDIR): lsf.conf, cluster.toml,
// jobs.json, overrides.json, faults.json, counts.json and a lock file.
// Every reader and writer holds the exclusive flock on `lsfsim.lock` (see
// StateLock) while it reads or changes state; files are replaced atomically.
// A StateDir object itself is not thread-safe.
class StateDir {
 public:
  explicit StateDir(std::string path);

  // The directory and the files in it.
  const std::string& path() const { return path_; }
  std::string LsfConfPath() const { return path_ + "/lsf.conf"; }
  std::string ClusterPath() const { return path_ + "/cluster.toml"; }
  std::string LockPath() const { return path_ + "/lsfsim.lock"; }

  // Returns true when the directory holds lsf.conf (how LSF commands decide
  // whether the environment is usable).
  bool HasLsfConf() const;

  // Each Load returns the stored value, or the empty default when the file
  // does not exist; an unreadable or corrupt file is an error with its path.
  // Each Save replaces the file atomically. Call them with the lock held.
  // SaveJobs first appends to the event log (event_log.h) the records that
  // take the table last loaded (or stored) to the one saved.
  tl::expected<JobTable, std::string> LoadJobs() const;
  tl::expected<void, std::string> SaveJobs(const JobTable& table) const;
  tl::expected<Overrides, std::string> LoadOverrides() const;
  tl::expected<void, std::string> SaveOverrides(const Overrides& overrides) const;
  tl::expected<FaultTable, std::string> LoadFaults() const;
  tl::expected<void, std::string> SaveFaults(const FaultTable& faults) const;
  tl::expected<Counts, std::string> LoadCounts() const;
  tl::expected<void, std::string> SaveCounts(const Counts& counts) const;

 private:
  std::string path_;
  // The job table as last loaded or saved by this object: what SaveJobs
  // compares against for the event log.
  mutable std::optional<JobTable> known_jobs_;
};

// Holds the exclusive flock on a state directory's lock file for its
// lifetime. Blocks until the lock is granted. Not copyable.
class StateLock {
 public:
  // Opens (creating if needed) and locks `state.LockPath()`. Check ok().
  explicit StateLock(const StateDir& state);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

  // Returns true when the lock is held; error() says why not.
  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }

  // Releases the lock early; idempotent.
  void Release();

 private:
  int fd_ = -1;
  std::string error_;
};

// Returns the JSON text of one job (the same object `lsfsim jobs` prints).
std::string JobToJsonText(const Job& job);

// Returns the JSON text of the whole job table, as stored in jobs.json.
std::string JobTableToJsonText(const JobTable& table);

}  // namespace bplace::lsfsim
