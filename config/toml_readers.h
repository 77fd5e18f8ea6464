#pragma once

// The typed readers of config values, private to config/: one key's TOML
// node in, the field it fills out, or a problem reported with the key's
// name and line ("FILE:LINE: table.key: problem"). The schema
// (config/config_schema.cc) names the reader of each key. toml++ types
// appear here, so only config/'s own .cc files include this header.
//
// Every Read* below sets `out` only when the value is valid; otherwise it
// reports the problem through the Field and leaves `out` as it was.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace bplace::config {

// The upper bound on durations is ours: a week keeps every duration far from
// overflowing when the daemon adds it to a steady_clock time point in
// nanoseconds.
constexpr std::int64_t kMaxDurationS = 7 * 24 * 3600;

// The TOML type of `node` as messages name it ("integer", "table", "date-time").
std::string_view TypeName(const toml::node& node);

// The problems found so far, each already formatted as "FILE:LINE: KEY: problem".
// Lives for one parse; not thread-safe.
class Problems {
 public:
  explicit Problems(std::string_view source_name) : source_name_(source_name) {}

  void Add(const toml::source_region& where, std::string_view key, std::string_view problem) {
    std::string text(source_name_);
    if (where.begin.line != 0) {
      text += ":" + std::to_string(where.begin.line);
    }
    text += ": ";
    text += key;
    text += ": ";
    text += problem;
    entries_.push_back({where.begin.line, where.begin.column, std::move(text)});
  }

  std::size_t size() const { return entries_.size(); }

  // All problems in file order, one per line.
  std::string Join() {
    // toml::table iterates in key order, not file order; people read the file top down.
    std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
    std::string joined;
    for (const Entry& entry : entries_) {
      if (!joined.empty()) joined += '\n';
      joined += entry.text;
    }
    return joined;
  }

 private:
  struct Entry {
    toml::source_index line;
    toml::source_index column;
    std::string text;
  };
  std::string_view source_name_;
  std::vector<Entry> entries_;
};

// One key being read: its fully qualified name, its position and its value.
// Readers report through it, so every message names the key and its line.
// Refers to the parsed document and the Problems, which must outlive it; not
// thread-safe.
class Field {
 public:
  Field(std::string name, const toml::key& key, const toml::node& node, Problems& problems)
      : name_(std::move(name)), key_(key), node_(node), problems_(problems) {}

  void Report(std::string_view problem) const {
    // The key's own position: for a multi-line array the value starts later.
    const toml::source_region& where =
        key_.source().begin.line != 0 ? key_.source() : node_.source();
    problems_.Add(where, name_, problem);
  }

  void ReportType(std::string_view expected) const {
    Report("expected " + std::string(expected) + ", got " + std::string(TypeName(node_)));
  }

  // The value as an integer in [min, max]; otherwise reports and returns nothing.
  std::optional<std::int64_t> Integer(std::int64_t min, std::int64_t max,
                                      std::string_view unit = {}) const {
    const auto* value = node_.as_integer();
    if (value == nullptr) {
      ReportType("integer");
      return std::nullopt;
    }
    const std::int64_t number = value->get();
    if (number < min || number > max) {
      std::string problem =
          "must be between " + std::to_string(min) + " and " + std::to_string(max);
      if (!unit.empty()) {
        problem += " " + std::string(unit);
      }
      Report(problem + ", got " + std::to_string(number));
      return std::nullopt;
    }
    return number;
  }

  std::optional<std::string> String() const {
    const auto* value = node_.as_string();
    if (value == nullptr) {
      ReportType("string");
      return std::nullopt;
    }
    return value->get();
  }

  const toml::node& node() const { return node_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  const toml::key& key_;
  const toml::node& node_;
  Problems& problems_;
};

// An integer in [min, max], into a field of any integer type that holds it.
template <typename T>
void ReadInteger(const Field& field, std::int64_t min, std::int64_t max, T& out) {
  if (auto value = field.Integer(min, max)) {
    out = static_cast<T>(*value);
  }
}

// Any std::chrono duration (seconds, or the milliseconds some modules keep).
template <typename Rep, typename Period>
void ReadSeconds(const Field& field, std::chrono::duration<Rep, Period>& out) {
  if (auto value = field.Integer(1, kMaxDurationS, "seconds")) {
    out = std::chrono::seconds(*value);
  }
}

// As ReadSeconds, where zero means "off".
template <typename Rep, typename Period>
void ReadSecondsOrOff(const Field& field, std::chrono::duration<Rep, Period>& out) {
  if (auto value = field.Integer(0, kMaxDurationS, "seconds")) {
    out = std::chrono::seconds(*value);
  }
}

// A string.
void ReadString(const Field& field, std::string& out);

// A boolean.
void ReadBool(const Field& field, bool& out);

// A number in [min, max]; TOML integers are accepted where a float is meant
// ("min_rate_gbps = 200").
void ReadNumber(const Field& field, double min, double max, double& out);

// One of `choices` (name, value); reports the valid names otherwise.
template <typename T>
void ReadChoice(const Field& field, std::span<const std::pair<std::string_view, T>> choices,
                T& out) {
  auto text = field.String();
  if (!text) return;
  std::string names;
  for (const auto& [name, value] : choices) {
    if (name == *text) {
      out = value;
      return;
    }
    if (!names.empty()) names += ", ";
    names += name;
  }
  field.Report("must be one of " + names + "; got `" + *text + "`");
}

// A string, or an array of strings, each checked by `check` (which returns a
// problem, or "" when the element is fine). An empty array is refused when
// `allow_empty` is false.
void ReadStringList(const Field& field, bool allow_empty,
                    const std::function<std::string(const std::string&)>& check,
                    std::vector<std::string>& out);

// A check for ReadStringList: "" when `text` is a listen address
// (api::ParseListenAddress), else that parser's message.
std::string CheckListen(const std::string& text);

// A check for ReadStringList: "" when `text` is "mlx5_0" or "mlx5_0:1", a
// device name as in /sys/class/infiniband and optionally a port number
// 1..255; else the problem.
std::string CheckIbPort(const std::string& text);

// A permission mode for Unix sockets, written as a TOML octal integer (0o660).
void ReadSocketMode(const Field& field, std::uint32_t& out);

// An array of queue names, none empty.
void ReadQueueList(const Field& field, std::vector<std::string>& out);

// A spdlog level name: trace, debug, info, warn, error, critical or off.
void ReadLogLevel(const Field& field, std::string& out);

// A path the daemon opens whatever its working directory is; with
// `allow_empty`, "" too (the key's default applies).
void ReadAbsolutePath(const Field& field, std::string& out, bool allow_empty = false);

}  // namespace bplace::config
