#include "api/http/listening_socket.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>

#include "api/http/listen_address.h"
#include "common/sys_error.h"

namespace bplace::api {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using Acceptor = ListeningSocket::Acceptor;

namespace {

std::string ErrnoText(int error) { return std::system_category().message(error); }

std::string EndpointText(const tcp::endpoint& endpoint) {
  const net::ip::address address = endpoint.address();
  const std::string port = std::to_string(endpoint.port());
  if (address.is_v6()) return "[" + address.to_string() + "]:" + port;
  return address.to_string() + ":" + port;
}

// The TCP endpoint in a generic one, if it holds an IPv4 or IPv6 address.
std::optional<tcp::endpoint> ToTcp(const Protocol::endpoint& generic) {
  const int family = generic.data()->sa_family;
  tcp::endpoint endpoint;
  if ((family != AF_INET && family != AF_INET6) || generic.size() > endpoint.capacity()) {
    return std::nullopt;
  }
  std::memcpy(endpoint.data(), generic.data(), generic.size());
  endpoint.resize(generic.size());
  return endpoint;
}

// "unix:/path" for a Unix socket bound to a path; empty for an unnamed or
// abstract one (whose name starts with a NUL byte).
std::string UnixPathText(const Protocol::endpoint& generic) {
  if (generic.data()->sa_family != AF_UNIX) return "";
  const auto* address = reinterpret_cast<const sockaddr_un*>(generic.data());
  const std::size_t offset = offsetof(sockaddr_un, sun_path);
  if (generic.size() <= offset || address->sun_path[0] == '\0') return "";
  const std::size_t max = generic.size() - offset;
  return "unix:" + std::string(address->sun_path, strnlen(address->sun_path, max));
}

// Returns the gid of group `name` (a name, not a number). Blocks in NSS.
Result<gid_t> LookupGroup(const std::string& where, const std::string& name) {
  std::vector<char> buffer(1024);
  for (;;) {
    group entry{};
    group* found = nullptr;
    const int error = getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
    if (error == ERANGE && buffer.size() < (1u << 20)) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (error != 0) {
      return SysError(where + ": looking up group '" + name + "': getgrnam_r", error,
                      ErrorCode::kUnavailable);
    }
    if (found == nullptr) {
      return Fail(ErrorCode::kInvalidArgument,
                  where + ": socket_group: unknown group '" + name + "'");
    }
    return entry.gr_gid;
  }
}

// Checks socket_mode and resolves socket_group of a Unix listener spec:
// returns the gid to give the socket file, nullopt to keep the process's.
Result<std::optional<gid_t>> ResolveSocketAccess(const std::string& where,
                                                 const ListenerSpec& spec) {
  if (spec.socket_mode > 07777) {
    char mode[16];
    std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(spec.socket_mode));
    return Fail(ErrorCode::kInvalidArgument,
                where + ": socket_mode 0" + std::string(mode) + " is not a permission mode");
  }
  if (spec.socket_group.empty()) return std::optional<gid_t>();
  auto found = LookupGroup(where, spec.socket_group);
  if (!found) return tl::unexpected(found.error());
  return std::optional<gid_t>(*found);
}

// Checks that the directory `path` goes into exists: bind would say only "No
// such file or directory", which reads as if the socket itself were meant.
Result<void> CheckParentDirectory(const std::string& where, const std::string& path) {
  const std::string directory = path.substr(0, std::max<std::size_t>(path.rfind('/'), 1));
  struct stat status {};
  if (stat(directory.c_str(), &status) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      return Fail(ErrorCode::kUnavailable, where + ": directory " + directory + " does not exist");
    }
    return SysError(where + ": stat " + directory, error, ErrorCode::kUnavailable);
  }
  if (!S_ISDIR(status.st_mode)) {
    return Fail(ErrorCode::kUnavailable, where + ": " + directory + " is not a directory");
  }
  return {};
}

// Makes `path` free for a new socket: nothing there, or a socket nobody
// listens on any more, which is removed. A daemon killed with SIGKILL leaves
// its socket file behind, and bind would fail with EADDRINUSE on it forever.
// Anything else is refused: a live socket means another bplaced (two would
// steal each other's clients), and a non-socket is not ours to delete.
Result<void> ClearStaleSocket(const std::string& where, const std::string& path) {
  struct stat status {};
  if (lstat(path.c_str(), &status) != 0) {
    const int error = errno;
    if (error == ENOENT) return {};
    return SysError(where + ": lstat", error, ErrorCode::kUnavailable);
  }
  if (!S_ISSOCK(status.st_mode)) {
    return Fail(ErrorCode::kUnavailable, where + ": exists and is not a socket; not removing it");
  }
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (probe < 0) {
    const int error = errno;
    return SysError(where + ": socket", error, ErrorCode::kUnavailable);
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());  // length checked by the parser
  // Non-blocking, so a listener whose backlog is full answers EAGAIN at once
  // instead of making us wait.
  const int result = connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int error = result == 0 ? 0 : errno;
  close(probe);
  if (result == 0 || error == EAGAIN || error == EINPROGRESS) {
    return Fail(ErrorCode::kUnavailable, where + ": another process is listening there");
  }
  if (error != ECONNREFUSED) {
    return SysError(where + ": cannot tell whether another process listens there: connect", error,
                    ErrorCode::kUnavailable);
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    const int unlink_error = errno;
    return SysError(where + ": removing the stale socket: unlink", unlink_error,
                    ErrorCode::kUnavailable);
  }
  spdlog::info("http: {}: removed a stale socket file nobody listened on", where);
  return {};
}

// Gives the socket file at `path` its mode and group. (fchmod on a socket fd
// does not reach the file on Linux, hence the path; AT_SYMLINK_NOFOLLOW and
// lchown so that a symlink swapped in since the bind is refused, not
// followed.)
Result<void> SetSocketFileAccess(const std::string& where, const std::string& path,
                                 const ListenerSpec& spec, std::optional<gid_t> gid) {
  if (fchmodat(AT_FDCWD, path.c_str(), static_cast<mode_t>(spec.socket_mode),
               AT_SYMLINK_NOFOLLOW) != 0) {
    const int error = errno;
    return SysError(where + ": chmod", error, ErrorCode::kUnavailable);
  }
  if (gid && lchown(path.c_str(), static_cast<uid_t>(-1), *gid) != 0) {
    const int error = errno;
    return SysError(where + ": chown to group '" + spec.socket_group + "'", error,
                    ErrorCode::kUnavailable);
  }
  return {};
}

// Checks that `fd` is an open, listening SOCK_STREAM socket; returns its fd
// flags (F_GETFD). Checked first, since a wrong fd number would otherwise
// surface only as accept errors at run time.
Result<int> CheckInheritedFd(const std::string& where, int fd) {
  const int fd_flags = fcntl(fd, F_GETFD);
  if (fd_flags < 0) {
    const int error = errno;
    return SysError(where + " is not open: fcntl", error, ErrorCode::kInvalidArgument);
  }
  const auto not_listening = [&where] {
    return Fail(ErrorCode::kInvalidArgument, where + " is not a listening stream socket");
  };
  int type = 0;
  socklen_t size = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) {
    return not_listening();
  }
  int accepting = 0;
  size = sizeof accepting;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &size) != 0 || accepting == 0) {
    return not_listening();
  }
  return fd_flags;
}

// The address text of an inherited socket: its own address when it has one
// that names it, else the spec's label, else "fd:N".
std::string InheritedAddressText(const Protocol::endpoint& bound, const ListenerSpec& spec) {
  if (const std::optional<tcp::endpoint> tcp_bound = ToTcp(bound)) return EndpointText(*tcp_bound);
  std::string text = UnixPathText(bound);
  if (!text.empty()) return text;
  return spec.address.empty() ? "fd:" + std::to_string(spec.inherited_fd) : spec.address;
}

}  // namespace

ListeningSocket::ListeningSocket(Acceptor acceptor, Transport transport)
    : acceptor_(std::move(acceptor)), transport_(transport) {}

ListeningSocket::~ListeningSocket() { RemoveSocketFile(); }

Result<std::unique_ptr<ListeningSocket>> ListeningSocket::Open(net::io_context& ioc,
                                                               const ListenerSpec& spec) {
  if (spec.inherited_fd >= 0) return Adopt(ioc, spec);
  auto parsed = api::ParseListenAddress(spec.address);
  if (!parsed) {
    return Fail(ErrorCode::kInvalidArgument,
                "listen address '" + spec.address + "': " + parsed.error().message);
  }
  if (!parsed->unix_path.empty()) return OpenUnix(ioc, spec, parsed->unix_path);
  return OpenTcp(ioc, spec, parsed->host, parsed->port);
}

Result<std::unique_ptr<ListeningSocket>> ListeningSocket::OpenTcp(net::io_context& ioc,
                                                                  const ListenerSpec& spec,
                                                                  const std::string& host,
                                                                  std::uint16_t port) {
  const std::string& where = spec.address;
  beast::error_code ec;
  const net::ip::address address = net::ip::make_address(host, ec);
  if (ec) {
    return Fail(ErrorCode::kInvalidArgument,
                "listen address '" + where + "': '" + host + "' is not an IP address");
  }
  const tcp::endpoint endpoint(address, port);
  Acceptor acceptor(net::make_strand(ioc));
  acceptor.open(Protocol(endpoint.protocol().family(), endpoint.protocol().protocol()), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "socket for " + where + ": " + ec.message());
  // Lets a restarted daemon bind while old connections sit in TIME_WAIT. On
  // Linux it does not allow two listeners on one port.
  acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "setsockopt SO_REUSEADDR: " + ec.message());
  acceptor.bind(Protocol::endpoint(endpoint), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "bind " + where + ": " + ec.message());
  acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "listen " + where + ": " + ec.message());
  const std::optional<tcp::endpoint> bound = ToTcp(acceptor.local_endpoint(ec));
  if (ec || !bound) {
    return Fail(ErrorCode::kUnavailable, "getsockname " + where + ": " + ec.message());
  }
  std::unique_ptr<ListeningSocket> listener(
      new ListeningSocket(std::move(acceptor), Transport::kTcp));
  listener->tcp_endpoint_ = *bound;
  listener->address_ = EndpointText(*bound);
  return listener;
}

Result<std::unique_ptr<ListeningSocket>> ListeningSocket::OpenUnix(net::io_context& ioc,
                                                                   const ListenerSpec& spec,
                                                                   const std::string& path) {
  const std::string where = "unix:" + path;
  auto gid = ResolveSocketAccess(where, spec);
  if (!gid) return tl::unexpected(gid.error());
  if (auto ok = CheckParentDirectory(where, path); !ok) return tl::unexpected(ok.error());
  if (auto ok = ClearStaleSocket(where, path); !ok) return tl::unexpected(ok.error());

  beast::error_code ec;
  Acceptor acceptor(net::make_strand(ioc));
  acceptor.open(Protocol(AF_UNIX, 0), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "socket for " + where + ": " + ec.message());
  acceptor.bind(Protocol::endpoint(net::local::stream_protocol::endpoint(path)), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "bind " + where + ": " + ec.message());
  struct stat status {};
  if (lstat(path.c_str(), &status) != 0) {
    const int error = errno;
    return SysError(where + ": lstat after bind", error, ErrorCode::kUnavailable);
  }
  // From here on the file is ours: every failure below removes it again
  // (the destructor).
  std::unique_ptr<ListeningSocket> listener(
      new ListeningSocket(std::move(acceptor), Transport::kUnix));
  listener->address_ = where;
  listener->created_path_ = path;
  listener->created_dev_ = status.st_dev;
  listener->created_ino_ = status.st_ino;
  // Before listen: until then a connect is refused, so nobody gets in
  // through the permissions the umask gave the file.
  if (auto ok = SetSocketFileAccess(where, path, spec, *gid); !ok) {
    return tl::unexpected(ok.error());
  }
  listener->acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "listen " + where + ": " + ec.message());
  return listener;
}

// Takes over a socket someone else bound and made listen (systemd passes
// them from fd 3 on, see sd_listen_fds(3)).
Result<std::unique_ptr<ListeningSocket>> ListeningSocket::Adopt(net::io_context& ioc,
                                                                const ListenerSpec& spec) {
  const int fd = spec.inherited_fd;
  const std::string where = "inherited fd " + std::to_string(fd);
  auto fd_flags = CheckInheritedFd(where, fd);
  if (!fd_flags) return tl::unexpected(fd_flags.error());
  sockaddr_storage storage{};
  socklen_t length = sizeof storage;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0) {
    const int error = errno;
    return SysError(where + ": getsockname", error, ErrorCode::kUnavailable);
  }
  const int family = storage.ss_family;
  if (family != AF_INET && family != AF_INET6 && family != AF_UNIX) {
    return Fail(ErrorCode::kInvalidArgument, where + " has address family " +
                                                 std::to_string(family) +
                                                 "; expected AF_INET, AF_INET6 or AF_UNIX");
  }
  int protocol = 0;
  socklen_t size = sizeof protocol;
  if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &size) != 0) protocol = 0;
  // Our children (none today; LSF commands run elsewhere) must not keep the
  // API socket open after we exit.
  if (fcntl(fd, F_SETFD, *fd_flags | FD_CLOEXEC) != 0) {
    const int error = errno;
    return SysError(where + ": fcntl FD_CLOEXEC", error, ErrorCode::kUnavailable);
  }
  const Protocol::endpoint bound(&storage, length, protocol);
  beast::error_code ec;
  Acceptor acceptor(net::make_strand(ioc));
  acceptor.assign(Protocol(family, protocol), fd, ec);
  if (ec) return Fail(ErrorCode::kUnavailable, where + ": " + ec.message());
  std::unique_ptr<ListeningSocket> listener(new ListeningSocket(
      std::move(acceptor), family == AF_UNIX ? Transport::kUnix : Transport::kTcp));
  listener->inherited_ = true;
  listener->tcp_endpoint_ = ToTcp(bound);
  listener->address_ = InheritedAddressText(bound, spec);
  return listener;
}

void ListeningSocket::Close() {
  beast::error_code ignored;
  acceptor_.close(ignored);
  RemoveSocketFile();
}

void ListeningSocket::ReleaseIfInherited() {
  if (!inherited_) return;
  beast::error_code ignored;
  acceptor_.release(ignored);
}

// Leaves the file alone when it has gone or been replaced since: another
// bplaced found ours stale after we stopped listening, and bound its own
// there.
void ListeningSocket::RemoveSocketFile() {
  if (created_path_.empty()) return;
  const std::string path = std::exchange(created_path_, std::string());
  struct stat status {};
  if (lstat(path.c_str(), &status) != 0 || status.st_dev != created_dev_ ||
      status.st_ino != created_ino_) {
    spdlog::info("http: unix:{} has been removed or replaced; leaving it", path);
    return;
  }
  if (unlink(path.c_str()) != 0) {
    const int error = errno;
    spdlog::warn("http: removing unix:{}: unlink: {}", path, ErrnoText(error));
  }
}

std::optional<Peer> ListeningSocket::IdentifyPeer(Socket& socket) const {
  Peer peer;
  peer.transport = transport_;
  if (transport_ == Transport::kUnix) {
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
      const int error = errno;
      spdlog::error("http: {}: getsockopt SO_PEERCRED on an accepted connection: {}; closing it",
                    address_, ErrnoText(error));
      return std::nullopt;
    }
    peer.credentials = PeerCredentials{credentials.pid, credentials.uid, credentials.gid};
    peer.remote =
        "unix:pid=" + std::to_string(credentials.pid) + ",uid=" + std::to_string(credentials.uid);
    return peer;
  }
  beast::error_code ec;
  const std::optional<tcp::endpoint> remote = ToTcp(socket.remote_endpoint(ec));
  peer.remote = ec || !remote ? std::string("?") : EndpointText(*remote);
  if (!ec && remote) {
    net::ip::address address = remote->address();
    // A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d; the cap
    // counts them with the same client on an IPv4 listener.
    if (address.is_v6() && address.to_v6().is_v4_mapped()) {
      address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
    }
    peer.address = address.to_string();
  }
  return peer;
}

}  // namespace bplace::api
