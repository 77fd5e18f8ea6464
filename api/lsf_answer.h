#pragma once

// The two answers of the front door's routes (api/routes_lsf.h), as the
// front door command reads them: what the LSF command would have printed,
// or the real command to run. Pure functions.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http/message.h"
#include "common/result.h"

namespace bplace::api {

// What an LSF command prints and how it exits.
struct LsfOutput {
  std::string out;
  std::string err;
  int exit_code = 0;
};

// 200 {"stdout", "stderr", "exit_code"}.
Response AnswerAsLsf(const LsfOutput& output);

// 200 {"run_lsf": args, "reason"}: the front door runs the real command with
// `args` (the words after the command's name) and prints what it prints.
// `reason` says why, for BPLACE_EXPLAIN and the daemon's debug log. With
// `exit_0_when_empty`, also "exit_0_when_empty": true: the front door exits
// 0 when the command printed a JSON answer without records (api/openlava_bjobs.h).
Response RunRealLsf(const std::vector<std::string>& args, const std::string& reason,
                    bool exit_0_when_empty = false);

// The "argv" member of a front-door request body: an array of at most 4096
// strings without NUL. Errors: kInvalidArgument naming what is wrong.
Result<std::vector<std::string>> ArgvOf(const nlohmann::json& body);

}  // namespace bplace::api
