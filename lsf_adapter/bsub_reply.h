#pragma once

// Classification of what one bsub call printed. Pure functions: no I/O, safe
// from any thread.

#include <string_view>

#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Classifies one finished bsub call from its exit status and output (formats
// of LSF 10.1 and OpenLava/volclava 2.2; see docs/lsf-formats.md "Replies").
//
// Submitted (scope kNone) when "Job <N> is submitted to [default ]queue <Q>"
// appears anywhere in `out`, or in `err` (BSUB_STDERR), whatever the exit
// status; job_id and queue come from that line (an esub may have rewritten
// -q).
//
// Otherwise lsf::ReasonLine of both streams decides (the last line that is
// not retry chatter, of `err` first, then of `out`: bsub may print its
// refusal on one stream and "Please wait" chatter on the other). Its
// "<prefix>: " and trailing ". Job not submitted." are removed into
// `prefix` and `message`; `raw_line` keeps the line. Scope and cause:
//   kUserQueue: User cannot use the queue, No such queue (kPermission);
//     Queue has been closed, Not activated because queue windows are closed
//     (kQueueClosed); The destination queue has reached its job limit,
//     Queue does not have enough per-user job slots, User or one of user's
//     groups does not have enough job slots, Too many processors requested
//     (kLimit).
//   kHostQueue: Host or host group is not used by the queue; Bad host name,
//     host group name or cluster name (kHost).
//   kJob: Bad resource requirement syntax (kRequest); Request aborted by
//     esub (kEsub, with the esub's own preceding lines in esub_message);
//     Unknown user, User permission denied (kIdentity); any other line
//     ending in "Job not submitted." (kRequest: an unknown reason stops the
//     search rather than sending the same job to every queue).
//   kLsfUnavailable: the phrases of lsf::SaysLsfUnavailable.
// With no output at all: exit status 141 is kJob (OpenLava's mbatchd closes
// the socket when it rejects root without LSF_ROOT_REX, and bsub dies of
// SIGPIPE); any other status is kUnknown. Any other line is kUnknown with
// the line as message. Never fails, never throws.
BsubReply ClassifyBsubReply(int exit_code, std::string_view out, std::string_view err);

// The "<prefix>" of a bsub rejection line "<prefix>: <message>. Job not
// submitted." (format of LSF 10.1; see docs/lsf-formats.md "Replies"): the
// queue for queue errors, the -m token for host errors, "lsb_init" for
// environment errors. Empty when the line has none. The view points into
// `line`.
std::string_view BsubRejectionPrefix(std::string_view line);

}  // namespace bplace::lsf
