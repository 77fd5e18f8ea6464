#include "tests/lsfsim/bjobs_fields.h"

#include <algorithm>

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/job_paths.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

struct FieldDef {
  const char* name;   // as -o takes it
  const char* alias;  // "" when none
  const char* header;
  int width;  // LSF's recommended width, used for `name:`
};

// The bjobs -o fields of LSF 10.1 (bjobs -o man page, field table). The
// simulator gives a value to those it models; the others are accepted and
// print empty, as a field without data does in LSF.
constexpr FieldDef kFieldDefs[] = {
    {"jobid", "id", "JOBID", 7},
    {"jobindex", "", "JOBINDEX", 8},
    {"stat", "", "STAT", 5},
    {"user", "", "USER", 7},
    {"user_group", "ugroup", "USER_GROUP", 15},
    {"queue", "", "QUEUE", 10},
    {"job_name", "name", "JOB_NAME", 10},
    {"job_description", "description", "JOB_DESCRIPTION", 17},
    {"proj_name", "proj", "PROJ_NAME", 11},
    {"application", "app", "APPLICATION", 13},
    {"service_class", "sla", "SERVICE_CLASS", 13},
    {"job_group", "group", "JOB_GROUP", 10},
    {"job_priority", "priority", "JOB_PRIORITY", 12},
    {"command", "cmd", "COMMAND", 15},
    {"pre_exec_command", "pre_cmd", "PRE_EXEC_COMMAND", 16},
    {"post_exec_command", "post_cmd", "POST_EXEC_COMMAND", 17},
    {"pids", "", "PIDS", 20},
    {"exit_code", "", "EXIT_CODE", 10},
    {"exit_reason", "", "EXIT_REASON", 50},
    {"interactive", "", "INTERACTIVE", 11},
    {"from_host", "", "FROM_HOST", 11},
    {"first_host", "", "FIRST_HOST", 11},
    {"exec_host", "", "EXEC_HOST", 11},
    {"nexec_host", "", "NEXEC_HOST", 10},
    {"ask_hosts", "", "ASK_HOSTS", 30},
    {"alloc_slot", "", "ALLOC_SLOT", 20},
    {"nalloc_slot", "", "NALLOC_SLOT", 10},
    {"host_file", "", "HOST_FILE", 10},
    {"exclusive", "", "EXCLUSIVE", 13},
    {"nreq_slot", "", "NREQ_SLOT", 10},
    {"submit_time", "", "SUBMIT_TIME", 15},
    {"start_time", "", "START_TIME", 15},
    {"estimated_start_time", "estart_time", "ESTIMATED_START_TIME", 20},
    {"specified_start_time", "sstart_time", "SPECIFIED_START_TIME", 20},
    {"specified_terminate_time", "sterminate_time", "SPECIFIED_TERMINATE_TIME", 24},
    {"time_left", "", "TIME_LEFT", 11},
    {"finish_time", "", "FINISH_TIME", 16},
    {"%complete", "", "%COMPLETE", 11},
    {"warning_action", "warn_act", "WARNING_ACTION", 15},
    {"action_warning_time", "warn_time", "ACTION_WARNING_TIME", 19},
    {"pend_time", "", "PEND_TIME", 12},
    {"pend_reason", "", "PEND_REASON", 11},
    {"cpu_used", "", "CPU_USED", 10},
    {"run_time", "", "RUN_TIME", 15},
    {"idle_factor", "", "IDLE_FACTOR", 11},
    {"exception_status", "except_stat", "EXCEPTION_STATUS", 16},
    {"slots", "", "SLOTS", 5},
    {"mem", "", "MEM", 15},
    {"max_mem", "", "MAX_MEM", 15},
    {"avg_mem", "", "AVG_MEM", 15},
    {"memlimit", "", "MEMLIMIT", 10},
    {"swap", "", "SWAP", 15},
    {"swaplimit", "", "SWAPLIMIT", 10},
    {"min_req_proc", "", "MIN_REQ_PROC", 12},
    {"max_req_proc", "", "MAX_REQ_PROC", 12},
    {"effective_resreq", "eresreq", "EFFECTIVE_RESREQ", 17},
    {"combined_resreq", "cresreq", "COMBINED_RESREQ", 20},
    {"network_req", "", "NETWORK_REQ", 15},
    {"runtimelimit", "runlimit", "RUNTIMELIMIT", 12},
    {"input_file", "", "INPUT_FILE", 10},
    {"output_file", "", "OUTPUT_FILE", 11},
    {"error_file", "", "ERROR_FILE", 10},
    {"output_dir", "", "OUTPUT_DIR", 15},
    {"sub_cwd", "", "SUB_CWD", 30},
    {"exec_home", "", "EXEC_HOME", 30},
    {"exec_cwd", "", "EXEC_CWD", 30},
    {"gpu_num", "gnum", "GPU_NUM", 10},
};

const FieldDef* FindField(std::string_view name) {
  for (const FieldDef& field : kFieldDefs) {
    if (name == field.name || (*field.alias != '\0' && name == field.alias)) return &field;
  }
  return nullptr;
}

// Parses `delimiter='c'` / `delimiter="c"`; false when `item` is not one.
bool ParseDelimiter(std::string_view item, std::string* delimiter) {
  constexpr std::string_view kKey = "delimiter=";
  if (item.substr(0, kKey.size()) != kKey) return false;
  std::string_view value = item.substr(kKey.size());
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  *delimiter = std::string(value);
  return true;
}

tl::expected<BjobsColumn, std::string> ParseColumn(std::string_view item) {
  size_t colon = item.find(':');
  std::string_view name = item.substr(0, colon);
  const FieldDef* field = FindField(name);
  if (field == nullptr) {
    return tl::unexpected(std::string(name) + ": Illegal field name. Specify a valid field name.");
  }
  BjobsColumn column{.header = field->header, .width = 0, .right = false};
  if (colon == std::string_view::npos) return column;
  std::string_view width = item.substr(colon + 1);
  width = width.substr(0, width.find(':'));  // a unit (":MB") does not matter here
  if (!width.empty() && width[0] == '-') {
    column.right = true;
    width.remove_prefix(1);
  }
  long long value = 0;
  if (width.empty()) {
    column.width = field->width;
  } else if (ParseInt(width, &value) && value > 0) {
    column.width = static_cast<int>(value);
  } else {
    return tl::unexpected(std::string(item) + ": Illegal field width. Specify a valid width.");
  }
  return column;
}

std::string FinishTimeText(const Job& job) {
  if (job.end_time != 0) return FormatSubmitTime(job.end_time);
  // A running job with a run limit shows when the limit ends it ("L").
  if (HoldsSlots(job) && job.run_limit_s > 0) {
    return FormatSubmitTime(job.start_time + job.run_limit_s) + " L";
  }
  return "";
}

std::string ReqProc(const Job& job, bool max) {
  std::string n = JobOption(job, "-n");
  if (n.empty()) return "1";
  size_t comma = n.find(',');
  if (comma == std::string::npos) return n;
  return max ? n.substr(comma + 1) : n.substr(0, comma);
}

std::string AllocSlot(const Job& job) {
  if (job.exec_host.empty()) return "";
  std::vector<std::string> hosts(static_cast<size_t>(job.slots), job.exec_host);
  return Join(hosts, ":");
}

std::string IdentityValue(const std::string& header, const Job& job) {
  if (header == "JOBID") return std::to_string(job.id);
  if (header == "JOBINDEX") return std::to_string(job.index);
  if (header == "STAT") return job.status;
  if (header == "USER") return job.user;
  if (header == "USER_GROUP") return JobOption(job, "-G");
  if (header == "QUEUE") return job.queue;
  if (header == "JOB_NAME") return DisplayName(job);
  if (header == "JOB_DESCRIPTION") return job.description;
  if (header == "PROJ_NAME") return job.project;
  if (header == "APPLICATION") return JobOption(job, "-app");
  if (header == "SERVICE_CLASS") return JobOption(job, "-sla");
  if (header == "JOB_GROUP") return JobOption(job, "-g");
  if (header == "COMMAND") return CommandAsShown(job);
  if (header == "SUB_CWD") return job.cwd;  // where bsub ran; -cwd is EXEC_CWD
  if (header == "EXEC_CWD") return job.exec_host.empty() ? "" : ExecCwd(job);
  if (header == "OUTPUT_FILE") {
    std::string out = JobOption(job, "-oo");
    return out.empty() ? JobOption(job, "-o") : out;
  }
  if (header == "ERROR_FILE") {
    std::string err = JobOption(job, "-eo");
    return err.empty() ? JobOption(job, "-e") : err;
  }
  return "";
}

std::string LifecycleValue(const std::string& header, const Job& job) {
  bool dispatched = !job.exec_host.empty();
  if (header == "EXIT_CODE") {
    return job.status == "EXIT" && job.exit_code != 0 ? std::to_string(job.exit_code) : "";
  }
  if (header == "EXIT_REASON") return IsFinished(job) ? job.exit_reason : "";
  if (header == "PEND_REASON") return IsPending(job) ? job.pend_reason : "";
  if (header == "FROM_HOST") return job.from_host;
  if (header == "FIRST_HOST") return job.exec_host;
  if (header == "EXEC_HOST") return ExecHostText(job);
  if (header == "NEXEC_HOST") return dispatched ? "1" : "";
  if (header == "ALLOC_SLOT") return AllocSlot(job);
  if (header == "NALLOC_SLOT") return HoldsSlots(job) ? std::to_string(job.slots) : "0";
  if (header == "NREQ_SLOT" || header == "SLOTS") return std::to_string(job.slots);
  if (header == "MIN_REQ_PROC") return ReqProc(job, false);
  if (header == "MAX_REQ_PROC") return ReqProc(job, true);
  if (header == "SUBMIT_TIME") return FormatSubmitTime(job.submit_time);
  if (header == "START_TIME") return job.start_time != 0 ? FormatSubmitTime(job.start_time) : "";
  if (header == "FINISH_TIME") return FinishTimeText(job);
  if (header == "MAX_MEM" && job.max_mem_kb >= 0) {
    return StrPrintf("%lld Mbytes", (job.max_mem_kb + 512) / 1024);
  }
  return "";
}

}  // namespace

tl::expected<BjobsFormat, std::string> ParseBjobsFormat(std::string_view spec) {
  BjobsFormat format;
  for (const std::string& item : SplitWs(spec)) {
    if (ParseDelimiter(item, &format.delimiter)) continue;
    auto column = ParseColumn(item);
    if (!column) return tl::unexpected(column.error());
    format.columns.push_back(*column);
  }
  return format;
}

std::string BjobsFieldValue(const std::string& header, const Job& job) {
  std::string value = IdentityValue(header, job);
  return value.empty() ? LifecycleValue(header, job) : value;
}

std::string ExecHostText(const Job& job) {
  if (job.exec_host.empty()) return "";
  return job.slots > 1 ? std::to_string(job.slots) + "*" + job.exec_host : job.exec_host;
}

std::string FormatBjobsCell(const BjobsColumn& column, const std::string& value) {
  std::string text = value.empty() ? "-" : value;
  if (column.width == 0) return text;
  size_t width = static_cast<size_t>(column.width);
  if (text.size() > width) {
    // LSF cuts JOB_NAME at the front behind a '*', every other field at the end.
    text = column.header == "JOB_NAME" ? "*" + text.substr(text.size() - width + 1)
                                       : text.substr(0, width);
  }
  std::string pad(width - text.size(), ' ');
  return column.right ? pad + text : text + pad;
}

}  // namespace bplace::lsfsim
