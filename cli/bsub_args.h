#pragma once

// `bplace submit`'s words after the command name, read as the seed script
// auto_submit_to_host_queue.sh took them (`HOST [bsub options] COMMAND...`),
// and turned into the body of POST /v1/jobs.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace bplace::cli {

// The refusal of a -q that names no queue (`-q ''`): without it bplace
// would choose among every queue. `submit` and `place` say the same.
inline constexpr char kNoQueueNamed[] =
    "-q: no queue named (give one, or several in quotes: -q \"short normal\")";

// What `bplace submit` sends.
struct SubmitRequest {
  nlohmann::json body;          // the POST /v1/jobs body (docs/api.md "POST /v1/jobs")
  std::string idempotency_key;  // --idempotency-key; empty: the caller makes one
};

// Reads `[HOST] [options] COMMAND...`. Pure.
// - HOST: the first word when it does not start with '-', holds no '/' and
//   other words follow (the seed's usage: a lone word, or a path, is the
//   COMMAND); or `--host H` / `-m H` anywhere among the options (not both).
// - The bsub options that have a body field (api::JobRequestFields(): -J -n
//   -R -o -e -cwd -W -M -P -app, -m) fill that field; `-n` must be a whole
//   number; `-q "a b c"` (blanks or commas, repeatable) is the candidate list
//   `queues`. Each may be given once.
// - Every other bsub option bplaced passes on (lsf::ExtraArgTakesValue) goes
//   to `extra_args`, with its value when it takes one.
// - bplace's own: `--label KEY=VALUE` (repeatable; `labels`), `--ib` /
//   `--no-ib` (`require_ib`), `--idempotency-key K`.
// - `--` ends the options. The first word that is not an option starts the
//   COMMAND: one word is `command` (a shell command string, as bsub takes
//   it: "sleep 60; date"), several are `argv` (each word kept as it is).
// Returns kInvalidArgument naming the word for an option bplaced does not
// pass on (-I, -Is, -K, -Jd, unknown ones), an option without its value, an
// option given twice, a -n that is not a whole number, a malformed label, a
// host given twice, and no COMMAND.
Result<SubmitRequest> ParseSubmitArgs(const std::vector<std::string>& args);

}  // namespace bplace::cli
