#pragma once

// Plain data parsed from LSF command output (IBM Spectrum LSF 10.1, and the
// OpenLava family; see docs/lsf-formats.md). No behaviour lives here:
// parsers fill these, the daemon's index and placement read them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bplace::lsf {

// Queue status as LSF prints it ("Open:Active", "Closed:Inact_Adm", ...),
// split into its two halves. `text` keeps LSF's words for people.
struct QueueStatus {
  bool open = false;    // accepts bsub ("Open:"); "Closed:" rejects it
  bool active = false;  // dispatches ("Active"); "Inact*" holds jobs pending
  std::string text;     // as printed, e.g. "Open:Inact_Win"
};

// One row of `bqueues -w` or `bqueues -u USER -w` (format of LSF 10.1).
// Counters are slots, not jobs. Limits are empty when LSF prints "-".
struct QueueLoad {
  std::string name;
  int prio = 0;
  QueueStatus status;
  std::optional<std::int64_t> max;   // MAX
  std::optional<std::int64_t> jl_u;  // JL/U
  std::optional<std::int64_t> jl_p;  // JL/P
  std::optional<std::int64_t> jl_h;  // JL/H
  std::int64_t njobs = 0;
  std::int64_t pend = 0;
  std::int64_t run = 0;
  std::int64_t susp = 0;
};

// One queue block of `bqueues -l` (format of LSF 10.1). `users`, `hosts` and
// `administrators` are the raw whitespace-separated tokens after `USERS:`,
// `HOSTS:` and `ADMINISTRATORS:` (continuation lines joined), e.g.
// {"hg_small/", "node68+2", "others+1"}; OpenLava's "all users" / "all hosts
// used by the LSF Batch system" sentences become the single token "all".
// An absent HOSTS line means all hosts; an absent USERS line means all users.
struct QueueDefinition {
  std::string name;
  std::string description;  // the "  -- ..." lines joined with single spaces
  bool is_default = false;  // description says "This is the default queue."
  int prio = 0;
  int nice = 0;
  QueueStatus status;
  std::optional<std::int64_t> max;
  std::optional<std::int64_t> jl_u;
  std::optional<std::int64_t> jl_p;
  std::optional<std::int64_t> jl_h;
  std::int64_t njobs = 0;
  std::int64_t pend = 0;
  std::int64_t run = 0;
  std::int64_t ssusp = 0;
  std::int64_t ususp = 0;
  std::int64_t rsv = 0;
  std::vector<std::string> users;           // USERS: tokens; {"all"} when absent
  std::vector<std::string> hosts;           // HOSTS: tokens; {"all"} when absent
  std::vector<std::string> administrators;  // ADMINISTRATORS: tokens
  std::string res_req;                      // RES_REQ: text, empty when absent
};

// One group of `bmgroup -w` (host group) or `bugroup -w` (user group).
// `members` are host/user names or subgroup references ending in "/", and may
// hold exclusions ("~name"); condensed ranges such as "node[001-003,007]" are
// already expanded ("node001", "node002", "node003", "node007"). `all` is set
// when LSF printed the group as all hosts/users ("all hosts used by the batch
// system", "all users", or a first member "all").
struct Group {
  std::string name;
  bool all = false;
  std::vector<std::string> members;
};

// One row of `bhosts -w` (format of LSF 10.1). `status` is LSF's word:
// ok, closed_Adm, closed_Busy, closed_Excl, closed_Full, closed_LIM,
// closed_Lock, closed_Wind, closed_RC, closed_EGO, unavail, unreach.
struct HostStatus {
  std::string name;
  std::string status;
  std::optional<std::int64_t> jl_u;
  std::optional<std::int64_t> max;
  std::int64_t njobs = 0;
  std::int64_t run = 0;
  std::int64_t ssusp = 0;
  std::int64_t ususp = 0;
  std::int64_t rsv = 0;
};

// How LSF answered one bsub call.
enum class BsubOutcome {
  kSubmitted,      // "Job <N> is submitted to [default ]queue <Q>."
  kQueueRejected,  // LSF judged the queue (or host/queue pair): another queue may accept
  kJobRejected,    // LSF judged the job itself: no other queue will help
  kUnavailable,    // LSF itself is down or misconfigured (lsb_init, LIM down, refused)
  kUnknown,        // exit status and output fit nothing above
};

// What a bsub refusal is about, which decides what the submitter does next
// and what it remembers. kNone when LSF took the job.
enum class BsubScope {
  kNone,            // submitted
  kUserQueue,       // this user in this queue: another queue may take the job
  kHostQueue,       // this host in this queue: says nothing about other hosts
  kJob,             // the job itself (or its user): no other queue will help
  kLsfUnavailable,  // the batch system is not answering: try again later
  kUnknown,         // nothing recognisable: stop, report it
};

// Why LSF refused, finer than the scope: how long a refusal stays true.
enum class BsubCause {
  kNone,         // submitted
  kPermission,   // User cannot use the queue; No such queue (until the queue definitions change)
  kQueueClosed,  // Queue has been closed; queue windows are closed
  kHost,         // Bad host name ...; Host or host group is not used by the queue
  kLimit,        // job limit reached; not enough (per-user) job slots; too many processors;
                 // pending-job thresholds (with scope kJob)
  kEsub,         // Request aborted by esub
  kRequest,      // Bad resource requirement syntax, or another "Job not submitted." reason
  kIdentity,     // Unknown user; User permission denied
  kUnavailable,  // LSF is down, lsb_init failed, ...
  kUnknown,
};

// Short lowercase names ("user_queue", "permission"), for logs and JSON.
const char* BsubScopeName(BsubScope scope);
const char* BsubCauseName(BsubCause cause);

// What one bsub call returned, classified. For a submission `job_id` and
// `queue` are set (queue as LSF reports it: an esub may have rewritten -q).
// For a rejection `message` holds LSF's reason without the prefix and the
// trailing "Job not submitted.", e.g. "User cannot use the queue".
struct BsubReply {
  BsubScope scope = BsubScope::kUnknown;
  BsubCause cause = BsubCause::kUnknown;
  std::string job_id;
  std::string queue;
  std::string message;
  // The token LSF put before ": " on a rejection line: the queue for queue
  // errors, the -m token for host errors ("nosuchhost"), or "lsb_init".
  // Empty when the line had none.
  std::string prefix;
  // The line the classification was made from, as printed (trailing blanks
  // and CR removed); empty for a submission and when bsub printed nothing.
  std::string raw_line;
  // For kEsub: the esub's own lines printed before "Request aborted by
  // esub" (its reason, e.g. "esub: project code missing: use -P"), joined
  // with "; "; empty when it printed none.
  std::string esub_message;

  // The coarse class of the reply, derived from `scope`.
  BsubOutcome outcome() const;
  // `message`, followed by the esub's own words when there are any:
  // "Request aborted by esub (esub: project code missing: use -P)".
  std::string Explanation() const;
};

// What `lsid` says about the cluster (LSF 10.1 and OpenLava family).
struct LsidInfo {
  // The whole version line: "IBM Spectrum LSF Standard 10.1.0.13, Jun 03 2022".
  std::string version;
  std::string cluster_name;  // from "My cluster name is X"
  std::string master_name;   // from "My master name is X"
};

// One host's value of one load index in `lsload -w -I INDEX`. `value` is empty
// when LSF printed nothing (an unavail host) or "-"; a value LSF marked with a
// leading "*" (over its threshold) is stored without the star.
struct LoadIndexValue {
  std::string host;
  std::string status;  // as printed: ok, busy, lockU, unavail, -ok, ...
  std::optional<double> value;
};

}  // namespace bplace::lsf
