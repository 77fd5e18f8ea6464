#pragma once

// What bsub hands to the job from the process that runs it (LSF 10.1
// bsub(1): the job runs with the submitter's environment, working directory
// and file creation mask), read by the clients that submit through bplaced
// (the front door's bsub, `bplace submit`), which runs bsub for them.

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace bplace::client {

// This process's working directory. Errors: kNotFound when it cannot be
// read (removed, or too long).
Result<std::string> WorkingDirectory();

// This process's umask as octal digits ("022"), read without changing it
// for longer than two system calls.
std::string UmaskText();

// `environ` as a JSON object of strings: what bsub would hand to the job.
// An entry without '=' is skipped, and so is BPLACE_TOKEN: bplace's own
// credential goes in the Authorization header, never into a job.
nlohmann::json EnvironmentJson();

// `environ` as a map, for the front door's own settings.
std::map<std::string, std::string> EnvironmentMap();

// What stdin held: nothing read when it is a terminal (bsub then prompts
// for the script itself), else all of it up to EOF.
struct StdinText {
  bool terminal = false;
  std::string data;
};

// Reads stdin to EOF unless it is a terminal. Errors: kInvalidArgument when
// it holds more than `max_bytes` (nothing bsub would take as a script).
// Blocks until EOF.
Result<StdinText> ReadStdin(std::size_t max_bytes);

}  // namespace bplace::client
