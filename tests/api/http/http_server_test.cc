#include "api/http/http_server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/router.h"
#include "tests/api/http/http_test_client.h"
#include "tests/api/http/response_json.h"

namespace bplace::api {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

using http_test::Client;

using http_test::Body;

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    previous_logger_ = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", log_));

    router_.Add(http::verb::get, "/hello",
                [](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
                  respond(MakeJson(200, {{"hello", "world"}}, req.version(), req.keep_alive()));
                });
    router_.Add(
        http::verb::get, "/v1/queues/{name}",
        [](Request&&, const RequestContext& ctx, const RouteParams& params, Responder respond) {
          respond(MakeJson(200, {{"name", params.Path("name")},
                                 {"request_id", ctx.request_id},
                                 {"remote", ctx.remote}}));
        });
    router_.Add(http::verb::post, "/upload",
                [](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
                  respond(MakeJson(200, {{"bytes", req.body().size()}}));
                });
    // Responds from another thread once the test calls ReleaseLater.
    router_.Add(
        http::verb::get, "/later",
        [this](Request&&, const RequestContext& ctx, const RouteParams&, Responder respond) {
          handler_entered_.set_value();
          std::lock_guard<std::mutex> lock(mutex_);
          workers_.emplace_back([respond, id = ctx.request_id, release = release_later_] {
            release.wait();
            respond(MakeJson(200, {{"late", id}}));
          });
        });
    router_.Add(http::verb::get, "/throw",
                [](Request&&, const RequestContext&, const RouteParams&, Responder) {
                  throw std::runtime_error("handler bug");
                });
    router_.Add(http::verb::get, "/never",
                [this](Request&&, const RequestContext&, const RouteParams&, Responder respond) {
                  std::lock_guard<std::mutex> lock(mutex_);
                  lost_responders_.push_back(std::move(respond));
                  never_entered_.notify_all();
                });
    router_.Add(http::verb::get, "/twice",
                [](Request&&, const RequestContext&, const RouteParams&, Responder respond) {
                  respond(MakeJson(200, {{"n", 1}}));
                  respond(MakeJson(200, {{"n", 2}}));
                });
  }

  void StartServer(ServerOptions options = {}, HeaderCheck before_continue = {}) {
    auto server = HttpServer::Create(ioc_, "127.0.0.1:0", options, router_.AsHandler(),
                                     std::move(before_continue));
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    server_->Start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { ioc_.run(); });
  }

  void TearDown() override {
    ReleaseLater();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& worker : workers_) worker.join();
      workers_.clear();
    }
    if (server_) {
      std::promise<void> drained;
      server_->Stop([&drained] { drained.set_value(); });
      EXPECT_EQ(drained.get_future().wait_for(5s), std::future_status::ready);
    }
    guard_.reset();
    ioc_.stop();
    for (auto& thread : threads_) thread.join();
    server_.reset();
    lost_responders_.clear();
    spdlog::set_default_logger(previous_logger_);
  }

  unsigned short Port() const { return server_->LocalEndpoint().port(); }

  // Waits (bounded) until the server counts `n` connections.
  bool WaitForConnections(std::size_t n) { return server_->WaitForActiveConnections(n, 5s); }

  // Waits (bounded) until `n` /never handlers have been called.
  bool WaitForNeverHandlers(std::size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    return never_entered_.wait_for(lock, 5s, [&] { return lost_responders_.size() >= n; });
  }

  // Lets the /later handlers respond. Idempotent.
  void ReleaseLater() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!later_released_) release_later_promise_.set_value();
    later_released_ = true;
  }

  int CountLogLines(std::string_view needle) {
    int count = 0;
    for (const std::string& line : log_->last_formatted()) {
      if (line.find(needle) != std::string::npos) ++count;
    }
    return count;
  }

  net::io_context ioc_;
  net::executor_work_guard<net::io_context::executor_type> guard_{ioc_.get_executor()};
  Router router_;
  std::unique_ptr<HttpServer> server_;
  std::vector<std::thread> threads_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_;
  std::shared_ptr<spdlog::logger> previous_logger_;

  std::mutex mutex_;
  std::vector<std::thread> workers_;
  std::vector<Responder> lost_responders_;
  std::condition_variable never_entered_;  // a /never handler was called
  std::promise<void> handler_entered_;
  std::promise<void> release_later_promise_;
  std::shared_future<void> release_later_ = release_later_promise_.get_future().share();
  bool later_released_ = false;  // guarded by mutex_
};

TEST_F(HttpServerTest, ServesSeveralRequestsOnOneKeptAliveConnection) {
  StartServer();
  Client client(Port());
  for (int i = 0; i < 3; ++i) {
    client.Get("/hello");
    auto res = client.Read();
    ASSERT_TRUE(res);
    EXPECT_EQ(res->result_int(), 200u);
    EXPECT_TRUE(res->keep_alive());
    EXPECT_EQ(Body(*res)["hello"], "world");
    EXPECT_EQ((*res)[http::field::server], "bplaced/" + std::string(BPLACE_TEST_VERSION));
    EXPECT_EQ((*res)[http::field::content_length], std::to_string(res->body().size()));
  }
  EXPECT_EQ(server_->ActiveConnections(), 1u);
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrder) {
  StartServer();
  Client client(Port());
  client.Send(
      "GET /v1/queues/first HTTP/1.1\r\nHost: t\r\n\r\n"
      "GET /v1/queues/second HTTP/1.1\r\nHost: t\r\n\r\n");
  auto first = client.Read();
  auto second = client.Read();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(Body(*first)["name"], "first");
  EXPECT_EQ(Body(*second)["name"], "second");
}

TEST_F(HttpServerTest, EchoesClientRequestIdAndGeneratesOneOtherwise) {
  StartServer();
  Client client(Port());
  client.Get("/v1/queues/q", "X-Request-Id: wf-42.step/7\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["X-Request-Id"], "wf-42.step/7");
  EXPECT_EQ(Body(*res)["request_id"], "wf-42.step/7");

  client.Get("/v1/queues/q");
  res = client.Read();
  ASSERT_TRUE(res);
  const std::string generated(res->at("X-Request-Id"));
  EXPECT_EQ(generated.size(), 16u);
  EXPECT_EQ(Body(*res)["request_id"], generated);

  client.Get("/v1/queues/q", "X-Request-Id: has space\r\n");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["X-Request-Id"].size(), 16u);
  EXPECT_NE((*res)["X-Request-Id"], generated);

  client.Get("/v1/queues/q", "X-Request-Id: " + std::string(129, 'a') + "\r\n");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["X-Request-Id"].size(), 16u);
}

TEST_F(HttpServerTest, UnknownPathIs404AndOtherMethodIs405WithAllow) {
  StartServer();
  Client client(Port());
  client.Get("/nothing", "X-Request-Id: abc\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 404u);
  EXPECT_EQ((*res)[http::field::content_type], "application/problem+json");
  EXPECT_EQ((*res)["X-Request-Id"], "abc");
  EXPECT_TRUE(res->keep_alive());

  client.Send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 405u);
  EXPECT_EQ((*res)[http::field::allow], "GET");
}

TEST_F(HttpServerTest, PassesPercentDecodedPathParameters) {
  StartServer();
  Client client(Port());
  client.Get("/v1/queues/gpu%20long%2Fx");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(Body(*res)["name"], "gpu long/x");
  EXPECT_EQ(Body(*res)["remote"].get<std::string>().rfind("127.0.0.1:", 0), 0u);

  client.Get("/v1/queues/bad%zz");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 400u);
}

TEST_F(HttpServerTest, BodyOverLimitIs413AndCloses) {
  ServerOptions options;
  options.body_limit_bytes = 1024;
  StartServer(options);
  Client client(Port());
  client.Send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n" +
              std::string(2000, 'x'));
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 413u);
  EXPECT_FALSE(res->keep_alive());
  EXPECT_EQ((*res)[http::field::content_type], "application/problem+json");
  EXPECT_TRUE(client.WaitClosed(3s));

  // Chunked: the size shows only while reading the body.
  Client chunked(Port());
  chunked.Send("POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
               std::string("400\r\n") + std::string(1024, 'y') + "\r\n10\r\n" +
               std::string(16, 'z') + "\r\n0\r\n\r\n");
  res = chunked.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 413u);

  // At the limit is fine.
  Client ok(Port());
  ok.Send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n" +
          std::string(1024, 'x'));
  res = ok.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(Body(*res)["bytes"], 1024);
}

TEST_F(HttpServerTest, SendsContinueBeforeReadingBodyAnd413WithoutIt) {
  ServerOptions options;
  options.body_limit_bytes = 1024;
  StartServer(options);
  Client client(Port());
  client.Send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
  auto interim = client.Read();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->result_int(), 100u);
  client.Send("hello");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(Body(*res)["bytes"], 5);

  client.Send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 413u);
}

TEST_F(HttpServerTest, MalformedRequestIs400AndCloses) {
  StartServer();
  Client client(Port());
  client.Send("GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: nope\r\n\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 400u);
  EXPECT_FALSE(res->keep_alive());
  EXPECT_EQ((*res)["X-Request-Id"].size(), 16u);
  EXPECT_TRUE(client.WaitClosed(3s));
}

TEST_F(HttpServerTest, Http10RequestGetsHttp10ResponseAndClose) {
  StartServer();
  Client client(Port());
  client.Send("GET /hello HTTP/1.0\r\n\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->version(), 10u);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_TRUE(client.WaitClosed(3s));
}

TEST_F(HttpServerTest, ClosesConnectionWhoseHeadersStallPastHeaderTimeout) {
  ServerOptions options;
  options.header_timeout = 1s;
  StartServer(options);
  Client client(Port());
  client.Send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Half");
  EXPECT_TRUE(client.WaitClosed(10s));
  EXPECT_TRUE(WaitForConnections(0));
  // The deadline closed it, not something else.
  EXPECT_EQ(CountLogLines("headers not received in time"), 1);
}

TEST_F(HttpServerTest, ClosesIdleKeptAliveConnectionAfterIdleTimeout) {
  ServerOptions options;
  options.idle_timeout = 1s;
  StartServer(options);
  spdlog::default_logger()->set_level(spdlog::level::debug);
  Client client(Port());
  client.Get("/hello");
  ASSERT_TRUE(client.Read());
  EXPECT_TRUE(client.WaitClosed(10s));
  ASSERT_TRUE(WaitForConnections(0));
  // The idle deadline closed it, not something else.
  EXPECT_EQ(CountLogLines("closed after idle_timeout without a request"), 1);
}

TEST_F(HttpServerTest, TurnsAwayConnectionsOverTheLimitWith503ThenRecovers) {
  ServerOptions options;
  options.max_connections = 4;
  StartServer(options);
  // Each in the middle of its headers: busy, so none can be reclaimed.
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<Client>(Port()));
    held.back()->Send("GET /hello HTTP/1.1\r\nHost: t\r\n");
  }
  ASSERT_TRUE(WaitForConnections(4));
  for (int i = 0; i < 5; ++i) {
    Client extra(Port());
    extra.Get("/hello");
    auto res = extra.Read();
    ASSERT_TRUE(res);
    EXPECT_EQ(res->result_int(), 503u);
    EXPECT_EQ((*res)[http::field::retry_after], "1");
    EXPECT_EQ((*res)[http::field::content_type], "application/problem+json");
    EXPECT_EQ((*res)["X-Request-Id"].size(), 16u);
    EXPECT_TRUE(extra.WaitClosed(3s));
  }
  EXPECT_EQ(CountLogLines("turned away"), 1);
  EXPECT_EQ(server_->ActiveConnections(), 4u);

  held.clear();
  ASSERT_TRUE(WaitForConnections(0));
  Client client(Port());
  client.Get("/hello");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
}

TEST_F(HttpServerTest, FullBudgetReclaimsTheConnectionIdleLongest) {
  ServerOptions options;
  options.max_connections = 2;
  StartServer(options);
  Client oldest(Port());
  oldest.Get("/hello");
  ASSERT_TRUE(oldest.Read());
  ASSERT_TRUE(server_->WaitForIdleConnections(1, 5s));
  Client newer(Port());
  newer.Get("/hello");
  ASSERT_TRUE(newer.Read());
  ASSERT_TRUE(server_->WaitForIdleConnections(2, 5s));

  Client third(Port());
  third.Get("/hello");
  auto res = third.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_TRUE(oldest.WaitClosed(3s));
  // The newer idle one was left alone and still serves.
  newer.Get("/hello");
  res = newer.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_EQ(server_->ActiveConnections(), 2u);
}

TEST_F(HttpServerTest, ReclaimsNoConnectionWithARequestInProgress) {
  ServerOptions options;
  options.max_connections = 2;
  StartServer(options);
  Client idle(Port());
  idle.Get("/hello");
  ASSERT_TRUE(idle.Read());
  ASSERT_TRUE(server_->WaitForIdleConnections(1, 5s));
  Client reading(Port());
  reading.Send("GET /hello HTTP/1.1\r\nHost: t\r\n");  // headers unfinished
  ASSERT_TRUE(WaitForConnections(2));

  Client first(Port());  // takes the idle one's place
  first.Get("/hello");
  auto res = first.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_TRUE(idle.WaitClosed(3s));

  // Now one is mid-request and `first` is idle again: it goes next, never
  // the one reading.
  ASSERT_TRUE(server_->WaitForIdleConnections(1, 5s));
  Client second(Port());
  second.Get("/hello");
  res = second.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_TRUE(first.WaitClosed(3s));
  reading.Send("\r\n");
  res = reading.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
}

TEST_F(HttpServerTest, CapsConnectionsPerRemoteAddressAndReclaimsThatAddresssOwn) {
  ServerOptions options;
  options.max_connections = 100;
  options.max_connections_per_peer = 2;
  StartServer(options);
  Client a(Port()), b(Port());
  a.Send("GET /hello HTTP/1.1\r\nHost: t\r\n");
  b.Send("GET /hello HTTP/1.1\r\nHost: t\r\n");
  ASSERT_TRUE(WaitForConnections(2));

  // A third from 127.0.0.1 finds its address at the cap with nothing idle.
  Client refused(Port());
  refused.Get("/hello");
  auto res = refused.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 503u);
  EXPECT_NE(Body(*res)["detail"].get<std::string>().find("from 127.0.0.1"), std::string::npos);

  // Another address is not held back by it.
  Client other(Port(), "127.0.0.2");
  other.Get("/hello");
  res = other.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u) << res->body();
  ASSERT_TRUE(server_->WaitForIdleConnections(1, 5s));

  // Once one of 127.0.0.1's is idle, a newcomer from there takes its place,
  // not 127.0.0.2's (idle longer, but another address).
  a.Send("\r\n");
  ASSERT_TRUE(a.Read());
  ASSERT_TRUE(server_->WaitForIdleConnections(2, 5s));
  Client again(Port());
  again.Get("/hello");
  res = again.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_TRUE(a.WaitClosed(3s));
  other.Get("/hello");
  res = other.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
}

// --- Strict framing: raw bytes in, the raw answer read back -----------------

// Sends `raw` on a new connection and returns the status of the one response
// that comes back, after checking that the connection then closes (nothing
// else is answered, in particular not a body read as a second request).
unsigned StatusThenClosed(unsigned short port, const std::string& raw) {
  Client client(port);
  client.Send(raw);
  auto res = client.Read();
  if (!res) return 0;
  EXPECT_FALSE(res->keep_alive()) << raw;
  EXPECT_TRUE(client.WaitClosed(3s)) << raw;
  return res->result_int();
}

TEST_F(HttpServerTest, TransferEncodingOtherThanASingleChunkedIs400AndCloses) {
  StartServer();
  // The body is a whole second request: taken as "no body", it would be.
  const std::string smuggled = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";
  for (const std::string coding : {"xchunked", "identity", "chunked, identity", "gzip, chunked",
                                   "chunked\r\nTransfer-Encoding: chunked"}) {
    EXPECT_EQ(StatusThenClosed(Port(), "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: " +
                                           coding + "\r\n\r\n" + smuggled),
              400u)
        << coding;
  }
  EXPECT_EQ(StatusThenClosed(Port(),
                             "POST /upload HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "0\r\n\r\n"),
            400u);
  // Chunked itself, in any case, is fine.
  Client client(Port());
  client.Send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: Chunked\r\n\r\n"
      "5\r\nhello\r\n0\r\n\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_EQ(Body(*res)["bytes"], 5);
}

TEST_F(HttpServerTest, HostMustBeThereOnceInHttp11) {
  StartServer();
  EXPECT_EQ(StatusThenClosed(Port(), "GET /hello HTTP/1.1\r\n\r\n"), 400u);
  EXPECT_EQ(StatusThenClosed(Port(), "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400u);
  EXPECT_EQ(StatusThenClosed(Port(), "GET /hello HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n"), 400u);
  // HTTP/1.0 may leave it out (Http10RequestGetsHttp10ResponseAndClose).
}

TEST_F(HttpServerTest, DuplicateAuthorizationOrContentLengthIs400) {
  StartServer();
  EXPECT_EQ(StatusThenClosed(Port(),
                             "GET /hello HTTP/1.1\r\nHost: t\r\n"
                             "Authorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n"),
            400u);
  EXPECT_EQ(StatusThenClosed(Port(),
                             "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                             "Content-Length: 5\r\n\r\nhello"),
            400u);
  EXPECT_EQ(StatusThenClosed(Port(),
                             "POST /upload HTTP/1.1\r\nHost: t\r\n"
                             "Content-Length: 5, 5\r\n\r\nhello"),
            400u);
}

TEST_F(HttpServerTest, ContentEncodingOtherThanIdentityIs415) {
  StartServer();
  EXPECT_EQ(StatusThenClosed(Port(),
                             "POST /upload HTTP/1.1\r\nHost: t\r\n"
                             "Content-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}"),
            415u);
  EXPECT_EQ(StatusThenClosed(Port(),
                             "POST /upload HTTP/1.1\r\nHost: t\r\n"
                             "Content-Encoding: identity, br\r\nContent-Length: 2\r\n\r\n{}"),
            415u);
  Client client(Port());
  client.Send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Encoding: identity\r\n"
      "Content-Length: 2\r\n\r\n{}");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
}

TEST_F(HttpServerTest, HeaderCheckAnswersInsteadOf100ContinueAndTheBodyIsNotRead) {
  std::atomic<int> checked{0};
  StartServer({}, [&checked](const Request& header, const RequestContext&) {
    ++checked;
    if (header[http::field::authorization] == "Bearer good") return std::optional<Response>();
    return std::optional<Response>(MakeProblem(401, "", "no credentials"));
  });
  Client client(Port());
  client.Send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 401u);  // not 100
  EXPECT_FALSE(res->keep_alive());
  EXPECT_TRUE(client.WaitClosed(3s));

  Client good(Port());
  good.Send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nAuthorization: Bearer good\r\n"
      "Expect: 100-continue\r\n\r\n");
  auto interim = good.Read();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->result_int(), 100u);
  good.Send("hello");
  res = good.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(Body(*res)["bytes"], 5);
  EXPECT_EQ(checked.load(), 2);
}

TEST_F(HttpServerTest, DeliversResponseGivenLaterFromAnotherThread) {
  StartServer();
  Client client(Port());
  auto entered = handler_entered_.get_future();
  client.Get("/later", "X-Request-Id: slow-1\r\n");
  ASSERT_EQ(entered.wait_for(5s), std::future_status::ready);
  ReleaseLater();
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_EQ(Body(*res)["late"], "slow-1");
  client.Get("/hello");
  ASSERT_TRUE(client.Read());
}

TEST_F(HttpServerTest, HandlerExceptionBecomes500AndConnectionGoesOn) {
  StartServer();
  Client client(Port());
  client.Get("/throw", "X-Request-Id: boom\r\n");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 500u);
  EXPECT_EQ((*res)["X-Request-Id"], "boom");
  EXPECT_NE(Body(*res)["detail"].get<std::string>().find("boom"), std::string::npos);
  client.Get("/hello");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_EQ(CountLogLines("handler bug"), 1);
}

TEST_F(HttpServerTest, SecondRespondIsDropped) {
  StartServer();
  Client client(Port());
  client.Get("/twice");
  auto res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(Body(*res)["n"], 1);
  client.Get("/hello");
  res = client.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(Body(*res)["hello"], "world");
}

TEST_F(HttpServerTest, HandlerThatNeverRespondsIsCutOffAfterHandlerTimeout) {
  ServerOptions options;
  options.handler_timeout = 1s;
  StartServer(options);
  Client client(Port());
  client.Get("/never", "X-Request-Id: lost\r\n");
  auto res = client.Read(10s);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 500u);
  EXPECT_FALSE(res->keep_alive());
  EXPECT_TRUE(client.WaitClosed(3s));
  EXPECT_TRUE(WaitForConnections(0));
  EXPECT_EQ(CountLogLines("got no response"), 1);
  // Responding now is harmless.
  std::lock_guard<std::mutex> lock(mutex_);
  ASSERT_EQ(lost_responders_.size(), 1u);
  lost_responders_[0](MakeJson(200, {}));
}

TEST_F(HttpServerTest, WritesAccessLogLine) {
  StartServer();
  Client client(Port());
  client.Get("/v1/queues/q?x=1", "X-Request-Id: logged-1\r\n");
  ASSERT_TRUE(client.Read());
  client.Close();
  ASSERT_TRUE(WaitForConnections(0));
  int found = 0;
  for (const std::string& line : log_->last_formatted()) {
    if (line.find("\"GET /v1/queues/q?x=1\" 200 ") != std::string::npos &&
        line.find("127.0.0.1:") != std::string::npos &&
        line.find("id=logged-1") != std::string::npos && line.find("ms") != std::string::npos) {
      ++found;
    }
  }
  EXPECT_EQ(found, 1);
}

// Errors have a budget of their own: a burst of successes that spends the
// access log's does not hide the 404 after it.
TEST_F(HttpServerTest, AccessLogBudgetKeepsErrorsApartFromSuccesses) {
  ServerOptions options;
  options.access_log_per_second = 2;
  StartServer(options);
  Client client(Port());
  for (int i = 0; i < 6; ++i) {
    client.Get("/hello");
    ASSERT_TRUE(client.Read());
  }
  client.Get("/missing");
  auto missing = client.Read();
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->result_int(), 404u);
  // The line is written once the server has seen its write complete, which
  // may be after the client has the response: wait for the session's end.
  client.Close();
  ASSERT_TRUE(WaitForConnections(0));
  int hello = 0;
  int errors = 0;
  for (const std::string& line : log_->last_formatted()) {
    if (line.find("\"GET /hello\" 200") != std::string::npos) ++hello;
    if (line.find("\"GET /missing\" 404") != std::string::npos) ++errors;
  }
  EXPECT_LE(hello, 6);
  EXPECT_GE(hello, 2);
  EXPECT_EQ(errors, 1);
}

TEST_F(HttpServerTest, StopFinishesInFlightRequestClosesIdleOnesThenDrains) {
  StartServer();
  Client idle(Port());
  idle.Get("/hello");
  ASSERT_TRUE(idle.Read());

  Client busy(Port());
  auto entered = handler_entered_.get_future();
  busy.Get("/later");
  ASSERT_EQ(entered.wait_for(3s), std::future_status::ready);

  std::promise<void> drained;
  auto drained_future = drained.get_future();
  server_->Stop([&drained] { drained.set_value(); });

  EXPECT_TRUE(idle.WaitClosed(2s));
  // The response comes only now, after Stop.
  ReleaseLater();
  auto res = busy.Read();
  ASSERT_TRUE(res) << busy.last_error().message();
  EXPECT_EQ(res->result_int(), 200u);
  EXPECT_FALSE(res->keep_alive());
  EXPECT_NE(drained_future.wait_for(0s), std::future_status::ready);
  busy.Close();
  EXPECT_EQ(drained_future.wait_for(3s), std::future_status::ready);
  EXPECT_EQ(server_->ActiveConnections(), 0u);

  // No longer accepting.
  Client late(Port(), true);
  EXPECT_EQ(late.connect_error(), net::error::connection_refused);
}

// A client trickling a body and a handler that never answers would each hold
// the drain until their own deadlines (body_timeout, handler_timeout: many
// minutes here); drain_timeout closes both.
TEST_F(HttpServerTest, DrainDeadlineClosesTricklingBodiesAndUnansweredHandlers) {
  ServerOptions options;
  options.drain_timeout = 1s;
  options.body_timeout = 600s;
  options.handler_timeout = 600s;
  // The server is told of each connection's phase before the drain starts:
  // a request not read yet would be closed as idle, with no deadline to log.
  std::promise<void> reading_body;
  StartServer(options, [&reading_body](const Request&, const RequestContext&) {
    reading_body.set_value();
    return std::optional<Response>();
  });
  Client trickling(Port());
  trickling.Send(
      "POST /upload HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: "
      "100\r\n\r\nx");
  ASSERT_EQ(reading_body.get_future().wait_for(5s), std::future_status::ready);
  const auto go_ahead = trickling.Read();  // the 100 Continue
  ASSERT_TRUE(go_ahead.has_value());
  EXPECT_EQ(go_ahead->result_int(), 100u);
  Client waiting(Port());
  waiting.Get("/never");
  ASSERT_TRUE(WaitForNeverHandlers(1));
  ASSERT_TRUE(WaitForConnections(2));

  std::promise<void> drained;
  auto drained_future = drained.get_future();
  server_->Stop([&drained] { drained.set_value(); });
  // Bounded waits far below the 600 s the connections could otherwise hold.
  ASSERT_EQ(drained_future.wait_for(60s), std::future_status::ready);
  EXPECT_TRUE(trickling.WaitClosed(5s));
  EXPECT_TRUE(waiting.WaitClosed(5s));
  EXPECT_EQ(server_->ActiveConnections(), 0u);
  int logged = 0;
  for (const std::string& line : log_->last_formatted()) {
    if (line.find("closed at the drain deadline while reading the body") != std::string::npos ||
        line.find("closed at the drain deadline while handling") != std::string::npos) {
      ++logged;
    }
  }
  EXPECT_EQ(logged, 2);
}

TEST_F(HttpServerTest, StopWithoutConnectionsDrainsAtOnce) {
  StartServer();
  std::promise<void> drained;
  server_->Stop([&drained] { drained.set_value(); });
  EXPECT_EQ(drained.get_future().wait_for(2s), std::future_status::ready);
}

// SpreadConnections: connections are served on the given io_contexts in
// turn, each context by its own thread, for a connection's whole lifetime.
TEST(HttpServerSpreadTest, ConnectionsTakeTheContextsInTurn) {
  net::io_context listeners(1);
  net::io_context other(1);
  auto keep_listeners = net::make_work_guard(listeners);
  auto keep_other = net::make_work_guard(other);
  std::mutex mutex;
  std::vector<std::thread::id> served_by;
  auto handler = [&](Request&& req, const RequestContext&, Responder respond) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      served_by.push_back(std::this_thread::get_id());
    }
    respond(MakeJson(200, {{"ok", true}}, req.version(), req.keep_alive()));
  };
  auto server = HttpServer::Create(listeners, "127.0.0.1:0", {}, handler);
  ASSERT_TRUE(server) << server.error().message;
  (*server)->SpreadConnections({&listeners, &other});
  (*server)->Start();
  std::thread listeners_thread([&listeners] { listeners.run(); });
  std::thread other_thread([&other] { other.run(); });
  const unsigned short port = (*server)->LocalEndpoint().port();
  for (int i = 0; i < 4; ++i) {
    Client client(port);
    client.Get("/");  // two requests on one connection: the same thread
    ASSERT_TRUE(client.Read());
    client.Get("/");
    ASSERT_TRUE(client.Read());
    client.Close();
  }
  std::promise<void> drained;
  (*server)->Stop([&drained] { drained.set_value(); });
  EXPECT_EQ(drained.get_future().wait_for(5s), std::future_status::ready);
  // Each accept takes the next context when it is started: connection i
  // is served on context i % 2.
  const std::thread::id on_listeners = listeners_thread.get_id();
  const std::thread::id on_other = other_thread.get_id();
  keep_listeners.reset();
  keep_other.reset();
  listeners.stop();
  other.stop();
  listeners_thread.join();
  other_thread.join();
  ASSERT_EQ(served_by.size(), 8u);
  for (std::size_t i = 0; i < served_by.size(); ++i) {
    EXPECT_EQ(served_by[i], (i / 2) % 2 == 0 ? on_listeners : on_other) << "request " << i;
  }
}

TEST(HttpServerCreateTest, PortInUseIsUnavailable) {
  net::io_context ioc;
  auto handler = [](Request&&, const RequestContext&, Responder) {};
  auto first = HttpServer::Create(ioc, "127.0.0.1:0", {}, handler);
  ASSERT_TRUE(first) << first.error().message;
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->LocalEndpoint().port());
  auto second = HttpServer::Create(ioc, taken, {}, handler);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(second.error().message.find("in use"), std::string::npos) << second.error().message;
}

TEST(HttpServerCreateTest, MalformedListenAddressIsInvalidArgument) {
  net::io_context ioc;
  auto handler = [](Request&&, const RequestContext&, Responder) {};
  for (const char* listen : {"", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
                             "127.0.0.1:8o", ":8080", "::1:8080", "[::1]8080", "[::1:8080",
                             "node01.cluster:8080", "127.1:8080", "[127.0.0.1]:80"}) {
    auto server = HttpServer::Create(ioc, listen, {}, handler);
    ASSERT_FALSE(server) << listen;
    EXPECT_EQ(server.error().code, ErrorCode::kInvalidArgument) << listen;
  }
}

TEST(HttpServerCreateTest, AcceptsLocalhostAndBracketedIpv6) {
  net::io_context ioc;
  auto handler = [](Request&&, const RequestContext&, Responder) {};
  auto local = HttpServer::Create(ioc, "localhost:0", {}, handler);
  ASSERT_TRUE(local) << local.error().message;
  EXPECT_TRUE((*local)->LocalEndpoint().address().is_loopback());
  EXPECT_NE((*local)->LocalEndpoint().port(), 0);
  // A host without IPv6 may refuse to bind, but the address is well-formed.
  auto v6 = HttpServer::Create(ioc, "[::1]:0", {}, handler);
  if (!v6) {
    EXPECT_EQ(v6.error().code, ErrorCode::kUnavailable) << v6.error().message;
  }
}

}  // namespace
}  // namespace bplace::api
