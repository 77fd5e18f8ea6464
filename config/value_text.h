#pragma once

// How config values are written as text, as the config file writes them;
// private to config/. The names of the enumerated values (read by ReadChoice,
// written back by Show) and Show for every type of value the schema holds,
// which the reload diff compares and reports.

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/options.h"
#include "daemon/options.h"
#include "rdma_probe/probe_options.h"

namespace bplace::config {

// The names of the enumerated keys, as the file writes them: read by
// ReadChoice, written back by ShowChoice.
inline constexpr std::pair<std::string_view, rdma::LinkLayerWanted> kLinkLayers[] = {
    {"infiniband", rdma::LinkLayerWanted::kInfiniband},
    {"ethernet", rdma::LinkLayerWanted::kEthernet},
    {"any", rdma::LinkLayerWanted::kAny}};
inline constexpr std::pair<std::string_view, IbSource> kIbSources[] = {
    {"none", IbSource::kNone}, {"lsload", IbSource::kLsload}, {"local", IbSource::kLocal}};
inline constexpr std::pair<std::string_view, api::AuthMode> kAuthModes[] = {
    {"service-account", api::AuthMode::kServiceAccount}, {"multi-user", api::AuthMode::kMultiUser}};
inline constexpr std::pair<std::string_view, api::MetricsAccess> kMetricsAccess[] = {
    {"anonymous", api::MetricsAccess::kAnonymous}, {"read", api::MetricsAccess::kRead}};
inline constexpr std::pair<std::string_view, api::JobVisibility> kJobVisibilities[] = {
    {"own", api::JobVisibility::kOwn}, {"all", api::JobVisibility::kAll}};

// How a key's value is written in messages: as the file would write it
// (integers, `_s` durations in seconds, lists joined by ", "; "" for empty
// text, [] for an empty list, "?" for an enumerator without a name).
std::string Show(const std::string& value);
std::string Show(bool value);
template <typename T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) std::string Show(T value) {
  return std::to_string(value);
}
// The shortest text that reads back as the same double.
std::string Show(double value);
template <typename Rep, typename Period>
std::string Show(std::chrono::duration<Rep, Period> value) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(value);
  if (ms % std::chrono::seconds(1) != std::chrono::milliseconds(0)) {
    return std::to_string(ms.count()) + " ms";
  }
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(ms).count());
}
std::string Show(const std::vector<std::string>& values);
// The name of `value` among `choices`; "?" when it has none.
template <typename T>
std::string ShowChoice(std::span<const std::pair<std::string_view, T>> choices, T value) {
  for (const auto& [name, choice] : choices) {
    if (choice == value) return std::string(name);
  }
  return "?";
}
std::string Show(rdma::LinkLayerWanted value);
std::string Show(IbSource value);
std::string Show(api::AuthMode value);
std::string Show(api::MetricsAccess value);
std::string Show(api::JobVisibility value);

}  // namespace bplace::config
