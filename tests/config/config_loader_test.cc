#include "config/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <toml++/toml.h>

namespace bplace::config {
namespace {

using std::chrono::seconds;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kSource[] = "cfg.toml";

// Every key the loader knows. ExampleConfigTest.ListsEveryKey and
// ParseConfigTest.ReadsEveryKey keep the example file and this list honest.
const std::set<std::string> kAllKeys = {
    "server.listen",
    "server.socket_mode",
    "server.socket_group",
    "server.max_staleness_s",
    "server.body_limit_bytes",
    "server.header_timeout_s",
    "server.body_timeout_s",
    "server.idle_timeout_s",
    "server.drain_timeout_s",
    "server.max_connections",
    "server.max_unix_connections",
    "server.max_connections_per_peer",
    "server.threads",
    "server.metrics_access",
    "lsf.bin_dir",
    "lsf.env_dir",
    "lsf.command_timeout_s",
    "lsf.load_refresh_s",
    "lsf.topology_refresh_s",
    "lsf.load_refresh_after_submit_s",
    "lsf.events_file",
    "submit.max_attempts",
    "submit.max_slots",
    "submit.max_array_elements",
    "submit.check_lsf_for_key",
    "submit.esub_refusal_memory_s",
    "submit.tag_in_job_name",
    "placement.exclude_queues",
    "jobs.refresh_s",
    "jobs.retention_days",
    "state.dir",
    "ib.devices",
    "ib.link_layer",
    "ib.min_rate_gbps",
    "ib.loopback",
    "ib.loopback_timeout_s",
    "ib.probe_timeout_s",
    "ib.sysfs_root",
    "ib.state_file",
    "ib.symbol_error_per_hour",
    "ib.link_error_recovery_per_hour",
    "ib.port_rcv_errors_per_hour",
    "ib.elim_interval_s",
    "ib.source",
    "ib.require_ib",
    "ib.allow_unknown",
    "ib.probe_path",
    "ib.local_interval_s",
    "auth.mode",
    "auth.tokens_file",
    "auth.anonymous_read",
    "auth.min_uid",
    "auth.job_visibility",
    "limits.submit_per_minute",
    "limits.submit_burst",
    "limits.lsf_calls_per_minute",
    "limits.lsf_calls_burst",
    "log.level",
    "log.access_log_per_s",
    "log.audit_file",
    "log.audit_max_file_bytes",
    "log.audit_max_files",
};

std::set<std::string> KeysIn(const toml::table& root) {
  std::set<std::string> keys;
  for (const auto& [table_name, node] : root) {
    if (const toml::table* table = node.as_table()) {
      for (const auto& [key, value] : *table) {
        keys.insert(std::string(table_name.str()) + "." + std::string(key.str()));
      }
    }
  }
  return keys;
}

void ExpectSameConfig(const Config& actual, const Config& expected) {
  EXPECT_EQ(actual.jobs.interval, expected.jobs.interval);
  EXPECT_EQ(actual.exactly_once.check_lsf_for_key, expected.exactly_once.check_lsf_for_key);
  EXPECT_EQ(actual.jobs.retention, expected.jobs.retention);
  EXPECT_EQ(actual.state.dir, expected.state.dir);
  EXPECT_EQ(actual.server.listen, expected.server.listen);
  EXPECT_EQ(actual.api.max_staleness, expected.api.max_staleness);
  EXPECT_EQ(actual.http.body_limit_bytes, expected.http.body_limit_bytes);
  EXPECT_EQ(actual.http.header_timeout, expected.http.header_timeout);
  EXPECT_EQ(actual.http.body_timeout, expected.http.body_timeout);
  EXPECT_EQ(actual.http.idle_timeout, expected.http.idle_timeout);
  EXPECT_EQ(actual.http.drain_timeout, expected.http.drain_timeout);
  EXPECT_EQ(actual.http.access_log_per_second, expected.http.access_log_per_second);
  EXPECT_EQ(actual.audit.file, expected.audit.file);
  EXPECT_EQ(actual.audit.max_file_bytes, expected.audit.max_file_bytes);
  EXPECT_EQ(actual.audit.max_files, expected.audit.max_files);
  EXPECT_EQ(actual.http.max_connections, expected.http.max_connections);
  EXPECT_EQ(actual.http.max_unix_connections, expected.http.max_unix_connections);
  EXPECT_EQ(actual.http.max_connections_per_peer, expected.http.max_connections_per_peer);
  EXPECT_EQ(actual.server.threads, expected.server.threads);
  EXPECT_EQ(actual.api.metrics_access, expected.api.metrics_access);
  EXPECT_EQ(actual.lsf.bin_dir, expected.lsf.bin_dir);
  EXPECT_EQ(actual.lsf.env_dir, expected.lsf.env_dir);
  EXPECT_EQ(actual.lsf.command_timeout, expected.lsf.command_timeout);
  EXPECT_EQ(actual.refresh.load_interval, expected.refresh.load_interval);
  EXPECT_EQ(actual.refresh.load_after_submit, expected.refresh.load_after_submit);
  EXPECT_EQ(actual.refresh.topology_interval, expected.refresh.topology_interval);
  EXPECT_EQ(actual.submit.max_attempts, expected.submit.max_attempts);
  EXPECT_EQ(actual.api.request.max_slots, expected.api.request.max_slots);
  EXPECT_EQ(actual.api.request.max_array_elements, expected.api.request.max_array_elements);
  EXPECT_EQ(actual.submit.excluded_queues, expected.submit.excluded_queues);
  EXPECT_EQ(actual.submit.esub_refusal_memory, expected.submit.esub_refusal_memory);
  EXPECT_EQ(actual.submit.tag_in_job_name, expected.submit.tag_in_job_name);
  EXPECT_EQ(actual.server.socket_mode, expected.server.socket_mode);
  EXPECT_EQ(actual.server.socket_group, expected.server.socket_group);
  EXPECT_EQ(actual.probe.devices, expected.probe.devices);
  EXPECT_EQ(actual.probe.link_layer, expected.probe.link_layer);
  EXPECT_EQ(actual.probe.min_rate_gbps, expected.probe.min_rate_gbps);
  EXPECT_EQ(actual.probe.loopback, expected.probe.loopback);
  EXPECT_EQ(actual.probe.loopback_timeout, expected.probe.loopback_timeout);
  EXPECT_EQ(actual.probe.probe_timeout, expected.probe.probe_timeout);
  EXPECT_EQ(actual.probe.sysfs_root, expected.probe.sysfs_root);
  EXPECT_EQ(actual.probe.state_file, expected.probe.state_file);
  EXPECT_EQ(actual.probe.symbol_error_per_hour, expected.probe.symbol_error_per_hour);
  EXPECT_EQ(actual.probe.link_error_recovery_per_hour, expected.probe.link_error_recovery_per_hour);
  EXPECT_EQ(actual.probe.port_rcv_errors_per_hour, expected.probe.port_rcv_errors_per_hour);
  EXPECT_EQ(actual.probe.elim_interval, expected.probe.elim_interval);
  EXPECT_EQ(actual.submit.ib.source, expected.submit.ib.source);
  EXPECT_EQ(actual.submit.ib.require_ib, expected.submit.ib.require_ib);
  EXPECT_EQ(actual.submit.ib.allow_unknown, expected.submit.ib.allow_unknown);
  EXPECT_EQ(actual.submit.ib.probe_path, expected.submit.ib.probe_path);
  EXPECT_EQ(actual.submit.ib.local_interval, expected.submit.ib.local_interval);
  EXPECT_EQ(actual.auth.mode, expected.auth.mode);
  EXPECT_EQ(actual.auth.tokens_file, expected.auth.tokens_file);
  EXPECT_EQ(actual.auth.anonymous_read, expected.auth.anonymous_read);
  EXPECT_EQ(actual.auth.min_uid, expected.auth.min_uid);
  EXPECT_EQ(actual.auth.job_visibility, expected.auth.job_visibility);
  EXPECT_EQ(actual.limits.submit_per_minute, expected.limits.submit_per_minute);
  EXPECT_EQ(actual.limits.submit_burst, expected.limits.submit_burst);
  EXPECT_EQ(actual.limits.lsf_calls_per_minute, expected.limits.lsf_calls_per_minute);
  EXPECT_EQ(actual.limits.lsf_calls_burst, expected.limits.lsf_calls_burst);
  EXPECT_EQ(actual.log.level, expected.log.level);
}

Config MustParse(std::string_view text) {
  auto config = ParseConfig(text, kSource);
  EXPECT_TRUE(config.has_value()) << config.error().message;
  return config.value_or(Config{});
}

// The message of the error `text` must produce, which must be kInvalidArgument.
std::string ErrorOf(std::string_view text) {
  auto config = ParseConfig(text, kSource);
  if (config.has_value()) {
    ADD_FAILURE() << "parsed without error:\n" << text;
    return "";
  }
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  return config.error().message;
}

const char kEveryKey[] = R"(# every key, none at its default
[server]
listen = ["[::1]:9090", "unix:/run/bplace/bplace.sock"]
socket_mode = 0o660
socket_group = "hpcusers"
max_staleness_s = 600
body_limit_bytes = 65536
header_timeout_s = 5
body_timeout_s = 20
idle_timeout_s = 90
drain_timeout_s = 3
max_connections = 1000
max_unix_connections = 300
max_connections_per_peer = 0
threads = 8
metrics_access = "read"

[lsf]
bin_dir = "/opt/lsf/10.1/linux3.10-glibc2.17-x86_64/bin"
env_dir = "/opt/lsf/conf"
command_timeout_s = 45
load_refresh_s = 20
topology_refresh_s = 900
load_refresh_after_submit_s = 0
events_file = "/shared/lsf/work/c1/logdir/lsb.events"

[submit]
max_attempts = 5
max_slots = 4096
max_array_elements = 50
check_lsf_for_key = false
esub_refusal_memory_s = 90
tag_in_job_name = true

[placement]
exclude_queues = ["admin", "interactive"]

[ib]
devices = ["mlx5_0", "mlx5_1:1"]
link_layer = "ethernet"
min_rate_gbps = 200
loopback = false
loopback_timeout_s = 3
probe_timeout_s = 20
sysfs_root = "/tmp/sys"
state_file = "/tmp/ib.json"
symbol_error_per_hour = 5.5
link_error_recovery_per_hour = 1
port_rcv_errors_per_hour = 20
elim_interval_s = 30
source = "lsload"
require_ib = false
allow_unknown = false
probe_path = "/usr/libexec/bplace/rdma_probe"
local_interval_s = 120

[auth]
mode = "multi-user"
tokens_file = "/etc/bplace/tokens"
anonymous_read = true
min_uid = 500
job_visibility = "all"

[limits]
submit_per_minute = 6
submit_burst = 3
lsf_calls_per_minute = 60.5
lsf_calls_burst = 5

[jobs]
refresh_s = 20
retention_days = 30

[state]
dir = "/srv/bplace/state"

[log]
level = "debug"
access_log_per_s = 0
audit_file = "/srv/bplace/audit.jsonl"
audit_max_file_bytes = 2097152
audit_max_files = 3
)";

TEST(ParseConfigTest, EmptyTextGivesDefaults) {
  const Config config = MustParse("");
  ExpectSameConfig(config, Config{});
  EXPECT_EQ(config.server.listen, std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(config.refresh.load_interval, seconds(15));
  EXPECT_EQ(config.refresh.load_after_submit, seconds(2));
  EXPECT_EQ(config.log.level, "info");
}

TEST(ParseConfigTest, EmptyTablesAndCommentsGiveDefaults) {
  ExpectSameConfig(MustParse("# nothing set\n[server]\n[lsf]\n[submit]\n[placement]\n[log]\n"),
                   Config{});
}

TEST(ParseConfigTest, ReadsEveryKey) {
  ASSERT_EQ(KeysIn(toml::parse(kEveryKey)), kAllKeys) << "kEveryKey must set every key";
  const Config config = MustParse(kEveryKey);
  EXPECT_EQ(config.server.listen,
            (std::vector<std::string>{"[::1]:9090", "unix:/run/bplace/bplace.sock"}));
  EXPECT_EQ(config.server.socket_mode, 0660u);
  EXPECT_EQ(config.server.socket_group, "hpcusers");
  EXPECT_EQ(config.api.max_staleness, seconds(600));
  EXPECT_EQ(config.http.body_limit_bytes, 65536u);
  EXPECT_EQ(config.http.header_timeout, seconds(5));
  EXPECT_EQ(config.http.body_timeout, seconds(20));
  EXPECT_EQ(config.http.idle_timeout, seconds(90));
  EXPECT_EQ(config.http.drain_timeout, seconds(3));
  EXPECT_EQ(config.http.access_log_per_second, 0u);
  EXPECT_EQ(config.audit.file, "/srv/bplace/audit.jsonl");
  EXPECT_EQ(config.audit.max_file_bytes, 2097152u);
  EXPECT_EQ(config.audit.max_files, 3u);
  EXPECT_EQ(config.http.max_connections, 1000);
  EXPECT_EQ(config.http.max_unix_connections, 300);
  EXPECT_EQ(config.http.max_connections_per_peer, 0);
  EXPECT_EQ(config.server.threads, 8);
  EXPECT_EQ(config.api.metrics_access, api::MetricsAccess::kRead);
  EXPECT_EQ(config.lsf.bin_dir, "/opt/lsf/10.1/linux3.10-glibc2.17-x86_64/bin");
  EXPECT_EQ(config.lsf.env_dir, "/opt/lsf/conf");
  EXPECT_EQ(config.lsf.command_timeout, seconds(45));
  EXPECT_EQ(config.waits.events_file, "/shared/lsf/work/c1/logdir/lsb.events");
  EXPECT_EQ(config.refresh.load_interval, seconds(20));
  EXPECT_EQ(config.refresh.load_after_submit, seconds(0)) << "0: off";
  EXPECT_EQ(config.refresh.topology_interval, seconds(900));
  EXPECT_EQ(config.submit.max_attempts, 5);
  EXPECT_EQ(config.api.request.max_slots, 4096);
  EXPECT_EQ(config.api.request.max_array_elements, 50);
  EXPECT_FALSE(config.exactly_once.check_lsf_for_key);
  EXPECT_EQ(config.submit.esub_refusal_memory, std::chrono::seconds(90));
  EXPECT_TRUE(config.submit.tag_in_job_name);
  EXPECT_EQ(config.submit.excluded_queues, (std::vector<std::string>{"admin", "interactive"}));
  EXPECT_EQ(config.probe.devices, (std::vector<std::string>{"mlx5_0", "mlx5_1:1"}));
  EXPECT_EQ(config.probe.link_layer, bplace::rdma::LinkLayerWanted::kEthernet);
  EXPECT_EQ(config.probe.min_rate_gbps, 200.0);
  EXPECT_FALSE(config.probe.loopback);
  EXPECT_EQ(config.probe.loopback_timeout, seconds(3));
  EXPECT_EQ(config.probe.probe_timeout, seconds(20));
  EXPECT_EQ(config.probe.sysfs_root, "/tmp/sys");
  EXPECT_EQ(config.probe.state_file, "/tmp/ib.json");
  EXPECT_EQ(config.probe.symbol_error_per_hour, 5.5);
  EXPECT_EQ(config.probe.link_error_recovery_per_hour, 1.0);
  EXPECT_EQ(config.probe.port_rcv_errors_per_hour, 20.0);
  EXPECT_EQ(config.probe.elim_interval, seconds(30));
  EXPECT_EQ(config.submit.ib.source, bplace::IbSource::kLsload);
  EXPECT_FALSE(config.submit.ib.require_ib);
  EXPECT_FALSE(config.submit.ib.allow_unknown);
  EXPECT_EQ(config.submit.ib.probe_path, "/usr/libexec/bplace/rdma_probe");
  EXPECT_EQ(config.submit.ib.local_interval, seconds(120));
  EXPECT_EQ(config.auth.mode, bplace::api::AuthMode::kMultiUser);
  EXPECT_EQ(config.auth.tokens_file, "/etc/bplace/tokens");
  EXPECT_TRUE(config.auth.anonymous_read);
  EXPECT_EQ(config.auth.min_uid, 500u);
  EXPECT_EQ(config.auth.job_visibility, api::JobVisibility::kAll);
  EXPECT_EQ(config.limits.submit_per_minute, 6.0);
  EXPECT_EQ(config.limits.submit_burst, 3);
  EXPECT_EQ(config.limits.lsf_calls_per_minute, 60.5);
  EXPECT_EQ(config.limits.lsf_calls_burst, 5);
  EXPECT_EQ(config.jobs.interval, seconds(20));
  EXPECT_EQ(config.jobs.retention, std::chrono::hours(24 * 30));
  EXPECT_EQ(config.state.dir, "/srv/bplace/state");
  EXPECT_EQ(config.log.level, "debug");
}

TEST(ParseConfigTest, ReadsListenAsOneString) {
  EXPECT_EQ(MustParse("[server]\nlisten = \"unix:/run/b.sock\"\n").server.listen,
            std::vector<std::string>{"unix:/run/b.sock"});
}

TEST(ParseConfigTest, RefusesBadListenersAndIbValues) {
  EXPECT_EQ(ErrorOf("[server]\nlisten = []\n"), "cfg.toml:2: server.listen: must not be empty");
  EXPECT_EQ(ErrorOf("[server]\nlisten = [\"unix:run/b.sock\"]\n"),
            "cfg.toml:2: server.listen: element 0: a Unix socket needs an absolute path, as in "
            "unix:/run/bplace/bplace.sock; got `run/b.sock`");
  EXPECT_EQ(ErrorOf("[server]\nsocket_mode = 0o1777\n"),
            "cfg.toml:2: server.socket_mode: must be between 0 and 511 (an octal mode such as "
            "0o660), got 1023");
  EXPECT_EQ(ErrorOf("[ib]\nsource = \"elim\"\n"),
            "cfg.toml:2: ib.source: must be one of none, lsload, local; got `elim`");
  EXPECT_EQ(ErrorOf("[ib]\ndevices = [\"mlx5_0:0\"]\n"),
            "cfg.toml:2: ib.devices: element 0: `mlx5_0:0`: port must be a number 1..255");
  EXPECT_EQ(ErrorOf("[ib]\nmin_rate_gbps = -1\n"),
            "cfg.toml:2: ib.min_rate_gbps: must be between 0 and 10000, got -1");
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_after_submit_s = -1\n"),
            "cfg.toml:2: lsf.load_refresh_after_submit_s: must be between 0 and 604800 seconds, "
            "got -1");
  EXPECT_EQ(ErrorOf("[ib]\nloopback = 1\n"),
            "cfg.toml:2: ib.loopback: expected boolean, got integer");
  EXPECT_EQ(ErrorOf("[auth]\nmode = \"root\"\n"),
            "cfg.toml:2: auth.mode: must be one of service-account, multi-user; got `root`");
  EXPECT_EQ(ErrorOf("[auth]\nmin_uid = 0\n"),
            "cfg.toml:2: auth.min_uid: must be between 1 and 2147483647, got 0");
}

TEST(ParseConfigTest, AcceptsDottedKeysAndInlineTables) {
  const Config config = MustParse("lsf.load_refresh_s = 30\nsubmit = { max_attempts = 7 }\n");
  EXPECT_EQ(config.refresh.load_interval, seconds(30));
  EXPECT_EQ(config.submit.max_attempts, 7);
}

TEST(ParseConfigTest, AcceptsRangeLimits) {
  const Config config = MustParse(
      "[server]\nlisten = \"0.0.0.0:0\"\nthreads = 64\nmax_connections = 1\n"
      "body_limit_bytes = 1073741824\nmax_staleness_s = 604800\n"
      "[lsf]\nload_refresh_s = 300\nbin_dir = \"\"\n"
      "[submit]\nmax_attempts = 100\nmax_slots = 10000000\n"
      "[placement]\nexclude_queues = []\n[log]\nlevel = \"off\"\n");
  EXPECT_EQ(config.server.threads, 64);
  EXPECT_EQ(config.http.max_connections, 1);
  EXPECT_EQ(config.api.max_staleness, seconds(604800));
  EXPECT_EQ(config.refresh.load_interval, config.refresh.topology_interval);
  EXPECT_EQ(config.api.request.max_slots, 10000000);
  EXPECT_EQ(config.log.level, "off");
}

// --- The shipped example -----------------------------------------------------

const std::string kExamplePath = std::string(BPLACE_SOURCE_DIR) + "/config/bplaced.example.toml";

TEST(ExampleConfigTest, ParsesToExactlyTheDefaults) {
  auto config = LoadConfigFile(kExamplePath);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ExpectSameConfig(*config, Config{});
}

TEST(ExampleConfigTest, ListsEveryKey) {
  EXPECT_EQ(KeysIn(toml::parse_file(kExamplePath)), kAllKeys);
}

// --- Errors --------------------------------------------------------------------

TEST(ParseConfigErrorTest, SyntaxErrorNamesFileLineAndColumn) {
  const std::string message = ErrorOf("[server]\nthreads = = 3\n");
  EXPECT_THAT(message, AllOf(StartsWith("cfg.toml:2:"), HasSubstr("syntax error")));
}

TEST(ParseConfigErrorTest, DuplicateKeyIsASyntaxError) {
  EXPECT_THAT(ErrorOf("[server]\nthreads = 3\nthreads = 4\n"),
              AllOf(StartsWith("cfg.toml:3:"), HasSubstr("syntax error")));
}

TEST(ParseConfigErrorTest, UnknownTableSuggestsTheClosest) {
  EXPECT_EQ(ErrorOf("\n[servr]\nthreads = 3\n"),
            "cfg.toml:2: servr: unknown table; did you mean `[server]`?");
}

TEST(ParseConfigErrorTest, UnknownTableWithNothingClose) {
  EXPECT_EQ(ErrorOf("[infiniband]\nport = 1\n"), "cfg.toml:1: infiniband: unknown table");
}

TEST(ParseConfigErrorTest, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh = 10\n"),
            "cfg.toml:2: lsf.load_refresh: unknown key; did you mean `load_refresh_s`?");
  EXPECT_EQ(ErrorOf("[lsf]\nlaod_refresh_s = 10\n"),
            "cfg.toml:2: lsf.laod_refresh_s: unknown key; did you mean `load_refresh_s`?");
}

TEST(ParseConfigErrorTest, UnknownKeyWithNothingClose) {
  const std::string message = ErrorOf("[server]\n\nfrobnicate = true\n");
  EXPECT_EQ(message, "cfg.toml:3: server.frobnicate: unknown key");
}

TEST(ParseConfigErrorTest, KeyInTheWrongTableNamesTheRightOne) {
  EXPECT_EQ(ErrorOf("[server]\nload_refresh_s = 10\n"),
            "cfg.toml:2: server.load_refresh_s: unknown key; did you mean "
            "`lsf.load_refresh_s` (under [lsf])?");
}

TEST(ParseConfigErrorTest, TopLevelKeyNamesItsTable) {
  EXPECT_EQ(ErrorOf("threads = 4\n"),
            "cfg.toml:1: threads: unknown key; did you mean `server.threads` (under [server])?");
}

TEST(ParseConfigErrorTest, WrongTypeSaysBoth) {
  EXPECT_EQ(ErrorOf("[lsf]\ncommand_timeout_s = \"30\"\n"),
            "cfg.toml:2: lsf.command_timeout_s: expected integer, got string");
  EXPECT_EQ(ErrorOf("[server]\nthreads = 2.5\n"),
            "cfg.toml:2: server.threads: expected integer, got float");
  EXPECT_EQ(ErrorOf("[server]\nlisten = 8080\n"),
            "cfg.toml:2: server.listen: expected string or array of strings, got integer");
  EXPECT_EQ(ErrorOf("[lsf]\nbin_dir = false\n"),
            "cfg.toml:2: lsf.bin_dir: expected string, got boolean");
  EXPECT_EQ(ErrorOf("[state]\ndir = \"var/lib\"\n"),
            "cfg.toml:2: state.dir: must be an absolute path, got `var/lib`");
  EXPECT_EQ(ErrorOf("[placement]\nexclude_queues = \"admin\"\n"),
            "cfg.toml:2: placement.exclude_queues: expected array of strings, got string");
}

TEST(ParseConfigErrorTest, TableWhereAValueBelongs) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = { seconds = 10 }\n"),
            "cfg.toml:2: lsf.load_refresh_s: expected integer, got table");
  EXPECT_EQ(ErrorOf("[server]\n[server.listen]\nport = 1\n"),
            "cfg.toml:2: server.listen: expected string or array of strings, got table");
}

TEST(ParseConfigErrorTest, ValueWhereATableBelongs) {
  EXPECT_EQ(ErrorOf("log = \"debug\"\n"), "cfg.toml:1: log: expected table, got string");
  EXPECT_EQ(ErrorOf("[[server]]\nthreads = 2\n"), "cfg.toml:1: server: expected table, got array");
}

struct RangeCase {
  const char* table;
  const char* key;
  const char* value;
  const char* range;  // as the message must state it
};

class OutOfRangeTest : public ::testing::TestWithParam<RangeCase> {};

TEST_P(OutOfRangeTest, StatesKeyLineAndRange) {
  const RangeCase& c = GetParam();
  const std::string text =
      "# comment\n[" + std::string(c.table) + "]\n" + c.key + " = " + c.value + "\n";
  EXPECT_EQ(ErrorOf(text), "cfg.toml:3: " + std::string(c.table) + "." + c.key +
                               ": must be between " + c.range + ", got " + c.value);
}

INSTANTIATE_TEST_SUITE_P(
    EveryBoundedKey, OutOfRangeTest,
    ::testing::Values(RangeCase{"server", "max_staleness_s", "0", "1 and 604800 seconds"},
                      RangeCase{"server", "max_staleness_s", "604801", "1 and 604800 seconds"},
                      RangeCase{"server", "body_limit_bytes", "0", "1 and 1073741824"},
                      RangeCase{"server", "body_limit_bytes", "1073741825", "1 and 1073741824"},
                      RangeCase{"server", "header_timeout_s", "-1", "1 and 604800 seconds"},
                      RangeCase{"server", "body_timeout_s", "0", "1 and 604800 seconds"},
                      RangeCase{"server", "idle_timeout_s", "0", "1 and 604800 seconds"},
                      RangeCase{"server", "drain_timeout_s", "0", "1 and 604800 seconds"},
                      RangeCase{"log", "access_log_per_s", "-1", "0 and 1000000"},
                      RangeCase{"log", "audit_max_file_bytes", "1000", "1048576 and 1099511627776"},
                      RangeCase{"log", "audit_max_files", "0", "1 and 1000"},
                      RangeCase{"server", "max_connections", "0", "1 and 100000"},
                      RangeCase{"server", "max_connections", "100001", "1 and 100000"},
                      RangeCase{"server", "max_unix_connections", "0", "1 and 100000"},
                      RangeCase{"server", "max_connections_per_peer", "-1", "0 and 100000"},
                      RangeCase{"server", "threads", "0", "1 and 64"},
                      RangeCase{"server", "threads", "65", "1 and 64"},
                      RangeCase{"lsf", "command_timeout_s", "0", "1 and 604800 seconds"},
                      RangeCase{"lsf", "load_refresh_s", "-5", "1 and 604800 seconds"},
                      RangeCase{"lsf", "topology_refresh_s", "0", "1 and 604800 seconds"},
                      RangeCase{"submit", "max_attempts", "0", "1 and 100"},
                      RangeCase{"submit", "max_attempts", "101", "1 and 100"},
                      RangeCase{"submit", "max_slots", "0", "1 and 10000000"},
                      RangeCase{"submit", "max_slots", "10000001", "1 and 10000000"},
                      RangeCase{"submit", "max_array_elements", "0", "1 and 1000000"},
                      RangeCase{"submit", "max_array_elements", "1000001", "1 and 1000000"},
                      RangeCase{"submit", "max_slots", "9223372036854775807", "1 and 10000000"}));

TEST(ParseConfigErrorTest, TopologyRefreshShorterThanLoadRefresh) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = 60\ntopology_refresh_s = 30\n"),
            "cfg.toml:3: lsf.topology_refresh_s: must be >= lsf.load_refresh_s (60 s), got 30");
  // Against the defaults: load_refresh_s 15, topology_refresh_s 300.
  EXPECT_EQ(ErrorOf("[lsf]\ntopology_refresh_s = 10\n"),
            "cfg.toml:2: lsf.topology_refresh_s: must be >= lsf.load_refresh_s (15 s), got 10");
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = 600\n"),
            "cfg.toml:2: lsf.load_refresh_s: must be <= lsf.topology_refresh_s (300 s, the "
            "default), got 600");
}

TEST(ParseConfigErrorTest, NoOrderingErrorWhenARefreshIsAlreadyWrong) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = 600\ntopology_refresh_s = \"x\"\n"),
            "cfg.toml:3: lsf.topology_refresh_s: expected integer, got string");
}

TEST(ParseConfigErrorTest, BadListenSaysWhy) {
  EXPECT_THAT(ErrorOf("[server]\nlisten = \"login01:\"\n"),
              StartsWith("cfg.toml:2: server.listen: missing port"));
  EXPECT_THAT(ErrorOf("[server]\nlisten = \"127.0.0.1:70000\"\n"),
              StartsWith("cfg.toml:2: server.listen: port must be between 0 and 65535"));
}

TEST(ParseConfigErrorTest, BadLogLevelListsTheChoices) {
  EXPECT_EQ(ErrorOf("[log]\nlevel = \"verbose\"\n"),
            "cfg.toml:2: log.level: must be one of trace, debug, info, warn, error, critical, "
            "off; got `verbose`");
}

TEST(ParseConfigErrorTest, BadQueueListElements) {
  EXPECT_EQ(ErrorOf("[placement]\nexclude_queues = [\"a\", 3]\n"),
            "cfg.toml:2: placement.exclude_queues: element 1 expected string, got integer");
  EXPECT_EQ(ErrorOf("[placement]\nexclude_queues = [\"\"]\n"),
            "cfg.toml:2: placement.exclude_queues: element 0 is empty; a queue name is needed");
}

TEST(ParseConfigErrorTest, ReportsEveryProblemInFileOrder) {
  // [server] sorts after [lsf]; the file has it first, and so must the message.
  EXPECT_EQ(ErrorOf("[server]\nthreads = 0\n\n[lsf]\nbin_dir = 1\nnope = 2\n"),
            "cfg.toml:2: server.threads: must be between 1 and 64, got 0\n"
            "cfg.toml:5: lsf.bin_dir: expected string, got integer\n"
            "cfg.toml:6: lsf.nope: unknown key");
}

// --- LoadConfigFile ------------------------------------------------------------

class LoadConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "config_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& path : created_) {
      remove(path.c_str());
    }
    rmdir(dir_.c_str());
  }
  std::string Path(const std::string& name) {
    created_.push_back(dir_ + "/" + name);
    return created_.back();
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = Path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string dir_;
  std::vector<std::string> created_;
};

TEST_F(LoadConfigFileTest, ReadsAFile) {
  auto config = LoadConfigFile(Write("ok.toml", "[server]\nthreads = 4\n"));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->server.threads, 4);
}

TEST_F(LoadConfigFileTest, ErrorsNameThePath) {
  const std::string path = Write("bad.toml", "[server]\nthreads = 0\n");
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(config.error().message, StartsWith(path + ":2: server.threads: "));
}

TEST_F(LoadConfigFileTest, MissingFileIsNotFound) {
  const std::string path = dir_ + "/absent.toml";
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(config.error().message, path + ": open: No such file or directory");
}

TEST_F(LoadConfigFileTest, DirectoryIsRefused) {
  auto config = LoadConfigFile(dir_);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(config.error().message, dir_ + ": not a regular file (directory)");
}

TEST_F(LoadConfigFileTest, FifoIsRefusedWithoutBlocking) {
  const std::string path = Path("fifo.toml");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().message, path + ": not a regular file (fifo)");
}

TEST_F(LoadConfigFileTest, FileOverOneMebibyteIsRefused) {
  const std::string path = Write("big.toml", std::string(1024 * 1024 + 1, '#'));
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(config.error().message, AllOf(StartsWith(path + ": "), HasSubstr("larger than")));
}

TEST_F(LoadConfigFileTest, FileOfExactlyOneMebibyteIsRead) {
  std::string text = "[log]\nlevel = \"warn\"\n";
  text.resize(1024 * 1024, '\n');
  auto config = LoadConfigFile(Write("full.toml", text));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->log.level, "warn");
}

}  // namespace
}  // namespace bplace::config
