#include "config/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

#include <toml++/toml.h>

#include "api/http/listen_address.h"
#include "common/small_file.h"

// Debian's libtomlplusplus3 is built with exceptions (its symbols live in
// toml::v3::ex), so the no-exceptions parse_result API would not link. The
// parser's toml::parse_error is caught in ParseConfig and never leaves it.
static_assert(TOML_EXCEPTIONS, "bplace_config needs toml++ built with exceptions");

namespace bplace::config {
namespace {

// Ranges for values the daemon uses. The upper bounds on durations and on the
// body limit are ours: a week keeps every duration far from overflowing when
// the daemon adds it to a steady_clock time point in nanoseconds, and no
// request of this API comes near a gibibyte.
constexpr std::int64_t kMaxDurationS = 7 * 24 * 3600;
constexpr std::int64_t kMaxBodyLimitBytes = std::int64_t{1} << 30;
constexpr std::size_t kMaxConfigFileBytes = 1024 * 1024;

constexpr std::string_view kLogLevels[] = {"trace", "debug",    "info", "warn",
                                           "error", "critical", "off"};

std::string_view TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// Edit distance counting a swap of neighbours as one edit (optimal string
// alignment), so the common typo "laod" is one edit from "load".
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The problems found so far, each already formatted as "FILE:LINE: KEY: problem".
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

void ReadString(const Field& field, std::string& out) {
  if (auto value = field.String()) {
    out = std::move(*value);
  }
}

void ReadBool(const Field& field, bool& out) {
  const auto* value = field.node().as_boolean();
  if (value == nullptr) {
    field.ReportType("boolean");
    return;
  }
  out = value->get();
}

// A number in [min, max]; TOML integers are accepted where a float is meant
// ("min_rate_gbps = 200").
void ReadNumber(const Field& field, double min, double max, double& out) {
  double number = 0;
  if (const auto* value = field.node().as_floating_point()) {
    number = value->get();
  } else if (const auto* integer = field.node().as_integer()) {
    number = static_cast<double>(integer->get());
  } else {
    field.ReportType("number");
    return;
  }
  if (!(number >= min && number <= max)) {
    std::ostringstream problem;
    problem << "must be between " << min << " and " << max << ", got " << number;
    field.Report(problem.str());
    return;
  }
  out = number;
}

// The names of the enumerated keys, as the file writes them: read by
// ReadChoice, written back by ShowChoice.
constexpr std::pair<std::string_view, rdma::LinkLayerWanted> kLinkLayers[] = {
    {"infiniband", rdma::LinkLayerWanted::kInfiniband},
    {"ethernet", rdma::LinkLayerWanted::kEthernet},
    {"any", rdma::LinkLayerWanted::kAny}};
constexpr std::pair<std::string_view, IbSource> kIbSources[] = {
    {"none", IbSource::kNone}, {"lsload", IbSource::kLsload}, {"local", IbSource::kLocal}};
constexpr std::pair<std::string_view, api::AuthMode> kAuthModes[] = {
    {"service-account", api::AuthMode::kServiceAccount}, {"multi-user", api::AuthMode::kMultiUser}};
constexpr std::pair<std::string_view, api::MetricsAccess> kMetricsAccess[] = {
    {"anonymous", api::MetricsAccess::kAnonymous}, {"read", api::MetricsAccess::kRead}};
constexpr std::pair<std::string_view, api::JobVisibility> kJobVisibilities[] = {
    {"own", api::JobVisibility::kOwn}, {"all", api::JobVisibility::kAll}};

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
                    std::vector<std::string>& out) {
  if (const auto* single = field.node().as_string()) {
    if (std::string problem = check(single->get()); !problem.empty()) {
      field.Report(problem);
      return;
    }
    out = {single->get()};
    return;
  }
  const toml::array* array = field.node().as_array();
  if (array == nullptr) {
    field.ReportType("string or array of strings");
    return;
  }
  if (array->empty() && !allow_empty) {
    field.Report("must not be empty");
    return;
  }
  std::vector<std::string> values;
  bool ok = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    const std::string where = "element " + std::to_string(i) + ": ";
    const auto* text = element.as_string();
    if (text == nullptr) {
      field.Report(where + "expected string, got " + std::string(TypeName(element)));
      ok = false;
      continue;
    }
    if (std::string problem = check(text->get()); !problem.empty()) {
      field.Report(where + problem);
      ok = false;
      continue;
    }
    values.push_back(text->get());
  }
  if (ok) out = std::move(values);
}

std::string CheckListen(const std::string& text) {
  auto address = api::ParseListenAddress(text);
  return address ? "" : address.error().message;
}

// "mlx5_0" or "mlx5_0:1": a device name as in /sys/class/infiniband, and
// optionally a port number 1..255.
std::string CheckIbPort(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string device = text.substr(0, colon);
  if (device.empty() || device.find('/') != std::string::npos || device == "." || device == "..") {
    return "`" + text +
           "` is not a device name (as in /sys/class/infiniband), e.g. mlx5_0 or mlx5_0:1";
  }
  if (colon == std::string::npos) return "";
  const std::string port = text.substr(colon + 1);
  int number = 0;
  auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || number < 1 ||
      number > 255) {
    return "`" + text + "`: port must be a number 1..255";
  }
  return "";
}

void ReadSocketMode(const Field& field, std::uint32_t& out) {
  // Written as a TOML octal integer (0o660); anything beyond the permission
  // bits (setuid, sticky) has no meaning on a socket.
  if (auto value = field.Integer(0, 0777, "(an octal mode such as 0o660)")) {
    out = static_cast<std::uint32_t>(*value);
  }
}

void ReadQueueList(const Field& field, std::vector<std::string>& out) {
  const toml::array* array = field.node().as_array();
  if (array == nullptr) {
    field.ReportType("array of strings");
    return;
  }
  std::vector<std::string> queues;
  bool ok = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    const std::string where = "element " + std::to_string(i) + " ";
    if (const auto* name = element.as_string()) {
      if (name->get().empty()) {
        field.Report(where + "is empty; a queue name is needed");
        ok = false;
      } else {
        queues.push_back(name->get());
      }
    } else {
      field.Report(where + "expected string, got " + std::string(TypeName(element)));
      ok = false;
    }
  }
  if (ok) out = std::move(queues);
}

void ReadLogLevel(const Field& field, std::string& out) {
  auto level = field.String();
  if (!level) return;
  if (std::find(std::begin(kLogLevels), std::end(kLogLevels), *level) == std::end(kLogLevels)) {
    std::string choices;
    for (std::string_view choice : kLogLevels) {
      if (!choices.empty()) choices += ", ";
      choices += choice;
    }
    field.Report("must be one of " + choices + "; got `" + *level + "`");
    return;
  }
  out = std::move(*level);
}

// How a key's value is written in messages: as the file would write it
// (integers, `_s` durations in seconds, lists joined by ", ").
std::string Show(const std::string& value) { return value.empty() ? "\"\"" : value; }
std::string Show(bool value) { return value ? "true" : "false"; }
template <typename T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) std::string Show(T value) {
  return std::to_string(value);
}
std::string Show(double value) {
  // Shortest text that reads back as the same double: two values that
  // print alike are equal, which the diff relies on.
  char text[64];
  auto [end, error] = std::to_chars(std::begin(text), std::end(text), value);
  return error == std::errc() ? std::string(text, end) : std::to_string(value);
}
template <typename Rep, typename Period>
std::string Show(std::chrono::duration<Rep, Period> value) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(value);
  if (ms % std::chrono::seconds(1) != std::chrono::milliseconds(0)) {
    return std::to_string(ms.count()) + " ms";
  }
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(ms).count());
}
std::string Show(const std::vector<std::string>& values) {
  if (values.empty()) return "[]";
  std::string joined;
  for (const std::string& value : values) joined += (joined.empty() ? "" : ", ") + value;
  return joined;
}
template <typename T>
std::string ShowChoice(std::span<const std::pair<std::string_view, T>> choices, T value) {
  for (const auto& [name, choice] : choices) {
    if (choice == value) return std::string(name);
  }
  return "?";
}
std::string Show(rdma::LinkLayerWanted value) {
  return ShowChoice<rdma::LinkLayerWanted>(kLinkLayers, value);
}
std::string Show(IbSource value) { return ShowChoice<IbSource>(kIbSources, value); }
std::string Show(api::AuthMode value) { return ShowChoice<api::AuthMode>(kAuthModes, value); }
std::string Show(api::MetricsAccess value) {
  return ShowChoice<api::MetricsAccess>(kMetricsAccess, value);
}
std::string Show(api::JobVisibility value) {
  return ShowChoice<api::JobVisibility>(kJobVisibilities, value);
}

// The schema: every table and key the file may hold, how each is read,
// whether SIGHUP applies it, and the field it fills. The suggestions for
// unknown keys and the reload diff come from here too, so it is the only list.
using Reader = void (*)(const Field&, Config&);
using Shower = std::string (*)(const Config&);
using Copier = void (*)(const Config& from, Config& to);

struct KeySpec {
  std::string_view name;
  Reader read;
  KeyReload reload;
  Shower show;  // the key's value in `config`, for messages
  Copier copy;  // sets the key's field(s) of `to` from `from`
};

// The show and copy functions of a key that fills the one field `member` of
// Config (e.g. BPLACE_FIELD(server.listen)).
#define BPLACE_FIELD(member)                      \
  [](const Config& c) { return Show(c.member); }, \
      [](const Config& from, Config& to) { to.member = from.member; }

struct TableSpec {
  std::string_view name;
  std::span<const KeySpec> keys;
};

constexpr KeyReload kRestart = KeyReload::kRestart;
constexpr KeyReload kLive = KeyReload::kLive;
constexpr KeyReload kProbe = KeyReload::kProbe;

const KeySpec kServerKeys[] = {
    {"listen",
     [](const Field& f, Config& c) { ReadStringList(f, false, CheckListen, c.server.listen); },
     kRestart, BPLACE_FIELD(server.listen)},
    {"socket_mode", [](const Field& f, Config& c) { ReadSocketMode(f, c.server.socket_mode); },
     kRestart,
     [](const Config& c) {
       std::ostringstream octal;
       octal << "0o" << std::oct << c.server.socket_mode;
       return octal.str();
     },
     [](const Config& from, Config& to) { to.server.socket_mode = from.server.socket_mode; }},
    {"socket_group", [](const Field& f, Config& c) { ReadString(f, c.server.socket_group); },
     kRestart, BPLACE_FIELD(server.socket_group)},
    {"max_staleness_s", [](const Field& f, Config& c) { ReadSeconds(f, c.api.max_staleness); },
     kRestart, BPLACE_FIELD(api.max_staleness)},
    {"body_limit_bytes",
     [](const Field& f, Config& c) {
       ReadInteger(f, 1, kMaxBodyLimitBytes, c.http.body_limit_bytes);
     },
     kRestart, BPLACE_FIELD(http.body_limit_bytes)},
    {"header_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.header_timeout); },
     kRestart, BPLACE_FIELD(http.header_timeout)},
    {"body_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.body_timeout); },
     kRestart, BPLACE_FIELD(http.body_timeout)},
    {"idle_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.idle_timeout); },
     kRestart, BPLACE_FIELD(http.idle_timeout)},
    {"drain_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.drain_timeout); },
     kRestart, BPLACE_FIELD(http.drain_timeout)},
    {"max_connections",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 100000, c.http.max_connections); }, kRestart,
     BPLACE_FIELD(http.max_connections)},
    {"max_unix_connections",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 100000, c.http.max_unix_connections); },
     kRestart, BPLACE_FIELD(http.max_unix_connections)},
    {"max_connections_per_peer",
     [](const Field& f, Config& c) { ReadInteger(f, 0, 100000, c.http.max_connections_per_peer); },
     kRestart, BPLACE_FIELD(http.max_connections_per_peer)},
    {"threads", [](const Field& f, Config& c) { ReadInteger(f, 1, 64, c.server.threads); },
     kRestart, BPLACE_FIELD(server.threads)},
    {"metrics_access",
     [](const Field& f, Config& c) {
       ReadChoice<api::MetricsAccess>(f, kMetricsAccess, c.api.metrics_access);
     },
     kRestart, BPLACE_FIELD(api.metrics_access)},
};

const KeySpec kLsfKeys[] = {
    {"bin_dir", [](const Field& f, Config& c) { ReadString(f, c.lsf.bin_dir); }, kRestart,
     BPLACE_FIELD(lsf.bin_dir)},
    {"env_dir", [](const Field& f, Config& c) { ReadString(f, c.lsf.env_dir); }, kRestart,
     BPLACE_FIELD(lsf.env_dir)},
    {"command_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.lsf.command_timeout); },
     kRestart, BPLACE_FIELD(lsf.command_timeout)},
    {"load_refresh_s", [](const Field& f, Config& c) { ReadSeconds(f, c.refresh.load_interval); },
     kLive, BPLACE_FIELD(refresh.load_interval)},
    {"topology_refresh_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.refresh.topology_interval); }, kLive,
     BPLACE_FIELD(refresh.topology_interval)},
    {"load_refresh_after_submit_s",
     [](const Field& f, Config& c) { ReadSecondsOrOff(f, c.refresh.load_after_submit); }, kRestart,
     BPLACE_FIELD(refresh.load_after_submit)},
    {"events_file", [](const Field& f, Config& c) { ReadString(f, c.waits.events_file); }, kRestart,
     BPLACE_FIELD(waits.events_file)},
};

const KeySpec kSubmitKeys[] = {
    {"max_attempts",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 100, c.submit.max_attempts); }, kRestart,
     BPLACE_FIELD(submit.max_attempts)},
    {"max_slots",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 10000000, c.api.request.max_slots); },
     kRestart, BPLACE_FIELD(api.request.max_slots)},
    {"max_array_elements",
     [](const Field& f, Config& c) {
       ReadInteger(f, 1, 1000000, c.api.request.max_array_elements);
     },
     kRestart, BPLACE_FIELD(api.request.max_array_elements)},
    {"check_lsf_for_key",
     [](const Field& f, Config& c) { ReadBool(f, c.exactly_once.check_lsf_for_key); }, kRestart,
     BPLACE_FIELD(exactly_once.check_lsf_for_key)},
    {"esub_refusal_memory_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.submit.esub_refusal_memory); }, kRestart,
     BPLACE_FIELD(submit.esub_refusal_memory)},
    {"tag_in_job_name", [](const Field& f, Config& c) { ReadBool(f, c.submit.tag_in_job_name); },
     kRestart, BPLACE_FIELD(submit.tag_in_job_name)},
};

const KeySpec kPlacementKeys[] = {
    {"exclude_queues",
     [](const Field& f, Config& c) { ReadQueueList(f, c.submit.excluded_queues); }, kLive,
     BPLACE_FIELD(submit.excluded_queues)},
};

const KeySpec kIbKeys[] = {
    {"devices",
     [](const Field& f, Config& c) { ReadStringList(f, true, CheckIbPort, c.probe.devices); },
     kProbe, BPLACE_FIELD(probe.devices)},
    {"link_layer",
     [](const Field& f, Config& c) {
       ReadChoice<rdma::LinkLayerWanted>(f, kLinkLayers, c.probe.link_layer);
     },
     kProbe, BPLACE_FIELD(probe.link_layer)},
    {"min_rate_gbps",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 10000, c.probe.min_rate_gbps); }, kProbe,
     BPLACE_FIELD(probe.min_rate_gbps)},
    {"loopback", [](const Field& f, Config& c) { ReadBool(f, c.probe.loopback); }, kProbe,
     BPLACE_FIELD(probe.loopback)},
    {"loopback_timeout_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.probe.loopback_timeout); }, kProbe,
     BPLACE_FIELD(probe.loopback_timeout)},
    // The daemon's deadline for its child probe, fixed when the probe starts.
    {"probe_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.probe.probe_timeout); },
     kRestart, BPLACE_FIELD(probe.probe_timeout)},
    {"sysfs_root", [](const Field& f, Config& c) { ReadString(f, c.probe.sysfs_root); }, kProbe,
     BPLACE_FIELD(probe.sysfs_root)},
    {"state_file", [](const Field& f, Config& c) { ReadString(f, c.probe.state_file); }, kProbe,
     BPLACE_FIELD(probe.state_file)},
    {"symbol_error_per_hour",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 1e9, c.probe.symbol_error_per_hour); },
     kProbe, BPLACE_FIELD(probe.symbol_error_per_hour)},
    {"link_error_recovery_per_hour",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 1e9, c.probe.link_error_recovery_per_hour); },
     kProbe, BPLACE_FIELD(probe.link_error_recovery_per_hour)},
    {"port_rcv_errors_per_hour",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 1e9, c.probe.port_rcv_errors_per_hour); },
     kProbe, BPLACE_FIELD(probe.port_rcv_errors_per_hour)},
    {"elim_interval_s", [](const Field& f, Config& c) { ReadSeconds(f, c.probe.elim_interval); },
     kProbe, BPLACE_FIELD(probe.elim_interval)},
    {"source",
     [](const Field& f, Config& c) { ReadChoice<IbSource>(f, kIbSources, c.submit.ib.source); },
     kRestart, BPLACE_FIELD(submit.ib.source)},
    {"require_ib", [](const Field& f, Config& c) { ReadBool(f, c.submit.ib.require_ib); }, kLive,
     BPLACE_FIELD(submit.ib.require_ib)},
    {"allow_unknown", [](const Field& f, Config& c) { ReadBool(f, c.submit.ib.allow_unknown); },
     kLive, BPLACE_FIELD(submit.ib.allow_unknown)},
    {"probe_path", [](const Field& f, Config& c) { ReadString(f, c.submit.ib.probe_path); },
     kRestart, BPLACE_FIELD(submit.ib.probe_path)},
    {"local_interval_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.submit.ib.local_interval); }, kRestart,
     BPLACE_FIELD(submit.ib.local_interval)},
};

const KeySpec kAuthKeys[] = {
    {"mode",
     [](const Field& f, Config& c) { ReadChoice<api::AuthMode>(f, kAuthModes, c.auth.mode); },
     kRestart, BPLACE_FIELD(auth.mode)},
    // The file's path; its contents are read again on every SIGHUP.
    {"tokens_file", [](const Field& f, Config& c) { ReadString(f, c.auth.tokens_file); }, kRestart,
     BPLACE_FIELD(auth.tokens_file)},
    {"anonymous_read", [](const Field& f, Config& c) { ReadBool(f, c.auth.anonymous_read); },
     kRestart, BPLACE_FIELD(auth.anonymous_read)},
    {"min_uid", [](const Field& f, Config& c) { ReadInteger(f, 1, 2147483647, c.auth.min_uid); },
     kRestart, BPLACE_FIELD(auth.min_uid)},
    {"job_visibility",
     [](const Field& f, Config& c) {
       ReadChoice<api::JobVisibility>(f, kJobVisibilities, c.auth.job_visibility);
     },
     kRestart, BPLACE_FIELD(auth.job_visibility)},
};

const KeySpec kLimitsKeys[] = {
    {"submit_per_minute",
     [](const Field& f, Config& c) { ReadNumber(f, 0.01, 1e6, c.limits.submit_per_minute); }, kLive,
     BPLACE_FIELD(limits.submit_per_minute)},
    {"submit_burst",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 1000000, c.limits.submit_burst); }, kLive,
     BPLACE_FIELD(limits.submit_burst)},
    {"lsf_calls_per_minute",
     [](const Field& f, Config& c) { ReadNumber(f, 0.01, 1e6, c.limits.lsf_calls_per_minute); },
     kLive, BPLACE_FIELD(limits.lsf_calls_per_minute)},
    {"lsf_calls_burst",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 1000000, c.limits.lsf_calls_burst); }, kLive,
     BPLACE_FIELD(limits.lsf_calls_burst)},
};

const KeySpec kJobsKeys[] = {
    {"refresh_s", [](const Field& f, Config& c) { ReadSeconds(f, c.jobs.interval); }, kLive,
     BPLACE_FIELD(jobs.interval)},
    {"retention_days",
     [](const Field& f, Config& c) {
       if (auto days = f.Integer(1, 3650, "days"))
         c.jobs.retention = std::chrono::hours(24 * *days);
     },
     kRestart, [](const Config& c) { return Show(c.jobs.retention.count() / 24); },
     [](const Config& from, Config& to) { to.jobs.retention = from.jobs.retention; }},
};

// A path the daemon opens whatever its working directory is; with
// `allow_empty`, "" too (the key's default applies).
void ReadAbsolutePath(const Field& field, std::string& out, bool allow_empty = false) {
  auto path = field.String();
  if (!path) return;
  if (path->empty() && allow_empty) {
    out.clear();
    return;
  }
  if (path->empty() || path->front() != '/') {
    field.Report("must be an absolute path, got `" + *path + "`");
    return;
  }
  out = std::move(*path);
}

const KeySpec kStateKeys[] = {
    {"dir", [](const Field& f, Config& c) { ReadAbsolutePath(f, c.state.dir); }, kRestart,
     BPLACE_FIELD(state.dir)},
};

const KeySpec kLogKeys[] = {
    {"level", [](const Field& f, Config& c) { ReadLogLevel(f, c.log.level); }, kLive,
     BPLACE_FIELD(log.level)},
    {"access_log_per_s",
     [](const Field& f, Config& c) { ReadInteger(f, 0, 1000000, c.http.access_log_per_second); },
     kRestart, BPLACE_FIELD(http.access_log_per_second)},
    {"audit_file", [](const Field& f, Config& c) { ReadAbsolutePath(f, c.audit.file, true); },
     kRestart, BPLACE_FIELD(audit.file)},
    {"audit_max_file_bytes",
     [](const Field& f, Config& c) {
       ReadInteger(f, 1024 * 1024, std::int64_t{1} << 40, c.audit.max_file_bytes);
     },
     kRestart, BPLACE_FIELD(audit.max_file_bytes)},
    {"audit_max_files",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 1000, c.audit.max_files); }, kRestart,
     BPLACE_FIELD(audit.max_files)},
};

#undef BPLACE_FIELD

const TableSpec kTables[] = {
    {"server", kServerKeys}, {"lsf", kLsfKeys},
    {"submit", kSubmitKeys}, {"placement", kPlacementKeys},
    {"ib", kIbKeys},         {"auth", kAuthKeys},
    {"limits", kLimitsKeys}, {"jobs", kJobsKeys},
    {"state", kStateKeys},   {"log", kLogKeys},
};

const TableSpec* FindTable(std::string_view name) {
  for (const TableSpec& table : kTables) {
    if (table.name == name) return &table;
  }
  return nullptr;
}

const KeySpec* FindKey(const TableSpec& table, std::string_view name) {
  for (const KeySpec& key : table.keys) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

constexpr std::size_t kMaxSuggestionDistance = 2;

// "; did you mean `x`?" for the closest candidate within two edits, else "".
std::string SuggestAmong(std::string_view name, std::span<const std::string_view> candidates,
                         std::string_view prefix = {}, std::string_view suffix = {}) {
  std::optional<std::string_view> best;
  std::size_t best_distance = kMaxSuggestionDistance + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = EditDistance(name, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best) return "";
  return "; did you mean `" + std::string(prefix) + std::string(*best) + std::string(suffix) + "`?";
}

// A key that exists, but in another table: "server.load_refresh_s" is a
// misplaced line more often than a misspelt one.
std::string SuggestOtherTable(std::string_view name, const TableSpec* except) {
  for (const TableSpec& table : kTables) {
    if (&table == except) continue;
    if (FindKey(table, name) != nullptr) {
      return "; did you mean `" + std::string(table.name) + "." + std::string(name) + "` (under [" +
             std::string(table.name) + "])?";
    }
  }
  return "";
}

std::string SuggestKey(const TableSpec& table, std::string_view name) {
  std::vector<std::string_view> names;
  for (const KeySpec& key : table.keys) names.push_back(key.name);
  std::string suggestion = SuggestAmong(name, names);
  return suggestion.empty() ? SuggestOtherTable(name, &table) : suggestion;
}

std::string SuggestTable(std::string_view name) {
  std::vector<std::string_view> names;
  for (const TableSpec& table : kTables) names.push_back(table.name);
  return SuggestAmong(name, names, "[", "]");
}

// lsf.topology_refresh_s >= lsf.load_refresh_s: a topology refresh also
// reloads load, so a shorter topology period would make load_refresh_s a lie.
void CheckRefreshOrder(const Config& config,
                       const std::map<std::string, const toml::key*, std::less<>>& valid,
                       Problems& problems) {
  const auto& refresh = config.refresh;
  if (refresh.topology_interval >= refresh.load_interval) return;
  const auto load_s = std::chrono::duration_cast<std::chrono::seconds>(refresh.load_interval);
  const auto topology_s =
      std::chrono::duration_cast<std::chrono::seconds>(refresh.topology_interval);
  const auto topology = valid.find("lsf.topology_refresh_s");
  const auto load = valid.find("lsf.load_refresh_s");
  if (topology != valid.end()) {
    problems.Add(topology->second->source(), "lsf.topology_refresh_s",
                 "must be >= lsf.load_refresh_s (" + std::to_string(load_s.count()) + " s), got " +
                     std::to_string(topology_s.count()));
  } else if (load != valid.end()) {
    problems.Add(load->second->source(), "lsf.load_refresh_s",
                 "must be <= lsf.topology_refresh_s (" + std::to_string(topology_s.count()) +
                     " s, the default), got " + std::to_string(load_s.count()));
  }
}

}  // namespace

namespace {

// ParseConfig, reading only the table `only_table` when it is not empty
// (every other table is skipped unread).
Result<Config> ParseTables(std::string_view text, std::string_view source_name,
                           std::string_view only_table) {
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& error) {
    const toml::source_position& at = error.source().begin;
    return Fail(ErrorCode::kInvalidArgument,
                std::string(source_name) + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) +
                    ": syntax error: " + std::string(error.description()));
  }

  Config config;
  Problems problems(source_name);
  // Keys read without a problem, for the checks that relate two keys: those
  // run only when both values are the user's intended ones (or defaults).
  std::map<std::string, const toml::key*, std::less<>> valid;
  bool related_key_failed = false;

  for (const auto& [key, node] : root) {
    const std::string table_name(key.str());
    if (!only_table.empty() && table_name != only_table) continue;
    const TableSpec* table_spec = FindTable(table_name);
    if (table_spec == nullptr) {
      if (node.is_table()) {
        problems.Add(key.source(), table_name, "unknown table" + SuggestTable(table_name));
      } else {
        std::string suggestion = SuggestOtherTable(table_name, nullptr);
        if (suggestion.empty()) suggestion = SuggestTable(table_name);
        problems.Add(key.source(), table_name, "unknown key" + suggestion);
      }
      continue;
    }
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      problems.Add(key.source(), table_name, "expected table, got " + std::string(TypeName(node)));
      continue;
    }
    for (const auto& [sub_key, sub_node] : *table) {
      std::string name = table_name + "." + std::string(sub_key.str());
      const KeySpec* key_spec = FindKey(*table_spec, sub_key.str());
      if (key_spec == nullptr) {
        problems.Add(sub_key.source(), name,
                     "unknown key" + SuggestKey(*table_spec, sub_key.str()));
        continue;
      }
      const std::size_t before = problems.size();
      key_spec->read(Field(name, sub_key, sub_node, problems), config);
      if (problems.size() == before) {
        valid.emplace(std::move(name), &sub_key);
      } else if (name == "lsf.load_refresh_s" || name == "lsf.topology_refresh_s") {
        related_key_failed = true;
      }
    }
  }
  if (!related_key_failed) {
    CheckRefreshOrder(config, valid, problems);
  }

  if (problems.size() != 0) {
    return Fail(ErrorCode::kInvalidArgument, problems.Join());
  }
  return config;
}

}  // namespace

Result<Config> ParseConfig(std::string_view text, std::string_view source_name) {
  return ParseTables(text, source_name, {});
}

Result<Config> LoadConfigFile(const std::string& path) {
  auto text = ReadSmallFile(path, kMaxConfigFileBytes);
  if (!text) return tl::unexpected(text.error());
  return ParseConfig(*text, path);
}

Result<rdma::ProbeOptions> LoadProbeOptions(const std::string& path) {
  auto text = ReadSmallFile(path, kMaxConfigFileBytes);
  if (!text) return tl::unexpected(text.error());
  auto config = ParseTables(*text, path, "ib");
  if (!config) return tl::unexpected(config.error());
  return std::move(config->probe);
}

std::vector<KeyChange> DiffConfigs(const Config& running, const Config& next) {
  std::vector<KeyChange> changes;
  for (const TableSpec& table : kTables) {
    for (const KeySpec& key : table.keys) {
      std::string before = key.show(running);
      std::string after = key.show(next);
      if (before == after) continue;
      changes.push_back({std::string(table.name) + "." + std::string(key.name), key.reload,
                         std::move(before), std::move(after)});
    }
  }
  return changes;
}

Config MergeReloadable(const Config& running, const Config& next) {
  Config merged = running;
  for (const TableSpec& table : kTables) {
    for (const KeySpec& key : table.keys) {
      if (key.reload != KeyReload::kRestart) key.copy(next, merged);
    }
  }
  return merged;
}

std::optional<KeyReload> ReloadOf(std::string_view key) {
  const std::size_t dot = key.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const TableSpec* table = FindTable(key.substr(0, dot));
  if (table == nullptr) return std::nullopt;
  const KeySpec* spec = FindKey(*table, key.substr(dot + 1));
  if (spec == nullptr) return std::nullopt;
  return spec->reload;
}

}  // namespace bplace::config
