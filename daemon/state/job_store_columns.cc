#include "daemon/state/job_store_columns.h"

#include <string_view>

#include <nlohmann/json.hpp>

namespace bplace {

std::optional<SystemTime> FromNanos(const std::optional<std::int64_t>& nanos) {
  if (!nanos) return std::nullopt;
  return FromNanos(*nanos);
}

std::string LabelsToJson(const std::map<std::string, std::string>& labels) {
  // std::map: keys sorted, so equal maps give equal text. `replace` rather
  // than an exception for bytes that are not UTF-8 (the API's JSON decoder
  // lets none through).
  return nlohmann::json(labels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::map<std::string, std::string>> LabelsFromJson(const std::string& text,
                                                          const std::string& where) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_object())
    return Fail(ErrorCode::kInternal, where + ": labels are not a JSON object");
  std::map<std::string, std::string> labels;
  for (const auto& [key, value] : parsed.items()) {
    if (!value.is_string())
      return Fail(ErrorCode::kInternal, where + ": label " + key + " is not a string");
    labels.emplace(key, value.get<std::string>());
  }
  return labels;
}

void BindAll(SqliteStatement& statement,
             const std::vector<std::variant<std::int64_t, std::string>>& params) {
  int index = 1;
  for (const auto& param : params) {
    if (const auto* number = std::get_if<std::int64_t>(&param)) {
      statement.Bind(index++, *number);
    } else {
      statement.Bind(index++, std::string_view(std::get<std::string>(param)));
    }
  }
}

}  // namespace bplace
