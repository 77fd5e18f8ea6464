#include "api/bsub_request.h"

#include <charconv>
#include <set>

#include "api/job_request_decoder.h"

namespace bplace::api {
namespace {

using nlohmann::json;

Error Cannot(std::string message) { return Error{ErrorCode::kInvalidArgument, std::move(message)}; }

// The body field of a bsub option with a field of its own (-o -e -cwd -W -M
// -P -app), from the decoder's table; "" for any other option.
std::string FieldOf(std::string_view flag) {
  for (const JobRequestField& field : JobRequestFields()) {
    if (field.bsub == flag) return std::string(field.name);
  }
  return "";
}

std::optional<std::int64_t> WholeNumber(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// One option with a field or a special meaning; false when `option` is
// neither (it then goes to extra_args).
Result<bool> PutField(const lsf::BsubArgument& option, json& body) {
  const std::string& value = *option.value;
  if (option.flag == "-q") {
    std::vector<std::string> queues = SplitQueueList(value);
    // Not "any queue": LSF's own answer (a refusal or its default queue).
    if (queues.empty()) return tl::unexpected(Cannot("-q '" + value + "': names no queue"));
    body["queues"] = std::move(queues);
  } else if (option.flag == "-m") {
    const std::vector<std::string> hosts = SplitQueueList(value);
    if (hosts.empty()) return tl::unexpected(Cannot("-m '" + value + "': names no host"));
    if (hosts.size() != 1) return tl::unexpected(Cannot("-m " + value + ": several hosts"));
    body["host"] = hosts.front();
  } else if (option.flag == "-J") {
    auto put = PutJobName(value, body);
    if (!put) return tl::unexpected(put.error());
  } else if (option.flag == "-n") {
    const auto slots = WholeNumber(value);
    if (!slots) return tl::unexpected(Cannot("-n " + value + ": not one whole number"));
    body["slots"] = *slots;
  } else if (option.flag == "-R") {
    body["resources"].push_back(value);
  } else if (const std::string field = FieldOf(option.flag); !field.empty()) {
    body[field] = value;
  } else {
    return false;
  }
  return true;
}

}  // namespace

Result<void> PutJobName(const std::string& value, json& body) {
  const auto array = lsf::SplitArrayJobName(value);
  if (!array) {
    body["job_name"] = value;
    return {};
  }
  if (!array->limit.empty()) {
    return tl::unexpected(Cannot("-J " + value + ": an array limit (%N) bplace does not pass"));
  }
  if (!array->name.empty()) body["job_name"] = array->name;
  body["array"] = array->index_list;
  return {};
}

std::vector<std::string> SplitQueueList(const std::string& value) {
  std::vector<std::string> names;
  std::string current;
  for (char c : value + " ") {
    if (c == ' ' || c == '\t' || c == ',') {
      if (!current.empty()) names.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  return names;
}

Result<json> JobBodyFromBsub(const lsf::BsubCommandLine& line, const BsubSubmitter& submitter) {
  json body = json::object();
  json extra = json::array();
  std::set<std::string> seen;
  for (const lsf::BsubArgument& option : line.options) {
    if (option.use == lsf::BsubOptionUse::kBlocking || option.use == lsf::BsubOptionUse::kUnknown) {
      return tl::unexpected(Cannot(option.flag + ": bplace does not submit it; bsub does"));
    }
    if (option.flag == "-Jd") return tl::unexpected(Cannot("-Jd: bplace tags its jobs itself"));
    if (option.flag != "-R" && option.use != lsf::BsubOptionUse::kPassed &&
        !seen.insert(option.flag).second) {
      return tl::unexpected(Cannot(option.flag + " given twice"));
    }
    if (option.use == lsf::BsubOptionUse::kPassed) {
      extra.push_back(option.flag);
      if (option.value) extra.push_back(*option.value);
      continue;
    }
    auto put = PutField(option, body);
    if (!put) return tl::unexpected(put.error());
  }
  if (!extra.empty()) body["extra_args"] = std::move(extra);
  if (!line.command.empty()) {
    body["command"] = lsf::BsubCommandString(line.command);
  } else if (submitter.script) {
    body["script"] = *submitter.script;
  } else {
    return tl::unexpected(Cannot("no command and no job script on stdin"));
  }
  body["workdir"] = submitter.workdir;
  if (submitter.umask) body["umask"] = *submitter.umask;
  if (submitter.environment) body["environment"] = *submitter.environment;
  return body;
}

}  // namespace bplace::api
