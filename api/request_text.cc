#include "api/request_text.h"

#include <utility>

namespace bplace::api {
namespace {

using nlohmann::json;

std::string ControlName(unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("U+00") + kHex[c >> 4] + kHex[c & 0xf];
}

}  // namespace

Error FieldError(std::string_view field, std::string message) {
  return Error{ErrorCode::kInvalidArgument, std::string(field) + ": " + std::move(message)};
}

Result<std::string> GetString(const json& value, std::string_view field, std::size_t max_bytes,
                              Text text) {
  if (!value.is_string()) {
    return tl::unexpected(
        FieldError(field, std::string("expected a string, got ") + value.type_name()));
  }
  const std::string& s = value.get_ref<const std::string&>();
  if (s.empty()) return tl::unexpected(FieldError(field, "must not be empty"));
  if (s.size() > max_bytes) {
    return tl::unexpected(FieldError(field, "longer than " + std::to_string(max_bytes) +
                                                " bytes (" + std::to_string(s.size()) + ")"));
  }
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\0') return tl::unexpected(FieldError(field, "contains a NUL byte"));
    if (text == Text::kMultiLine) continue;
    if (c == '\n' || c == '\r') return tl::unexpected(FieldError(field, "contains a line break"));
    if (text == Text::kName && (c == ' ' || c == '\t')) {
      return tl::unexpected(FieldError(field, "contains whitespace"));
    }
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) {
      return tl::unexpected(
          FieldError(field, "contains the control character " + ControlName(byte)));
    }
  }
  if ((text == Text::kOptionValue || text == Text::kName) && s.front() == '-') {
    return tl::unexpected(FieldError(field, "starts with '-' (bsub would read it as an option)"));
  }
  return s;
}

// Tab is U+0009, space U+0020.
json StringSchema(Text text, std::size_t max_bytes) {
  const char* pattern = "";
  switch (text) {
    case Text::kMultiLine:
      pattern = R"(^[^\u0000]*$)";
      break;
    case Text::kLine:
      pattern = R"(^[^\u0000-\u0008\u000a-\u001f\u007f]*$)";
      break;
    case Text::kOptionValue:
      pattern = R"(^[^\u0000-\u0008\u000a-\u001f\u007f-][^\u0000-\u0008\u000a-\u001f\u007f]*$)";
      break;
    case Text::kName:
      pattern = R"(^[^\u0000-\u0020\u007f-][^\u0000-\u0020\u007f]*$)";
      break;
  }
  return {{"type", "string"}, {"minLength", 1}, {"maxLength", max_bytes}, {"pattern", pattern}};
}

json StringListSchema(std::size_t max_items, std::size_t max_bytes, Text text) {
  return {{"type", "array"},
          {"minItems", 1},
          {"maxItems", max_items},
          {"items", StringSchema(text, max_bytes)}};
}

Result<std::vector<std::string>> GetStringList(const json& value, std::string_view field,
                                               std::size_t max_items, std::size_t max_bytes,
                                               Text text) {
  if (!value.is_array()) {
    return tl::unexpected(
        FieldError(field, std::string("expected an array of strings, got ") + value.type_name()));
  }
  if (value.size() > max_items) {
    return tl::unexpected(FieldError(field, "more than " + std::to_string(max_items) + " items"));
  }
  std::vector<std::string> items;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string name = std::string(field) + "[" + std::to_string(i) + "]";
    auto item = GetString(value[i], name, max_bytes, text);
    if (!item) return tl::unexpected(item.error());
    items.push_back(std::move(*item));
  }
  return items;
}

std::string Describe(const json& value) {
  if (value.is_structured()) return std::string("a JSON ") + value.type_name();
  std::string text = value.dump();
  if (text.size() > 64) text = text.substr(0, 61) + "...";
  return text;
}

std::string ShownKey(const std::string& key) {
  constexpr std::size_t kMaxShown = 64;
  bool plain = key.size() <= kMaxShown;
  for (char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) plain = false;
  }
  if (plain) return key;
  std::string shown = json(key).dump(-1, ' ', false, json::error_handler_t::replace);
  if (shown.size() > kMaxShown) shown = shown.substr(0, kMaxShown - 3) + "...";
  return shown;
}

}  // namespace bplace::api
