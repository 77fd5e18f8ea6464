// docs/operations.md "Connections and framing" against the real bplaced: the
// lockout attacks (idle keep-alive connections, a reconnecting slowloris) while
// normal clients (TCP from another loopback address, and the Unix socket) are
// probed; strict framing and 100 Continue with the raw bytes; 401 against 403.
// Raw POSIX sockets with poll and deadlines: no sleeps that wait for a state.
//
// Bounds. A probe is one new connection, `GET /healthz`, the response read.
// On loopback that takes milliseconds; the failures these tests catch are a
// 503 (no room: answered at once) or no answer at all. kServedWithin is the
// 1 s the issue asks for; kProbeDeadline (3 s) is the hard bound asserted,
// the 1 s with a margin for a loaded two-core CI machine, where a process
// can lose the CPU for a while. Every probe's latency is printed, and the
// slowest is reported against the 1 s.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kServedWithin{1000};
constexpr milliseconds kProbeDeadline{3000};

// A connected, non-blocking socket to 127.0.0.1:port from `source`; -1 when
// the connection fails.
int ConnectTcp(int port, const char* source = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

int ConnectUnix(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  std::strncpy(to.sun_path, path.c_str(), sizeof to.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

void SendAll(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      pollfd ready{fd, POLLOUT, 0};
      poll(&ready, 1, 100);
      continue;
    }
    return;
  }
}

// Reads one response's status line and headers (and a Content-Length body)
// from `fd` until `deadline`; nullopt when the connection ends or the
// deadline passes first.
std::optional<int> ReadStatus(int fd, Clock::time_point deadline) {
  std::string data;
  while (true) {
    const std::size_t end = data.find("\r\n\r\n");
    if (end != std::string::npos) {
      std::size_t length = 0;
      const std::size_t field = data.find("Content-Length: ");
      if (field != std::string::npos && field < end) length = std::stoul(data.substr(field + 16));
      if (data.size() >= end + 4 + length && data.rfind("HTTP/1.1 ", 0) == 0) {
        return std::stoi(data.substr(9, 3));
      }
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN)) return std::nullopt;
    if (n > 0) data.append(buffer, static_cast<std::size_t>(n));
  }
}

const char kHealthz[] = "GET /healthz HTTP/1.1\r\nHost: bplace\r\n\r\n";

// One probe: a new connection (fd from `connect`), GET /healthz, the answer.
struct Probe {
  std::optional<int> status;
  milliseconds took{0};
};

template <typename Connect>
Probe RunProbe(Connect connect) {
  Probe probe;
  const Clock::time_point start = Clock::now();
  const int fd = connect();
  if (fd >= 0) {
    SendAll(fd, kHealthz);
    probe.status = ReadStatus(fd, start + kProbeDeadline);
    close(fd);
  }
  probe.took = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return probe;
}

// Probes over TCP from 127.0.0.1 and 127.0.0.2 and over the Unix socket,
// expecting each to be served in time; returns the slowest.
class Prober {
 public:
  Prober(int port, std::string unix_path) : port_(port), unix_path_(std::move(unix_path)) {}

  void ProbeAll(bool include_attackers_address) {
    if (include_attackers_address) Check("tcp 127.0.0.1", [&] { return ConnectTcp(port_); });
    Check("tcp 127.0.0.2", [&] { return ConnectTcp(port_, "127.0.0.2"); });
    Check("unix", [&] { return ConnectUnix(unix_path_); });
  }

  milliseconds slowest() const { return slowest_; }
  int probes() const { return probes_; }

 private:
  template <typename Connect>
  void Check(const char* via, Connect connect) {
    const Probe probe = RunProbe(connect);
    ++probes_;
    slowest_ = std::max(slowest_, probe.took);
    EXPECT_EQ(probe.status, std::optional<int>(200))
        << via << ": not served (" << probe.took.count() << " ms)";
    EXPECT_LE(probe.took, kProbeDeadline) << via;
  }

  const int port_;
  const std::string unix_path_;
  milliseconds slowest_{0};
  int probes_ = 0;
};

// The socket goes into a directory the daemon's user (bplace-sys when the
// tests run as root) may create files in.
std::string SocketPath(const SimCluster& sim) {
  const std::filesystem::path dir = sim.dir() / "run";
  std::filesystem::create_directory(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::all);
  return (dir / "bplace.sock").string();
}

TEST(ConnectionLimitsTest, IdleKeepAliveConnectionsCannotLockOutNewClients) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.unix_socket = SocketPath(sim);
  DaemonProcess daemon(sim, settings);  // the default budgets

  // 256 connections that each ask one question and then sit idle: once the
  // whole (shared) budget, and every new client got 503.
  std::vector<int> idle;
  int answered = 0;
  for (int i = 0; i < 256; ++i) {
    const int fd = ConnectTcp(daemon.port());
    ASSERT_GE(fd, 0);
    SendAll(fd, kHealthz);
    if (ReadStatus(fd, Clock::now() + kProbeDeadline) == std::optional<int>(200)) ++answered;
    idle.push_back(fd);
  }
  EXPECT_EQ(answered, 256);

  Prober prober(daemon.port(), settings.unix_socket);
  for (int round = 0; round < 5; ++round) prober.ProbeAll(true);
  std::printf("idle keep-alive: %d probes, slowest %lld ms (target %lld ms)\n", prober.probes(),
              static_cast<long long>(prober.slowest().count()),
              static_cast<long long>(kServedWithin.count()));
  for (int fd : idle) close(fd);
}

// A connection trickling a never-ending request a byte at a time; reopened
// once the server closes it (at the deadline, or with a 503).
struct Trickler {
  int fd = -1;
  Clock::time_point opened;
  bool body = false;  // trickles a body after complete headers
};

TEST(ConnectionLimitsTest, ReconnectingSlowlorisCannotLockOutNormalClients) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.unix_socket = SocketPath(sim);
  // Short deadlines so that the test sees several rounds of reconnecting;
  // the connection budgets are the defaults, with a per-address cap as a
  // site listening on a routable address would set it.
  settings.server_config =
      "header_timeout_s = 2\nbody_timeout_s = 2\nmax_connections_per_peer = 128\n";
  DaemonProcess daemon(sim, settings);
  constexpr auto kHeaderTimeout = std::chrono::seconds(2);
  constexpr auto kBodyTimeout = std::chrono::seconds(2);
  // What a connection may take beyond its deadlines before we call it held.
  constexpr auto kMargin = std::chrono::seconds(3);

  // More than a per-address cap of 128 would let in, and more than the
  // whole budget once was (256).
  std::vector<Trickler> attack(300);
  for (std::size_t i = 0; i < attack.size(); ++i) attack[i].body = i % 2 == 1;
  auto open = [&](Trickler& t) {
    t.fd = ConnectTcp(daemon.port());
    t.opened = Clock::now();
    if (t.fd >= 0 && t.body) {
      SendAll(t.fd, "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
    } else if (t.fd >= 0) {
      SendAll(t.fd, "GET /healthz HTTP/1.1\r\n");
    }
  };
  for (Trickler& t : attack) open(t);

  Prober prober(daemon.port(), settings.unix_socket);
  milliseconds longest_held{0};
  int turned_away = 0;
  const Clock::time_point start = Clock::now();
  for (int tick = 0; tick < 32; ++tick) {  // 8 s of 250 ms ticks
    if (tick % 4 == 0) {
      // Once a second: a byte on every attacking connection; reopen those
      // the server has closed, noting how long each had held its place.
      for (Trickler& t : attack) {
        char buffer[512];
        const ssize_t n = t.fd < 0 ? 0 : recv(t.fd, buffer, sizeof buffer - 1, MSG_DONTWAIT);
        const bool closed = t.fd < 0 || n >= 0 || errno != EAGAIN;
        if (!closed) {
          SendAll(t.fd, t.body ? "x" : "X");
          continue;
        }
        if (n > 0 &&
            std::string(buffer, static_cast<std::size_t>(n)).rfind("HTTP/1.1 503", 0) == 0) {
          ++turned_away;  // the address's cap is full: the attack is real
        } else if (t.fd >= 0) {
          longest_held = std::max(
              longest_held, std::chrono::duration_cast<milliseconds>(Clock::now() - t.opened));
        }
        if (t.fd >= 0) close(t.fd);
        open(t);
      }
    }
    prober.ProbeAll(false);
    // Pacing the load, not waiting for a state: every tick probes anew.
    std::this_thread::sleep_until(start + (tick + 1) * milliseconds(250));
  }
  std::printf("slowloris: %d probes, slowest %lld ms (target %lld ms), longest held %lld ms\n",
              prober.probes(), static_cast<long long>(prober.slowest().count()),
              static_cast<long long>(kServedWithin.count()),
              static_cast<long long>(longest_held.count()));
  // Seen once a second, so up to a second late.
  EXPECT_LE(longest_held, kHeaderTimeout + kBodyTimeout + kMargin)
      << "a trickling client held its connection past the read deadlines";
  EXPECT_GT(turned_away, 0) << "the attack never filled its address's cap";
  EXPECT_EQ(prober.probes(), 64);
  for (Trickler& t : attack) {
    if (t.fd >= 0) close(t.fd);
  }
}

// Sends `raw` on a new connection and returns everything the daemon sends
// until it closes the connection (or 5 s pass: then "" + what came).
std::string RawExchange(int port, const std::string& raw) {
  const int fd = ConnectTcp(port);
  if (fd < 0) return "";
  SendAll(fd, raw);
  std::string data;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 100) <= 0) continue;
    char buffer[4096];
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0 && !(n < 0 && errno == EAGAIN)) break;
    if (n > 0) data.append(buffer, static_cast<std::size_t>(n));
  }
  close(fd);
  return data;
}

int Responses(const std::string& data) {
  int count = 0;
  for (std::size_t at = data.find("HTTP/1.1 "); at != std::string::npos;
       at = data.find("HTTP/1.1 ", at + 1)) {
    ++count;
  }
  return count;
}

TEST(StrictFramingTest, TheDaemonRefusesAmbiguousRequestsWithOneAnswerAndCloses) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonProcess daemon(sim, DaemonSettings{});
  const int port = daemon.port();
  // A body that is a second request: once it was answered too.
  const std::string smuggled = "GET /v1/queues HTTP/1.1\r\nHost: x\r\n\r\n";
  for (const std::string coding : {"xchunked", "identity", "chunked, identity"}) {
    const std::string answer = RawExchange(
        port, "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + daemon.token() +
                  "\r\nTransfer-Encoding: " + coding + "\r\n\r\n" + smuggled);
    EXPECT_EQ(answer.rfind("HTTP/1.1 400 ", 0), 0u) << coding << ": " << answer;
    EXPECT_EQ(Responses(answer), 1) << coding << ": " << answer;
  }
  EXPECT_EQ(RawExchange(port, "GET /v1/queues HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(RawExchange(port, "GET /v1/queues HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
                .rfind("HTTP/1.1 400 ", 0),
            0u);
  EXPECT_EQ(RawExchange(port, "GET /v1/queues HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " +
                                  daemon.token() + "\r\nAuthorization: Bearer x\r\n\r\n")
                .rfind("HTTP/1.1 400 ", 0),
            0u);
  EXPECT_EQ(RawExchange(port,
                        "POST /v1/jobs HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n"
                        "Content-Length: 2\r\n\r\n{}")
                .rfind("HTTP/1.1 400 ", 0),
            0u);
  EXPECT_EQ(RawExchange(port, "POST /v1/jobs HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " +
                                  daemon.token() +
                                  "\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}")
                .rfind("HTTP/1.1 415 ", 0),
            0u);
}

TEST(StrictFramingTest, CredentialsAreCheckedBefore100Continue) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonProcess daemon(sim, DaemonSettings{});
  const std::string body = R"({"command":"sleep 1"})";
  const std::string head =
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Expect: 100-continue\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n";
  for (const std::string& credentials :
       {std::string(), std::string("Authorization: Bearer bad\r\n")}) {
    // Headers only: a client waiting for the go-ahead.
    const std::string answer = RawExchange(daemon.port(), head + credentials + "\r\n");
    EXPECT_EQ(answer.rfind("HTTP/1.1 401 ", 0), 0u) << answer;
    EXPECT_EQ(answer.find(" 100 "), std::string::npos) << answer;
    EXPECT_NE(answer.find("WWW-Authenticate: Bearer"), std::string::npos) << answer;
  }
  // With credentials the go-ahead comes, then the answer to the body (sent
  // at once here, which a client may do).
  const std::string go_ahead =
      RawExchange(daemon.port(), head + "Authorization: Bearer " + daemon.token() +
                                     "\r\nConnection: close\r\n\r\n" + body);
  EXPECT_EQ(go_ahead.rfind("HTTP/1.1 100 ", 0), 0u) << go_ahead;
  EXPECT_NE(go_ahead.find("HTTP/1.1 201 "), std::string::npos) << go_ahead;
}

TEST(AuthAnswersTest, AnonymousCallsNeedingMoreGet401AndEvery403NamesTheCaller) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.token_lines = {TokenHash("bob-read-token") + " bob read"};
  DaemonProcess daemon(sim, settings);  // anonymous_read = true
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/v1/cache/refresh"}, {"POST", "/v1/jobs"}, {"DELETE", "/v1/jobs/1"}}) {
    const HttpReply reply = Http(daemon.port(), method, target, "{}");
    EXPECT_EQ(reply.status, 401) << method << " " << target << ": " << reply.body;
    const auto challenge = reply.headers.find("www-authenticate");
    ASSERT_NE(challenge, reply.headers.end()) << target;
    EXPECT_EQ(challenge->second, "Bearer realm=\"bplace\"") << target;
  }
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/v1/cache/refresh"}, {"POST", "/v1/jobs"}}) {
    const HttpReply reply = Http(daemon.port(), method, target, R"({"command":"true"})",
                                 "application/json", "Bearer bob-read-token");
    EXPECT_EQ(reply.status, 403) << target << ": " << reply.body;
    EXPECT_NE(reply.body.find("bob"), std::string::npos) << target << ": " << reply.body;
  }
  // Cancelling needs what submitting needs; the 403 names the caller too
  // (the job need not exist: the right is checked first).
  const HttpReply cancel =
      Http(daemon.port(), "DELETE", "/v1/jobs/1", "", "application/json", "Bearer bob-read-token");
  EXPECT_EQ(cancel.status, 403) << cancel.body;
  EXPECT_NE(cancel.body.find("the token of bob"), std::string::npos) << cancel.body;
}

// Hole 5: one client trickling a request body kept the daemon alive until
// its body deadline after SIGTERM. With drain_timeout_s = 2 it exits 0 soon
// after; the bound asserted (30 s) is far below the 120 s body deadline the
// connection would otherwise hold, and far above the 2 s, for a loaded CI.
TEST(ShutdownTest, ATricklingClientCannotHoldTheDaemonPastTheDrainDeadline) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.server_config = "drain_timeout_s = 2\nbody_timeout_s = 120";
  DaemonProcess daemon(sim, settings);
  const int fd = ConnectTcp(daemon.port());
  ASSERT_GE(fd, 0);
  SendAll(fd,
          "POST /v1/jobs HTTP/1.1\r\nHost: bplace\r\nContent-Type: application/json\r\n"
          "Content-Length: 1000\r\n\r\n{\"comm");
  // The daemon holds the connection in its body phase (a probe on another
  // connection is answered, so the headers were read).
  ASSERT_EQ(RunProbe([&] { return ConnectTcp(daemon.port()); }).status, std::optional<int>(200));
  const Clock::time_point start = Clock::now();
  const int status = daemon.Terminate(std::chrono::seconds(60));
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  close(fd);
  EXPECT_EQ(status, 0);
  EXPECT_LT(took, milliseconds(30000)) << took.count() << " ms";
  std::printf("exited %lld ms after SIGTERM (drain_timeout_s = 2)\n",
              static_cast<long long>(took.count()));
}

// Hole 5: audit records shared the journal's rate limit with one access line
// per request. Under a flood of reads the access log keeps to its budget
// (server default 20 lines a second, counting the rest) while every
// submission's audit record is in the audit file.
TEST(AuditUnderLoadTest, AReadFloodNeitherFloodsTheLogNorLosesAuditRecords) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonProcess daemon(sim, DaemonSettings{});
  constexpr int kJobs = 20;
  constexpr int kReads = 3000;
  const Clock::time_point start = Clock::now();
  std::thread flood([&] {
    const int fd = ConnectTcp(daemon.port());
    ASSERT_GE(fd, 0);
    for (int i = 0; i < kReads; ++i) {
      SendAll(fd, kHealthz);
      ASSERT_EQ(ReadStatus(fd, Clock::now() + kProbeDeadline), std::optional<int>(200)) << i;
    }
    close(fd);
  });
  for (int i = 0; i < kJobs; ++i) {
    const HttpReply reply = daemon.Post("/v1/jobs", R"({"command":"sleep 1"})");
    ASSERT_EQ(reply.status, 201) << reply.body;
  }
  flood.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::ifstream audit(daemon.audit_path());
  int submitted = 0;
  for (std::string line; std::getline(audit, line);) {
    if (line.find("\"decision\":\"submitted\"") != std::string::npos) ++submitted;
  }
  EXPECT_EQ(submitted, kJobs);
  std::ifstream log(daemon.log_path());
  int access_lines = 0;
  int skipped_reports = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.find("\"GET /healthz\"") != std::string::npos) ++access_lines;
    if (line.find("responses not logged") != std::string::npos) ++skipped_reports;
  }
  // At most 20 a second (every started second: +1), so never all 3000.
  EXPECT_LE(access_lines, 20 * (static_cast<int>(seconds) + 2)) << seconds << " s";
  EXPECT_LT(access_lines, kReads);
  std::printf(
      "%d reads + %d submissions in %.1f s: %d access lines, %d reports of skipped "
      "lines, %d audit records\n",
      kReads, kJobs, seconds, access_lines, skipped_reports, submitted);
}

}  // namespace
}  // namespace bplace::testing
