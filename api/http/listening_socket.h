#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <sys/types.h>

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "api/http/http_server.h"
#include "common/result.h"

namespace bplace::api {

// One socket type for TCP and Unix connections: the session does not care
// which it has, and one class keeps the deadlines and limits identical.
using Protocol = boost::asio::generic::stream_protocol;
using Socket = Protocol::socket;

// Who is at the other end of an accepted connection, as RequestContext
// reports it.
struct Peer {
  std::string remote;
  // TCP: the remote address without the port ("127.0.0.1", "::1"), which the
  // per-peer connection cap counts by; "" for Unix and when unknown.
  std::string address;
  Transport transport = Transport::kTcp;
  std::optional<PeerCredentials> credentials;
};

// One listening socket of an HttpServer, opened from a ListenerSpec: a TCP
// socket it bound, a Unix socket file it created (and removes again), or a
// socket inherited already listening (systemd socket activation). Does not
// accept by itself; the server runs the accept loop on acceptor().
//
// Thread safety: transport(), address() and tcp_endpoint() are constant after
// Open and may be read from any thread. Everything else (the acceptor, Close,
// ReleaseIfInherited, IdentifyPeer) belongs to the acceptor's strand, or to
// whoever holds the socket before the io_context runs it.
class ListeningSocket {
 public:
  using Acceptor = boost::asio::basic_socket_acceptor<Protocol>;

  // Opens the listener `spec` names, as HttpServer::Create documents it (the
  // address forms, stale socket files, socket_mode and socket_group, the
  // checks on an inherited fd) and with the same errors: kInvalidArgument for
  // a malformed spec, kUnavailable with the system's reason when the system
  // refuses. The acceptor runs on a new strand of `ioc`. Blocks only in
  // system calls and, when a socket_group is named, in getgrnam_r (NSS). On
  // failure nothing is left behind: sockets opened are closed, a socket file
  // created is removed, and an inherited fd is still open and the caller's.
  static Result<std::unique_ptr<ListeningSocket>> Open(boost::asio::io_context& ioc,
                                                       const ListenerSpec& spec);

  // Closes the socket (unless Release gave it away) and removes the socket
  // file, if this socket created one and it is still the same file.
  ~ListeningSocket();

  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;

  // The acceptor to run the accept loop on; its executor is the strand.
  Acceptor& acceptor() { return acceptor_; }

  // kUnix for a Unix-domain socket, kTcp for IPv4 and IPv6.
  Transport transport() const { return transport_; }

  // The listener as HttpServer::BoundAddresses shows it: "127.0.0.1:41234",
  // "[::1]:8080", "unix:/run/bplace/bplace.sock", or for an inherited socket
  // without a path its label or "fd:N".
  const std::string& address() const { return address_; }

  // The address a TCP listener is bound to, with the port the kernel chose;
  // nullopt for a Unix socket.
  const std::optional<boost::asio::ip::tcp::endpoint>& tcp_endpoint() const {
    return tcp_endpoint_;
  }

  // Stops listening: connect attempts are refused from now on, and pending
  // accepts complete with operation_aborted. Removes the socket file as the
  // destructor would, so that a successor daemon finds the path free at once.
  // Idempotent.
  void Close();

  // For an inherited socket only: gives the fd back to the caller, so that
  // neither Close nor the destructor closes it. Does nothing for others.
  void ReleaseIfInherited();

  // Says who connected on `socket`, a connection accepted here. For a Unix
  // socket that is the kernel's record of the connecting process
  // (SO_PEERCRED, taken at connect and unforgeable), which handlers may use
  // for authorisation; nullopt, with an error in the log, when the kernel
  // will not say. For TCP the remote address ("?" when it cannot be read).
  std::optional<Peer> IdentifyPeer(Socket& socket) const;

 private:
  ListeningSocket(Acceptor acceptor, Transport transport);

  static Result<std::unique_ptr<ListeningSocket>> OpenTcp(boost::asio::io_context& ioc,
                                                          const ListenerSpec& spec,
                                                          const std::string& host,
                                                          std::uint16_t port);
  static Result<std::unique_ptr<ListeningSocket>> OpenUnix(boost::asio::io_context& ioc,
                                                           const ListenerSpec& spec,
                                                           const std::string& path);
  static Result<std::unique_ptr<ListeningSocket>> Adopt(boost::asio::io_context& ioc,
                                                        const ListenerSpec& spec);

  // Removes the socket file this process created, unless it has gone or been
  // replaced since.
  void RemoveSocketFile();

  Acceptor acceptor_;
  const Transport transport_;
  std::string address_;
  std::optional<boost::asio::ip::tcp::endpoint> tcp_endpoint_;
  bool inherited_ = false;    // the fd came from our parent
  std::string created_path_;  // the socket file we made; "" when none
  dev_t created_dev_ = 0;
  ino_t created_ino_ = 0;
};

}  // namespace bplace::api
