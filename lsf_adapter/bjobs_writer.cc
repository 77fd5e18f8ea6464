#include "lsf_adapter/bjobs_writer.h"

#include <cstdio>

#include "lsf_adapter/bjobs_long_parser.h"

namespace bplace::lsf {
namespace {

std::string JobIdValue(const JobRecord& job) { return job.job_id; }
std::string JobIndexValue(const JobRecord& job) { return std::to_string(job.array_index); }
std::string StatValue(const JobRecord& job) { return job.status; }
std::string UserValue(const JobRecord& job) { return job.user; }
std::string QueueValue(const JobRecord& job) { return job.queue; }
std::string JobNameValue(const JobRecord& job) { return job.job_name; }
std::string DescriptionValue(const JobRecord& job) { return job.job_description; }
std::string ProjectValue(const JobRecord& job) { return job.project; }
std::string ExitCodeValue(const JobRecord& job) {
  return job.exit_code ? std::to_string(*job.exit_code) : "";
}
std::string ExitReasonValue(const JobRecord& job) { return job.exit_reason; }
std::string PendReasonValue(const JobRecord& job) { return job.pend_reason; }
std::string FromHostValue(const JobRecord& job) { return job.from_host; }
std::string FirstHostValue(const JobRecord& job) {
  return job.exec_hosts.empty() ? "" : job.exec_hosts.front().name;
}
std::string ExecHostValue(const JobRecord& job) { return ExecHostText(job); }
std::string SlotsValue(const JobRecord& job) {
  return job.slots > 0 ? std::to_string(job.slots) : "";
}
std::string SubmitTimeValue(const JobRecord& job) { return job.submit_time; }
std::string StartTimeValue(const JobRecord& job) { return job.start_time; }
std::string FinishTimeValue(const JobRecord& job) { return job.finish_time; }

// The fields the jobs tier holds (lsf::BjobsOutputFields asks LSF for them),
// with LSF 10.1's names, aliases, headers and recommended widths (bjobs -o,
// "Output fields for bjobs").
constexpr BjobsField kWrittenFields[] = {
    {"jobid", "id", "JOBID", 7, JobIdValue},
    {"jobindex", "", "JOBINDEX", 8, JobIndexValue},
    {"stat", "", "STAT", 5, StatValue},
    {"user", "", "USER", 7, UserValue},
    {"queue", "", "QUEUE", 10, QueueValue},
    {"job_name", "name", "JOB_NAME", 10, JobNameValue},
    {"job_description", "description", "JOB_DESCRIPTION", 17, DescriptionValue},
    {"proj_name", "proj", "PROJ_NAME", 11, ProjectValue},
    {"exit_code", "", "EXIT_CODE", 10, ExitCodeValue},
    {"exit_reason", "", "EXIT_REASON", 50, ExitReasonValue},
    {"from_host", "", "FROM_HOST", 11, FromHostValue},
    {"first_host", "", "FIRST_HOST", 11, FirstHostValue},
    {"exec_host", "", "EXEC_HOST", 11, ExecHostValue},
    {"slots", "", "SLOTS", 5, SlotsValue},
    {"submit_time", "", "SUBMIT_TIME", 15, SubmitTimeValue},
    {"start_time", "", "START_TIME", 15, StartTimeValue},
    {"finish_time", "", "FINISH_TIME", 16, FinishTimeValue},
    {"pend_reason", "", "PEND_REASON", 11, PendReasonValue},
};

std::string JsonEscaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", byte);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out;
}

// `bjobs -o ... -json` (LSF 10.1; docs/lsf-formats.md "bjobs -o -json"): string
// values, two-space indent, an ERROR record per unknown id.
BjobsOutput WriteJson(const BjobsFormat& format, const BjobsSelection& selection) {
  std::vector<std::vector<std::pair<std::string, std::string>>> records;
  for (const JobRecord* job : selection.jobs) {
    std::vector<std::pair<std::string, std::string>> record;
    for (const BjobsColumn& column : format.columns) {
      record.emplace_back(column.header, FindBjobsField(column.field)->value(*job));
    }
    records.push_back(std::move(record));
  }
  for (const std::string& id : selection.missing) {
    // JOBID of an error record is the id without its index.
    records.push_back(
        {{"JOBID", id.substr(0, id.find('['))}, {"ERROR", "Job <" + id + "> is not found"}});
  }
  BjobsOutput output;
  output.out = "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":" + std::to_string(records.size()) +
               ",\n  \"RECORDS\":[\n";
  for (std::size_t r = 0; r < records.size(); ++r) {
    output.out += "    {\n";
    for (std::size_t f = 0; f < records[r].size(); ++f) {
      output.out += "      \"" + JsonEscaped(records[r][f].first) + "\":\"" +
                    JsonEscaped(records[r][f].second) + "\"" +
                    (f + 1 < records[r].size() ? "," : "") + "\n";
    }
    output.out += r + 1 < records.size() ? "    },\n" : "    }\n";
  }
  output.out += "  ]\n}\n";
  output.exit_code = selection.missing.empty() ? 0 : 255;
  return output;
}

// One cell of `-o` without -json: "-" for no value; cut and padded to the
// column's width (JOB_NAME is cut at the front behind a '*').
std::string Cell(const BjobsColumn& column, const std::string& value) {
  std::string text = value.empty() ? "-" : value;
  if (column.width == 0) return text;
  const auto width = static_cast<std::size_t>(column.width);
  if (text.size() > width) {
    text = column.header == "JOB_NAME" ? "*" + text.substr(text.size() - width + 1)
                                       : text.substr(0, width);
  }
  const std::string pad(width - text.size(), ' ');
  return column.right ? pad + text : text + pad;
}

std::string Row(const BjobsFormat& format, const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += format.delimiter;
    line += Cell(format.columns[i], cells[i]);
  }
  return line + "\n";
}

std::string WriteColumns(const BjobsFormat& format, const BjobsSelection& selection, bool header) {
  std::string out;
  if (header) {
    std::vector<std::string> cells;
    for (const BjobsColumn& column : format.columns) cells.push_back(column.header);
    out += Row(format, cells);
  }
  for (const JobRecord* job : selection.jobs) {
    std::vector<std::string> cells;
    for (const BjobsColumn& column : format.columns) {
      cells.push_back(FindBjobsField(column.field)->value(*job));
    }
    out += Row(format, cells);
  }
  return out;
}

bool IsFinished(const JobRecord& job) { return IsTerminalJobStatus(job.status); }

// "%-7.7s"-style: `text` cut to `width` (when `cut`) and padded to it.
std::string Padded(std::string text, std::size_t width, bool cut) {
  if (cut && text.size() > width) text.resize(width);
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// The column where EXEC_HOST starts in the narrow table: the widths of
// JOBID USER STAT QUEUE FROM_HOST and their separating blanks.
constexpr std::size_t kExecHostColumn = 7 + 1 + 7 + 1 + 5 + 1 + 10 + 1 + 11 + 1;

std::string HostCell(const ExecHost& host) {
  return host.slots > 1 ? std::to_string(host.slots) + "*" + host.name : host.name;
}

// One job in the default table (docs/lsf-formats.md "The bjobs table"). Without -w
// names are cut (JOB_NAME at the front behind '*') and each further
// execution host goes on a line of its own under EXEC_HOST; with -w
// nothing is cut and the hosts are joined by ':'.
std::string TableRow(const JobRecord& job, bool wide) {
  std::string host =
      wide ? ExecHostText(job) : (job.exec_hosts.empty() ? "" : HostCell(job.exec_hosts.front()));
  // A pending job's EXEC_HOST is blank, except with -w (and for finished
  // jobs that never ran), where LSF prints "   -".
  if (host.empty() && (wide || IsFinished(job))) host = "   -";
  std::string name = job.job_name;
  if (!wide && name.size() > 10) name = "*" + name.substr(name.size() - 9);
  const bool cut = !wide;
  std::string line = Padded(job.job_id, 7, false) + " " + Padded(job.user, 7, cut) + " " +
                     Padded(job.status, 5, false) + " " + Padded(job.queue, 10, cut) + " " +
                     Padded(job.from_host, 11, cut) + " " + Padded(host, 11, cut) + " " +
                     Padded(name, 10, cut) + " " + job.submit_time + "\n";
  if (!wide) {
    for (std::size_t i = 1; i < job.exec_hosts.size(); ++i) {
      line += std::string(kExecHostColumn, ' ') + HostCell(job.exec_hosts[i]) + "\n";
    }
  }
  return line;
}

std::string EmptyAnswer(char state_filter) {
  switch (state_filter) {
    case 'a':
      return "No job found";
    case 'd':
      return "No DONE/EXIT job found";
    case 'p':
      return "No pending job found";
    case 'r':
      return "No running job found";
    case 's':
      return "No suspended job found";
    default:
      return "No unfinished job found";
  }
}

}  // namespace

const BjobsField* FindBjobsField(std::string_view name) {
  for (const BjobsField& field : kWrittenFields) {
    if (name == field.name || (!field.alias.empty() && name == field.alias)) return &field;
  }
  return nullptr;
}

std::string ExecHostText(const JobRecord& job) {
  std::string text;
  for (const ExecHost& host : job.exec_hosts) {
    if (!text.empty()) text += ':';
    text += HostCell(host);
  }
  return text;
}

BjobsOutput WriteBjobs(const BjobsCommandLine& line, const BjobsFormat* format,
                       const BjobsSelection& selection) {
  if (format != nullptr && line.json) return WriteJson(*format, selection);
  BjobsOutput output;
  for (const std::string& id : selection.missing) {
    output.err += "Job <" + id + "> is not found\n";
    output.exit_code = 255;
  }
  if (selection.jobs.empty()) {
    if (selection.missing.empty()) {
      // volclava 2.2 (docs/lsf-formats.md "bjobs"): 254 and the sentence.
      output.err = EmptyAnswer(line.state_filter) + "\n";
      output.exit_code = 254;
    }
    return output;
  }
  if (line.long_form) {
    output.out = JoinBjobsLong(selection.long_blocks);
    return output;
  }
  if (format != nullptr) {
    output.out = WriteColumns(*format, selection, !line.noheader);
    return output;
  }
  if (!line.noheader) {
    output.out =
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n";
  }
  for (const JobRecord* job : selection.jobs) output.out += TableRow(*job, line.wide);
  return output;
}

}  // namespace bplace::lsf
