// The schema table (config/config_schema.cc): every key is read into its
// field, the shipped example lists every key, and each bounded key states its
// range.

#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "config/config.h"
#include "tests/config/parse_helpers.h"

namespace bplace::config {
namespace {

using std::chrono::seconds;

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

}  // namespace
}  // namespace bplace::config
