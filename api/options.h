#pragma once

// The options of the API, each with its default in one place. The config
// loader (config/config_loader.cc) fills them from the config file;
// config/bplaced.example.toml documents every key.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/http/server_options.h"

namespace bplace::api {

// Bounds on a job request. Sizes are in bytes of UTF-8.
struct JobRequestLimits {
  std::int64_t max_slots = 100000;
  // [submit] max_array_elements: the most elements of one `array` (LSF's
  // own MAX_JOB_ARRAY_SIZE defaults to 1000 too). Each element is one
  // submission for the user's [limits] bucket.
  std::int64_t max_array_elements = 1000;
  // job_name, resources, output, error, cwd and each extra_args word.
  std::size_t max_string_bytes = 4096;
  // command, each argv word, the argv words once quoted into one command
  // string, and script. Linux refuses a single exec argument over 128 KiB
  // (MAX_ARG_STRLEN), so the command string must stay well below that.
  std::size_t max_command_bytes = 65536;
  std::size_t max_list_items = 256;  // queues, argv, extra_args
  // host, project, app and each queue name (LSF's own limits are shorter).
  std::size_t max_name_bytes = 255;
  // labels: at most max_labels; keys of [A-Za-z0-9_.-], 1..63 bytes; values
  // one line of at most max_label_value_bytes.
  std::size_t max_labels = 32;
  std::size_t max_label_value_bytes = 255;
  // environment: the bytes of all "NAME=value" entries together. The
  // kernel counts the environment and the argv against one limit (ARG_MAX,
  // 2 MiB with the usual 8 MiB stack); 256 KiB leaves the rest to bsub.
  std::size_t max_environment_bytes = 256 * 1024;
};

// [server] metrics_access: who may read GET /metrics.
enum class MetricsAccess {
  // Anyone who can connect, without a token: Prometheus on localhost and
  // the login node's users. It shows counts, queue names and host
  // statuses, never user names or job ids.
  kAnonymous,
  // Like the other reads: the `read` scope (any Unix-socket peer, a token
  // with it, anonymous TCP callers only with [auth] anonymous_read).
  kRead,
};

// What the read and submit handlers need to know.
struct ApiOptions {
  // /readyz fails, and submissions are refused while LSF is failing, when
  // the load data is older (topology: older than its interval plus this).
  std::chrono::seconds max_staleness{120};                   // server.max_staleness_s
  JobRequestLimits request;                                  // submit.max_slots
  MetricsAccess metrics_access = MetricsAccess::kAnonymous;  // server.metrics_access
};

// [auth] mode: who submits.
enum class AuthMode {
  kServiceAccount,  // daemon runs as an ordinary user; only that user submits
  kMultiUser,       // daemon runs as root; bsub runs as the caller
};

// [auth] job_visibility: whose jobs' details (GET /v1/jobs/{id}, GET
// /v1/jobs?user=) an identified caller sees. Anonymous callers never see
// any, and the `admin` scope sees every job, whichever is chosen.
enum class JobVisibility {
  // "own": a user sees their own jobs only, as LSF does with
  // SECURE_JOB_INFO_LEVEL=4 and SECURE_INFODIR_USER_ACCESS=Y (lsb.params):
  // a job's name, command line, labels and request id are its owner's.
  kOwn,
  // "all": every identified caller sees every job bplace follows, as LSF's
  // own default (SECURE_JOB_INFO_LEVEL=0: bjobs -u all for everyone).
  kAll,
};

// [auth]: who a caller is and what they may do.
struct AuthOptions {
  AuthMode mode = AuthMode::kServiceAccount;
  std::string tokens_file;      // bearer tokens for TCP callers; empty = none
  bool anonymous_read = false;  // TCP callers without a token may read
  uid_t min_uid = 1000;         // callers below this uid (and uid 0) are refused
  JobVisibility job_visibility = JobVisibility::kOwn;  // auth.job_visibility
};

}  // namespace bplace::api
