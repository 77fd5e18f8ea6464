#include "lsf_adapter/bkill_command_line.h"

namespace bplace::lsf {

Result<BkillCommandLine> ParseBkillCommandLine(const std::vector<std::string>& args) {
  BkillCommandLine line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "-r" || word == "-d") {
      line.options.push_back(word);
    } else if (word == "-s" || word == "-J") {
      if (i + 1 >= args.size()) {
        return Fail(ErrorCode::kInvalidArgument, word + ": needs a value after it");
      }
      if (word == "-s") {
        line.options.push_back(word);
        line.options.push_back(args[++i]);
      } else {
        line.job_name = args[++i];
      }
    } else if (word.size() > 2 && word.rfind("-s", 0) == 0) {
      line.options.push_back(word);  // "-sKILL": the signal glued on
    } else if (word.size() > 2 && word.rfind("-J", 0) == 0) {
      line.job_name = word.substr(2);
    } else if (word == "0") {
      line.all_jobs = true;
    } else if (const std::optional<JobId> id = ParseJobId(word)) {
      line.ids.push_back(*id);
    } else {
      return Fail(ErrorCode::kInvalidArgument,
                  word + ": a bkill form the front door leaves to LSF");
    }
  }
  const int forms = (line.ids.empty() ? 0 : 1) + (line.all_jobs ? 1 : 0) + (line.job_name ? 1 : 0);
  if (forms == 0) {
    return Fail(ErrorCode::kInvalidArgument, "no job id (bkill alone kills your last job)");
  }
  if (forms > 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "job ids, 0 and -J together: a bkill form the front door leaves to LSF");
  }
  return line;
}

}  // namespace bplace::lsf
