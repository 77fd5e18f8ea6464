#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace bplace::api {

// Where an HTTP listener binds: a numeric address and a TCP port, or a Unix
// domain socket path.
struct ListenAddress {
  // Non-empty for a Unix socket ("unix:/run/bplace/bplace.sock"); then `host`
  // and `port` are unused.
  std::string unix_path;
  // An IPv4 dotted quad ("127.0.0.1", "0.0.0.0") or an IPv6 address without
  // brackets ("::1"); always a literal that asio::ip::make_address accepts.
  std::string host;
  std::uint16_t port = 0;  // 0: the kernel picks a free port
};

// Parses one listener as `server.listen` and the daemon's `--listen` flag take
// it: "unix:/ABSOLUTE/PATH" (at most 107 bytes, the limit of sun_path) or
// "HOST:PORT". HOST is an IPv4 dotted quad, `localhost`, or an IPv6 address in brackets
// ("[::1]:8080"); PORT is decimal 0..65535. Host names other than `localhost`
// are refused so that start-up never depends on a resolver; `localhost` is
// returned as "127.0.0.1". Returns kInvalidArgument saying what is wrong
// (missing host, missing port, port out of range, unbracketed IPv6, ...).
// The message does not repeat the input's source: callers prefix it.
Result<ListenAddress> ParseListenAddress(std::string_view text);

// Formats `address` back as "HOST:PORT", bracketing IPv6 hosts, or as
// "unix:PATH"; the inverse of ParseListenAddress except that `localhost`
// comes back as "127.0.0.1".
std::string FormatListenAddress(const ListenAddress& address);

}  // namespace bplace::api
