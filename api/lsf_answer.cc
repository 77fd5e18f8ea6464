#include "api/lsf_answer.h"

#include "api/http/problem.h"

namespace bplace::api {
namespace {

// More words than any engine's command line; bsub itself is bound by
// ARG_MAX well before this.
constexpr std::size_t kMaxArgvWords = 4096;

}  // namespace

Response AnswerAsLsf(const LsfOutput& output) {
  return MakeJson(
      200, {{"stdout", output.out}, {"stderr", output.err}, {"exit_code", output.exit_code}});
}

Response RunRealLsf(const std::vector<std::string>& args, const std::string& reason,
                    bool exit_0_when_empty) {
  nlohmann::json body{{"run_lsf", args}, {"reason", reason}};
  if (exit_0_when_empty) body["exit_0_when_empty"] = true;
  return MakeJson(200, body);
}

Result<std::vector<std::string>> ArgvOf(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("argv") || !body["argv"].is_array()) {
    return Fail(ErrorCode::kInvalidArgument, "argv: expected an array of strings");
  }
  const nlohmann::json& argv = body["argv"];
  if (argv.size() > kMaxArgvWords) {
    return Fail(ErrorCode::kInvalidArgument,
                "argv: more than " + std::to_string(kMaxArgvWords) + " words");
  }
  std::vector<std::string> words;
  for (const nlohmann::json& word : argv) {
    if (!word.is_string()) return Fail(ErrorCode::kInvalidArgument, "argv: not all strings");
    const std::string& text = word.get_ref<const std::string&>();
    if (text.find('\0') != std::string::npos) {
      return Fail(ErrorCode::kInvalidArgument, "argv: a word holds a NUL byte");
    }
    words.push_back(text);
  }
  return words;
}

}  // namespace bplace::api
