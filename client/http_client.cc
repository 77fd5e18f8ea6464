#include "client/http_client.h"

#include <cctype>
#include <cstdio>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "common/version.h"

namespace bplace::client {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

// Where an exchange ended.
struct Progress {
  bool connected = false;
  bool sent = false;
  bool done = false;
  bool timed_out = false;
  error_code error;
};

// Writes the request and reads the answer on a connected socket; the timer
// closes the socket at the deadline, which ends the pending operation.
template <typename Socket>
void SendAndRead(Socket& socket, const http::request<http::string_body>& request,
                 boost::beast::flat_buffer& buffer,
                 http::response_parser<http::string_body>& parser, Progress& progress,
                 asio::steady_timer& timer) {
  http::async_write(socket, request, [&](error_code ec, std::size_t) {
    if (ec) {
      progress.error = ec;
      timer.cancel();
      return;
    }
    progress.sent = true;
    http::async_read(socket, buffer, parser, [&](error_code read_ec, std::size_t) {
      progress.error = read_ec;
      progress.done = !read_ec;
      timer.cancel();
    });
  });
}

http::request<http::string_body> BuildRequest(const Endpoint& endpoint,
                                              const std::optional<std::string>& token,
                                              const HttpCall& call) {
  http::request<http::string_body> request;
  request.method_string(call.method);
  request.target(call.target);
  request.version(11);
  request.set(http::field::host,
              endpoint.kind == Endpoint::Kind::kUnix
                  ? std::string("localhost")
                  : (endpoint.host.find(':') != std::string::npos ? "[" + endpoint.host + "]"
                                                                  : endpoint.host) +
                        ":" + endpoint.port);
  request.set(http::field::user_agent, std::string("bplace/") + kVersion);
  request.set(http::field::accept, "application/json, application/problem+json");
  if (token) request.set(http::field::authorization, "Bearer " + *token);
  for (const auto& [name, value] : call.headers) request.set(name, value);
  if (!call.body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = call.body;
  }
  request.keep_alive(false);
  request.prepare_payload();
  return request;
}

}  // namespace

tl::expected<HttpAnswer, TransportError> Exchange(const Endpoint& endpoint,
                                                  const std::optional<std::string>& token,
                                                  const HttpCall& call,
                                                  std::chrono::milliseconds timeout) {
  asio::io_context io;
  asio::steady_timer timer(io);
  const auto request = BuildRequest(endpoint, token, call);
  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  // Answers are JSON documents; /v1/jobs pages stay far below this.
  parser.body_limit(64 * 1024 * 1024);
  Progress progress;

  asio::local::stream_protocol::socket unix_socket(io);
  asio::ip::tcp::socket tcp_socket(io);
  asio::ip::tcp::resolver resolver(io);
  timer.expires_after(timeout);
  timer.async_wait([&](error_code ec) {
    if (ec) return;  // cancelled: the exchange ended first
    progress.timed_out = true;
    error_code ignored;
    resolver.cancel();
    unix_socket.close(ignored);
    tcp_socket.close(ignored);
  });
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    unix_socket.async_connect(asio::local::stream_protocol::endpoint(endpoint.path),
                              [&](error_code ec) {
                                if (ec) {
                                  progress.error = ec;
                                  timer.cancel();
                                  return;
                                }
                                progress.connected = true;
                                SendAndRead(unix_socket, request, buffer, parser, progress, timer);
                              });
  } else {
    resolver.async_resolve(
        endpoint.host, endpoint.port,
        [&](error_code ec, const asio::ip::tcp::resolver::results_type& results) {
          if (ec) {
            progress.error = ec;
            timer.cancel();
            return;
          }
          asio::async_connect(tcp_socket, results,
                              [&](error_code connect_ec, const asio::ip::tcp::endpoint&) {
                                if (connect_ec) {
                                  progress.error = connect_ec;
                                  timer.cancel();
                                  return;
                                }
                                progress.connected = true;
                                SendAndRead(tcp_socket, request, buffer, parser, progress, timer);
                              });
        });
  }
  io.run();

  if (progress.done) {
    HttpAnswer answer;
    const auto& response = parser.get();
    answer.status = static_cast<int>(response.result_int());
    for (const auto& field : response) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      answer.headers[name] = std::string(field.value());
    }
    answer.body = response.body();
    return answer;
  }
  TransportError error;
  error.request_sent = progress.sent;
  if (progress.timed_out) {
    error.kind = TransportError::Kind::kTimeout;
    char text[64];
    std::snprintf(text, sizeof text, "no answer within %g s", timeout.count() / 1000.0);
    error.reason = text;
  } else {
    error.kind =
        progress.connected ? TransportError::Kind::kBroken : TransportError::Kind::kUnreachable;
    error.reason = progress.error.message();
  }
  return tl::unexpected(error);
}

}  // namespace bplace::client
