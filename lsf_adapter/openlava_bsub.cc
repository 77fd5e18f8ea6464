#include "lsf_adapter/openlava_bsub.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "lsf_adapter/bsub_script.h"

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

// One word of a rewritten #BSUB line, quoted as bsub's line reader takes
// quotes (a whole word in double or single quotes).
Result<std::string> DirectiveWord(const std::string& word) {
  if (word.find_first_of(" \t#\"'") == std::string::npos && !word.empty()) return word;
  if (word.find('"') == std::string::npos) return "\"" + word + "\"";
  if (word.find('\'') == std::string::npos) return "'" + word + "'";
  return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                              "#BSUB word " + ShellQuote(word) +
                                  " holds both kinds of quotes: it cannot be written again"});
}

// The words of one #BSUB line respelled for volclava (RespellScriptForOpenlava);
// `cwd` receives a -cwd value; `changed` tells whether any word changed.
Result<std::vector<std::string>> RespellDirective(const std::vector<std::string>& words,
                                                  const LimitUnits& units,
                                                  std::optional<std::string>& cwd, bool& changed) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::optional<std::string> value;
    const BsubOptionRule rule = DirectiveOptionRule(words[i], value);
    const std::string flag(rule.flag.empty() ? std::string_view(words[i]) : rule.flag);
    if (rule.takes_value && !value && i + 1 < words.size()) value = words[++i];
    if (flag == "-cwd" && value) {
      cwd = std::move(value);
      changed = true;
      continue;
    }
    if (!IsOpenlavaOption(flag)) return tl::unexpected(Lacks(flag));
    const std::optional<std::string> given = value;
    if (flag == "-M" && value) {
      auto amount = MemoryInUnit(*value, units.limits, units.limits);
      if (!amount) {
        return tl::unexpected(
            Error{ErrorCode::kInvalidArgument, "#BSUB -M: " + amount.error().message});
      }
      value = std::to_string(*amount);
    } else if (flag == "-R" && value) {
      if (auto done = RespellResources(*value, units.resources); !done) {
        return tl::unexpected(done.error());
      }
    }
    changed = changed || value != given;
    out.push_back(flag);
    if (value) out.push_back(std::move(*value));
  }
  return out;
}

}  // namespace

Result<std::string> RespellScriptForOpenlava(std::string_view script, const LimitUnits& units,
                                             OpenlavaBsub& respelled) {
  auto directives = ParseEmbeddedOptions(script);
  if (!directives) return tl::unexpected(directives.error());
  std::vector<std::string_view> lines;  // each with its '\n'
  for (std::size_t start = 0; start < script.size();) {
    const std::size_t end = script.find('\n', start);
    const std::size_t stop = end == std::string_view::npos ? script.size() : end + 1;
    lines.push_back(script.substr(start, stop - start));
    start = stop;
  }
  std::vector<std::string> rewritten(lines.begin(), lines.end());
  const bool cwd_on_command_line = respelled.run_in.has_value();
  for (const EmbeddedOptionLine& directive : *directives) {
    std::optional<std::string> cwd;
    bool changed = false;
    auto words = RespellDirective(directive.words, units, cwd, changed);
    if (!words) return tl::unexpected(words.error());
    if (!changed) continue;
    // Of several, the last counts, as bsub reads them in order.
    if (cwd && !cwd_on_command_line) respelled.run_in = std::move(cwd);
    std::string line =
        words->empty() ? "# bplace: #BSUB -cwd moved to bsub's working directory" : "#BSUB";
    for (const std::string& word : *words) {
      auto quoted = DirectiveWord(word);
      if (!quoted) return tl::unexpected(quoted.error());
      line += " " + *quoted;
    }
    const auto first = static_cast<std::size_t>(directive.line - 1);
    const auto last = static_cast<std::size_t>(directive.last_line - 1);
    for (std::size_t at = first; at <= last && at < rewritten.size(); ++at) {
      const bool has_newline = lines[at].ends_with('\n');
      rewritten[at] = (at == first ? line : std::string("#")) + (has_newline ? "\n" : "");
    }
  }
  std::string out;
  out.reserve(script.size());
  for (const std::string& line : rewritten) out += line;
  return out;
}

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
