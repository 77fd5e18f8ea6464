// The typed readers of config values (config/toml_readers.h).
#include "config/toml_readers.h"

#include <charconv>
#include <iterator>
#include <sstream>
#include <system_error>

#include "api/http/listen_address.h"

namespace bplace::config {
namespace {

constexpr std::string_view kLogLevels[] = {"trace", "debug",    "info", "warn",
                                           "error", "critical", "off"};

}  // namespace

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

void ReadAbsolutePath(const Field& field, std::string& out, bool allow_empty) {
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

}  // namespace bplace::config
