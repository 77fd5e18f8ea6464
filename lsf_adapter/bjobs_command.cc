#include "lsf_adapter/bjobs_command.h"

#include <string_view>
#include <unordered_set>
#include <utility>

#include "lsf_adapter/bjobs_parser.h"
#include "lsf_adapter/command_failure.h"
#include "lsf_adapter/lsf_messages.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {
namespace {

constexpr std::string_view kBjobsAllJsonCommand = "bjobs -a -o ... -json";
constexpr std::string_view kBjobsAllTableCommand = "bjobs -a -w -u all";

// What a bjobs that cannot give our fields as JSON prints (see the contract
// of BjobsRefusedOutputFormat for which bjobs prints which).
constexpr std::string_view kRefusals[] = {
    "illegal option -- o",
    "illegal option -- j",
    "invalid option -- 'o'",
    "invalid option -- 'j'",
    "You cannot use the -json option",
    "in the format string is not a valid field name",
    "Illegal field name",
};

// The bytes one argv string costs against ARG_MAX: the string, its NUL and
// its pointer in argv.
std::size_t ArgBytes(std::string_view arg) { return arg.size() + 1 + sizeof(char*); }

// `ids` without repeats, in order; an error naming the first bad one.
Result<std::vector<std::string_view>> UniqueValidIds(const std::vector<std::string>& ids) {
  std::vector<std::string_view> unique;
  std::unordered_set<std::string_view> seen;
  for (const std::string& id : ids) {
    if (!ParseJobId(id)) {
      return Fail(ErrorCode::kInvalidArgument,
                  "bjobs: " + QuoteForMessage(id) + " is not a job id (digits, optional [index])");
    }
    if (seen.insert(id).second) unique.push_back(id);
  }
  return unique;
}

bool LineHasRefusal(std::string_view line) {
  if (line.substr(0, 6) == "Usage:" || line.substr(0, 6) == "usage:") return true;
  for (std::string_view refusal : kRefusals) {
    if (line.find(refusal) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<std::vector<std::string>>> BjobsArgvChunks(const std::string& bjobs_path,
                                                              const std::vector<std::string>& ids,
                                                              bool use_o_json,
                                                              std::size_t max_arg_bytes,
                                                              std::size_t max_ids_per_call) {
  auto unique = UniqueValidIds(ids);
  if (!unique) return tl::unexpected(unique.error());
  std::vector<std::vector<std::string>> chunks;
  if (unique->empty()) return chunks;
  if (!use_o_json) {
    chunks.push_back({bjobs_path, "-a", "-w", "-u", "all"});
    return chunks;
  }
  if (max_ids_per_call == 0) {
    return Fail(ErrorCode::kInvalidArgument, "bjobs: max_ids_per_call is 0");
  }

  const std::vector<std::string> base = {bjobs_path, "-a", "-o", BjobsOutputFields(), "-json"};
  std::size_t base_bytes = sizeof(char*) + kBjobsEnvironmentMargin;  // the closing null pointer
  for (const std::string& arg : base) base_bytes += ArgBytes(arg);
  std::size_t bytes = 0;
  for (std::string_view id : *unique) {
    if (base_bytes + ArgBytes(id) > max_arg_bytes) {
      return Fail(ErrorCode::kInvalidArgument, "bjobs: max_arg_bytes " +
                                                   std::to_string(max_arg_bytes) +
                                                   " leaves no room for one job id");
    }
    if (chunks.empty() || chunks.back().size() - base.size() == max_ids_per_call ||
        bytes + ArgBytes(id) > max_arg_bytes) {
      chunks.push_back(base);
      bytes = base_bytes;
    }
    chunks.back().emplace_back(id);
    bytes += ArgBytes(id);
  }
  return chunks;
}

bool BjobsRefusedOutputFormat(const CommandResult& result) {
  if (result.timed_out || result.exit_code <= 0) return false;
  for (std::string_view stream : {std::string_view(result.err), std::string_view(result.out)}) {
    for (const Line& line : SplitLines(stream)) {
      if (LineHasRefusal(Trim(line.text))) return true;
    }
  }
  return false;
}

Result<std::vector<JobRecord>> ReadBjobsReply(Result<CommandResult> result, bool use_o_json) {
  const std::string_view command = use_o_json ? kBjobsAllJsonCommand : kBjobsAllTableCommand;
  if (result && ClassifyFailure(*result).kind == CommandFailureKind::kCommandError) {
    if (use_o_json && result->out.find('{') != std::string::npos) {
      return ParseBjobsJson(result->out);
    }
    if (Trim(result->out).empty() && SaysNoJobFound(ReasonLine(result->out, result->err))) {
      return std::vector<JobRecord>();
    }
  }
  auto out = QueryOutput(command, std::move(result));
  if (!out) return tl::unexpected(out.error());
  return use_o_json ? ParseBjobsJson(*out) : ParseBjobsTable(*out);
}

std::vector<std::string> BjobsConfirmArgs(const std::string& id, bool use_o_json) {
  if (use_o_json) return {"-a", "-o", BjobsOutputFields(), "-json", id};
  return {"-a", "-w", id};
}

namespace {

// True when `record` is `id` or, for an array job asked for as "1234", one
// of its elements.
bool IsOf(const JobRecord& record, const JobId& id) {
  return record.job_id == id.job_id &&
         (id.array_index == 0 || record.array_index == id.array_index);
}

// The table form's whole answer for an unknown id: "Job <ID> is not found"
// on stderr, nothing on stdout, exit 255.
bool TableSaysNotFound(const CommandResult& result, const std::string& id) {
  return !result.timed_out && result.exit_code == 255 && Trim(result.out).empty() &&
         Trim(result.err) == "Job <" + id + "> is not found";
}

}  // namespace

Result<BjobsConfirmation> ReadBjobsConfirmation(Result<CommandResult> result, const std::string& id,
                                                bool use_o_json) {
  const std::optional<JobId> asked = ParseJobId(id);
  if (!asked)
    return Fail(ErrorCode::kInvalidArgument, "bjobs: " + QuoteForMessage(id) + " is not a job id");
  BjobsConfirmation confirmation;
  if (!use_o_json && result && TableSaysNotFound(*result, id)) {
    confirmation.not_found = true;
    return confirmation;
  }
  auto records = ReadBjobsReply(std::move(result), use_o_json);
  if (!records) return tl::unexpected(records.error());
  for (JobRecord& record : *records) {
    if (!IsOf(record, *asked)) continue;
    if (record.not_found) {
      confirmation.not_found = true;
    } else {
      confirmation.records.push_back(std::move(record));
    }
  }
  if (!confirmation.records.empty()) confirmation.not_found = false;
  if (confirmation.records.empty() && !confirmation.not_found) {
    return Fail(ErrorCode::kParseError,
                "bjobs " + id + ": the answer neither lists the job nor says it is not found");
  }
  return confirmation;
}

}  // namespace bplace::lsf
