#include "rdma_probe/counter_state.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/small_file.h"
#include "rdma_probe/sysfs_reader.h"

namespace bplace::rdma {
namespace {

using nlohmann::json;

std::string ParentDir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

std::string PortKey(const std::string& device, std::uint32_t port) {
  return device + ":" + std::to_string(port);
}

Result<CounterState> LoadCounterState(const std::string& path) {
  Result<std::string> text = ReadSmallFile(path);
  if (!text) return tl::unexpected(text.error());
  const json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& what) {
    return Fail(ErrorCode::kParseError, path + ": " + what);
  };
  if (doc.is_discarded()) return bad("not JSON");
  if (!doc.is_object() || !doc.contains("version") || doc["version"] != 1) {
    return bad("not a version 1 counter state");
  }
  CounterState state;
  if (auto it = doc.find("boot_id"); it != doc.end() && it->is_string()) {
    state.boot_id = it->get<std::string>();
  }
  auto ports = doc.find("ports");
  if (ports == doc.end() || !ports->is_object()) return bad("no \"ports\" object");
  for (const auto& [key, entry] : ports->items()) {
    if (!entry.is_object() || !entry.contains("at_unix_s") ||
        !entry["at_unix_s"].is_number_integer() || !entry.contains("counters") ||
        !entry["counters"].is_object()) {
      return bad("bad entry \"" + key + "\"");
    }
    CounterSample sample;
    sample.at = std::chrono::system_clock::time_point(
        std::chrono::seconds(entry["at_unix_s"].get<std::int64_t>()));
    for (const auto& [name, value] : entry["counters"].items()) {
      if (!value.is_number_unsigned()) return bad("bad counter \"" + key + "/" + name + "\"");
      sample.values[name] = value.get<std::uint64_t>();
    }
    state.ports[key] = std::move(sample);
  }
  return state;
}

Result<void> SaveCounterState(const std::string& path, const CounterState& state) {
  json doc = {{"version", 1}, {"boot_id", state.boot_id}, {"ports", json::object()}};
  for (const auto& [key, sample] : state.ports) {
    json counters = json::object();
    for (const auto& [name, value] : sample.values) counters[name] = value;
    doc["ports"][key] = {
        {"at_unix_s",
         std::chrono::duration_cast<std::chrono::seconds>(sample.at.time_since_epoch()).count()},
        {"counters", counters}};
  }
  const std::string text = doc.dump(2) + "\n";
  return WriteFileAtomically(path, text);
}

std::string CheckStateDirectory(const std::string& path) {
  const std::string dir = ParentDir(path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    return dir + ": " + std::strerror(err);
  }
  return {};
}

}  // namespace bplace::rdma
