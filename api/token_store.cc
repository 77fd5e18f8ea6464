#include "api/token_store.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <system_error>
#include <utility>

#include "common/small_file.h"
#include "common/text.h"

namespace bplace::api {
namespace {

constexpr std::string_view kHashPrefix = "sha256:";
constexpr std::size_t kMaxUserLength = 64;

// TokenStore::Digest, spelled out here so the file-local parsers can return
// one; a mismatch would not compile where Parse builds an Entry.
using Sha256Digest = std::array<unsigned char, 32>;

// Scope names in the order Scopes::ToString prints them.
constexpr std::pair<Scope, std::string_view> kScopeNames[] = {
    {Scope::kRead, "read"},
    {Scope::kSubmit, "submit"},
    {Scope::kAdmin, "admin"},
};

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// User names as `useradd` and LDAP directories commonly allow them. Stricter
// than POSIX on purpose: the name ends up in logs and as bsub's user, and a
// leading '-' could pass for an option further down the line.
bool IsValidUser(std::string_view user) {
  if (user.empty() || user.size() > kMaxUserLength) return false;
  if (user.front() == '-' || user.front() == '.') return false;
  for (const char c : user) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Hex2(unsigned char c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02x", c);
  return buffer;
}

// Describes the group/other bits of `mode` (at least one is set).
std::string DescribeOpenMode(mode_t mode) {
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  const char* what = (mode & 044) != 0   ? "readable by"
                     : (mode & 022) != 0 ? "writable by"
                                         : "open to";
  return std::string(what) + " group or others (mode " + octal + "); run chmod 600";
}

// The token file's three fields, as written; they point into the line.
struct TokenFields {
  std::string_view hash;
  std::string_view user;
  std::string_view scopes;
};

// Splits one line of the token file into its fields, after dropping the CR
// of a CRLF line. Returns nullopt for a blank or comment line, and
// kInvalidArgument for a control character or a count other than three.
Result<std::optional<TokenFields>> SplitTokenLine(std::string_view line) {
  // A file edited on Windows still loads; any other control character is
  // refused, since it would make the line mean something else than it shows.
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  for (const char c : line) {
    const auto byte = static_cast<unsigned char>(c);
    if (IsControl(byte) && c != '\t') {
      return Fail(ErrorCode::kInvalidArgument, "control character " + Hex2(byte));
    }
  }

  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] == '#') return std::nullopt;

  const std::vector<std::string_view> fields = SplitFields(line);
  if (fields.size() != 3) {
    return Fail(ErrorCode::kInvalidArgument, "expected `sha256:<hex> <user> <scopes>`, got " +
                                                 std::to_string(fields.size()) +
                                                 (fields.size() == 1 ? " field" : " fields"));
  }
  return TokenFields{fields[0], fields[1], fields[2]};
}

// Decodes "sha256:<64 hex digits>" (either case). Returns kInvalidArgument
// for a missing prefix, a wrong length or a non-hex character.
Result<Sha256Digest> ParseHash(std::string_view hash) {
  if (!hash.starts_with(kHashPrefix)) {
    return Fail(ErrorCode::kInvalidArgument, "hash must start with `sha256:`");
  }
  hash.remove_prefix(kHashPrefix.size());
  Sha256Digest digest{};
  if (hash.size() != 2 * digest.size()) {
    return Fail(ErrorCode::kInvalidArgument,
                "hash must be 64 hex digits, got " + std::to_string(hash.size()) + " characters");
  }
  for (std::size_t i = 0; i < digest.size(); ++i) {
    const int high = HexDigitValue(hash[2 * i]);
    const int low = HexDigitValue(hash[2 * i + 1]);
    if (high < 0 || low < 0) {
      const char bad = high < 0 ? hash[2 * i] : hash[2 * i + 1];
      return Fail(ErrorCode::kInvalidArgument,
                  "hash has a non-hex character `" + std::string(1, bad) + "`");
    }
    digest[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return digest;
}

// Returns `user` as the entry's user, or kInvalidArgument when IsValidUser
// refuses it; the message spells out the rule.
Result<std::string> ParseUser(std::string_view user) {
  if (!IsValidUser(user)) {
    return Fail(ErrorCode::kInvalidArgument, "bad user name `" + std::string(user) + "`: 1 to " +
                                                 std::to_string(kMaxUserLength) +
                                                 " of [A-Za-z0-9._-], not starting with - or .");
  }
  return std::string(user);
}

// Parses a comma list of scope names without spaces ("read,submit"). Returns
// kInvalidArgument for an empty name, an unknown one or one listed twice.
Result<Scopes> ParseScopeList(std::string_view scope_list) {
  Scopes scopes;
  std::size_t scope_pos = 0;
  while (true) {
    const std::size_t comma = std::min(scope_list.find(',', scope_pos), scope_list.size());
    const std::string_view name = scope_list.substr(scope_pos, comma - scope_pos);
    if (name.empty()) {
      return Fail(ErrorCode::kInvalidArgument, "empty scope in `" + std::string(scope_list) + "`");
    }
    const std::optional<Scope> scope = ParseScope(name);
    if (!scope) {
      return Fail(ErrorCode::kInvalidArgument,
                  "unknown scope `" + std::string(name) + "`; expected read, submit or admin");
    }
    if (scopes.HasScope(*scope)) {
      return Fail(ErrorCode::kInvalidArgument, "scope `" + std::string(name) + "` listed twice");
    }
    scopes.Add(*scope);
    if (comma == scope_list.size()) break;
    scope_pos = comma + 1;
  }
  return scopes;
}

}  // namespace

std::string Scopes::ToString() const {
  std::string text;
  for (const auto& [scope, name] : kScopeNames) {
    if (!HasScope(scope)) continue;
    if (!text.empty()) text += ',';
    text += name;
  }
  return text;
}

std::optional<Scope> ParseScope(std::string_view name) {
  for (const auto& [scope, scope_name] : kScopeNames) {
    if (name == scope_name) return scope;
  }
  return std::nullopt;
}

Result<TokenStore> TokenStore::Parse(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  if (text.size() > kMaxFileBytes) {
    return Fail(ErrorCode::kInvalidArgument,
                source + ": larger than " + std::to_string(kMaxFileBytes) + " bytes");
  }

  TokenStore store;
  std::map<Digest, std::size_t> first_line_of;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    const auto fail = [&](const std::string& problem) {
      return Fail(ErrorCode::kInvalidArgument,
                  source + ":" + std::to_string(line_number) + ": " + problem);
    };

    auto fields = SplitTokenLine(line);
    if (!fields) return fail(fields.error().message);
    if (!*fields) continue;
    // The fields are checked left to right, the duplicate hash right after
    // the hash, so that a line is answered with its first problem.
    auto digest = ParseHash((*fields)->hash);
    if (!digest) return fail(digest.error().message);
    const auto [it, inserted] = first_line_of.emplace(*digest, line_number);
    if (!inserted) {
      return fail("duplicate token hash (first on line " + std::to_string(it->second) + ")");
    }
    auto user = ParseUser((*fields)->user);
    if (!user) return fail(user.error().message);
    auto scopes = ParseScopeList((*fields)->scopes);
    if (!scopes) return fail(scopes.error().message);

    store.entries_.push_back(Entry{*digest, std::move(*user), *scopes});
  }
  return store;
}

Result<TokenStore> TokenStore::Load(const std::string& path) {
  // Symbolic links are refused: whoever may change a link (or its
  // directory) could point the daemon at a file of their choosing.
  SmallFileOptions options;
  options.follow_symlinks = false;
  options.check = [&path](const struct stat& info) -> Result<void> {
    const uid_t euid = geteuid();
    if (info.st_uid != 0 && info.st_uid != euid) {
      return Fail(ErrorCode::kInvalidArgument,
                  path + ": owned by uid " + std::to_string(info.st_uid) +
                      "; must be owned by root or by the daemon's user (uid " +
                      std::to_string(euid) + ")");
    }
    // Group or other access of any kind is refused, not only reading: a
    // writable file lets someone else mint tokens for any user.
    if ((info.st_mode & 077) != 0) {
      return Fail(ErrorCode::kInvalidArgument, path + ": " + DescribeOpenMode(info.st_mode));
    }
    return {};
  };
  auto text = ReadSmallFile(path, kMaxFileBytes, options);
  if (!text) return tl::unexpected(text.error());
  return Parse(*text, path);
}

std::optional<TokenGrant> TokenStore::Authenticate(std::string_view presented_token) const {
  if (presented_token.empty()) return std::nullopt;

  Digest digest{};
  unsigned int digest_length = 0;
  if (EVP_Digest(presented_token.data(), presented_token.size(), digest.data(), &digest_length,
                 EVP_sha256(), nullptr) != 1 ||
      digest_length != digest.size()) {
    return std::nullopt;
  }

  // Constant time with respect to the entries: every one is compared in full
  // and the match is selected with a mask instead of a branch or a break, so
  // timing tells neither whether nor where a token matched. Hashes are unique
  // (Parse refuses duplicates), so at most one entry matches.
  std::size_t match_plus_one = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const int differs = CRYPTO_memcmp(entries_[i].digest.data(), digest.data(), digest.size());
    const std::size_t equal = static_cast<std::size_t>(differs == 0);
    const std::size_t mask = std::size_t{0} - equal;
    match_plus_one = (match_plus_one & ~mask) | ((i + 1) & mask);
  }
  if (match_plus_one == 0) return std::nullopt;
  const Entry& entry = entries_[match_plus_one - 1];
  return TokenGrant{entry.user, entry.scopes};
}

std::optional<std::string_view> BearerToken(std::string_view header_value) {
  constexpr std::string_view kScheme = "bearer";
  if (header_value.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    const char c = header_value[i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != kScheme[i]) return std::nullopt;
  }
  std::size_t pos = kScheme.size();
  if (header_value[pos] != ' ') return std::nullopt;
  while (pos < header_value.size() && header_value[pos] == ' ') ++pos;
  const std::string_view token = header_value.substr(pos);
  if (token.empty()) return std::nullopt;

  // b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
  std::size_t i = 0;
  while (i < token.size()) {
    const char c = token[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
    if (!ok) break;
    ++i;
  }
  if (i == 0) return std::nullopt;
  while (i < token.size() && token[i] == '=') ++i;
  if (i != token.size()) return std::nullopt;
  return token;
}

}  // namespace bplace::api
