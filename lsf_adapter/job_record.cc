#include "lsf_adapter/job_record.h"

#include <cstddef>

#include "common/text.h"

namespace bplace::lsf {
namespace {

struct StatusWord {
  JobStatus status;
  const char* word;
};
constexpr StatusWord kStatusWords[] = {
    {JobStatus::kPend, "PEND"},   {JobStatus::kPsusp, "PSUSP"}, {JobStatus::kRun, "RUN"},
    {JobStatus::kUsusp, "USUSP"}, {JobStatus::kSsusp, "SSUSP"}, {JobStatus::kDone, "DONE"},
    {JobStatus::kExit, "EXIT"},   {JobStatus::kUnkwn, "UNKWN"}, {JobStatus::kWait, "WAIT"},
    {JobStatus::kZombi, "ZOMBI"},
};

// LSF job ids and array indices stop at 2147483646 (LSB_MAX_JOBID, and
// MAX_JOB_ARRAY_SIZE of LSF 10.1): ten digits.
constexpr std::size_t kMaxIdDigits = 10;

// True for 1 to kMaxIdDigits digits that do not start with '0'.
bool IsIdNumber(std::string_view text) {
  if (text.empty() || text.size() > kMaxIdDigits || text[0] == '0') return false;
  for (char c : text) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

std::int64_t ToNumber(std::string_view digits) {
  std::int64_t value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  return value;
}

}  // namespace

JobStatus JobStatusOf(std::string_view status) {
  for (const StatusWord& entry : kStatusWords) {
    if (status == entry.word) return entry.status;
  }
  return JobStatus::kUnrecognized;
}

const char* JobStatusWord(JobStatus status) {
  for (const StatusWord& entry : kStatusWords) {
    if (status == entry.status) return entry.word;
  }
  return "";
}

bool IsTerminalJobStatus(std::string_view status) { return status == "DONE" || status == "EXIT"; }

std::string JobIdText(const JobId& id) {
  return id.array_index == 0 ? id.job_id : id.job_id + "[" + std::to_string(id.array_index) + "]";
}

std::optional<JobId> ParseJobId(std::string_view text) {
  const std::size_t open = text.find('[');
  const std::string_view id = text.substr(0, open);
  if (!IsIdNumber(id)) return std::nullopt;
  JobId parsed{std::string(id), 0};
  if (open == std::string_view::npos) return parsed;
  if (text.back() != ']') return std::nullopt;
  const std::string_view index = text.substr(open + 1, text.size() - open - 2);
  if (!IsIdNumber(index)) return std::nullopt;
  parsed.array_index = ToNumber(index);
  return parsed;
}

std::string JobRecord::IdText() const {
  if (array_index == 0) return job_id;
  return job_id + "[" + std::to_string(array_index) + "]";
}

}  // namespace bplace::lsf
