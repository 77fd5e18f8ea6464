#include "lsf_adapter/lsid_parser.h"

#include <string>
#include <vector>

#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kLsidCommand = "lsid";
constexpr std::string_view kClusterLine = "My cluster name is ";

// "My master name is vm" -> "vm" for any "My ... is X" line whose words name
// the master (or, in IBM's newer wording, the management) host.
std::string_view MasterName(std::string_view line) {
  if (!line.starts_with("My ")) return {};
  const bool names_master = line.find("master") != std::string_view::npos ||
                            line.find("management") != std::string_view::npos;
  const std::size_t is = line.rfind(" is ");
  if (!names_master || is == std::string_view::npos) return {};
  return Trim(line.substr(is + 4));
}

bool IsChatter(std::string_view line) {
  return line.find("Please wait") != std::string_view::npos ||
         line.find("still trying") != std::string_view::npos;
}

}  // namespace

Result<LsidInfo> ParseLsid(std::string_view text) {
  LsidInfo info;
  for (const Line& line : SplitLines(text)) {
    const std::string_view trimmed = Trim(line.text);
    if (trimmed.empty() || IsChatter(trimmed)) continue;
    if (trimmed.starts_with(kClusterLine)) {
      info.cluster_name = std::string(Trim(trimmed.substr(kClusterLine.size())));
    } else if (const std::string_view master = MasterName(trimmed); !master.empty()) {
      info.master_name = std::string(master);
    } else if (info.version.empty() && !trimmed.starts_with("My ")) {
      info.version = std::string(trimmed);
    }
  }
  if (info.cluster_name.empty()) {
    return Fail(ErrorCode::kParseError,
                std::string(kLsidCommand) + ": no \"My cluster name is\" line");
  }
  if (info.master_name.empty()) {
    return Fail(ErrorCode::kParseError,
                std::string(kLsidCommand) + ": no \"My master name is\" line");
  }
  return info;
}

}  // namespace bplace::lsf
