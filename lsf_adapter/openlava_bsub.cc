#include "lsf_adapter/openlava_bsub.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace bplace::lsf {
namespace {

// The options of volclava 2.2's bsub (fillReq's getopt template in
// lsbatch/cmd/cmd.sub.c), without their dash.
constexpr std::array<std::string_view, 46> kOpenlavaOptions = {
    "E",  "T", "a",  "w",  "f", "k",  "R", "m", "Jd", "J", "L", "u", "is", "i", "o", "e",
    "Zs", "n", "q",  "b",  "t", "sp", "s", "c", "v",  "p", "W", "F", "D",  "S", "C", "M",
    "O",  "P", "Ip", "Is", "I", "r",  "H", "x", "N",  "B", "h", "V", "X",  "K"};

bool IsOpenlavaOption(std::string_view flag) {
  if (flag.size() < 2 || flag.front() != '-') return false;
  return std::find(kOpenlavaOptions.begin(), kOpenlavaOptions.end(), flag.substr(1)) !=
         kOpenlavaOptions.end();
}

Error Lacks(std::string_view flag) {
  return Error{ErrorCode::kRejected,
               "bsub " + std::string(flag) +
                   ": the cluster is OpenLava-family (lsid), whose bsub has no such option. "
                   "Job not submitted."};
}

Result<void> RespellResources(std::string& res_req, MemoryUnit to) {
  auto respelled = ResReqMemoryInUnit(res_req, to);
  if (!respelled) return tl::unexpected(respelled.error());
  res_req = std::move(*respelled);
  return {};
}

}  // namespace

Result<OpenlavaBsub> RespellBsubForOpenlava(BsubOptions options, const LimitUnits& units) {
  if (options.app) return tl::unexpected(Lacks("-app"));
  OpenlavaBsub result;
  for (std::size_t i = 0; i < options.extra_args.size(); ++i) {
    const std::string& word = options.extra_args[i];
    if (word.empty() || word.front() != '-') continue;  // an option's value
    if (!IsOpenlavaOption(word)) return tl::unexpected(Lacks(word));
    if (word == "-R" && i + 1 < options.extra_args.size()) {
      auto done = RespellResources(options.extra_args[++i], units.resources);
      if (!done) return tl::unexpected(done.error());
    } else if (i + 1 < options.extra_args.size() && ExtraArgTakesValue(word).value_or(false)) {
      ++i;  // its value may start with '-' only where CheckExtraArgs let it
    }
  }
  for (std::string& res_req : options.resources) {
    auto done = RespellResources(res_req, units.resources);
    if (!done) return tl::unexpected(done.error());
  }
  if (options.daemon_resources) {
    auto done = RespellResources(*options.daemon_resources, units.resources);
    if (!done) return tl::unexpected(done.error());
  }
  if (options.memory) {
    auto amount = MemoryInUnit(*options.memory, units.limits, units.limits);
    if (!amount) {
      return tl::unexpected(Error{ErrorCode::kInvalidArgument, "-M: " + amount.error().message});
    }
    options.memory = std::to_string(*amount);
  }
  result.run_in = std::move(options.cwd);
  options.cwd.reset();
  result.options = std::move(options);
  return result;
}

}  // namespace bplace::lsf
