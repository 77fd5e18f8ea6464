#include "tests/lsfsim/job_state.h"

#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {

bool IsFinishedState(std::string_view status) { return status == "DONE" || status == "EXIT"; }

bool IsFinished(const Job& job) { return IsFinishedState(job.status); }

bool IsPendingState(std::string_view status) { return status == "PEND" || status == "PSUSP"; }

bool IsPending(const Job& job) { return IsPendingState(job.status); }

bool HoldsSlots(const Job& job) {
  return job.status == "RUN" || job.status == "USUSP" || job.status == "SSUSP" ||
         job.status == "UNKWN";
}

bool IsSuspended(const Job& job) {
  return job.status == "PSUSP" || job.status == "USUSP" || job.status == "SSUSP";
}

bool IsCleaned(const Job& job, long long now, long long clean_period_s) {
  return IsFinished(job) && now - job.end_time >= clean_period_s;
}

std::string JobOption(const Job& job, const char* option) {
  auto it = job.options.find(option);
  return it == job.options.end() ? std::string() : it->second;
}

std::string JobIdText(const Job& job) {
  std::string id = std::to_string(job.id);
  return job.index == 0 ? id : id + "[" + std::to_string(job.index) + "]";
}

std::string CommandAsShown(const Job& job) {
  std::string shown = job.command;
  while (!shown.empty() && shown.back() == '\n') shown.pop_back();
  for (char& c : shown) {
    if (c == '\n') c = ';';
  }
  return shown;
}

std::string DisplayName(const Job& job) {
  return job.index == 0 ? job.name : job.name + "[" + std::to_string(job.index) + "]";
}

std::optional<JobRef> ParseJobRef(std::string_view text) {
  JobRef ref;
  ref.text = std::string(text);
  size_t open = text.find('[');
  if (!ParseInt(text.substr(0, open), &ref.id)) return std::nullopt;
  if (open == std::string_view::npos) return ref;
  if (text.back() != ']') return std::nullopt;
  ref.indices = ParseIndexRanges(text.substr(open + 1, text.size() - open - 2));
  if (!ref.indices) return std::nullopt;
  return ref;
}

bool JobRefMatches(const JobRef& ref, const Job& job) {
  if (job.id != ref.id) return false;
  return !ref.indices || IndexInRanges(*ref.indices, job.index);
}

}  // namespace bplace::lsfsim
