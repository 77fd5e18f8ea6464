// The schema table of the config file: the one list of its keys
// (config/config_schema.h).
#include "config/config_schema.h"

#include <chrono>
#include <cstdint>
#include <sstream>

#include "config/toml_readers.h"
#include "config/value_text.h"

namespace bplace::config {
namespace {

// The upper bound on the body limit is ours: no request of this API comes
// near a gibibyte.
constexpr std::int64_t kMaxBodyLimitBytes = std::int64_t{1} << 30;

// The show and copy functions of a key that fills the one field `member` of
// Config (e.g. BPLACE_FIELD(server.listen)).
#define BPLACE_FIELD(member)                      \
  [](const Config& c) { return Show(c.member); }, \
      [](const Config& from, Config& to) { to.member = from.member; }

constexpr KeyReload kRestart = KeyReload::kRestart;
constexpr KeyReload kLive = KeyReload::kLive;
constexpr KeyReload kProbe = KeyReload::kProbe;

const KeySpec kServerKeys[] = {
    {"listen",
     [](const Field& f, Config& c) { ReadStringList(f, false, CheckListen, c.server.listen); },
     kRestart, BPLACE_FIELD(server.listen)},
    {"socket_mode", [](const Field& f, Config& c) { ReadSocketMode(f, c.server.socket_mode); },
     kRestart,
     [](const Config& c) {
       std::ostringstream octal;
       octal << "0o" << std::oct << c.server.socket_mode;
       return octal.str();
     },
     [](const Config& from, Config& to) { to.server.socket_mode = from.server.socket_mode; }},
    {"socket_group", [](const Field& f, Config& c) { ReadString(f, c.server.socket_group); },
     kRestart, BPLACE_FIELD(server.socket_group)},
    {"max_staleness_s", [](const Field& f, Config& c) { ReadSeconds(f, c.api.max_staleness); },
     kRestart, BPLACE_FIELD(api.max_staleness)},
    {"body_limit_bytes",
     [](const Field& f, Config& c) {
       ReadInteger(f, 1, kMaxBodyLimitBytes, c.http.body_limit_bytes);
     },
     kRestart, BPLACE_FIELD(http.body_limit_bytes)},
    {"header_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.header_timeout); },
     kRestart, BPLACE_FIELD(http.header_timeout)},
    {"body_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.body_timeout); },
     kRestart, BPLACE_FIELD(http.body_timeout)},
    {"idle_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.idle_timeout); },
     kRestart, BPLACE_FIELD(http.idle_timeout)},
    {"drain_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.http.drain_timeout); },
     kRestart, BPLACE_FIELD(http.drain_timeout)},
    {"max_connections",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 100000, c.http.max_connections); }, kRestart,
     BPLACE_FIELD(http.max_connections)},
    {"max_unix_connections",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 100000, c.http.max_unix_connections); },
     kRestart, BPLACE_FIELD(http.max_unix_connections)},
    {"max_connections_per_peer",
     [](const Field& f, Config& c) { ReadInteger(f, 0, 100000, c.http.max_connections_per_peer); },
     kRestart, BPLACE_FIELD(http.max_connections_per_peer)},
    {"threads", [](const Field& f, Config& c) { ReadInteger(f, 1, 64, c.server.threads); },
     kRestart, BPLACE_FIELD(server.threads)},
    {"metrics_access",
     [](const Field& f, Config& c) {
       ReadChoice<api::MetricsAccess>(f, kMetricsAccess, c.api.metrics_access);
     },
     kRestart, BPLACE_FIELD(api.metrics_access)},
};

const KeySpec kLsfKeys[] = {
    {"bin_dir", [](const Field& f, Config& c) { ReadString(f, c.lsf.bin_dir); }, kRestart,
     BPLACE_FIELD(lsf.bin_dir)},
    {"env_dir", [](const Field& f, Config& c) { ReadString(f, c.lsf.env_dir); }, kRestart,
     BPLACE_FIELD(lsf.env_dir)},
    {"command_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.lsf.command_timeout); },
     kRestart, BPLACE_FIELD(lsf.command_timeout)},
    {"load_refresh_s", [](const Field& f, Config& c) { ReadSeconds(f, c.refresh.load_interval); },
     kLive, BPLACE_FIELD(refresh.load_interval)},
    {"topology_refresh_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.refresh.topology_interval); }, kLive,
     BPLACE_FIELD(refresh.topology_interval)},
    {"load_refresh_after_submit_s",
     [](const Field& f, Config& c) { ReadSecondsOrOff(f, c.refresh.load_after_submit); }, kRestart,
     BPLACE_FIELD(refresh.load_after_submit)},
    {"events_file", [](const Field& f, Config& c) { ReadString(f, c.waits.events_file); }, kRestart,
     BPLACE_FIELD(waits.events_file)},
};

const KeySpec kSubmitKeys[] = {
    {"max_attempts",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 100, c.submit.max_attempts); }, kRestart,
     BPLACE_FIELD(submit.max_attempts)},
    {"max_slots",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 10000000, c.api.request.max_slots); },
     kRestart, BPLACE_FIELD(api.request.max_slots)},
    {"max_array_elements",
     [](const Field& f, Config& c) {
       ReadInteger(f, 1, 1000000, c.api.request.max_array_elements);
     },
     kRestart, BPLACE_FIELD(api.request.max_array_elements)},
    {"check_lsf_for_key",
     [](const Field& f, Config& c) { ReadBool(f, c.exactly_once.check_lsf_for_key); }, kRestart,
     BPLACE_FIELD(exactly_once.check_lsf_for_key)},
    {"esub_refusal_memory_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.submit.esub_refusal_memory); }, kRestart,
     BPLACE_FIELD(submit.esub_refusal_memory)},
    {"tag_in_job_name", [](const Field& f, Config& c) { ReadBool(f, c.submit.tag_in_job_name); },
     kRestart, BPLACE_FIELD(submit.tag_in_job_name)},
};

const KeySpec kPlacementKeys[] = {
    {"exclude_queues",
     [](const Field& f, Config& c) { ReadQueueList(f, c.submit.excluded_queues); }, kLive,
     BPLACE_FIELD(submit.excluded_queues)},
};

const KeySpec kIbKeys[] = {
    {"devices",
     [](const Field& f, Config& c) { ReadStringList(f, true, CheckIbPort, c.probe.devices); },
     kProbe, BPLACE_FIELD(probe.devices)},
    {"link_layer",
     [](const Field& f, Config& c) {
       ReadChoice<rdma::LinkLayerWanted>(f, kLinkLayers, c.probe.link_layer);
     },
     kProbe, BPLACE_FIELD(probe.link_layer)},
    {"min_rate_gbps",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 10000, c.probe.min_rate_gbps); }, kProbe,
     BPLACE_FIELD(probe.min_rate_gbps)},
    {"loopback", [](const Field& f, Config& c) { ReadBool(f, c.probe.loopback); }, kProbe,
     BPLACE_FIELD(probe.loopback)},
    {"loopback_timeout_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.probe.loopback_timeout); }, kProbe,
     BPLACE_FIELD(probe.loopback_timeout)},
    // The daemon's deadline for its child probe, fixed when the probe starts.
    {"probe_timeout_s", [](const Field& f, Config& c) { ReadSeconds(f, c.probe.probe_timeout); },
     kRestart, BPLACE_FIELD(probe.probe_timeout)},
    {"sysfs_root", [](const Field& f, Config& c) { ReadString(f, c.probe.sysfs_root); }, kProbe,
     BPLACE_FIELD(probe.sysfs_root)},
    {"state_file", [](const Field& f, Config& c) { ReadString(f, c.probe.state_file); }, kProbe,
     BPLACE_FIELD(probe.state_file)},
    {"symbol_error_per_hour",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 1e9, c.probe.symbol_error_per_hour); },
     kProbe, BPLACE_FIELD(probe.symbol_error_per_hour)},
    {"link_error_recovery_per_hour",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 1e9, c.probe.link_error_recovery_per_hour); },
     kProbe, BPLACE_FIELD(probe.link_error_recovery_per_hour)},
    {"port_rcv_errors_per_hour",
     [](const Field& f, Config& c) { ReadNumber(f, 0, 1e9, c.probe.port_rcv_errors_per_hour); },
     kProbe, BPLACE_FIELD(probe.port_rcv_errors_per_hour)},
    {"elim_interval_s", [](const Field& f, Config& c) { ReadSeconds(f, c.probe.elim_interval); },
     kProbe, BPLACE_FIELD(probe.elim_interval)},
    {"source",
     [](const Field& f, Config& c) { ReadChoice<IbSource>(f, kIbSources, c.submit.ib.source); },
     kRestart, BPLACE_FIELD(submit.ib.source)},
    {"require_ib", [](const Field& f, Config& c) { ReadBool(f, c.submit.ib.require_ib); }, kLive,
     BPLACE_FIELD(submit.ib.require_ib)},
    {"allow_unknown", [](const Field& f, Config& c) { ReadBool(f, c.submit.ib.allow_unknown); },
     kLive, BPLACE_FIELD(submit.ib.allow_unknown)},
    {"probe_path", [](const Field& f, Config& c) { ReadString(f, c.submit.ib.probe_path); },
     kRestart, BPLACE_FIELD(submit.ib.probe_path)},
    {"local_interval_s",
     [](const Field& f, Config& c) { ReadSeconds(f, c.submit.ib.local_interval); }, kRestart,
     BPLACE_FIELD(submit.ib.local_interval)},
};

const KeySpec kAuthKeys[] = {
    {"mode",
     [](const Field& f, Config& c) { ReadChoice<api::AuthMode>(f, kAuthModes, c.auth.mode); },
     kRestart, BPLACE_FIELD(auth.mode)},
    // The file's path; its contents are read again on every SIGHUP.
    {"tokens_file", [](const Field& f, Config& c) { ReadString(f, c.auth.tokens_file); }, kRestart,
     BPLACE_FIELD(auth.tokens_file)},
    {"anonymous_read", [](const Field& f, Config& c) { ReadBool(f, c.auth.anonymous_read); },
     kRestart, BPLACE_FIELD(auth.anonymous_read)},
    {"min_uid", [](const Field& f, Config& c) { ReadInteger(f, 1, 2147483647, c.auth.min_uid); },
     kRestart, BPLACE_FIELD(auth.min_uid)},
    {"job_visibility",
     [](const Field& f, Config& c) {
       ReadChoice<api::JobVisibility>(f, kJobVisibilities, c.auth.job_visibility);
     },
     kRestart, BPLACE_FIELD(auth.job_visibility)},
};

const KeySpec kLimitsKeys[] = {
    {"submit_per_minute",
     [](const Field& f, Config& c) { ReadNumber(f, 0.01, 1e6, c.limits.submit_per_minute); }, kLive,
     BPLACE_FIELD(limits.submit_per_minute)},
    {"submit_burst",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 1000000, c.limits.submit_burst); }, kLive,
     BPLACE_FIELD(limits.submit_burst)},
    {"lsf_calls_per_minute",
     [](const Field& f, Config& c) { ReadNumber(f, 0.01, 1e6, c.limits.lsf_calls_per_minute); },
     kLive, BPLACE_FIELD(limits.lsf_calls_per_minute)},
    {"lsf_calls_burst",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 1000000, c.limits.lsf_calls_burst); }, kLive,
     BPLACE_FIELD(limits.lsf_calls_burst)},
};

const KeySpec kJobsKeys[] = {
    {"refresh_s", [](const Field& f, Config& c) { ReadSeconds(f, c.jobs.interval); }, kLive,
     BPLACE_FIELD(jobs.interval)},
    {"retention_days",
     [](const Field& f, Config& c) {
       if (auto days = f.Integer(1, 3650, "days"))
         c.jobs.retention = std::chrono::hours(24 * *days);
     },
     kRestart, [](const Config& c) { return Show(c.jobs.retention.count() / 24); },
     [](const Config& from, Config& to) { to.jobs.retention = from.jobs.retention; }},
};

const KeySpec kStateKeys[] = {
    {"dir", [](const Field& f, Config& c) { ReadAbsolutePath(f, c.state.dir); }, kRestart,
     BPLACE_FIELD(state.dir)},
};

const KeySpec kLogKeys[] = {
    {"level", [](const Field& f, Config& c) { ReadLogLevel(f, c.log.level); }, kLive,
     BPLACE_FIELD(log.level)},
    {"access_log_per_s",
     [](const Field& f, Config& c) { ReadInteger(f, 0, 1000000, c.http.access_log_per_second); },
     kRestart, BPLACE_FIELD(http.access_log_per_second)},
    {"audit_file", [](const Field& f, Config& c) { ReadAbsolutePath(f, c.audit.file, true); },
     kRestart, BPLACE_FIELD(audit.file)},
    {"audit_max_file_bytes",
     [](const Field& f, Config& c) {
       ReadInteger(f, 1024 * 1024, std::int64_t{1} << 40, c.audit.max_file_bytes);
     },
     kRestart, BPLACE_FIELD(audit.max_file_bytes)},
    {"audit_max_files",
     [](const Field& f, Config& c) { ReadInteger(f, 1, 1000, c.audit.max_files); }, kRestart,
     BPLACE_FIELD(audit.max_files)},
};

#undef BPLACE_FIELD

const TableSpec kTables[] = {
    {"server", kServerKeys}, {"lsf", kLsfKeys},
    {"submit", kSubmitKeys}, {"placement", kPlacementKeys},
    {"ib", kIbKeys},         {"auth", kAuthKeys},
    {"limits", kLimitsKeys}, {"jobs", kJobsKeys},
    {"state", kStateKeys},   {"log", kLogKeys},
};

}  // namespace

std::span<const TableSpec> SchemaTables() { return kTables; }

const TableSpec* FindTable(std::string_view name) {
  for (const TableSpec& table : kTables) {
    if (table.name == name) return &table;
  }
  return nullptr;
}

const KeySpec* FindKey(const TableSpec& table, std::string_view name) {
  for (const KeySpec& key : table.keys) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

}  // namespace bplace::config
