#pragma once

// The daemon's JSON answers as text for people: one function per answer,
// each pure (JSON in, text out) and fitted to `width` columns. The JSON
// shapes are the routes' (api/json_mapping.h, api/job_json.h, docs/api.md);
// a member that is missing or null prints as "-".

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace bplace::cli {

// One line for a refusal: the problem's `detail` (RFC 9457), else its
// `title`, else "HTTP <status>" (an answer that is not a problem).
std::string ProblemLine(const std::string& body, int status);

// The `excluded` member of a problem (409 of POST /v1/jobs: no queue may take
// the job) as a QUEUE/CODE/REASON table, the `not_requested` queues only
// counted; empty when there is none.
std::string RenderProblemExclusions(const std::string& body, std::size_t width);

// GET /v1/hosts/{host}: the host's status and InfiniBand health, the queues
// that admit it (via, token, reason) and those that exclude it.
std::string RenderHost(const nlohmann::json& host, std::size_t width);

// GET /v1/hosts: one row per host.
std::string RenderHosts(const nlohmann::json& hosts, std::size_t width);

// GET /v1/placement: the chosen queue, the ranked candidates and every
// excluded queue with its code and reason.
std::string RenderPlacement(const nlohmann::json& placement, std::size_t width);

// GET /v1/queues: one row per queue, in the daemon's (bqueues) order.
std::string RenderQueues(const nlohmann::json& queues, std::size_t width);

// GET /v1/jobs: one row per job, newest first, and the cursor of the next
// page when there is one.
// GET /v1/queues/{name}/waits: each slot-count class's expected start in
// words (the daemon's `summary`), then the newest waits.
std::string RenderQueueWaits(const nlohmann::json& waits, std::size_t width);

std::string RenderJobs(const nlohmann::json& jobs, std::size_t width);

// GET /v1/jobs/{id}: one "name: value" line per field that has a value,
// with its expected start in words and its wait against the bound (an array
// job: its counts per state, then each element's row).
std::string RenderJob(const nlohmann::json& job, std::size_t width);

// The 201 of POST /v1/jobs in bsub's words: "Job <123> is submitted to
// queue <normal>.".
std::string RenderSubmitted(const nlohmann::json& answer);

// What `bplace kill` prints, as bkill prints it (LSF 10.1; docs/lsf-formats.md
// "bkill"): stdout and stderr lines.
struct KilledLines {
  std::string out;
  std::string err;
};

// The answer of POST /v1/jobs:cancel in bkill's words: "Job <123> is being
// terminated" on stdout, "Job <124>: Job has already finished" (and every
// other outcome, with LSF's message) on stderr, a line per id in order.
KilledLines RenderKilled(const nlohmann::json& answer);

// The answers `bplace status` reads; an answer it could not get is an
// empty object (its rows are left out).
struct StatusAnswers {
  nlohmann::json cluster;  // GET /v1/cluster: the load and topology tiers
  nlohmann::json hosts;    // GET /v1/hosts: the sick hosts
  nlohmann::json ib;       // GET /v1/ib: the InfiniBand source's age and error
  nlohmann::json jobs;     // GET /v1/jobs?limit=1: the jobs tier's age and error
};

// The cluster, each refresh tier's age and last error (load, topology, ib
// when it has a source, jobs), topology warnings, and the sick hosts (those
// that take no new work or whose InfiniBand is unhealthy).
std::string RenderStatus(const StatusAnswers& answers, std::size_t width);

// `age_s` as people read it: "-" for null, "4s", "2m10s", "3h05m".
std::string FormatAge(const nlohmann::json& age_s);

}  // namespace bplace::cli
