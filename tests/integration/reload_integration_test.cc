// docs/configuration.md "Reloading" against the real bplaced: the systemd
// notifications (READY=1, WATCHDOG=1 from the event loop, RELOADING=1 ...
// READY=1 around a SIGHUP) read from a Unix datagram socket the test owns as
// NOTIFY_SOCKET, and SIGHUP re-reading the config file: new [limits] and [log]
// level in force, a restart-only key reported and not applied, a broken file
// refused while the daemon serves on. Waits are polls against deadlines.

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// The socket systemd would listen on: AF_UNIX datagrams, one notification
// (newline-separated assignments) each.
class NotifySocket {
 public:
  explicit NotifySocket(const std::filesystem::path& path) : path_(path.string()) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (fd_ < 0 || path_.size() >= sizeof address.sun_path) {
      throw std::runtime_error("cannot make the notify socket " + path_);
    }
    std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
    std::filesystem::remove(path_);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      throw std::runtime_error("bind " + path_ + ": " + std::strerror(errno));
    }
    // As root the daemon runs as the service user, who must be able to send.
    chmod(path_.c_str(), 0666);
  }
  ~NotifySocket() {
    close(fd_);
    std::filesystem::remove(path_);
  }
  const std::string& path() const { return path_; }

  // Reads notifications until one satisfies `wanted` or `timeout` passes;
  // every one read is kept in received().
  std::optional<std::string> WaitFor(const std::function<bool(const std::string&)>& wanted,
                                     std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd ready{fd_, POLLIN, 0};
      if (poll(&ready, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t got = recv(fd_, buffer, sizeof buffer, 0);
      if (got <= 0) continue;
      received_.emplace_back(buffer, static_cast<std::size_t>(got));
      if (wanted(received_.back())) return received_.back();
    }
  }

  const std::vector<std::string>& received() const { return received_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> received_;
};

std::function<bool(const std::string&)> Contains(const std::string& text) {
  return [text](const std::string& message) { return message.find(text) != std::string::npos; };
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// Replaces the one occurrence of `from` in `text` by `to`.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("`" + from + "` not in the config");
  return text.replace(at, from.size(), to);
}

// Polls the daemon's log until it holds `text`, for at most `timeout`.
bool LogShows(const DaemonProcess& daemon, const std::string& text,
              std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (ReadText(daemon.log_path()).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Sends the start of a request, ends the sending side and waits (at most
// 5 s) until the daemon closes the connection: by then it has logged
// "connection ended while reading headers", at debug level only.
void SendHalfARequest(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
    const char partial[] = "GET /healthz HTTP/1.1\r\n";
    (void)!write(fd, partial, sizeof partial - 1);
    shutdown(fd, SHUT_WR);
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    char buffer[512];
    while (Clock::now() < deadline) {
      pollfd ready{fd, POLLIN, 0};
      if (poll(&ready, 1, 100) > 0 && read(fd, buffer, sizeof buffer) <= 0) break;
    }
  }
  close(fd);
}

TEST(SystemdNotifyTest, SendsReadyThenWatchdogPingsFromTheEventLoop) {
  SimCluster sim(DEMO_CLUSTER);
  NotifySocket notify(sim.dir() / "notify");
  DaemonSettings settings;
  // 200 ms: the daemon pings every 100 ms (half, as systemd advises).
  settings.env = {{"NOTIFY_SOCKET", notify.path()}, {"WATCHDOG_USEC", "200000"}};
  DaemonProcess daemon(sim, settings);
  ASSERT_TRUE(notify.WaitFor(Contains("READY=1"), std::chrono::seconds(10)))
      << ReadText(daemon.log_path());
  int pings = 0;
  for (const std::string& message : notify.received()) pings += message == "WATCHDOG=1";
  while (pings < 3 && notify.WaitFor(Contains("WATCHDOG=1"), std::chrono::seconds(5))) ++pings;
  EXPECT_GE(pings, 3);
  EXPECT_TRUE(
      LogShows(daemon, "systemd watchdog: WATCHDOG=1 every 100 ms while every event loop runs"));
  EXPECT_EQ(daemon.Terminate(), 0);
}

TEST(SystemdNotifyTest, NoWatchdogPingsWithoutWatchdogUsec) {
  SimCluster sim(DEMO_CLUSTER);
  NotifySocket notify(sim.dir() / "notify");
  DaemonSettings settings;
  settings.env = {{"NOTIFY_SOCKET", notify.path()}};
  DaemonProcess daemon(sim, settings);
  ASSERT_TRUE(notify.WaitFor(Contains("READY=1"), std::chrono::seconds(10)));
  EXPECT_FALSE(notify.WaitFor(Contains("WATCHDOG=1"), std::chrono::milliseconds(500)));
}

TEST(ReloadTest, SighupAppliesLimitsAndLogLevelAndReportsRestartOnlyKeys) {
  SimCluster sim(DEMO_CLUSTER);
  NotifySocket notify(sim.dir() / "notify");
  DaemonSettings settings;
  settings.env = {{"NOTIFY_SOCKET", notify.path()}};
  // One submission per user, and none back for 100 minutes.
  settings.limits =
      "submit_burst = 1\nsubmit_per_minute = 0.01\nlsf_calls_burst = 1000\n"
      "lsf_calls_per_minute = 6000\n";
  DaemonProcess daemon(sim, settings);
  ASSERT_TRUE(notify.WaitFor(Contains("READY=1"), std::chrono::seconds(10)));
  const std::string job = json{{"command", "sleep 1"}}.dump();
  ASSERT_EQ(daemon.Post("/v1/jobs", job).status, 201);
  ASSERT_EQ(daemon.Post("/v1/jobs", job).status, 429);
  SendHalfARequest(daemon.port());

  const std::string original = ReadText(daemon.config_path());
  std::string changed = Replaced(original, "submit_burst = 1\n", "submit_burst = 3\n");
  changed = Replaced(changed, "listen = [\"127.0.0.1:0\"", "listen = [\"127.0.0.1:1\"");
  changed += "\n[log]\nlevel = \"debug\"\n";
  WriteText(daemon.config_path(), changed);
  ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);

  ASSERT_TRUE(notify.WaitFor(Contains("RELOADING=1"), std::chrono::seconds(5)));
  const auto done = notify.WaitFor(Contains("STATUS=reloaded"), std::chrono::seconds(5));
  ASSERT_TRUE(done) << ReadText(daemon.log_path());
  EXPECT_THAT(*done, HasSubstr("READY=1\n"));
  EXPECT_THAT(*done, HasSubstr("2 keys applied; needs a restart: server.listen"));
  const std::string reloading = notify.received()[notify.received().size() - 2];
  EXPECT_THAT(reloading, ::testing::MatchesRegex("RELOADING=1\nMONOTONIC_USEC=[0-9]+"));

  // Two more submissions (of the three the new burst holds), then 429 again.
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 201);
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 201);
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 429);
  // Still on its old port; the change is reported, not applied.
  EXPECT_EQ(daemon.Get("/healthz").status, 200);
  const std::string log = ReadText(daemon.log_path());
  EXPECT_THAT(log, HasSubstr("SIGHUP: server.listen changed: needs a restart (kept 127.0.0.1:0)"));
  EXPECT_THAT(log, HasSubstr("SIGHUP: limits.submit_burst: 1 -> 3"));
  EXPECT_THAT(log, HasSubstr("SIGHUP: log.level: info -> debug"));
  // Debug lines were not logged before the reload, and are now.
  EXPECT_THAT(log, Not(HasSubstr("connection ended while reading")));
  SendHalfARequest(daemon.port());
  EXPECT_TRUE(LogShows(daemon, "connection ended while reading"));
  EXPECT_EQ(daemon.Terminate(), 0);
}

TEST(ReloadTest, ABrokenFileIsRefusedAndTheRunningConfigKept) {
  SimCluster sim(DEMO_CLUSTER);
  NotifySocket notify(sim.dir() / "notify");
  DaemonSettings settings;
  settings.env = {{"NOTIFY_SOCKET", notify.path()}};
  settings.limits = "submit_burst = 1\nsubmit_per_minute = 0.01\n";
  DaemonProcess daemon(sim, settings);
  ASSERT_TRUE(notify.WaitFor(Contains("READY=1"), std::chrono::seconds(10)));
  const std::string original = ReadText(daemon.config_path());

  // A valid burst next to a bad value: nothing of the file is taken.
  WriteText(daemon.config_path(),
            Replaced(original, "submit_burst = 1\n", "submit_burst = 50\nmax_burst = 2\n"));
  ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);
  auto refused = notify.WaitFor(Contains("STATUS=reload refused"), std::chrono::seconds(5));
  ASSERT_TRUE(refused) << ReadText(daemon.log_path());
  EXPECT_THAT(*refused, HasSubstr("limits.max_burst: unknown key"));
  EXPECT_THAT(*refused, HasSubstr("READY=1\n"));

  // A TOML syntax error.
  WriteText(daemon.config_path(), original + "\n[limits\n");
  ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);
  refused = notify.WaitFor(Contains("STATUS=reload refused"), std::chrono::seconds(5));
  ASSERT_TRUE(refused);
  EXPECT_THAT(*refused, HasSubstr("syntax error"));

  // Still serving, with the old burst of one.
  EXPECT_EQ(daemon.Get("/healthz").status, 200);
  const std::string job = json{{"command", "sleep 1"}}.dump();
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 201);
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 429);
  EXPECT_TRUE(LogShows(daemon, "SIGHUP: config not reloaded, the running one is kept: " +
                                   daemon.config_path() + ":"));
  EXPECT_EQ(daemon.Terminate(), 0);
}

TEST(ReloadTest, SighupShortensTheLoadRefreshInterval) {
  SimCluster sim(DEMO_CLUSTER);
  NotifySocket notify(sim.dir() / "notify");
  DaemonSettings settings;
  settings.env = {{"NOTIFY_SOCKET", notify.path()}};
  settings.load_refresh_s = 3600;
  DaemonProcess daemon(sim, settings);
  ASSERT_TRUE(notify.WaitFor(Contains("READY=1"), std::chrono::seconds(10)));
  const int before = sim.Counts().value("bhosts", 0);
  WriteText(daemon.config_path(), Replaced(ReadText(daemon.config_path()),
                                           "load_refresh_s = 3600\n", "load_refresh_s = 1\n"));
  ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);
  const auto done = notify.WaitFor(Contains("STATUS=reloaded"), std::chrono::seconds(5));
  ASSERT_TRUE(done) << ReadText(daemon.log_path());
  EXPECT_THAT(*done, HasSubstr("1 key applied"));
  // The load tier now runs every second (it had started over an hour's wait):
  // two more runs within a bounded wait.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (sim.Counts().value("bhosts", 0) < before + 2 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GE(sim.Counts().value("bhosts", 0), before + 2) << ReadText(daemon.log_path());
  EXPECT_EQ(daemon.Terminate(), 0);
}

TEST(ReloadTest, SighupReadsTheTokensFileAgain) {
  SimCluster sim(DEMO_CLUSTER);
  NotifySocket notify(sim.dir() / "notify");
  DaemonSettings settings;
  settings.env = {{"NOTIFY_SOCKET", notify.path()}};
  DaemonProcess daemon(sim, settings);
  ASSERT_TRUE(notify.WaitFor(Contains("READY=1"), std::chrono::seconds(10)));
  const std::string token = "bpl_reload_test_" + std::to_string(getpid());
  const std::string job = json{{"command", "sleep 1"}}.dump();
  auto submit = [&] {
    return Http(daemon.port(), "POST", "/v1/jobs", job, "application/json", "Bearer " + token);
  };
  EXPECT_EQ(submit().status, 401);
  // Appended in place: the file keeps its owner and mode 0600.
  std::ofstream(sim.dir() / "tokens", std::ios::app)
      << TokenHash(token) << " " << daemon.service_user() << " submit\n";
  ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);
  const auto done = notify.WaitFor(Contains("STATUS=reloaded"), std::chrono::seconds(5));
  ASSERT_TRUE(done) << ReadText(daemon.log_path());
  EXPECT_THAT(*done, HasSubstr("no key changed; 2 tokens"));
  EXPECT_EQ(submit().status, 201);
  EXPECT_EQ(daemon.Terminate(), 0);
}

}  // namespace
}  // namespace bplace::testing
