#pragma once

// Where bplaced is and how the bplace command proves who it is: the
// endpoint (`--url`, `$BPLACE_URL`, else the Unix socket) and the bearer
// token for TCP (`$BPLACE_TOKEN`, else the token file).

#include <map>
#include <optional>
#include <string>

#include "common/result.h"

namespace bplace::client {

// The socket bplaced listens on in the shipped units (deploy/bplaced.service).
inline constexpr char kDefaultUrl[] = "unix:/run/bplace/bplace.sock";

// One way to reach bplaced.
struct Endpoint {
  enum class Kind { kUnix, kTcp };
  Kind kind = Kind::kUnix;
  std::string path;  // kUnix: the socket's path
  std::string host;  // kTcp: "127.0.0.1", "::1" (no brackets), a name
  std::string port;  // kTcp: decimal
  std::string text;  // as given, for messages ("unix:/run/bplace/bplace.sock")
};

// Reads `unix:/PATH` or `http://HOST:PORT` (HOST a name, an IPv4 address or
// `[v6]`; a trailing "/" is allowed, no other path). Pure. Returns
// kInvalidArgument naming what is wrong: another scheme (`https` included:
// bplaced speaks plain HTTP, TLS belongs to a proxy in front), a relative
// socket path or one over 107 bytes (sockaddr_un), a missing or non-numeric
// port, a path after the port.
Result<Endpoint> ParseEndpoint(const std::string& url);

// The endpoint to use: `url_option` (from --url) when not empty, else
// $BPLACE_URL from `env` when not empty, else kDefaultUrl. Errors as
// ParseEndpoint, with the source named ("$BPLACE_URL: ...").
Result<Endpoint> ChooseEndpoint(const std::string& url_option,
                                const std::map<std::string, std::string>& env);

// The token file: $XDG_CONFIG_HOME/bplace/token, else
// $HOME/.config/bplace/token; empty when neither variable is set.
std::string TokenFilePath(const std::map<std::string, std::string>& env);

// The bearer token for a TCP endpoint: $BPLACE_TOKEN when set and not
// empty, else the first line of the token file (blanks trimmed), else none.
// Reads the file (blocks on it). Returns kPermissionDenied when the file is
// readable or writable by group or others ("chmod 600 PATH"), and
// kInvalidArgument when it cannot be read or holds no token; a missing file
// is no token, not an error.
Result<std::optional<std::string>> ChooseToken(const std::map<std::string, std::string>& env);

}  // namespace bplace::client
