#include "frontdoor/front_door.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "client/caller_context.h"
#include "client/endpoint.h"
#include "client/http_client.h"
#include "frontdoor/daemon_reply.h"
#include "frontdoor/real_lsf.h"
#include "lsf_adapter/bsub_command_line.h"

namespace bplace::frontdoor {
namespace {

using client::EnvironmentJson;
using client::ReadStdin;
using client::UmaskText;
using client::WorkingDirectory;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

// bjobs and bkill: one call, answered in well under a second by a healthy
// daemon; past this, LSF's own command answers.
constexpr std::chrono::seconds kQueryTimeout{20};
// One bsub call: bplaced tries up to three queues, each bsub bounded by its
// command timeout (30 s by default).
constexpr std::chrono::seconds kSubmitTimeout{150};
// How long bsub keeps asking with its key once a call may have submitted
// (lost answer, bsub timed out, daemon restarting): long enough for systemd
// to restart bplaced and for it to find the job in LSF.
constexpr std::chrono::minutes kSubmitPatience{10};
// The longest a job script on stdin may be (bsub itself takes any size; a
// longer one goes to the real bsub).
constexpr std::size_t kMaxScriptBytes = 64 * 1024 * 1024;

void Print(const std::string& out, const std::string& err) {
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fwrite(err.data(), 1, err.size(), stderr);
  std::fflush(stdout);
  std::fflush(stderr);
}

// Where the real `command` is, saying why it runs when asked to
// (BPLACE_EXPLAIN); nullopt, with the reason printed, when it cannot run.
std::optional<std::string> RealPath(const std::string& command, const Settings& settings,
                                    const std::string& why) {
  if (settings.explain && !why.empty()) {
    std::fprintf(stderr, "bplace: running LSF's own %s: %s\n", command.c_str(), why.c_str());
  }
  auto path = RealCommandPath(command, settings.env);
  if (!path) {
    std::fprintf(stderr, "%s: %s\n", command.c_str(), path.error().message.c_str());
    return std::nullopt;
  }
  return *path;
}

// Runs the real `command` with `args`, feeding `input` on its stdin when the
// front door has read stdin already.
int RunReal(const std::string& command, const std::vector<std::string>& args,
            const Settings& settings, const std::string& why,
            const std::optional<std::string>& input = std::nullopt) {
  const auto path = RealPath(command, settings, why);
  if (!path) return 255;
  if (input) return RunRealCommandWithInput(*path, command, args, *input);
  return ExecRealCommand(*path, command, args);
}

// Runs the real `command` with `args` and prints what it prints, but exits 0
// when it printed a JSON answer without records (an OpenLava-family bjobs
// -json list that found no job: LSF 10.1's exit status for it).
int RunRealExit0WhenEmpty(const std::string& command, const std::vector<std::string>& args,
                          const Settings& settings, const std::string& why) {
  const auto path = RealPath(command, settings, why);
  if (!path) return 255;
  std::string out;
  const int exit_code = RunRealCommandReadingStdout(*path, command, args, out);
  Print(out, "");
  return exit_code != 0 && IsEmptyJsonAnswer(out) ? 0 : exit_code;
}

// A fresh Idempotency-Key: 128 random bits.
std::string NewKey() {
  unsigned char bytes[16] = {};
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key = "frontdoor-";
  for (unsigned char b : bytes) {
    key += kHex[b >> 4];
    key += kHex[b & 15];
  }
  return key;
}

struct Connection {
  client::Endpoint endpoint;
  std::optional<std::string> token;
};

// Where bplaced is: $BPLACE_URL, else its Unix socket.
std::optional<Connection> Connect(const Settings& settings, std::string& why) {
  auto endpoint = client::ChooseEndpoint("", settings.env);
  if (!endpoint) {
    why = endpoint.error().message;
    return std::nullopt;
  }
  Connection connection{*endpoint, std::nullopt};
  if (endpoint->kind == client::Endpoint::Kind::kTcp) {
    auto token = client::ChooseToken(settings.env);
    if (!token) {
      why = token.error().message;
      return std::nullopt;
    }
    connection.token = *token;
  }
  return connection;
}

// bjobs and bkill: the daemon's answer, or the real command.
int RunQuery(const std::string& command, const std::vector<std::string>& args,
             const Settings& settings) {
  std::string why;
  const auto connection = Connect(settings, why);
  if (!connection) return RunReal(command, args, settings, why);
  const client::HttpCall call{"POST", "/v1/lsf/" + command, json{{"argv", args}}.dump(), {}};
  const auto answer =
      client::Exchange(connection->endpoint, connection->token, call,
                       std::chrono::duration_cast<std::chrono::milliseconds>(kQueryTimeout));
  if (!answer) return RunReal(command, args, settings, "bplaced: " + answer.error().reason);
  const DaemonReply reply = ReadDaemonReply(*answer);
  if (reply.kind == DaemonReply::Kind::kAnswered) {
    Print(reply.out, reply.err);
    return reply.exit_code;
  }
  if (reply.kind == DaemonReply::Kind::kRunReal && reply.exit_0_when_empty) {
    return RunRealExit0WhenEmpty(command, reply.args, settings, reply.reason);
  }
  const std::vector<std::string>& real_args =
      reply.kind == DaemonReply::Kind::kRunReal ? reply.args : args;
  return RunReal(command, real_args, settings, reply.reason);
}

// The body of POST /v1/lsf/bsub: the command line and what bsub would hand
// to the job from this process.
json BsubBody(const std::vector<std::string>& args, const std::string& cwd,
              const std::optional<std::string>& script) {
  json body{
      {"argv", args}, {"cwd", cwd}, {"umask", UmaskText()}, {"environment", EnvironmentJson()}};
  if (script) body["stdin"] = *script;
  return body;
}

// bsub through bplaced with one key: see RunCommand. `script` is stdin when
// the command line names no command.
int SubmitOnce(const std::vector<std::string>& args, const std::optional<std::string>& script,
               const Settings& settings) {
  std::string why;
  const auto connection = Connect(settings, why);
  auto cwd = WorkingDirectory();
  if (!connection || !cwd) {
    return RunReal("bsub", args, settings, connection ? cwd.error().message : why, script);
  }
  const std::string key = NewKey();
  const client::HttpCall call{
      "POST", "/v1/lsf/bsub", BsubBody(args, *cwd, script).dump(), {{"Idempotency-Key", key}}};
  // Set once a call may have reached the submission path without a final
  // answer: from then on only bplaced's final word ends the command.
  bool uncertain = false;
  const auto give_up_at = SteadyClock::now() + kSubmitPatience;
  while (true) {
    const auto answer =
        client::Exchange(connection->endpoint, connection->token, call,
                         std::chrono::duration_cast<std::chrono::milliseconds>(kSubmitTimeout));
    std::chrono::seconds wait{2};
    if (!answer) {
      if (!uncertain && !answer.error().request_sent) {
        return RunReal("bsub", args, settings, "bplaced: " + answer.error().reason, script);
      }
      uncertain = true;
    } else {
      const DaemonReply reply = ReadDaemonReply(*answer);
      if (reply.kind == DaemonReply::Kind::kAnswered) {
        Print(reply.out, reply.err);
        return reply.exit_code;
      }
      if (reply.kind == DaemonReply::Kind::kRunReal) {
        return RunReal("bsub", reply.args, settings, reply.reason, script);
      }
      const bool nothing_submitted =
          reply.kind == DaemonReply::Kind::kNotHandled || reply.status == 503;
      if (nothing_submitted && !uncertain) {
        return RunReal("bsub", args, settings, reply.reason, script);
      }
      uncertain = uncertain || reply.kind == DaemonReply::Kind::kRetry;
      wait = std::max(reply.retry_after, std::chrono::seconds(1));
    }
    if (SteadyClock::now() + wait > give_up_at) break;
    std::this_thread::sleep_for(std::min(wait, std::chrono::seconds(30)));
  }
  std::fprintf(stderr,
               "bsub: bplaced did not say within %lld minutes what became of this submission; "
               "the job may have been submitted (bplace Idempotency-Key %s)\n",
               static_cast<long long>(kSubmitPatience.count()), key.c_str());
  return 255;
}

int RunBsub(const std::vector<std::string>& args, const Settings& settings) {
  const auto line = lsf::ParseBsubCommandLine(args);
  // A command line bsub reads differently, or an interactive one: as it is.
  // bplaced says the same; asking it first would only cost a round trip.
  if (!line) return RunReal("bsub", args, settings, line.error().message);
  std::optional<std::string> script;
  if (line->command.empty() && !line->Has(lsf::BsubOptionUse::kBlocking)) {
    auto input = ReadStdin(kMaxScriptBytes);
    if (!input) return RunReal("bsub", args, settings, input.error().message);
    if (input->terminal) return RunReal("bsub", args, settings, "bsub prompts for the script");
    script = std::move(input->data);
  }
  return SubmitOnce(args, script, settings);
}

}  // namespace

Settings SettingsFrom(std::map<std::string, std::string> env) {
  Settings settings;
  const auto flag = [&](const char* name) {
    const auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  settings.bypass = flag("BPLACE_FRONTDOOR") == "off";
  settings.explain = !flag("BPLACE_EXPLAIN").empty() && flag("BPLACE_EXPLAIN") != "0";
  settings.env = std::move(env);
  return settings;
}

int RunCommand(const std::string& command, const std::vector<std::string>& args,
               const Settings& settings) {
  if (settings.bypass) return RunReal(command, args, settings, "BPLACE_FRONTDOOR=off");
  if (command == "bsub") return RunBsub(args, settings);
  return RunQuery(command, args, settings);
}

}  // namespace bplace::frontdoor
