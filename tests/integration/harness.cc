#include "tests/integration/harness.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "tests/integration/append_line.h"

extern char** environ;

namespace bplace::testing {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

std::vector<std::string> MergedEnv(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text(*entry);
    const auto eq = text.find('=');
    if (eq != std::string::npos) merged[text.substr(0, eq)] = text.substr(eq + 1);
  }
  for (const auto& [name, value] : extra) merged[name] = value;
  std::vector<std::string> env;
  for (const auto& [name, value] : merged) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string CurrentUser() {
  const ProcessOutput id = RunProcess({"/usr/bin/id", "-un"});
  std::string name = id.out;
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}

// Appends an exchange with a daemon of ours to <$BPLACE_API_EXCHANGES>/<pid>.jsonl, one JSON
// object a line (method, target, status, content_type, body, request_body,
// test), when
// the variable is set: tools/validate-responses.py checks every answer
// against the OpenAPI document (the ctest fixture openapi_responses of
// tests/integration/CMakeLists.txt). One file per process, so that tests
// ctest runs in parallel never write to the same file.
// The ports of the bplaced processes this process started: only their
// answers are bplace's API (a test may also talk to Prometheus, a relay).
std::mutex daemon_ports_mutex;
std::set<int> daemon_ports;  // guarded by daemon_ports_mutex

void NoteDaemonPort(int port) {
  std::lock_guard<std::mutex> lock(daemon_ports_mutex);
  daemon_ports.insert(port);
}

bool IsDaemonPort(int port) {
  std::lock_guard<std::mutex> lock(daemon_ports_mutex);
  return daemon_ports.count(port) != 0;
}

void RecordExchange(int port, const std::string& method, const std::string& target,
                    const std::string& body, const HttpReply& reply) {
  const char* dir = std::getenv("BPLACE_API_EXCHANGES");
  if (dir == nullptr || *dir == '\0' || !IsDaemonPort(port)) return;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto content_type = reply.headers.find("content-type");
  const nlohmann::json line = {
      {"method", method},
      {"target", target},
      {"status", reply.status},
      {"content_type", content_type == reply.headers.end() ? "" : content_type->second},
      {"body", reply.body},
      {"request_body", body},
      {"test", test ? std::string(test->test_suite_name()) + "." + test->name() : ""}};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // Several threads of a test record at once (concurrent submissions): whole
  // lines only, or the validator reads two records run together.
  if (!AppendLine(std::filesystem::path(dir) / (std::to_string(getpid()) + ".jsonl"),
                  line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))) {
    ADD_FAILURE() << "cannot record the exchange in " << dir << ": " << std::strerror(errno);
  }
}

}  // namespace

ProcessOutput RunProcessAs(const std::string& user, const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env,
                           std::chrono::seconds timeout) {
  if (geteuid() != 0 || user == CurrentUser()) return RunProcess(argv, env, timeout);
  std::vector<std::string> as = {"/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user,
                                 "--init-groups", "--"};
  as.insert(as.end(), argv.begin(), argv.end());
  return RunProcess(as, env, timeout);
}

ProcessOutput RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         std::chrono::seconds timeout) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> args = argv;
  std::vector<std::string> environment = MergedEnv(env);
  auto arg_pointers = Pointers(args);
  auto env_pointers = Pointers(environment);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, arg_pointers.data(),
                             env_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessOutput output;
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    output.err = "posix_spawn " + args[0] + ": " + std::strerror(rc);
    return output;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    // Rounded up, so that a child is never killed before `timeout` passed.
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      (i == 0 ? output.out : output.err).append(buffer, static_cast<std::size_t>(n));
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

nlohmann::json HttpReply::Json() const {
  return nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
}

std::string TokenHash(const std::string& token) {
  const ProcessOutput hashed =
      RunProcess({"/bin/sh", "-c", "printf %s \"$T\" | sha256sum"}, {{"T", token}});
  return "sha256:" + hashed.out.substr(0, 64);
}

bool CanRunAs(const std::string& user) {
  if (geteuid() != 0) return false;
  return RunProcess({"/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups",
                     "--", "/bin/true"})
             .exit_code == 0;
}

HttpReply Http(int port, const std::string& method, const std::string& target,
               const std::string& body, const std::string& content_type,
               const std::string& authorization,
               const std::map<std::string, std::string>& headers) {
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::seconds(60));
  stream.connect(
      tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1");
  if (!authorization.empty()) req.set(http::field::authorization, authorization);
  for (const auto& [name, value] : headers) req.set(name, value);
  if (!body.empty()) {
    req.set(http::field::content_type, content_type);
    req.body() = body;
  }
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  http::read(stream, buffer, parser);
  HttpReply reply;
  reply.status = static_cast<int>(parser.get().result_int());
  for (const auto& field : parser.get()) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(field.value());
  }
  reply.body = parser.get().body();
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  RecordExchange(port, method, target, body, reply);
  return reply;
}

SimCluster::SimCluster(const std::string& definition) {
  char pattern[] = "/tmp/bplace-it-XXXXXX";
  const char* made = mkdtemp(pattern);
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = made;
  // Other local users (alice, bob in the multi-user tests) reach the state
  // and the daemon's socket through this directory.
  std::filesystem::permissions(
      dir_, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                std::filesystem::perms::others_exec);
  const ProcessOutput init =
      RunProcess({std::string(LSFSIM_BIN_DIR) + "/lsfsim", "init", "--cluster", definition,
                  "--state", (dir_ / "lsf").string()});
  if (init.exit_code != 0) throw std::runtime_error("lsfsim init failed: " + init.err);
}

SimCluster::~SimCluster() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

ProcessOutput SimCluster::Lsf(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = args;
  argv[0] = std::string(LSFSIM_BIN_DIR) + "/" + args[0];
  return RunProcess(argv, {{"LSF_ENVDIR", (dir_ / "lsf").string()}});
}

nlohmann::json SimCluster::Counts() const {
  return nlohmann::json::parse(Lsf({"lsfsim", "counts"}).out, nullptr, false);
}

std::string ServiceUserFor(const DaemonSettings& settings) {
  if (settings.multi_user) return "alice";
  return geteuid() == 0 ? "bplace-sys" : CurrentUser();
}

DaemonProcess::DaemonProcess(const SimCluster& sim, const DaemonSettings& settings) {
  const std::filesystem::path node_dir =
      settings.node_dir.empty() ? sim.dir() : std::filesystem::path(settings.node_dir);
  std::filesystem::create_directories(node_dir);
  const auto config_path = node_dir / "bplaced.toml";
  const auto port_path = node_dir / "port";
  config_path_ = config_path.string();
  log_path_ = (node_dir / "bplaced.log").string();
  std::filesystem::remove(port_path);
  const bool root = geteuid() == 0;
  const bool drop = root && !settings.multi_user;
  service_user_ = ServiceUserFor(settings);
  token_ = "bpl_harness_" + std::to_string(getpid()) + "_" + std::to_string(std::rand());
  const auto tokens_path = node_dir / "tokens";
  {
    std::ofstream tokens(tokens_path);
    tokens << TokenHash(token_) << " " << service_user_ << " read,submit,admin\n";
    for (const std::string& line : settings.token_lines) tokens << line << "\n";
  }
  std::filesystem::permissions(
      tokens_path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  if (drop) {
    // The service user writes the port file (and a Unix socket) here and owns
    // the tokens file, as it would own /etc/bplace/tokens.
    std::filesystem::permissions(sim.dir(), std::filesystem::perms::all);
    std::filesystem::permissions(node_dir, std::filesystem::perms::all);
    const ProcessOutput chown = RunProcess({"/bin/chown", service_user_, tokens_path.string()});
    if (chown.exit_code != 0) {
      throw std::runtime_error("cannot chown the tokens file to " + service_user_ +
                               " (run tools/test-users.sh as root): " + chown.err);
    }
  }
  const std::string state_dir =
      settings.state_dir.empty() ? (node_dir / "state").string() : settings.state_dir;
  audit_path_ = state_dir + "/audit.log";
  std::filesystem::create_directories(state_dir);
  std::filesystem::permissions(state_dir, std::filesystem::perms::owner_all);
  if (drop) {
    const ProcessOutput chown = RunProcess({"/bin/chown", service_user_, state_dir});
    if (chown.exit_code != 0) throw std::runtime_error("cannot chown the state dir: " + chown.err);
  }
  {
    std::ofstream config(config_path);
    config << "[server]\nlisten = [\"127.0.0.1:0\""
           << (settings.unix_socket.empty() ? "" : ", \"unix:" + settings.unix_socket + "\"")
           << "]\nmax_staleness_s = " << settings.max_staleness_s << "\n"
           << settings.server_config << "\n\n[lsf]\nbin_dir = \""
           << (settings.bin_dir.empty() ? std::string(LSFSIM_BIN_DIR) : settings.bin_dir)
           << "\"\nenv_dir = \"" << (sim.dir() / "lsf").string()
           << "\"\ncommand_timeout_s = " << settings.command_timeout_s
           << "\nload_refresh_s = " << settings.load_refresh_s
           << "\ntopology_refresh_s = " << settings.topology_refresh_s
           << (settings.load_refresh_after_submit_s < 0
                   ? std::string()
                   : "\nload_refresh_after_submit_s = " +
                         std::to_string(settings.load_refresh_after_submit_s))
           << "\n\n[submit]\nmax_attempts = " << settings.max_attempts << "\n"
           << settings.submit_config << "\n\n[jobs]\nrefresh_s = " << settings.jobs_refresh_s
           << "\n\n[state]\ndir = \"" << state_dir << "\"\n\n[auth]\nmode = \""
           << (settings.multi_user ? "multi-user" : "service-account") << "\"\ntokens_file = \""
           << tokens_path.string()
           << "\"\nanonymous_read = " << (settings.anonymous_read ? "true" : "false") << "\n"
           << settings.auth_config << "\n\n[limits]\n"
           << settings.limits << "\n\n"
           << settings.extra_config;
  }
  std::vector<std::string> args = {BPLACED_PATH, "--config", config_path.string(), "--port-file",
                                   port_path.string()};
  args.insert(args.begin(), settings.launcher.begin(), settings.launcher.end());
  if (drop) {
    args.insert(args.begin(), {"/usr/bin/setpriv", "--reuid=" + service_user_,
                               "--regid=" + service_user_, "--init-groups", "--"});
  }
  std::vector<std::string> environment = MergedEnv(settings.env);
  auto arg_pointers = Pointers(args);
  auto env_pointers = Pointers(environment);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const int rc = posix_spawn(&pid_, args[0].c_str(), &actions, nullptr, arg_pointers.data(),
                             env_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(std::string("cannot start bplaced: ") + std::strerror(rc));
  // A launcher (socket activation) starts bplaced only on the first
  // connection; the test connects itself.
  if (!settings.launcher.empty()) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("bplaced exited at start: " + ReadFile(log_path_));
    }
    if (port_ == 0 && std::filesystem::exists(port_path)) {
      port_ = std::atoi(ReadFile(port_path).c_str());
      if (port_ != 0) NoteDaemonPort(port_);
    }
    if (port_ != 0 && Get("/readyz").status == 200) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("bplaced not ready within 30 s: " + ReadFile(log_path_));
}

int DaemonProcess::Terminate(std::chrono::seconds timeout) {
  if (pid_ < 0) return -1;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

DaemonProcess::~DaemonProcess() { Terminate(); }

long long LsfCommandsIn(const std::string& metrics_text, const std::string& command) {
  const std::regex sample("bplace_lsf_commands_total\\{command=\"" + command +
                          "\",outcome=\"[a-z_]+\"\\} (\\d+)");
  long long total = 0;
  for (auto it = std::sregex_iterator(metrics_text.begin(), metrics_text.end(), sample);
       it != std::sregex_iterator(); ++it) {
    total += std::stoll((*it)[1].str());
  }
  return total;
}

long long DaemonProcess::LsfCommandsRun(const std::string& command) const {
  return LsfCommandsIn(Get("/metrics").body, command);
}

void DaemonProcess::Kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace bplace::testing
