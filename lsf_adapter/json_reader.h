#pragma once

// A JSON reader without a DOM, for LSF's large `-json` answers (a bjobs of
// 100,000 jobs is 50 MB): the text is checked once, then its values are
// visited in place, as views into the text. It accepts and refuses exactly
// what nlohmann::json::parse (3.11, no comments) does: RFC 8259 with UTF-8
// checked inside strings, one value surrounded by blanks (space, tab, CR,
// LF), a NUL byte read as the end of the text, a UTF-8 byte order mark
// skipped at the start. Pure functions: no I/O, safe from any thread, never
// throws.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bplace::lsf {

class JsonValue;

// A text that is one JSON value as nlohmann::json::parse accepts it (see
// above), with where each of its objects and arrays ends. Holds a view of
// the text: the text must outlive it and the values read from it, and the
// values point at the document: do not move it while they are in use.
class JsonDocument {
 public:
  // The document of `text`, or nullopt when it is not valid JSON. Deep
  // nesting costs no stack.
  static std::optional<JsonDocument> Parse(std::string_view text);

  // The value the text holds.
  JsonValue Root() const;

 private:
  friend class JsonValue;
  explicit JsonDocument(std::string_view text) : text_(text) {}
  // Where the object or array that starts at `start` ends (past its
  // closing bracket).
  std::size_t ContainerEnd(std::size_t start) const;

  std::string_view text_;
  std::size_t root_ = 0;  // after a byte order mark
  // (start, end) of every object and array, in the order of their starts.
  std::vector<std::pair<std::size_t, std::size_t>> containers_;
};

// Whether `text` is one JSON value as nlohmann::json::parse accepts it.
bool IsValidJson(std::string_view text);

// One value of a JsonDocument.
class JsonValue {
 public:
  enum class Kind {
    kString,
    kInteger,  // digits with an optional '-', that fit in 64 bits (nlohmann's integers)
    kNumber,   // any other number: a fraction, an exponent, or too large
    kTrue,
    kFalse,
    kNull,
    kObject,
    kArray,
  };

  Kind kind() const { return kind_; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_array() const { return kind_ == Kind::kArray; }

  // The whole value as written (a string with its quotes).
  std::string_view text() const { return text_; }
  // A string's characters, escapes decoded (UTF-8). Only for kString.
  std::string String() const;
  // A string's characters when it holds no escape (a view into the text),
  // else nullopt: call String(). Only for kString.
  std::optional<std::string_view> Unescaped() const;
  // An integer's value, signed or unsigned as nlohmann reads it (an integer
  // with '-' is signed); nullopt for the other sign. Only for kInteger.
  std::optional<std::int64_t> Signed() const;
  std::optional<std::uint64_t> Unsigned() const;

  // Calls `visit(key, value)` for each member of an object, in order (a key
  // given twice is visited twice); `key` is decoded. Only for kObject.
  template <typename Visit>
  void ForEachMember(Visit&& visit) const;
  // Calls `visit(value)` for each element of an array, in order. Only for
  // kArray.
  template <typename Visit>
  void ForEachElement(Visit&& visit) const;

 private:
  friend class JsonDocument;
  JsonValue(const JsonDocument& doc, Kind kind, std::string_view text)
      : doc_(&doc), kind_(kind), text_(text) {}
  // The value that starts at `at` (after any blanks) in the document's text.
  static JsonValue At(const JsonDocument& doc, std::size_t at);
  // The position after the blanks from `at` in the document's text.
  static std::size_t SkipBlanks(std::string_view text, std::size_t at);
  // Where this value starts and ends in the document's text.
  std::size_t Start() const { return static_cast<std::size_t>(text_.data() - doc_->text_.data()); }
  std::size_t End() const { return Start() + text_.size(); }

  const JsonDocument* doc_;
  Kind kind_;
  std::string_view text_;
};

template <typename Visit>
void JsonValue::ForEachMember(Visit&& visit) const {
  const std::string_view text = doc_->text_;
  std::size_t at = SkipBlanks(text, Start() + 1);
  if (text[at] == '}') return;
  while (true) {
    const JsonValue key = At(*doc_, at);
    at = SkipBlanks(text, key.End());  // at ':'
    const JsonValue value = At(*doc_, at + 1);
    if (const std::optional<std::string_view> plain = key.Unescaped()) {
      visit(*plain, value);
    } else {
      const std::string decoded = key.String();
      visit(std::string_view(decoded), value);
    }
    at = SkipBlanks(text, value.End());  // at ',' or '}'
    if (text[at] == '}') return;
    at = SkipBlanks(text, at + 1);
  }
}

template <typename Visit>
void JsonValue::ForEachElement(Visit&& visit) const {
  const std::string_view text = doc_->text_;
  std::size_t at = SkipBlanks(text, Start() + 1);
  if (text[at] == ']') return;
  while (true) {
    const JsonValue value = At(*doc_, at);
    visit(value);
    at = SkipBlanks(text, value.End());  // at ',' or ']'
    if (text[at] == ']') return;
    at = SkipBlanks(text, at + 1);
  }
}

}  // namespace bplace::lsf
