#include "cli/commands.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/bsub_args.h"
#include "cli/exit_code.h"
#include "cli/render.h"
#include "cli/table.h"
#include "client/caller_context.h"
#include "client/endpoint.h"
#include "client/http_client.h"

extern char** environ;

namespace bplace::cli {
namespace {

using client::ChooseEndpoint;
using client::ChooseToken;
using client::Endpoint;
using client::Exchange;
using client::HttpAnswer;
using client::HttpCall;
using client::TransportError;

using nlohmann::json;

int Code(ExitCode code) { return static_cast<int>(code); }

void Complain(const std::string& message) { std::cerr << "bplace: " << message << "\n"; }

std::map<std::string, std::string> Environment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto equals = text.find('=');
    if (equals != std::string::npos) env[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return env;
}

std::string PercentEncode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        std::string_view("-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Adds "name=value" to a query string being built ("?" first, "&" after).
void AddQuery(std::string& target, const std::string& name, const std::string& value) {
  target += target.find('?') == std::string::npos ? '?' : '&';
  target += name + "=" + PercentEncode(value);
}

// Where and as whom to talk to bplaced, and how long to wait.
class Client {
 public:
  // Reads the endpoint and the token; false (and a message) when either is
  // wrong: the command then exits kUsage without sending anything.
  bool Open(const GlobalOptions& options, std::chrono::milliseconds default_timeout) {
    const auto env = Environment();
    auto endpoint = ChooseEndpoint(options.url, env);
    if (!endpoint) {
      Complain(endpoint.error().message);
      return false;
    }
    endpoint_ = *endpoint;
    // On the Unix socket bplaced knows the caller from the socket (SO_PEERCRED).
    if (endpoint_.kind == Endpoint::Kind::kTcp) {
      auto token = ChooseToken(env);
      if (!token) {
        Complain(token.error().message);
        return false;
      }
      token_ = *token;
    }
    timeout_ = options.timeout_s
                   ? std::chrono::milliseconds(static_cast<std::int64_t>(*options.timeout_s * 1000))
                   : default_timeout;
    json_ = options.json;
    return true;
  }

  // One exchange; on a transport failure prints why.
  tl::expected<HttpAnswer, TransportError> Send(const HttpCall& call) const {
    auto answer = SendQuietly(call);
    if (!answer) Report(answer.error());
    return answer;
  }

  // One exchange; the caller reports a failure.
  tl::expected<HttpAnswer, TransportError> SendQuietly(const HttpCall& call) const {
    return Exchange(endpoint_, token_, call, timeout_);
  }

  // Prints why there was no answer, in one line.
  void Report(const TransportError& error) const {
    switch (error.kind) {
      case TransportError::Kind::kUnreachable:
        Complain("cannot reach bplaced at " + endpoint_.text + ": " + error.reason +
                 " (is bplaced running? see systemctl status bplaced)");
        break;
      case TransportError::Kind::kTimeout:
        Complain("bplaced at " + endpoint_.text + " gave " + error.reason +
                 " (--timeout; is it overloaded? see systemctl status bplaced)");
        break;
      case TransportError::Kind::kBroken:
        Complain("the connection to bplaced at " + endpoint_.text + " broke: " + error.reason);
        break;
    }
  }

  std::chrono::milliseconds timeout() const { return timeout_; }

  // Prints a refusal: its detail on stderr, and with --json the problem on
  // stdout for scripts. Returns kRefused.
  int Refused(const HttpAnswer& answer) const {
    Complain(ProblemLine(answer.body, answer.status));
    const std::string exclusions = RenderProblemExclusions(answer.body, OutputWidth());
    if (!exclusions.empty()) std::cerr << exclusions;
    if (json_) std::cout << answer.body << (answer.body.ends_with('\n') ? "" : "\n");
    return Code(ExitCodeForStatus(answer.status));
  }

  // GET `target`, then `render` the parsed 2xx answer (or print it as it
  // came with --json). Returns the exit status: transport and refusals as
  // ever, else `exit_of` the answer.
  template <typename Render, typename ExitOf>
  int Show(const std::string& target, Render render, ExitOf exit_of) const {
    auto answer = Send({"GET", target, "", {}});
    if (!answer) return Code(ExitCode::kUnreachable);
    if (ExitCodeForStatus(answer->status) != ExitCode::kOk) return Refused(*answer);
    const json body = json::parse(answer->body, nullptr, false);
    if (body.is_discarded()) {
      Complain("bplaced answered " + target + " with something that is not JSON");
      return Code(ExitCode::kRefused);
    }
    if (json_) {
      std::cout << answer->body << (answer->body.ends_with('\n') ? "" : "\n");
    } else {
      render(body);
    }
    return exit_of(body);
  }

  template <typename Render>
  int Show(const std::string& target, Render render) const {
    return Show(target, render, [](const json&) { return Code(ExitCode::kOk); });
  }

  bool json_output() const { return json_; }

 private:
  Endpoint endpoint_;
  std::optional<std::string> token_;
  std::chrono::milliseconds timeout_{kDefaultTimeout};
  bool json_ = false;
};

std::string RandomKey() {
  std::random_device random;
  char text[40];
  std::snprintf(text, sizeof text, "bplace-%08x%08x%08x%08x", random(), random(), random(),
                random());
  return text;
}

}  // namespace

int RunHosts(const GlobalOptions& options, const std::string& host, bool names_only) {
  Client client;
  if (!client.Open(options, kDefaultTimeout)) return Code(ExitCode::kUsage);
  if (host.empty()) {
    return client.Show("/v1/hosts", [&](const json& body) {
      if (names_only) {
        for (const json& h : body.value("hosts", json::array())) {
          std::cout << h.value("host", "") << "\n";
        }
      } else {
        std::cout << RenderHosts(body, OutputWidth());
      }
    });
  }
  return client.Show("/v1/hosts/" + PercentEncode(host),
                     [](const json& body) { std::cout << RenderHost(body, OutputWidth()); });
}

int RunPlace(const GlobalOptions& options, const std::string& host, const std::string& queues,
             std::optional<int> slots, std::optional<bool> require_ib, const std::string& user) {
  Client client;
  if (!client.Open(options, kDefaultTimeout)) return Code(ExitCode::kUsage);
  std::string target = "/v1/placement";
  if (!host.empty()) AddQuery(target, "host", host);
  std::string list;
  for (char c : queues) list += (c == ' ' || c == '\t') ? ',' : c;
  if (!list.empty()) AddQuery(target, "queue", list);
  if (slots) AddQuery(target, "slots", std::to_string(*slots));
  if (require_ib) AddQuery(target, "require_ib", *require_ib ? "true" : "false");
  if (!user.empty()) AddQuery(target, "user", user);
  return client.Show(
      target, [](const json& body) { std::cout << RenderPlacement(body, OutputWidth()); },
      [](const json& body) {
        return Code(body.value("chosen", json()).is_null() ? ExitCode::kRefused : ExitCode::kOk);
      });
}

int RunSubmit(const GlobalOptions& options, const std::vector<std::string>& args) {
  auto request = ParseSubmitArgs(args);
  if (!request) {
    Complain("submit: " + request.error().message);
    return Code(ExitCode::kUsage);
  }
  // bsub hands the job the submitter's directory, umask and environment:
  // so does bplace (docs/cli.md "`submit`'s words").
  auto workdir = client::WorkingDirectory();
  if (!workdir) {
    Complain("submit: " + workdir.error().message);
    return Code(ExitCode::kUsage);
  }
  request->body["workdir"] = *workdir;
  request->body["umask"] = client::UmaskText();
  request->body["environment"] = client::EnvironmentJson();
  Client client;
  if (!client.Open(options, kSubmitTimeout)) return Code(ExitCode::kUsage);
  const std::string key = request->idempotency_key.empty() ? RandomKey() : request->idempotency_key;
  const HttpCall call{"POST", "/v1/jobs", request->body.dump(), {{"Idempotency-Key", key}}};
  const auto deadline = std::chrono::steady_clock::now() + client.timeout();
  auto answer = client.SendQuietly(call);
  // Whether any attempt reached bplaced: then the job may exist, and only
  // the same key may ask again (a retry that cannot connect says nothing
  // of the first attempt).
  const bool sent = answer.has_value() || answer.error().request_sent;
  if (!answer && answer.error().kind == TransportError::Kind::kBroken) {
    // bplaced may have taken the job: the same key gets its answer, never
    // a second bsub (docs/api.md "Exactly once").
    Complain("the connection broke before the answer (" + answer.error().reason +
             "); asking once more with the same Idempotency-Key " + key);
    answer = client.SendQuietly(call);
    // 409 with Retry-After: the first request with the key still runs.
    while (answer && answer->status == 409 && answer->headers.contains("retry-after")) {
      const auto wait =
          std::chrono::seconds(std::max(1, std::atoi(answer->headers["retry-after"].c_str())));
      if (std::chrono::steady_clock::now() + wait > deadline) break;
      std::this_thread::sleep_for(wait);
      answer = client.SendQuietly(call);
    }
  }
  if (!answer) {
    client.Report(answer.error());
    if (sent || answer.error().request_sent) {
      Complain(
          "the job may have been submitted; to learn, run the same command again with "
          "--idempotency-key " +
          key);
    }
    return Code(ExitCode::kUnreachable);
  }
  if (ExitCodeForStatus(answer->status) != ExitCode::kOk) return client.Refused(*answer);
  if (client.json_output()) {
    std::cout << answer->body << (answer->body.ends_with('\n') ? "" : "\n");
  } else {
    std::cout << RenderSubmitted(json::parse(answer->body, nullptr, false));
  }
  return Code(ExitCode::kOk);
}

int RunQueues(const GlobalOptions& options, const std::string& name, bool names_only) {
  Client client;
  if (!client.Open(options, kDefaultTimeout)) return Code(ExitCode::kUsage);
  if (!name.empty()) {
    const int shown = client.Show("/v1/queues/" + PercentEncode(name), [](const json& body) {
      std::cout << RenderQueues({{"queues", json::array({body})}}, OutputWidth());
    });
    // --json prints the queue's answer alone, as before.
    if (shown != Code(ExitCode::kOk) || client.json_output()) return shown;
    return client.Show("/v1/queues/" + PercentEncode(name) + "/waits", [](const json& body) {
      std::cout << RenderQueueWaits(body, OutputWidth());
    });
  }
  return client.Show("/v1/queues", [&](const json& body) {
    if (!names_only) {
      std::cout << RenderQueues(body, OutputWidth());
      return;
    }
    for (const json& q : body.value("queues", json::array()))
      std::cout << q.value("name", "") << "\n";
  });
}

int RunJobs(const GlobalOptions& options, const std::string& user, const std::string& status,
            const std::vector<std::string>& labels, std::optional<int> limit,
            const std::string& cursor) {
  Client client;
  if (!client.Open(options, kDefaultTimeout)) return Code(ExitCode::kUsage);
  std::string target = "/v1/jobs";
  if (!user.empty()) AddQuery(target, "user", user);
  if (!status.empty()) AddQuery(target, "status", status);
  for (const std::string& label : labels) AddQuery(target, "label", label);
  if (limit) AddQuery(target, "limit", std::to_string(*limit));
  if (!cursor.empty()) AddQuery(target, "cursor", cursor);
  return client.Show(target,
                     [](const json& body) { std::cout << RenderJobs(body, OutputWidth()); });
}

int RunJob(const GlobalOptions& options, const std::string& id, std::optional<int> wait_s) {
  Client client;
  // wait_s holds the answer back up to that long: wait for it besides.
  const auto wait = std::chrono::seconds(wait_s.value_or(0));
  if (!client.Open(options, kDefaultTimeout + wait)) return Code(ExitCode::kUsage);
  std::string target = "/v1/jobs/" + PercentEncode(id);
  if (wait_s) AddQuery(target, "wait_s", std::to_string(*wait_s));
  return client.Show(target, [](const json& body) { std::cout << RenderJob(body, OutputWidth()); });
}

int RunKill(const GlobalOptions& options, const std::vector<std::string>& ids) {
  Client client;
  if (!client.Open(options, kDefaultTimeout)) return Code(ExitCode::kUsage);
  // One request, one bkill for the whole batch (POST /v1/jobs:cancel).
  auto answer = client.Send({"POST", "/v1/jobs:cancel", json{{"ids", ids}}.dump(), {}});
  if (!answer) return Code(ExitCode::kUnreachable);
  if (ExitCodeForStatus(answer->status) != ExitCode::kOk) return client.Refused(*answer);
  const json body = json::parse(answer->body, nullptr, false);
  if (client.json_output()) {
    for (const json& result : body.value("results", json::array()))
      std::cout << result.dump() << "\n";
  } else {
    const KilledLines lines = RenderKilled(body);
    std::cout << lines.out;
    std::cerr << lines.err;
  }
  for (const json& result : body.value("results", json::array())) {
    const std::string outcome = result.value("outcome", "");
    if (outcome != "terminating" && outcome != "already_finished") return Code(ExitCode::kRefused);
  }
  return Code(ExitCode::kOk);
}

int RunStatus(const GlobalOptions& options) {
  Client client;
  if (!client.Open(options, kDefaultTimeout)) return Code(ExitCode::kUsage);
  auto cluster = client.Send({"GET", "/v1/cluster", "", {}});
  if (!cluster) return Code(ExitCode::kUnreachable);
  if (ExitCodeForStatus(cluster->status) != ExitCode::kOk) return client.Refused(*cluster);
  StatusAnswers answers;
  answers.cluster = json::parse(cluster->body, nullptr, false);
  // The others complete the picture: /v1/hosts and /v1/ib are 503 before
  // the first snapshot (the cluster's answer says why), so a refusal of one
  // leaves its rows out rather than failing the command.
  const std::pair<json*, const char*> others[] = {
      {&answers.hosts, "/v1/hosts"}, {&answers.ib, "/v1/ib"}, {&answers.jobs, "/v1/jobs?limit=1"}};
  for (const auto& [into, target] : others) {
    auto answer = client.Send({"GET", target, "", {}});
    if (!answer) return Code(ExitCode::kUnreachable);
    *into = ExitCodeForStatus(answer->status) == ExitCode::kOk
                ? json::parse(answer->body, nullptr, false)
                : json::object();
    if (into->is_discarded()) *into = json::object();
  }
  if (client.json_output()) {
    std::cout << json{{"cluster", answers.cluster},
                      {"hosts", answers.hosts},
                      {"ib", answers.ib},
                      {"jobs", answers.jobs}}
                     .dump()
              << "\n";
  } else {
    std::cout << RenderStatus(answers, OutputWidth());
  }
  return Code(ExitCode::kOk);
}

}  // namespace bplace::cli
