#pragma once

// Bearer tokens for TCP callers: the token file, its loader and the check of
// a presented token. Only SHA-256 digests of tokens are ever read or kept.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace bplace::api {

// What a token lets its holder do. Each scope stands alone: `admin` does not
// imply `read` or `submit` (a token file says exactly what a token may do, so
// a reader of the file never has to know an implication table).
enum class Scope : std::uint8_t {
  kRead = 1U << 0,    // GET endpoints
  kSubmit = 1U << 1,  // POST /v1/jobs
  kAdmin = 1U << 2,   // operator endpoints (POST /v1/cache/refresh, ...)
};

// A set of scopes as a bitmask. A value type; safe to copy between threads.
class Scopes {
 public:
  constexpr Scopes() = default;
  constexpr Scopes(std::initializer_list<Scope> scopes) {
    for (const Scope scope : scopes) Add(scope);
  }

  // True when `scope` is in the set.
  constexpr bool HasScope(Scope scope) const {
    return (bits_ & static_cast<std::uint8_t>(scope)) != 0;
  }
  constexpr void Add(Scope scope) { bits_ |= static_cast<std::uint8_t>(scope); }
  constexpr bool empty() const { return bits_ == 0; }

  // The scope names in the file's spelling and a fixed order, comma
  // separated: "read,submit,admin"; "" for the empty set.
  std::string ToString() const;

  friend constexpr bool operator==(Scopes, Scopes) = default;

 private:
  std::uint8_t bits_ = 0;
};

// Parses one scope name as spelled in the token file ("read", "submit",
// "admin"; lowercase only). Returns nullopt for anything else.
std::optional<Scope> ParseScope(std::string_view name);

// Who a presented token belongs to and what it may do.
struct TokenGrant {
  std::string user;  // a user name as in the token file (not checked against passwd here)
  Scopes scopes;
};

// The bearer tokens the daemon accepts, as loaded from the token file.
//
// Token file format (`[auth] tokens_file`, e.g. /etc/bplace/tokens):
//
//   # comment
//   sha256:<64 hex digits> <user> <scopes>
//
// One token per line, fields separated by spaces or tabs. The first field is
// the SHA-256 of the token's exact bytes, in hex (either case), after the
// literal "sha256:"; the token itself never appears in the file (tools/
// bplace-token makes a token and its line). <user> is 1 to 64 characters of
// [A-Za-z0-9._-], not starting with '-' or '.'. <scopes> is a comma list
// without spaces of `read`, `submit`, `admin`, each at most once. Lines
// whose first non-blank character is '#' and blank lines are ignored; a '#'
// elsewhere is not a comment. A user may have several lines (several tokens,
// e.g. during a rotation); a hash may appear only once. At most 1 MiB.
//
// Thread-safety: immutable after Parse/Load, so const calls from any number
// of threads are safe. The daemon holds the current store in a
// std::shared_ptr<const TokenStore> and swaps in a newly loaded one on SIGHUP.
class TokenStore {
 public:
  static constexpr std::size_t kMaxFileBytes = 1024 * 1024;

  // An empty store: authenticates no one.
  TokenStore() = default;

  // Reads and parses the token file at `path`; blocks on the read. The file is
  // opened once (O_NOFOLLOW) and checked with fstat on that descriptor, so
  // what is checked is what is read. Fails with:
  //   kNotFound         "PATH: open: <errno text>" (missing, no permission),
  //                     "PATH: read: <errno text>"
  //   kInvalidArgument  "PATH: is a symbolic link; name the file itself"
  //                     "PATH: not a regular file (directory)" (or fifo, socket,
  //                       device)
  //                     "PATH: owned by uid 1234; must be owned by root or by
  //                       the daemon's user (uid 1000)"
  //                     "PATH: readable by group or others (mode 0644); run
  //                       chmod 600" (any bit of 077: "writable by", "open to")
  //                     "PATH: larger than 1048576 bytes"
  //                     or a Parse error with SOURCE = PATH.
  static Result<TokenStore> Load(const std::string& path);

  // Parses the text of a token file (see the class comment); `source_name`
  // names it in messages. Pure: no I/O. Fails with kInvalidArgument
  // "SOURCE:LINE: problem", for the first problem found:
  //   "expected `sha256:<hex> <user> <scopes>`, got 2 fields"
  //   "hash must start with `sha256:`"
  //   "hash must be 64 hex digits, got 63 characters"
  //   "hash has a non-hex character `g`"
  //   "duplicate token hash (first on line 2)"
  //   "bad user name `-x`: 1 to 64 of [A-Za-z0-9._-], not starting with - or ."
  //   "unknown scope `wrte`; expected read, submit or admin"
  //   "scope `read` listed twice" / "empty scope in `read,,submit`"
  //   "control character 0x0d"  (except as a trailing CR of a CRLF line)
  // and "SOURCE: larger than 1048576 bytes".
  static Result<TokenStore> Parse(std::string_view text, std::string_view source_name);

  // Finds the entry whose hash is the SHA-256 of `presented_token` and returns
  // its user and scopes; nullopt when none matches, when the token is empty,
  // or when hashing fails. Runs in time independent of which entry (if any)
  // matches and of how much of a digest matches: every entry is compared with
  // CRYPTO_memcmp and the loop never exits early. The token is neither logged
  // nor kept. Non-blocking; thread-safe.
  std::optional<TokenGrant> Authenticate(std::string_view presented_token) const;

  // Number of tokens in the store.
  std::size_t size() const { return entries_.size(); }

 private:
  using Digest = std::array<unsigned char, 32>;
  struct Entry {
    Digest digest;
    std::string user;
    Scopes scopes;
  };

  std::vector<Entry> entries_;
};

// Extracts the token from an `Authorization` header value of the form
// "Bearer <token>" (RFC 6750 section 2.1): the scheme matched without regard
// to case, one or more spaces, then exactly one token of the b64token
// characters [A-Za-z0-9-._~+/] followed by any '=' padding. Returns nullopt
// for another scheme, a missing or empty token, a second token, tabs,
// trailing spaces or any other character (control characters included). The
// returned view points into `header_value`. Pure.
std::optional<std::string_view> BearerToken(std::string_view header_value);

}  // namespace bplace::api
