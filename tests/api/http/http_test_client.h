#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include "api/http/message.h"

namespace bplace::api::http_test {

inline constexpr std::chrono::seconds kIoTimeout{5};

// 127.0.0.1:port as an endpoint Client takes.
inline boost::asio::generic::stream_protocol::endpoint LoopbackEndpoint(unsigned short port) {
  return boost::asio::ip::tcp::endpoint(boost::asio::ip::address_v4::loopback(), port);
}

// The Unix socket at `path` as an endpoint Client takes.
inline boost::asio::generic::stream_protocol::endpoint UnixEndpoint(const std::string& path) {
  return boost::asio::local::stream_protocol::endpoint(path);
}

// A blocking HTTP client over a real socket (TCP or Unix) whose every
// operation gives up after a deadline, so no test can hang on the server.
// Not thread-safe.
class Client {
 public:
  // Connects to 127.0.0.1:port; a failure fails the test unless
  // `may_fail` (see connect_error).
  explicit Client(unsigned short port, bool may_fail = false)
      : Client(LoopbackEndpoint(port), may_fail) {}

  // Connects to `endpoint`, as above.
  explicit Client(const boost::asio::generic::stream_protocol::endpoint& endpoint,
                  bool may_fail = false)
      : socket_(ioc_) {
    socket_.connect(endpoint, connect_error_);
    if (!may_fail) {
      EXPECT_FALSE(connect_error_) << connect_error_.message();
    }
  }

  // Connects to 127.0.0.1:port from the loopback address `source`
  // ("127.0.0.2": Linux routes all of 127/8 to lo), so that a test can be
  // two different peers on one machine.
  Client(unsigned short port, const char* source) : socket_(ioc_) {
    const boost::asio::ip::tcp::endpoint from(boost::asio::ip::make_address_v4(source), 0);
    socket_.open(boost::asio::ip::tcp::v4(), connect_error_);
    if (!connect_error_) socket_.bind(from, connect_error_);
    if (!connect_error_) socket_.connect(LoopbackEndpoint(port), connect_error_);
    EXPECT_FALSE(connect_error_) << connect_error_.message();
  }

  boost::beast::error_code connect_error() const { return connect_error_; }

  void Send(std::string_view raw) {
    boost::beast::error_code result;
    boost::asio::async_write(socket_, boost::asio::buffer(raw),
                             [&](boost::beast::error_code ec, std::size_t) { result = ec; });
    Run(kIoTimeout);
    EXPECT_FALSE(result) << result.message();
  }

  void Get(std::string_view target, std::string_view extra_headers = "") {
    Send("GET " + std::string(target) + " HTTP/1.1\r\nHost: test\r\n" + std::string(extra_headers) +
         "\r\n");
  }

  // Reads one response; nullopt when the connection ended or the deadline
  // passed first.
  std::optional<Response> Read(std::chrono::milliseconds timeout = kIoTimeout) {
    namespace http = boost::beast::http;
    http::response_parser<http::string_body> parser;
    parser.body_limit(16 * 1024 * 1024);
    boost::beast::error_code result = boost::asio::error::timed_out;
    http::async_read(socket_, buffer_, parser,
                     [&](boost::beast::error_code ec, std::size_t) { result = ec; });
    if (!Run(timeout)) return std::nullopt;
    if (result) {
      last_error_ = result;
      return std::nullopt;
    }
    return parser.release();
  }

  // Waits until the server closes the connection; returns false when it is
  // still open at the deadline or sends data.
  bool WaitClosed(std::chrono::milliseconds timeout) {
    char byte;
    boost::beast::error_code result;
    std::size_t bytes = 0;
    socket_.async_read_some(boost::asio::buffer(&byte, 1),
                            [&](boost::beast::error_code ec, std::size_t n) {
                              result = ec;
                              bytes = n;
                            });
    if (!Run(timeout)) return false;
    return buffer_.size() == 0 && bytes == 0 && result;
  }

  // Why the last Read returned nothing (other than a timeout).
  boost::beast::error_code last_error() const { return last_error_; }

  void Close() {
    boost::beast::error_code ignored;
    socket_.close(ignored);
  }

 private:
  // Runs the client's io_context until the pending operation completes or
  // `timeout` passes (then cancels it). Returns whether it completed in time.
  bool Run(std::chrono::milliseconds timeout) {
    ioc_.restart();
    ioc_.run_for(timeout);
    if (ioc_.stopped()) return true;
    boost::beast::error_code ignored;
    socket_.cancel(ignored);
    ioc_.restart();
    ioc_.run();
    return false;
  }

  boost::asio::io_context ioc_;
  boost::asio::generic::stream_protocol::socket socket_;
  boost::beast::flat_buffer buffer_;
  boost::beast::error_code connect_error_;
  boost::beast::error_code last_error_;
};

}  // namespace bplace::api::http_test
