#pragma once

// The front door's routes (docs/lsf-front-door.md): POST /v1/lsf/bsub,
// /v1/lsf/bjobs and /v1/lsf/bkill take the argv an engine gave the LSF
// command of that name and answer with what that command would print, from
// the daemon's data and through its one submission path. Where the daemon
// cannot answer as LSF would (an option it does not handle, data older than
// FrontDoorMaxAge, a job it does not follow), the answer says to run the
// real command, with the arguments to give it. Every answer is 200 with one
// of the two JSON shapes of api/lsf_answer.h, except the bsub retries that
// must come back with the same Idempotency-Key (409 in progress, 429, 504).

#include <chrono>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// How old the jobs tier's data may be for the front door's bjobs to answer
// from it: three intervals of the tier, so that one slow or failed bjobs
// does not send every engine to mbatchd, and two do.
std::chrono::milliseconds FrontDoorMaxAge(std::chrono::milliseconds jobs_interval);

// POST /v1/lsf/bsub {"argv", "cwd", "umask", "environment", "stdin"}: reads
// argv as bsub does (lsf::ParseBsubCommandLine), places and submits the job
// through POST /v1/jobs's path (PostJobs, with the request's
// Idempotency-Key) as the caller, with the caller's working directory,
// umask and environment, and answers with bsub's line ("Job <N> is
// submitted to queue <Q>.") or LSF's refusal. Interactive and blocking
// forms (-I*, -K, -tty), forms bplace cannot express, a caller who may not
// submit here, and a request no queue may take are answered with the real
// bsub to run (with "-q QUEUE" first when bplace chose the queue).
void PostLsfBsub(const Services& services, const Caller& caller, Request&& req,
                 const RequestContext& ctx, const RouteParams& params, Responder respond);

// POST /v1/lsf/bjobs {"argv"}: answers the forms of lsf::ParseBjobsCommandLine
// that name job ids from the followed jobs (lsf::WriteBjobs), when every id
// is the caller's (or the caller is an admin) and the jobs data is at most
// FrontDoorMaxAge old. Ids the tier does not follow are looked up first,
// within the caller's budget of lookups (JobLookups, as GET /v1/jobs/{id}),
// and answered once the tier has asked LSF: the job, or LSF's "not found".
// `-l ID...` is answered with the tier's copies of LSF's own blocks
// (LongForms); a job without a current copy is fetched in the tier's next
// cycle, and answered then. Lists (no ids) are answered from the view of every job of the cluster
// (AnswerBjobsList, api/bjobs_list_answer.h). Everything else is answered
// with the real bjobs to run.
void PostLsfBjobs(const Services& services, const Caller& caller, Request&& req,
                  const RequestContext& ctx, const RouteParams& params, Responder respond);

// POST /v1/lsf/bkill {"argv"}: `bkill [-s SIGNAL] [-r | -d] ID...` for
// followed jobs of the caller: all finished gives LSF's "Job <N>: Job has
// already finished" lines without any LSF call; otherwise one bkill with
// the same words runs as the caller (multi-user mode; else as the daemon's
// user) and its output is the answer, and the jobs tier refreshes soon.
// `bkill [-s SIGNAL] 0` and `-J NAME` likewise, in multi-user mode only.
// Other forms, and jobs bplace does not follow, are answered with the real
// bkill to run.
void PostLsfBkill(const Services& services, const Caller& caller, Request&& req,
                  const RequestContext& ctx, const RouteParams& params, Responder respond);

}  // namespace bplace::api
