#include "lsf_adapter/bjobs_list.h"

#include "lsf_adapter/bjobs_parser.h"

namespace bplace::lsf {

std::vector<std::string> BjobsListArgv(const std::string& bjobs_path, bool with_finished,
                                       bool use_o_json) {
  std::vector<std::string> argv = {bjobs_path, "-u", "all"};
  if (!use_o_json) argv.push_back("-w");
  if (with_finished) argv.push_back("-a");
  if (use_o_json) {
    argv.insert(argv.end(), {"-o", BjobsOutputFields(), "-json"});
  }
  return argv;
}

bool ListShowsFinished(const BjobsCommandLine& line) {
  return line.state_filter == 'a' || line.state_filter == 'd';
}

bool PassesStateFilter(char state_filter, const JobRecord& job) {
  switch (state_filter) {
    case 'a':
      return true;
    case 'd':
      return IsTerminalJobStatus(job.status);
    case 'p':
      return job.status == "PEND";
    case 'r':
      return job.status == "RUN";
    case 's':
      return job.status == "PSUSP" || job.status == "USUSP" || job.status == "SSUSP";
    default:
      return !IsTerminalJobStatus(job.status);
  }
}

bool JobNameMatches(std::string_view pattern, const JobRecord& job) {
  if (JobNamePatternMatches(pattern, job.job_name)) return true;
  if (job.array_index == 0) return false;
  const std::string suffix = "[" + std::to_string(job.array_index) + "]";
  std::string_view base = job.job_name;
  if (!base.ends_with(suffix)) return false;
  base.remove_suffix(suffix.size());
  return JobNamePatternMatches(pattern, base);
}

bool ListedBy(const BjobsCommandLine& line, const JobRecord& job) {
  if (!PassesStateFilter(line.state_filter, job)) return false;
  if (line.queue && job.queue != *line.queue) return false;
  if (line.job_name && !JobNameMatches(*line.job_name, job)) return false;
  return true;
}

}  // namespace bplace::lsf
