#include "lsf_adapter/bkill_command_line.h"

namespace bplace::lsf {

Result<BkillCommandLine> ParseBkillCommandLine(const std::vector<std::string>& args) {
  BkillCommandLine line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "-r") {
      line.options.push_back(word);
    } else if (word == "-s") {
      if (i + 1 >= args.size()) return Fail(ErrorCode::kInvalidArgument, "-s: needs a signal");
      line.options.push_back(word);
      line.options.push_back(args[++i]);
    } else if (word.size() > 2 && word.rfind("-s", 0) == 0) {
      line.options.push_back(word);  // "-sKILL": the signal glued on
    } else if (const std::optional<JobId> id = ParseJobId(word)) {
      line.ids.push_back(*id);
    } else {
      return Fail(ErrorCode::kInvalidArgument,
                  word + ": a bkill form the front door leaves to LSF");
    }
  }
  if (line.ids.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "no job id (bkill alone kills your last job)");
  }
  return line;
}

}  // namespace bplace::lsf
