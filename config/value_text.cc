// How config values are written as text (config/value_text.h).
#include "config/value_text.h"

#include <charconv>
#include <iterator>
#include <system_error>

namespace bplace::config {

std::string Show(const std::string& value) { return value.empty() ? "\"\"" : value; }
std::string Show(bool value) { return value ? "true" : "false"; }
std::string Show(double value) {
  // Shortest text that reads back as the same double: two values that
  // print alike are equal, which the diff relies on.
  char text[64];
  auto [end, error] = std::to_chars(std::begin(text), std::end(text), value);
  return error == std::errc() ? std::string(text, end) : std::to_string(value);
}

std::string Show(const std::vector<std::string>& values) {
  if (values.empty()) return "[]";
  std::string joined;
  for (const std::string& value : values) joined += (joined.empty() ? "" : ", ") + value;
  return joined;
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

}  // namespace bplace::config
