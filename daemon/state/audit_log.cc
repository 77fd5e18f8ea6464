#include "daemon/state/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string_view>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/spdlog.h>

namespace bplace {

using nlohmann::json;

std::string AuditFilePath(const AuditOptions& options, const std::string& state_dir) {
  return options.file.empty() ? state_dir + "/audit.log" : options.file;
}

Result<std::shared_ptr<spdlog::logger>> OpenAuditFile(const AuditOptions& options,
                                                      const std::string& state_dir) {
  const std::string path = AuditFilePath(options, state_dir);
  // Records name users and their commands: owner-only, whatever the umask,
  // for the first file and every one rotation opens.
  spdlog::file_event_handlers handlers;
  handlers.after_open = [](const spdlog::filename_t&, std::FILE* file) {
    if (file != nullptr) ::fchmod(::fileno(file), 0600);
  };
  // Created owner-only before spdlog opens it (fopen would use the umask);
  // a failure here is reported by spdlog's own open just below.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
  try {
    auto sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
        path, options.max_file_bytes, options.max_files, false, handlers);
    auto logger = std::make_shared<spdlog::logger>("audit", std::move(sink));
    // The time, then the record's members: each line stays one JSON object
    // (LogAudit passes the record without its opening brace).
    logger->set_formatter(std::make_unique<spdlog::pattern_formatter>(
        "{\"time\":\"%Y-%m-%dT%H:%M:%S.%fZ\",%v", spdlog::pattern_time_type::utc));
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::info);
    return logger;
  } catch (const spdlog::spdlog_ex& e) {
    return Fail(ErrorCode::kUnavailable, "cannot open the audit file " + path + ": " + e.what());
  }
}

namespace {

std::mutex sink_mutex;
std::shared_ptr<spdlog::logger> audit_sink;  // guarded by sink_mutex

std::shared_ptr<spdlog::logger> CurrentSink() {
  std::lock_guard<std::mutex> lock(sink_mutex);
  return audit_sink;
}

}  // namespace

void SetAuditSink(std::shared_ptr<spdlog::logger> sink) {
  std::lock_guard<std::mutex> lock(sink_mutex);
  audit_sink = std::move(sink);
}

void LogAudit(const json& record) {
  // Always an object with members: the file's line format needs one.
  if (!record.is_object() || record.empty()) return LogAudit(json{{"record", record}});
  const std::string text = record.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::shared_ptr<spdlog::logger> sink = CurrentSink();
  if (!sink) {
    spdlog::info("audit {}", text);
    return;
  }
  // "{...}" without its "{": the formatter's prefix opens the object.
  sink->info("{}", std::string_view(text).substr(1));
}

}  // namespace bplace
