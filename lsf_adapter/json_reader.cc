#include "lsf_adapter/json_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "common/text.h"

namespace bplace::lsf {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

// JSON's blanks (space, tab, LF, CR), by byte: LSF's indented answers are
// a quarter blanks.
constexpr std::array<bool, 256> kJsonBlank = [] {
  std::array<bool, 256> blank{};
  for (unsigned char c : {' ', '\t', '\n', '\r'}) blank[c] = true;
  return blank;
}();

bool IsJsonBlank(char c) { return kJsonBlank[static_cast<unsigned char>(c)]; }
// The character at `at`, or NUL past the end: nlohmann reads a NUL byte as
// the end of the text.
char Peek(std::string_view text, std::size_t at) { return at < text.size() ? text[at] : '\0'; }

// The four hex digits at `at` as a code unit, or -1.
int Hex4(std::string_view text, std::size_t at) {
  if (at + 4 > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const char c = text[i];
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

// Whether the byte at `at` lies in [low, high].
bool ByteIn(std::string_view text, std::size_t at, unsigned low, unsigned high) {
  if (at >= text.size()) return false;
  const auto byte = static_cast<unsigned char>(text[at]);
  return byte >= low && byte <= high;
}

// How long the UTF-8 sequence that starts at `at` (a byte >= 0x80) is, as
// nlohmann's lexer checks it (RFC 3629: no overlong form, no surrogate, at
// most U+10FFFF); 0 when it is not one.
std::size_t Utf8Length(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead >= 0xC2 && lead <= 0xDF) return ByteIn(text, at + 1, 0x80, 0xBF) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const unsigned low = lead == 0xE0 ? 0xA0 : 0x80;
    const unsigned high = lead == 0xED ? 0x9F : 0xBF;
    return ByteIn(text, at + 1, low, high) && ByteIn(text, at + 2, 0x80, 0xBF) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const unsigned low = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned high = lead == 0xF4 ? 0x8F : 0xBF;
    return ByteIn(text, at + 1, low, high) && ByteIn(text, at + 2, 0x80, 0xBF) &&
                   ByteIn(text, at + 3, 0x80, 0xBF)
               ? 4
               : 0;
  }
  return 0;
}

// How long the escape at `at` (a backslash) is, checked: 2, 6, or 12 for a
// surrogate pair; 0 when it is not a valid escape.
std::size_t EscapeLength(std::string_view text, std::size_t at) {
  switch (Peek(text, at + 1)) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return 2;
    case 'u': {
      const int unit = Hex4(text, at + 2);
      if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) return 0;
      if (unit < 0xD800 || unit > 0xDBFF) return 6;
      if (Peek(text, at + 6) != '\\' || Peek(text, at + 7) != 'u') return 0;
      const int low = Hex4(text, at + 8);
      return low >= 0xDC00 && low <= 0xDFFF ? 12 : 0;
    }
    default:
      return 0;
  }
}

// The position after the string that starts at `at` (a '"'), checked;
// kNone when it is not a valid string.
std::size_t ScanString(std::string_view text, std::size_t at) {
  ++at;
  while (at < text.size()) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c == '"') return at + 1;
    std::size_t length = 1;
    if (c == '\\') {
      length = EscapeLength(text, at);
    } else if (c < 0x20) {
      length = 0;
    } else if (c >= 0x80) {
      length = Utf8Length(text, at);
    }
    if (length == 0) return kNone;
    at += length;
  }
  return kNone;
}

// The position after the number that starts at `at` (a '-' or digit),
// checked against JSON's grammar; kNone when it is not one.
std::size_t ScanNumber(std::string_view text, std::size_t at) {
  if (Peek(text, at) == '-') ++at;
  if (Peek(text, at) == '0') {
    ++at;
  } else if (IsDigit(Peek(text, at))) {
    while (IsDigit(Peek(text, at))) ++at;
  } else {
    return kNone;
  }
  if (Peek(text, at) == '.') {
    ++at;
    if (!IsDigit(Peek(text, at))) return kNone;
    while (IsDigit(Peek(text, at))) ++at;
  }
  if (Peek(text, at) == 'e' || Peek(text, at) == 'E') {
    ++at;
    if (Peek(text, at) == '+' || Peek(text, at) == '-') ++at;
    if (!IsDigit(Peek(text, at))) return kNone;
    while (IsDigit(Peek(text, at))) ++at;
  }
  return at;
}

// The position after the literal that starts at `at`, or kNone.
std::size_t ScanLiteral(std::string_view text, std::size_t at) {
  for (std::string_view literal : {"true", "false", "null"}) {
    if (text.substr(at, literal.size()) == literal) return at + literal.size();
  }
  return kNone;
}

// The position after the string that starts at `at` in a checked text:
// its first quote that is not part of an escape.
std::size_t StringEnd(std::string_view text, std::size_t at) {
  ++at;
  while (text[at] != '"') at += text[at] == '\\' ? 2 : 1;
  return at + 1;
}

void AppendUtf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

std::optional<JsonDocument> JsonDocument::Parse(std::string_view text) {
  // What comes next: a value, an object's key, or what follows a value
  // (',' or the end of the object or array it is in, or the end).
  enum class Expect { kValue, kKey, kAfterValue };
  JsonDocument doc(text);
  // The objects and arrays we are in: their index in containers_.
  std::vector<std::size_t> open;
  Expect expect = Expect::kValue;
  // nlohmann skips a UTF-8 byte order mark at the start.
  std::size_t at = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  doc.root_ = at;
  const auto is_object = [&] { return text[doc.containers_[open.back()].first] == '{'; };
  while (true) {
    while (IsJsonBlank(Peek(text, at))) ++at;
    const char c = Peek(text, at);
    if (expect == Expect::kKey) {
      if (c != '"') return std::nullopt;
      at = ScanString(text, at);
      if (at == kNone) return std::nullopt;
      while (IsJsonBlank(Peek(text, at))) ++at;
      if (Peek(text, at) != ':') return std::nullopt;
      ++at;
      expect = Expect::kValue;
      continue;
    }
    if (expect == Expect::kAfterValue) {
      if (open.empty()) {
        if (c != '\0') return std::nullopt;
        return doc;
      }
      if (c == ',') {
        ++at;
        expect = is_object() ? Expect::kKey : Expect::kValue;
        continue;
      }
      if (c != (is_object() ? '}' : ']')) return std::nullopt;
      doc.containers_[open.back()].second = ++at;
      open.pop_back();
      continue;
    }
    if (c == '{' || c == '[') {
      doc.containers_.emplace_back(at, 0);
      ++at;
      while (IsJsonBlank(Peek(text, at))) ++at;
      if (Peek(text, at) == (c == '{' ? '}' : ']')) {
        doc.containers_.back().second = ++at;
        expect = Expect::kAfterValue;
        continue;
      }
      open.push_back(doc.containers_.size() - 1);
      expect = c == '{' ? Expect::kKey : Expect::kValue;
      continue;
    }
    if (c == '"') {
      at = ScanString(text, at);
    } else if (c == '-' || IsDigit(c)) {
      at = ScanNumber(text, at);
    } else if (c == 't' || c == 'f' || c == 'n') {
      at = ScanLiteral(text, at);
    } else {
      return std::nullopt;
    }
    if (at == kNone) return std::nullopt;
    expect = Expect::kAfterValue;
  }
}

JsonValue JsonDocument::Root() const { return JsonValue::At(*this, root_); }

std::size_t JsonDocument::ContainerEnd(std::size_t start) const {
  const auto it = std::lower_bound(containers_.begin(), containers_.end(), start,
                                   [](const std::pair<std::size_t, std::size_t>& container,
                                      std::size_t at) { return container.first < at; });
  return it->second;
}

bool IsValidJson(std::string_view text) { return JsonDocument::Parse(text).has_value(); }

std::size_t JsonValue::SkipBlanks(std::string_view text, std::size_t at) {
  while (at < text.size() && IsJsonBlank(text[at])) ++at;
  return at;
}

JsonValue JsonValue::At(const JsonDocument& doc, std::size_t from) {
  const std::string_view text = doc.text_;
  const std::size_t at = SkipBlanks(text, from);
  const char c = text[at];
  switch (c) {
    case '"':
      return {doc, Kind::kString, text.substr(at, StringEnd(text, at) - at)};
    case '{':
    case '[':
      return {doc, c == '{' ? Kind::kObject : Kind::kArray,
              text.substr(at, doc.ContainerEnd(at) - at)};
    case 't':
      return {doc, Kind::kTrue, text.substr(at, 4)};
    case 'f':
      return {doc, Kind::kFalse, text.substr(at, 5)};
    case 'n':
      return {doc, Kind::kNull, text.substr(at, 4)};
    default:
      break;
  }
  const std::string_view number = text.substr(at, ScanNumber(text, at) - at);
  bool integral = number.find_first_of(".eE") == std::string_view::npos;
  if (integral) {
    // nlohmann reads an integer that does not fit as a floating-point number.
    const char* end = number.data() + number.size();
    if (number.front() == '-') {
      std::int64_t value = 0;
      integral = std::from_chars(number.data(), end, value).ec == std::errc();
    } else {
      std::uint64_t value = 0;
      integral = std::from_chars(number.data(), end, value).ec == std::errc();
    }
  }
  return {doc, integral ? Kind::kInteger : Kind::kNumber, number};
}

std::optional<std::string_view> JsonValue::Unescaped() const {
  const std::string_view inner = text_.substr(1, text_.size() - 2);
  if (inner.find('\\') != std::string_view::npos) return std::nullopt;
  return inner;
}

std::string JsonValue::String() const {
  const std::string_view inner = text_.substr(1, text_.size() - 2);
  std::string out;
  out.reserve(inner.size());
  for (std::size_t at = 0; at < inner.size();) {
    const char c = inner[at];
    if (c != '\\') {
      out += c;
      ++at;
      continue;
    }
    const char kind = inner[at + 1];
    at += 2;
    switch (kind) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        auto code = static_cast<unsigned>(Hex4(inner, at));
        at += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {  // a checked pair: \uD8xx\uDCxx
          const auto low = static_cast<unsigned>(Hex4(inner, at + 2));
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          at += 6;
        }
        AppendUtf8(out, code);
        break;
      }
      default:  // '"', '\\', '/'
        out += kind;
        break;
    }
  }
  return out;
}

std::optional<std::int64_t> JsonValue::Signed() const {
  if (text_.front() != '-') return std::nullopt;
  std::int64_t value = 0;
  std::from_chars(text_.data(), text_.data() + text_.size(), value);
  return value;
}

std::optional<std::uint64_t> JsonValue::Unsigned() const {
  if (text_.front() == '-') return std::nullopt;
  std::uint64_t value = 0;
  std::from_chars(text_.data(), text_.data() + text_.size(), value);
  return value;
}

}  // namespace bplace::lsf
