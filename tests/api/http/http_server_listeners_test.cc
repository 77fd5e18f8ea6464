// HttpServer with several listeners: Unix domain sockets (peer credentials,
// socket file handling), TCP and Unix at once, sockets inherited from
// systemd, and the connection limit across listeners. Real sockets only:
// 127.0.0.1:0 and Unix sockets in a fresh temporary directory.
#include "api/http/http_server.h"

#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/executor_work_guard.hpp>
#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/router.h"
#include "tests/api/http/http_test_client.h"
#include "tests/api/http/response_json.h"

namespace bplace::api {
namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using namespace std::chrono_literals;
using http_test::Client;
using http_test::UnixEndpoint;

using http_test::Body;

// A socket made the way systemd or a test needs it, closed on destruction
// unless released.
class RawSocket {
 public:
  RawSocket(int family, int type) : fd_(socket(family, type | SOCK_CLOEXEC, 0)) {
    EXPECT_GE(fd_, 0) << std::strerror(errno);
  }
  ~RawSocket() {
    if (fd_ >= 0) close(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  int fd() const { return fd_; }
  // Hands the fd over (to the server); the destructor no longer closes it.
  int Release() { return std::exchange(fd_, -1); }

  // Binds 127.0.0.1:0; returns the port.
  unsigned short BindLoopback() {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0)
        << std::strerror(errno);
    socklen_t size = sizeof address;
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size), 0);
    return ntohs(address.sin_port);
  }

  void BindPath(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0)
        << path << ": " << std::strerror(errno);
  }

  // Binds an abstract name the kernel makes up (Linux autobind).
  void BindAbstract() {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(sa_family_t)), 0)
        << std::strerror(errno);
  }

  void Listen() { EXPECT_EQ(listen(fd_, 16), 0) << std::strerror(errno); }

 private:
  int fd_;
};

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) >= 0; }

ListenerSpec Address(std::string address) {
  ListenerSpec spec;
  spec.address = std::move(address);
  return spec;
}

ListenerSpec Inherited(int fd) {
  ListenerSpec spec;
  spec.inherited_fd = fd;
  return spec;
}

class HttpServerListenersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    previous_logger_ = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", log_));

    char pattern[] = "/tmp/bplace-http-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
    dir_ = pattern;

    router_.Add(
        http::verb::get, "/whoami",
        [this](Request&&, const RequestContext& ctx, const RouteParams&, Responder respond) {
          nlohmann::json body = {{"transport", ctx.transport == Transport::kUnix ? "unix" : "tcp"},
                                 {"remote", ctx.remote}};
          if (ctx.peer) {
            body["pid"] = ctx.peer->pid;
            body["uid"] = ctx.peer->uid;
            body["gid"] = ctx.peer->gid;
          }
          {
            std::lock_guard<std::mutex> lock(mutex_);
            last_peer_ = ctx.peer;
          }
          respond(MakeJson(200, body));
        });
  }

  void TearDown() override {
    if (server_) {
      std::promise<void> drained;
      server_->Stop([&drained] { drained.set_value(); });
      EXPECT_EQ(drained.get_future().wait_for(5s), std::future_status::ready);
    }
    guard_.reset();
    ioc_.stop();
    for (auto& thread : threads_) thread.join();
    server_.reset();
    spdlog::set_default_logger(previous_logger_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  Result<std::unique_ptr<HttpServer>> Create(std::vector<ListenerSpec> listeners,
                                             ServerOptions options = {}) {
    return HttpServer::Create(ioc_, std::move(listeners), options, router_.AsHandler());
  }

  void StartServer(std::vector<ListenerSpec> listeners, ServerOptions options = {}) {
    auto server = Create(std::move(listeners), options);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    server_->Start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { ioc_.run(); });
  }

  // Stops the server and waits for the drain; false when it does not come.
  bool StopAndDrain() {
    std::promise<void> drained;
    server_->Stop([&drained] { drained.set_value(); });
    return drained.get_future().wait_for(5s) == std::future_status::ready;
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Waits (bounded) until the server counts `n` connections.
  bool WaitForConnections(std::size_t n) { return server_->WaitForActiveConnections(n, 5s); }

  int CountLogLines(std::string_view needle) {
    int count = 0;
    for (const std::string& line : log_->last_formatted()) {
      if (line.find(needle) != std::string::npos) ++count;
    }
    return count;
  }

  // GET /whoami over a new connection to `endpoint`; the JSON body of a 200.
  nlohmann::json WhoAmI(const net::generic::stream_protocol::endpoint& endpoint) {
    Client client(endpoint);
    client.Get("/whoami");
    auto res = client.Read();
    if (!res) {
      ADD_FAILURE() << "no response: " << client.last_error().message();
      return {};
    }
    EXPECT_EQ(res->result_int(), 200u);
    return Body(*res);
  }

  net::io_context ioc_;
  net::executor_work_guard<net::io_context::executor_type> guard_{ioc_.get_executor()};
  Router router_;
  std::unique_ptr<HttpServer> server_;
  std::vector<std::thread> threads_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_;
  std::shared_ptr<spdlog::logger> previous_logger_;
  std::string dir_;

  std::mutex mutex_;
  std::optional<PeerCredentials> last_peer_;  // of the last /whoami
};

TEST_F(HttpServerListenersTest, ServesOnUnixSocketWithPeerCredentials) {
  const std::string path = Path("api.sock");
  StartServer({Address("unix:" + path)});
  EXPECT_EQ(server_->BoundAddresses(), std::vector<std::string>{"unix:" + path});
  EXPECT_EQ(server_->LocalEndpoint(), net::ip::tcp::endpoint());

  const nlohmann::json who = WhoAmI(UnixEndpoint(path));
  EXPECT_EQ(who["transport"], "unix");
  EXPECT_EQ(who["pid"], getpid());
  EXPECT_EQ(who["uid"], getuid());
  EXPECT_EQ(who["gid"], getgid());
  const std::string remote =
      "unix:pid=" + std::to_string(getpid()) + ",uid=" + std::to_string(getuid());
  EXPECT_EQ(who["remote"], remote);
  ASSERT_TRUE(WaitForConnections(0));
  EXPECT_EQ(CountLogLines(remote + " \"GET /whoami\" 200 "), 1);
}

// The point of SO_PEERCRED: another user's process shows its own uid, not
// ours. Needs root (to become that user) and the user; the name may be
// overridden with BPLACE_TEST_OTHER_USER.
TEST_F(HttpServerListenersTest, UnixPeerCredentialsNameAnotherUsersProcess) {
  const char* env_user = std::getenv("BPLACE_TEST_OTHER_USER");
  const std::string user = env_user != nullptr ? env_user : "alice";
  const passwd* entry = getpwnam(user.c_str());
  if (geteuid() != 0 || entry == nullptr) {
    GTEST_SKIP() << "needs root and a user '" << user << "'";
  }
  const uid_t uid = entry->pw_uid;
  const gid_t gid = entry->pw_gid;
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  const std::string path = Path("api.sock");
  StartServer({Address("unix:" + path)});

  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  const std::string request = "GET /whoami HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  const pid_t child = fork();
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    // Only system calls from here: the parent has other threads.
    alarm(10);
    if (setgroups(1, &gid) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
      _exit(10);
    }
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      _exit(11);
    }
    if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
      _exit(12);
    }
    char reply[4096];
    std::size_t total = 0;
    for (ssize_t n; (n = read(fd, reply + total, sizeof reply - total)) > 0;) {
      total += static_cast<std::size_t>(n);
      if (total == sizeof reply) break;
    }
    const char expected[] = "HTTP/1.1 200";
    _exit(total >= sizeof expected - 1 && std::memcmp(reply, expected, sizeof expected - 1) == 0
              ? 0
              : 13);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  std::lock_guard<std::mutex> lock(mutex_);
  ASSERT_TRUE(last_peer_);
  EXPECT_EQ(last_peer_->uid, uid);
  EXPECT_EQ(last_peer_->gid, gid);
  EXPECT_EQ(last_peer_->pid, child);
}

TEST_F(HttpServerListenersTest, ServesTcpAndUnixListenersAtOnce) {
  const std::string path = Path("api.sock");
  StartServer({Address("127.0.0.1:0"), Address("unix:" + path)});
  const unsigned short port = server_->LocalEndpoint().port();
  ASSERT_NE(port, 0);
  EXPECT_EQ(server_->BoundAddresses(),
            (std::vector<std::string>{"127.0.0.1:" + std::to_string(port), "unix:" + path}));

  const nlohmann::json tcp = WhoAmI(http_test::LoopbackEndpoint(port));
  EXPECT_EQ(tcp["transport"], "tcp");
  EXPECT_FALSE(tcp.contains("uid"));
  EXPECT_EQ(tcp["remote"].get<std::string>().rfind("127.0.0.1:", 0), 0u);

  const nlohmann::json unix = WhoAmI(UnixEndpoint(path));
  EXPECT_EQ(unix["transport"], "unix");
  EXPECT_EQ(unix["uid"], getuid());
}

TEST_F(HttpServerListenersTest, AppliesSocketModeAndGroup) {
  // As root, a group other than ours shows that chown happened.
  const group* other = geteuid() == 0 ? getgrnam("nogroup") : nullptr;
  const group* own = getgrgid(getegid());
  ASSERT_TRUE(other != nullptr || own != nullptr);
  const gid_t gid = other != nullptr ? other->gr_gid : own->gr_gid;
  ListenerSpec spec = Address("unix:" + Path("api.sock"));
  spec.socket_mode = 0660;
  spec.socket_group = other != nullptr ? other->gr_name : own->gr_name;
  StartServer({spec});

  struct stat status {};
  ASSERT_EQ(stat(Path("api.sock").c_str(), &status), 0);
  EXPECT_TRUE(S_ISSOCK(status.st_mode));
  EXPECT_EQ(status.st_mode & 07777, 0660u);
  EXPECT_EQ(status.st_gid, gid);
  EXPECT_EQ(WhoAmI(UnixEndpoint(Path("api.sock")))["transport"], "unix");
}

TEST_F(HttpServerListenersTest, RefusesUnknownSocketGroupAndLeavesNoFile) {
  ListenerSpec spec = Address("unix:" + Path("api.sock"));
  spec.socket_group = "bplace-no-such-group";
  auto server = Create({spec});
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(server.error().message.find("unknown group 'bplace-no-such-group'"), std::string::npos)
      << server.error().message;
  EXPECT_FALSE(std::filesystem::exists(Path("api.sock")));
}

TEST_F(HttpServerListenersTest, RefusesBadUnixSpecs) {
  ListenerSpec mode = Address("unix:" + Path("api.sock"));
  mode.socket_mode = 010000;
  for (const ListenerSpec& spec : {Address("unix:relative.sock"), Address("unix:"), mode}) {
    auto server = Create({spec});
    ASSERT_FALSE(server) << spec.address;
    EXPECT_EQ(server.error().code, ErrorCode::kInvalidArgument) << server.error().message;
  }
  auto none = Create({});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(HttpServerListenersTest, RefusesMissingParentDirectory) {
  auto server = Create({Address("unix:" + Path("missing/api.sock"))});
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(server.error().message.find("directory " + Path("missing") + " does not exist"),
            std::string::npos)
      << server.error().message;
}

TEST_F(HttpServerListenersTest, ReplacesStaleSocketFile) {
  const std::string path = Path("api.sock");
  {
    RawSocket crashed(AF_UNIX, SOCK_STREAM);
    crashed.BindPath(path);
    crashed.Listen();
  }  // closed without unlinking, as after SIGKILL
  ASSERT_TRUE(std::filesystem::is_socket(path));
  StartServer({Address("unix:" + path)});
  EXPECT_EQ(WhoAmI(UnixEndpoint(path))["transport"], "unix");
  EXPECT_EQ(CountLogLines("removed a stale socket file"), 1);
}

TEST_F(HttpServerListenersTest, RefusesSocketAnotherProcessListensOn) {
  const std::string path = Path("api.sock");
  RawSocket live(AF_UNIX, SOCK_STREAM);
  live.BindPath(path);
  live.Listen();
  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  auto server = Create({Address("unix:" + path)});
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(server.error().message, "unix:" + path + ": another process is listening there");
  struct stat after {};
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
}

TEST_F(HttpServerListenersTest, RefusesAndKeepsRegularFileAtThePath) {
  const std::string path = Path("api.sock");
  std::ofstream(path) << "keep me\n";
  auto server = Create({Address("unix:" + path)});
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(server.error().message,
            "unix:" + path + ": exists and is not a socket; not removing it");
  std::string content;
  std::getline(std::ifstream(path), content);
  EXPECT_EQ(content, "keep me");
}

TEST_F(HttpServerListenersTest, RemovesSocketFileWhenStopped) {
  const std::string path = Path("api.sock");
  StartServer({Address("unix:" + path)});
  EXPECT_EQ(WhoAmI(UnixEndpoint(path))["transport"], "unix");
  ASSERT_TRUE(StopAndDrain());
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(HttpServerListenersTest, LeavesReplacedSocketFileWhenStopped) {
  const std::string path = Path("api.sock");
  StartServer({Address("unix:" + path)});
  // Someone else's file now: not ours to remove.
  ASSERT_EQ(unlink(path.c_str()), 0);
  std::ofstream(path) << "successor\n";
  ASSERT_TRUE(StopAndDrain());
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(HttpServerListenersTest, FailedCreateRemovesSocketFilesItMade) {
  RawSocket taken(AF_INET, SOCK_STREAM);
  const unsigned short port = taken.BindLoopback();
  taken.Listen();
  auto server =
      Create({Address("unix:" + Path("api.sock")), Address("127.0.0.1:" + std::to_string(port))});
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(std::filesystem::exists(Path("api.sock")));
}

TEST_F(HttpServerListenersTest, ServesInheritedTcpSocket) {
  RawSocket inherited(AF_INET, SOCK_STREAM);
  const unsigned short port = inherited.BindLoopback();
  inherited.Listen();
  ASSERT_EQ(fcntl(inherited.fd(), F_SETFD, 0), 0);  // as systemd hands it over
  const int fd = inherited.Release();
  StartServer({Inherited(fd)});
  EXPECT_EQ(server_->LocalEndpoint().port(), port);
  EXPECT_EQ(server_->BoundAddresses(),
            std::vector<std::string>{"127.0.0.1:" + std::to_string(port)});
  EXPECT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  const nlohmann::json who = WhoAmI(http_test::LoopbackEndpoint(port));
  EXPECT_EQ(who["transport"], "tcp");
  EXPECT_FALSE(who.contains("uid"));
}

TEST_F(HttpServerListenersTest, ServesInheritedUnixSocketAndNeverRemovesIt) {
  const std::string path = Path("inherited.sock");
  RawSocket inherited(AF_UNIX, SOCK_STREAM);
  inherited.BindPath(path);
  inherited.Listen();
  ListenerSpec spec = Inherited(inherited.Release());
  spec.address = "bplace.socket";
  StartServer({spec});
  EXPECT_EQ(server_->BoundAddresses(), std::vector<std::string>{"unix:" + path});
  const nlohmann::json who = WhoAmI(UnixEndpoint(path));
  EXPECT_EQ(who["transport"], "unix");
  EXPECT_EQ(who["uid"], getuid());
  ASSERT_TRUE(StopAndDrain());
  EXPECT_TRUE(std::filesystem::is_socket(path));  // systemd's, not ours
}

TEST_F(HttpServerListenersTest, InheritedSocketWithoutPathShowsItsLabel) {
  RawSocket unnamed(AF_UNIX, SOCK_STREAM);
  unnamed.BindAbstract();
  unnamed.Listen();
  ListenerSpec spec = Inherited(unnamed.Release());
  spec.address = "bplace.socket";
  StartServer({spec});
  EXPECT_EQ(server_->BoundAddresses(), std::vector<std::string>{"bplace.socket"});
}

TEST_F(HttpServerListenersTest, RefusesInheritedFdThatIsNotAListeningStreamSocket) {
  RawSocket unlistened(AF_INET, SOCK_STREAM);
  unlistened.BindLoopback();
  RawSocket datagram(AF_UNIX, SOCK_DGRAM);
  datagram.BindPath(Path("dgram.sock"));
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  for (const int fd : {unlistened.fd(), datagram.fd(), pipe_fds[0]}) {
    auto server = Create({Inherited(fd)});
    ASSERT_FALSE(server) << fd;
    EXPECT_EQ(server.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(server.error().message,
              "inherited fd " + std::to_string(fd) + " is not a listening stream socket");
    EXPECT_TRUE(IsOpen(fd));
  }
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  // A number nothing is open under.
  auto closed = Create({Inherited(pipe_fds[0])});
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(HttpServerListenersTest, FailedCreateLeavesInheritedFdToTheCaller) {
  RawSocket inherited(AF_INET, SOCK_STREAM);
  inherited.BindLoopback();
  inherited.Listen();
  auto server = Create({Inherited(inherited.fd()), Address("unix:relative.sock")});
  ASSERT_FALSE(server);
  EXPECT_TRUE(IsOpen(inherited.fd()));
}

TEST_F(HttpServerListenersTest, EachListenerHasItsOwnBudgetSoTcpCannotCrowdOutTheSocket) {
  const std::string path = Path("api.sock");
  ServerOptions options;
  options.max_connections = 1;
  options.max_unix_connections = 1;
  StartServer({Address("127.0.0.1:0"), Address("unix:" + path)}, options);
  // TCP's one place is taken by a request in progress (not reclaimable).
  Client held(server_->LocalEndpoint().port());
  held.Send("GET /whoami HTTP/1.1\r\nHost: t\r\n");
  ASSERT_TRUE(WaitForConnections(1));

  Client turned_away(server_->LocalEndpoint().port());
  turned_away.Get("/whoami");
  auto res = turned_away.Read();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->result_int(), 503u);
  EXPECT_EQ((*res)[http::field::retry_after], "1");
  EXPECT_TRUE(turned_away.WaitClosed(3s));

  // The Unix socket's place is its own.
  EXPECT_EQ(WhoAmI(UnixEndpoint(path))["transport"], "unix");
  EXPECT_TRUE(WaitForConnections(1));  // once the server has seen WhoAmI's close

  // And the other way round: a busy socket leaves TCP its place.
  held.Close();
  ASSERT_TRUE(WaitForConnections(0));
  Client local(UnixEndpoint(path));
  local.Send("GET /whoami HTTP/1.1\r\nHost: t\r\n");
  ASSERT_TRUE(WaitForConnections(1));
  EXPECT_EQ(WhoAmI(http_test::LoopbackEndpoint(server_->LocalEndpoint().port()))["transport"],
            "tcp");
}

}  // namespace
}  // namespace bplace::api
