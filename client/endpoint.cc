#include "client/endpoint.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/text.h"

namespace bplace::client {
namespace {

std::string Lookup(const std::map<std::string, std::string>& env, const std::string& name) {
  const auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

Result<Endpoint> ParseHttp(const std::string& url, std::string rest) {
  Endpoint endpoint;
  endpoint.kind = Endpoint::Kind::kTcp;
  endpoint.text = url;
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) {
    return Fail(ErrorCode::kInvalidArgument,
                url + ": no path after HOST:PORT (bplace adds the /v1/... paths itself)");
  }
  std::string::size_type colon;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) {
      return Fail(ErrorCode::kInvalidArgument, url + ": '[' of an IPv6 address without ']'");
    }
    endpoint.host = rest.substr(1, close - 1);
    colon = close + 1;
    if (colon < rest.size() && rest[colon] != ':') colon = std::string::npos;
  } else {
    colon = rest.rfind(':');
    endpoint.host = rest.substr(0, colon);
  }
  if (colon == std::string::npos || colon >= rest.size()) {
    return Fail(ErrorCode::kInvalidArgument, url + ": expected http://HOST:PORT (no port given)");
  }
  endpoint.port = rest.substr(colon + 1);
  if (endpoint.host.empty()) {
    return Fail(ErrorCode::kInvalidArgument, url + ": expected http://HOST:PORT (no host given)");
  }
  if (!AllDigits(endpoint.port) || endpoint.port.size() > 5 || std::stoi(endpoint.port) > 65535 ||
      std::stoi(endpoint.port) == 0) {
    return Fail(ErrorCode::kInvalidArgument,
                url + ": port must be a number from 1 to 65535, got \"" + endpoint.port + "\"");
  }
  return endpoint;
}

}  // namespace

Result<Endpoint> ParseEndpoint(const std::string& url) {
  static constexpr std::string_view kUnix = "unix:";
  static constexpr std::string_view kHttp = "http://";
  if (url.rfind(kUnix, 0) == 0) {
    Endpoint endpoint;
    endpoint.path = url.substr(kUnix.size());
    endpoint.text = url;
    if (endpoint.path.empty() || endpoint.path.front() != '/') {
      return Fail(ErrorCode::kInvalidArgument,
                  url + ": expected unix:/ABSOLUTE/PATH of bplaced's socket");
    }
    // sockaddr_un holds 108 bytes with the terminating NUL (unix(7)).
    if (endpoint.path.size() > 107) {
      return Fail(
          ErrorCode::kInvalidArgument,
          url + ": socket path longer than 107 bytes, more than a Unix socket address holds");
    }
    return endpoint;
  }
  if (url.rfind(kHttp, 0) == 0) return ParseHttp(url, url.substr(kHttp.size()));
  if (url.rfind("https://", 0) == 0) {
    return Fail(ErrorCode::kInvalidArgument,
                url +
                    ": bplaced speaks plain HTTP; TLS is a proxy's job (use http:// to the proxy's "
                    "backend or unix:/PATH)");
  }
  return Fail(ErrorCode::kInvalidArgument, url + ": expected unix:/PATH or http://HOST:PORT");
}

Result<Endpoint> ChooseEndpoint(const std::string& url_option,
                                const std::map<std::string, std::string>& env) {
  if (!url_option.empty()) {
    auto parsed = ParseEndpoint(url_option);
    if (!parsed) return Fail(parsed.error().code, "--url " + parsed.error().message);
    return parsed;
  }
  const std::string from_env = Lookup(env, "BPLACE_URL");
  if (!from_env.empty()) {
    auto parsed = ParseEndpoint(from_env);
    if (!parsed) return Fail(parsed.error().code, "$BPLACE_URL " + parsed.error().message);
    return parsed;
  }
  return ParseEndpoint(kDefaultUrl);
}

std::string TokenFilePath(const std::map<std::string, std::string>& env) {
  const std::string config_home = Lookup(env, "XDG_CONFIG_HOME");
  if (!config_home.empty()) return config_home + "/bplace/token";
  const std::string home = Lookup(env, "HOME");
  if (!home.empty()) return home + "/.config/bplace/token";
  return {};
}

Result<std::optional<std::string>> ChooseToken(const std::map<std::string, std::string>& env) {
  const std::string from_env = Lookup(env, "BPLACE_TOKEN");
  if (!from_env.empty()) return std::optional<std::string>(from_env);
  const std::string path = TokenFilePath(env);
  if (path.empty()) return std::optional<std::string>();
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return Fail(ErrorCode::kInvalidArgument, "token file " + path + ": " + std::strerror(errno));
  }
  // A token is a password: like ssh with its keys, refuse one others can read.
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return Fail(ErrorCode::kPermissionDenied,
                "token file " + path +
                    " is accessible by group or others; refusing to use it (chmod 600 " + path +
                    ")");
  }
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) {
    return Fail(ErrorCode::kInvalidArgument, "token file " + path + ": cannot read a token");
  }
  const std::string token(Trim(line));
  if (token.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "token file " + path + ": first line is empty");
  }
  return std::optional<std::string>(token);
}

}  // namespace bplace::client
