#include <algorithm>
#include <iterator>

#include "tests/lsfsim/commands.h"

namespace bplace::lsfsim {

bool IsLsfCommand(const std::string& name) {
  return std::find(std::begin(kLsfCommands), std::end(kLsfCommands), name) !=
         std::end(kLsfCommands);
}

CommandResult RunLsfCommand(const std::string& name, const Context& ctx,
                            const std::vector<std::string>& args, const std::string& stdin_script) {
  if (name == "bqueues") return RunBqueues(ctx, args);
  if (name == "bmgroup") return RunBmgroup(ctx, args);
  if (name == "bugroup") return RunBugroup(ctx, args);
  if (name == "bhosts") return RunBhosts(ctx, args);
  if (name == "bsub") return RunBsub(ctx, args, stdin_script);
  if (name == "bjobs") return RunBjobs(ctx, args);
  if (name == "bkill") return RunBkill(ctx, args);
  if (name == "lsload") return RunLsload(ctx, args);
  if (name == "lsid") return RunLsid(ctx, args);
  if (name == "lsclusters") return RunLsclusters(ctx, args);
  if (name == "bparams") return RunBparams(ctx, args);
  if (name == "lsadmin") return RunLsadmin(ctx, args);
  if (name == "bacct") return RunBacct(ctx, args);
  return CommandResult{.exit_code = 255, .out = "", .err = name + ": not simulated\n"};
}

}  // namespace bplace::lsfsim
