#include "frontdoor/daemon_reply.h"

#include <charconv>

#include <nlohmann/json.hpp>

namespace bplace::frontdoor {
namespace {

constexpr std::chrono::seconds kDefaultRetryAfter{5};

std::chrono::seconds RetryAfter(const client::HttpAnswer& answer) {
  const auto it = answer.headers.find("retry-after");
  if (it == answer.headers.end()) return kDefaultRetryAfter;
  long long seconds = 0;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 0) {
    return kDefaultRetryAfter;
  }
  return std::chrono::seconds(seconds);
}

DaemonReply NotHandled(std::string reason) {
  DaemonReply reply;
  reply.reason = std::move(reason);
  return reply;
}

// A 200's body: the answer, or the real command to run.
DaemonReply ReadOk(const std::string& text) {
  const nlohmann::json body = nlohmann::json::parse(text, nullptr, false);
  if (!body.is_object()) return NotHandled("bplaced's answer is not a JSON object");
  DaemonReply reply;
  if (body.contains("run_lsf") && body["run_lsf"].is_array()) {
    for (const auto& word : body["run_lsf"]) {
      if (!word.is_string()) return NotHandled("run_lsf holds a word that is not a string");
      reply.args.push_back(word.get<std::string>());
    }
    reply.kind = DaemonReply::Kind::kRunReal;
    reply.reason = body.value("reason", std::string());
    const auto flag = body.find("exit_0_when_empty");
    reply.exit_0_when_empty = flag != body.end() && flag->is_boolean() && flag->get<bool>();
    return reply;
  }
  if (body.contains("stdout") && body["stdout"].is_string() && body.contains("stderr") &&
      body["stderr"].is_string() && body.contains("exit_code") &&
      body["exit_code"].is_number_integer()) {
    reply.kind = DaemonReply::Kind::kAnswered;
    reply.out = body["stdout"].get<std::string>();
    reply.err = body["stderr"].get<std::string>();
    reply.exit_code = body["exit_code"].get<int>();
    return reply;
  }
  return NotHandled("bplaced's answer has neither run_lsf nor stdout/stderr/exit_code");
}

DaemonReply Read(const client::HttpAnswer& answer) {
  const int status = answer.status;
  const bool in_progress = status == 409 && answer.headers.count("retry-after") > 0;
  if (in_progress || status == 429 || status == 500 || status == 503 || status == 504) {
    DaemonReply reply;
    reply.kind = DaemonReply::Kind::kRetry;
    reply.retry_after = RetryAfter(answer);
    reply.reason = "bplaced answered " + std::to_string(status);
    return reply;
  }
  if (status != 200) return NotHandled("bplaced answered " + std::to_string(status));
  return ReadOk(answer.body);
}

}  // namespace

DaemonReply ReadDaemonReply(const client::HttpAnswer& answer) {
  DaemonReply reply = Read(answer);
  reply.status = answer.status;
  return reply;
}

}  // namespace bplace::frontdoor
