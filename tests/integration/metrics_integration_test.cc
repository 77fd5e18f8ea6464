// GET /metrics of the real bplaced on the demo cluster: promtool accepts the
// exposition, and Debian's real prometheus scrapes it and answers queries.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kPrometheus[] = "/usr/bin/prometheus";
constexpr char kPromtool[] = "/usr/bin/promtool";

// The value of column `column` in the row of `row` of an LSF table
// (`bqueues -w`), or nullopt.
std::optional<std::string> Cell(const std::string& table, const std::string& row,
                                const std::string& column) {
  std::istringstream in(table);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    for (std::string word; words >> word;) cells.push_back(word);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.empty() || cells.front() != row) continue;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) {
      if (header[i] == column) return cells[i];
    }
  }
  return std::nullopt;
}

// A loopback TCP port nobody listens on now (bound to 0, then closed).
int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    return 0;
  }
  close(fd);
  return ntohs(address.sin_port);
}

// The real prometheus on 127.0.0.1:port, its storage and config in `dir`,
// scraping `target` every second; stopped (SIGTERM, then SIGKILL) and
// reaped in the destructor.
class PrometheusProcess {
 public:
  PrometheusProcess(const std::filesystem::path& dir, int port, const std::string& target)
      : port_(port), log_path_((dir / "prometheus.log").string()) {
    const auto config = dir / "prometheus.yml";
    std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                          << "scrape_configs:\n  - job_name: bplace\n    static_configs:\n"
                          << "      - targets: ['" << target << "']\n";
    const std::string config_flag = "--config.file=" + config.string();
    const std::string storage_flag = "--storage.tsdb.path=" + (dir / "tsdb").string();
    const std::string listen_flag = "--web.listen-address=127.0.0.1:" + std::to_string(port);
    pid_ = fork();
    if (pid_ == 0) {
      const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
      }
      execl(kPrometheus, kPrometheus, config_flag.c_str(), storage_flag.c_str(),
            listen_flag.c_str(), "--log.level=warn", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~PrometheusProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // The result vector of an instant query, or a discarded value when
  // prometheus does not answer (yet).
  json Query(const std::string& promql) const {
    std::string encoded;
    for (unsigned char c : promql) {
      if (std::isalnum(c) || c == '_') {
        encoded += static_cast<char>(c);
      } else {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%%%02X", c);
        encoded += hex;
      }
    }
    try {
      const HttpReply reply = Http(port_, "GET", "/api/v1/query?query=" + encoded);
      const json answer = reply.Json();
      if (reply.status != 200 || answer.value("status", "") != "success") return json();
      return answer["data"]["result"];
    } catch (const std::exception&) {
      return json();  // not listening yet
    }
  }

  // Polls `promql` until it returns at least one sample or `timeout` passes;
  // the first sample's value, or nullopt.
  std::optional<double> WaitForValue(const std::string& promql,
                                     std::chrono::seconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const json result = Query(promql);
      if (result.is_array() && !result.empty()) {
        return std::stod(result[0]["value"][1].get<std::string>());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return std::nullopt;
  }

  const std::string& log_path() const { return log_path_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class MetricsTest : public ::testing::Test {
 protected:
  MetricsTest() : sim_(DEMO_CLUSTER), daemon_(sim_, DaemonSettings{}) {}

  // PEND of `queue` as the simulator's own bqueues prints it.
  long SimulatorPend(const std::string& queue) const {
    const auto pend = Cell(sim_.Lsf({"bqueues", "-w"}).out, queue, "PEND");
    return pend ? std::stol(*pend) : -1;
  }

  SimCluster sim_;
  DaemonProcess daemon_;
};

TEST_F(MetricsTest, ExpositionPassesPromtoolAndShowsTheSnapshotWithoutAnyLsfCall) {
  ASSERT_EQ(daemon_.Get("/v1/queues").status, 200);
  ASSERT_EQ(daemon_.Get("/v1/placement").status, 200);
  const long pend = SimulatorPend("normal");  // itself a bqueues run: before the count
  ASSERT_GE(pend, 0) << "no PEND for normal in the simulator's bqueues -w";
  const json before = sim_.Counts();
  ASSERT_TRUE(before.is_object()) << "lsfsim counts";

  const HttpReply reply = daemon_.Get("/metrics");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = reply.body;
  EXPECT_THAT(text, HasSubstr("bplace_queue_pending_slots{queue=\"normal\"} " +
                              std::to_string(pend) + "\n"));
  EXPECT_THAT(text, HasSubstr("bplace_http_requests_total{method=\"GET\",route=\"/v1/queues\","
                              "code=\"200\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_commands_total{command=\"bqueues\",outcome=\"ok\"}"));
  EXPECT_THAT(text, HasSubstr("bplace_refresh_runs_total{tier=\"load\",outcome=\"success\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_placements_total{outcome=\""));
  EXPECT_THAT(text, HasSubstr("bplace_http_connections_accepted_total{listener=\"tcp\"}"));
  EXPECT_THAT(text, HasSubstr("bplace_hosts{status=\"ok\",ib=\"unknown\"}"));
  EXPECT_THAT(text, HasSubstr("bplace_http_request_duration_seconds_count{method=\"GET\","
                              "route=\"/v1/queues\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_queue_inflight_slots{queue=\"normal\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("le=\"+Inf\""));

  for (int i = 0; i < 3; ++i) ASSERT_EQ(daemon_.Get("/metrics").status, 200);
  EXPECT_EQ(sim_.Counts(), before) << "reads of /metrics ran LSF commands";

  if (!std::filesystem::exists(kPromtool)) {
    GTEST_SKIP() << kPromtool << " is absent (Debian package `prometheus`, installed by "
                 << "tools/install-deps.sh): the exposition was not linted";
  }
  const auto file = sim_.dir() / "metrics.txt";
  std::ofstream(file) << text;
  const ProcessOutput lint =
      RunProcess({"/bin/sh", "-c", std::string(kPromtool) + " check metrics < " + file.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
}

TEST_F(MetricsTest, RealPrometheusScrapesTheDaemonAndAnswersQueries) {
  if (!std::filesystem::exists(kPrometheus)) {
    GTEST_SKIP() << kPrometheus << " is absent (Debian package `prometheus`, installed by "
                 << "tools/install-deps.sh)";
  }
  ASSERT_EQ(daemon_.Get("/v1/queues").status, 200);
  const long pend = SimulatorPend("normal");  // itself a bqueues run: before the count
  ASSERT_GE(pend, 0) << "no PEND for normal in the simulator's bqueues -w";
  const json before = sim_.Counts();
  const auto dir = sim_.dir() / "prometheus";
  std::filesystem::create_directories(dir);
  const int port = FreeLoopbackPort();
  ASSERT_NE(port, 0);
  const PrometheusProcess prometheus(dir, port, "127.0.0.1:" + std::to_string(daemon_.port()));

  // Scraped at least twice: the second scrape sees the first one's request.
  const auto scrapes = prometheus.WaitForValue(
      "bplace_http_requests_total{route=\"/metrics\",code=\"200\"} >= 1", std::chrono::seconds(60));
  ASSERT_TRUE(scrapes.has_value()) << ReadFile(prometheus.log_path());
  EXPECT_EQ(prometheus.WaitForValue("up{job=\"bplace\"}", std::chrono::seconds(5)), 1.0);
  EXPECT_EQ(prometheus.WaitForValue("bplace_queue_pending_slots{queue=\"normal\"}",
                                    std::chrono::seconds(5)),
            static_cast<double>(pend));
  EXPECT_EQ(prometheus.WaitForValue(
                "bplace_http_requests_total{method=\"GET\",route=\"/v1/queues\",code=\"200\"}",
                std::chrono::seconds(5)),
            1.0);
  EXPECT_EQ(prometheus.WaitForValue(
                "sum(bplace_refresh_runs_total{tier=\"topology\",outcome=\"success\"})",
                std::chrono::seconds(5)),
            1.0);
  EXPECT_EQ(sim_.Counts(), before) << "scrapes ran LSF commands";
}

TEST_F(MetricsTest, ASubmissionIsCountedWithItsQueueAndBsubLatency) {
  const HttpReply posted = daemon_.Post("/v1/jobs", R"({"command":"sleep 60","slots":1})");
  ASSERT_EQ(posted.status, 201) << posted.body;
  const std::string queue = posted.Json()["queue"].get<std::string>();
  const std::string text = daemon_.Get("/metrics").body;
  EXPECT_THAT(text, HasSubstr("bplace_submissions_total{outcome=\"submitted\",queue=\"" + queue +
                              "\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_commands_total{command=\"bsub\",outcome=\"ok\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_command_duration_seconds_count{command=\"bsub\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_http_requests_total{method=\"POST\",route=\"/v1/jobs\","
                              "code=\"201\"} 1\n"));
}

// The harness's daemons allow anonymous TCP reads ([auth] anonymous_read),
// so the guard shows in how a bad token is met: "read" checks credentials
// like every read route (401), "anonymous" (the default) never looks.
TEST_F(MetricsTest, AnonymousAccessIgnoresCredentials) {
  EXPECT_EQ(Http(daemon_.port(), "GET", "/metrics", "", "", "Bearer not-a-token").status, 200);
}

TEST(MetricsAccessTest, ReadAccessChecksCredentialsAsOtherReads) {
  const SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.server_config = "metrics_access = \"read\"";
  const DaemonProcess guarded(sim, settings);
  EXPECT_EQ(Http(guarded.port(), "GET", "/metrics", "", "", "Bearer not-a-token").status, 401);
  const HttpReply with_token =
      Http(guarded.port(), "GET", "/metrics", "", "", "Bearer " + guarded.token());
  EXPECT_EQ(with_token.status, 200) << with_token.body;
  EXPECT_THAT(with_token.body, HasSubstr("# TYPE bplace_queue_pending_slots gauge\n"));
}

}  // namespace
}  // namespace bplace::testing
