#pragma once

// Classification of what one bsub call printed. Pure functions: no I/O, safe
// from any thread.

#include <string_view>

#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Classifies one finished bsub call from its exit status and output (formats
// of LSF 10.1 and OpenLava/volclava 2.2; see lsf/FORMATS.md "bsub" and
// openlava-samples.md "Submissions").
//
// kSubmitted when "Job <N> is submitted to [default ]queue <Q>" appears
// anywhere in `out`, or in `err` (BSUB_STDERR), whatever the exit status;
// job_id and queue come from that line (an esub may have rewritten -q).
//
// Otherwise the last meaningful line of `err` (of `out` when `err` has none)
// decides; retry chatter ("... Please wait ...") counts only when nothing else
// was printed. Its "<prefix>: " and trailing ". Job not submitted." are
// removed into `prefix` and `message`; `raw_line` keeps the line:
//   kQueueRejected: User cannot use the queue; No such queue; Queue has been
//     closed; Not activated because queue windows are closed; Host or host
//     group is not used by the queue; Bad host name, host group name or
//     cluster name; The destination queue has reached its job limit; Queue
//     does not have enough per-user job slots; User or one of user's groups
//     does not have enough job slots; Too many processors requested.
//   kJobRejected: Bad resource requirement syntax; Request aborted by esub;
//     Unknown user; User permission denied; and any other line ending in
//     "Job not submitted." (an unknown reason stops the search rather than
//     sending the same job to every queue).
//   kUnavailable: Failed in an LSF library call (lsb_init); LIM is down;
//     Connection refused by server; ... daemon not responding ...; LSF is
//     down; Cannot connect to LSF.
// With no output at all: exit status 141 is kJobRejected (OpenLava's mbatchd
// closes the socket when it rejects root without LSF_ROOT_REX, and bsub dies
// of SIGPIPE); any other status is kUnknown. Any other line is kUnknown with
// the line as message. Never fails, never throws.
BsubReply ClassifyBsubReply(int exit_code, std::string_view out, std::string_view err);

// The "<prefix>" of a bsub rejection line "<prefix>: <message>. Job not
// submitted." (format of LSF 10.1; see lsf/FORMATS.md "bsub"): the queue for
// queue errors, the -m token for host errors, "lsb_init" for environment
// errors. Empty when the line has none. The view points into `line`.
std::string_view BsubRejectionPrefix(std::string_view line);

}  // namespace bplace::lsf
