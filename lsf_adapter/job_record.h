#pragma once

// One job, or one element of a job array, as bjobs reports it (IBM Spectrum
// LSF 10.1 and OpenLava/volclava 2.2; see docs/lsf-formats.md "bjobs"),
// the job states LSF names, and job ids as LSF writes them. Plain data and
// pure functions: safe from any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bplace::lsf {

// The job states LSF 10.1 documents ("About job states"), as bjobs prints
// them in STAT. kUnrecognized stands for any other word (a newer LSF's
// state): such a record is kept, never refused.
enum class JobStatus {
  kPend,   // PEND: waiting to be dispatched
  kPsusp,  // PSUSP: suspended while pending (bstop, or submitted held)
  kRun,    // RUN
  kUsusp,  // USUSP: suspended by its user or an administrator while running
  kSsusp,  // SSUSP: suspended by LSF (load, queue window) while running
  kDone,   // DONE: exited with status 0
  kExit,   // EXIT: exited non-zero, or was killed
  kUnkwn,  // UNKWN: mbatchd lost contact with the job's sbatchd
  kWait,   // WAIT: a chunk-job member waiting to run
  kZombi,  // ZOMBI: killed while its host was unreachable
  kUnrecognized,
};

// The JobStatus of `status` as printed ("RUN"): an exact, case-sensitive
// match; kUnrecognized for anything else, including "".
JobStatus JobStatusOf(std::string_view status);

// The word LSF prints for `status` ("PSUSP"); "" for kUnrecognized.
const char* JobStatusWord(JobStatus status);

// True only for "DONE" and "EXIT": LSF never changes them again (the job
// leaves bjobs CLEAN_PERIOD later). UNKWN and ZOMBI are not terminal: the
// job may come back, or turn into EXIT once its host answers.
bool IsTerminalJobStatus(std::string_view status);

// A job id as LSF writes it in commands and messages: "1234", or "1234[7]"
// for element 7 of array job 1234.
struct JobId {
  std::string job_id;            // digits, no leading zero
  std::int64_t array_index = 0;  // 0 when not an array element
};

// Reads "1234" or "1234[7]": digits without a leading zero, at most 10 of
// them (LSF's ids stop at 2147483646), with an optional index of the same
// shape in brackets. nullopt for anything else: "0" (bkill's "all my jobs"),
// "01", "1234[]", "1234[1-3]", blanks, signs. The one rule every caller
// applies before an id reaches an LSF command line.
std::optional<JobId> ParseJobId(std::string_view text);

// `id` as LSF writes it: "1234", or "1234[7]" for an element (the inverse
// of ParseJobId).
std::string JobIdText(const JobId& id);

// One execution host of a job and the slots the job holds on it.
struct ExecHost {
  std::string name;
  std::int64_t slots = 0;

  friend bool operator==(const ExecHost&, const ExecHost&) = default;
};

// One job or array element as `bjobs -o ... -json` or the `bjobs -w` table
// reports it. Text fields hold LSF's words with blanks trimmed; a field LSF
// left out (not asked for, or a volclava that lacks it) or printed as "" or
// "-" is empty. A record with `not_found` set holds only job_id,
// array_index and error.
struct JobRecord {
  std::string job_id;            // digits, e.g. "1234"
  std::int64_t array_index = 0;  // 0 when not an array element
  std::string user;
  // STAT as printed: PEND PSUSP RUN USUSP SSUSP DONE EXIT UNKWN WAIT ZOMBI,
  // or a word this code does not know (see status_kind()).
  std::string status;
  std::optional<int> exit_code;  // set only when LSF printed one
  std::string exit_reason;       // e.g. "TERM_OWNER: job killed by owner"
  std::string pend_reason;       // e.g. "New job is waiting for scheduling"
  std::string queue;
  // Times as LSF prints them in the cluster's local time, without a year:
  // "Nov 30 11:40" (volclava's -o START_TIME/FINISH_TIME: "11/30-11:41:07").
  // Read them with ParseLsfTime (lsf_adapter/lsf_time.h).
  std::string submit_time;
  std::string start_time;
  // For a running job with a run limit or a run-time estimate LSF prints
  // the expected end followed by " L", " E" or " X" (bjobs -WF): the marker
  // is removed and finish_time_estimated set.
  std::string finish_time;
  bool finish_time_estimated = false;
  // Distinct execution hosts in the order LSF printed them first, each with
  // its slot count: "4*node001:node002" gives {node001, 4}, {node002, 1};
  // "node001:node001" gives {node001, 2}. Empty before dispatch. volclava's
  // -o EXEC_HOST names only the first host.
  std::vector<ExecHost> exec_hosts;
  // SLOTS of `bjobs -o`. From the table (which has no SLOTS column) the sum
  // of the exec_hosts slots, so 0 for a job never dispatched.
  std::int64_t slots = 0;
  std::string job_name;  // as printed; an array element's ends in "[7]"
  std::string job_description;
  std::string from_host;
  std::string project;  // PROJ_NAME; LSF's "default" without bsub -P
  // LSF does not know the id (bjobs -json ERROR record); `error` holds
  // LSF's sentence, e.g. "Job <2[7]> is not found".
  bool not_found = false;
  std::string error;

  // JobStatusOf(status): kUnrecognized flags a state word LSF 10.1 does not
  // document.
  JobStatus status_kind() const { return JobStatusOf(status); }
  // "1234", or "1234[7]" for an array element: the id as bjobs and bkill
  // take it.
  std::string IdText() const;

  // Every field equal: LSF said the same of the job.
  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

}  // namespace bplace::lsf
