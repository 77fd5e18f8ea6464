#include "api/http/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>

namespace bplace::api {
namespace {

constexpr std::string_view kForm =
    "expected HOST:PORT (e.g. 127.0.0.1:8080 or [::1]:8080) or unix:/PATH";
constexpr std::string_view kUnixPrefix = "unix:";
// sizeof(sockaddr_un::sun_path) is 108 on Linux, including the terminating NUL.
constexpr std::size_t kMaxUnixPathBytes = 107;

bool IsIpv4Literal(const std::string& host) {
  // inet_pton, unlike inet_aton, takes only the four-part decimal form, so
  // "127.1" and "0x7f.0.0.1" are refused rather than silently reinterpreted.
  in_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1;
}

bool IsIpv6Literal(const std::string& host) {
  in6_addr address{};
  return inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

Result<std::uint16_t> ParsePort(std::string_view text) {
  // from_chars alone would accept a prefix ("80x") and cannot reject "+80";
  // requiring all digits keeps "port" meaning exactly what was written.
  for (char c : text) {
    if (c < '0' || c > '9') {
      return Fail(ErrorCode::kInvalidArgument,
                  "port must be a decimal number 0..65535, got `" + std::string(text) + "`");
    }
  }
  unsigned long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value > 65535) {
    return Fail(ErrorCode::kInvalidArgument,
                "port must be between 0 and 65535, got " + std::string(text));
  }
  return static_cast<std::uint16_t>(value);
}

Result<ListenAddress> ParseUnixAddress(std::string_view path) {
  if (path.empty() || path.front() != '/') {
    return Fail(ErrorCode::kInvalidArgument,
                "a Unix socket needs an absolute path, as in unix:/run/bplace/bplace.sock; got `" +
                    std::string(path) + "`");
  }
  if (path.size() > kMaxUnixPathBytes) {
    return Fail(ErrorCode::kInvalidArgument,
                "Unix socket path longer than " + std::to_string(kMaxUnixPathBytes) + " bytes");
  }
  if (path.find('\0') != std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "Unix socket path holds a NUL byte");
  }
  if (path.back() == '/') {
    return Fail(ErrorCode::kInvalidArgument,
                "Unix socket path `" + std::string(path) + "` names a directory");
  }
  ListenAddress address;
  address.unix_path = std::string(path);
  return address;
}

// Where the host ends and the port begins, before either is checked further.
// `port` points into the text given to the function that returned it.
struct HostAndPort {
  std::string host;
  std::string_view port;
};

// Splits "[IPV6]:PORT" (`text` starts with '['). Returns kInvalidArgument for
// a missing `]`, port or host, and for a host that is not an IPv6 address.
Result<HostAndPort> SplitBracketedHost(std::string_view text) {
  const std::size_t close = text.find(']');
  if (close == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument,
                "missing `]` after the IPv6 address in `" + std::string(text) + "`");
  }
  HostAndPort parts{std::string(text.substr(1, close - 1)), {}};
  const std::string_view rest = text.substr(close + 1);
  if (rest.empty() || rest.front() != ':') {
    return Fail(ErrorCode::kInvalidArgument,
                "missing port after `]` in `" + std::string(text) + "`; " + std::string(kForm));
  }
  parts.port = rest.substr(1);
  if (parts.port.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "missing port in `" + std::string(text) + "`; " + std::string(kForm));
  }
  if (parts.host.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "missing host in `" + std::string(text) + "`");
  }
  if (!IsIpv6Literal(parts.host)) {
    return Fail(ErrorCode::kInvalidArgument, "`" + parts.host + "` is not an IPv6 address");
  }
  return parts;
}

// Splits "IPV4:PORT" or "localhost:PORT", the latter returned as 127.0.0.1.
// Returns kInvalidArgument for a missing port or host, an IPv6 address
// without brackets, and any other host.
Result<HostAndPort> SplitPlainHost(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument,
                "missing port in `" + std::string(text) + "`; " + std::string(kForm));
  }
  HostAndPort parts{std::string(text.substr(0, colon)), text.substr(colon + 1)};
  if (parts.host.find(':') != std::string::npos) {
    return Fail(
        ErrorCode::kInvalidArgument,
        "an IPv6 address needs brackets, as in [::1]:8080; got `" + std::string(text) + "`");
  }
  // Missing parts first: "login01:" is better answered "missing port" than
  // "not an IPv4 address".
  if (parts.port.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "missing port in `" + std::string(text) + "`; " + std::string(kForm));
  }
  if (parts.host.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "missing host in `" + std::string(text) + "`; " + std::string(kForm));
  }
  if (parts.host == "localhost") {
    // Resolving "localhost" may yield ::1, 127.0.0.1 or both depending on
    // /etc/hosts; binding the IPv4 loopback is what users of login nodes mean.
    parts.host = "127.0.0.1";
  } else if (!IsIpv4Literal(parts.host)) {
    return Fail(ErrorCode::kInvalidArgument,
                "host must be an IPv4 address, `localhost` or a bracketed IPv6 address; got `" +
                    parts.host + "`");
  }
  return parts;
}

}  // namespace

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  if (text.empty()) {
    return Fail(ErrorCode::kInvalidArgument, std::string(kForm) + ", got an empty string");
  }
  if (text.starts_with(kUnixPrefix)) {
    return ParseUnixAddress(text.substr(kUnixPrefix.size()));
  }
  // Every problem of the host (and a missing port) is reported before a bad
  // port number, as the split functions check the host in full first.
  auto parts = text.front() == '[' ? SplitBracketedHost(text) : SplitPlainHost(text);
  if (!parts) {
    return tl::unexpected(parts.error());
  }
  auto port = ParsePort(parts->port);
  if (!port) {
    return tl::unexpected(port.error());
  }
  ListenAddress address;
  address.host = std::move(parts->host);
  address.port = *port;
  return address;
}

std::string FormatListenAddress(const ListenAddress& address) {
  if (!address.unix_path.empty()) {
    return std::string(kUnixPrefix) + address.unix_path;
  }
  const std::string port = std::to_string(address.port);
  if (address.host.find(':') != std::string::npos) {
    return "[" + address.host + "]:" + port;
  }
  return address.host + ":" + port;
}

}  // namespace bplace::api
