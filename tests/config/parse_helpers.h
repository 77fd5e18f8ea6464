#pragma once

// Helpers the config tests share: parse a text as the file "cfg.toml", get
// the one error it must produce, compare two Configs field by field.

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "config/config.h"

namespace bplace::config {

inline constexpr char kSource[] = "cfg.toml";

inline void ExpectSameConfig(const Config& actual, const Config& expected) {
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

inline Config MustParse(std::string_view text) {
  auto config = ParseConfig(text, kSource);
  EXPECT_TRUE(config.has_value()) << config.error().message;
  return config.value_or(Config{});
}

// The message of the error `text` must produce, which must be kInvalidArgument.
inline std::string ErrorOf(std::string_view text) {
  auto config = ParseConfig(text, kSource);
  if (config.has_value()) {
    ADD_FAILURE() << "parsed without error:\n" << text;
    return "";
  }
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  return config.error().message;
}

}  // namespace bplace::config
