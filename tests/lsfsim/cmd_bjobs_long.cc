// bjobs -l (LSF 10.1 and volclava 2.2 layouts; see bjobs_long.h).

#include "tests/lsfsim/bjobs_fields.h"
#include "tests/lsfsim/bjobs_long.h"
#include "tests/lsfsim/job_paths.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

constexpr size_t kIndent = 21;  // the width of "Tue Dec  1 10:40:47: "
constexpr size_t kWidth = 80;   // prtLine's WIDTH: the cursor starts at 1

constexpr const char* kSchedulingParameters =
    "\n SCHEDULING PARAMETERS:\n"
    "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
    " loadSched   -     -     -     -       -     -    -     -     -      -      -  \n"
    " loadStop    -     -     -     -       -     -    -     -     -      -      -  \n";

// Platform's prtLine on one logical line: a new physical line when the
// cursor reaches column 80, indented by 21 blanks; a blank that would
// open it is dropped.
std::string PrtLine(const std::string& text, bool wrap) {
  if (!wrap) return text + "\n";
  std::string out;
  size_t cursor = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (cursor == kWidth) {
      out += "\n" + std::string(kIndent, ' ');
      cursor = kIndent + 1;
      if (text[i] == ' ') continue;
    }
    out += text[i];
    ++cursor;
  }
  return out + "\n";
}

// LSF writes a submission directory under the user's home as $HOME/...
std::string CwdText(const Job& job, const std::string& home) {
  std::string cwd = job.cwd.empty() ? "/tmp" : job.cwd;
  if (home.size() > 1 && cwd.compare(0, home.size(), home) == 0 &&
      (cwd.size() == home.size() || cwd[home.size()] == '/')) {
    return "$HOME" + cwd.substr(home.size());
  }
  return cwd;
}

std::string HeaderLine(const Job& job) {
  std::string text = "Job <" + JobIdText(job) + ">, ";
  if (job.options.contains("-J")) text += "Job Name <" + DisplayName(job) + ">, ";
  text += "User <" + job.user + ">, Project <" + job.project + ">, Status <" + job.status +
          ">, Queue <" + job.queue + ">, Command <" + CommandAsShown(job) + ">";
  if (!job.description.empty()) text += ", Job Description <" + job.description + ">";
  return text;
}

std::string Submitted(const Job& job, const std::string& home) {
  std::string text = FormatLocalTime(job.submit_time, kEventTime) + "Submitted from host <" +
                     job.from_host + ">, CWD <" + CwdText(job, home) + ">";
  JobOutputFile out = StdoutFile(job);
  JobOutputFile err = StderrFile(job);
  if (!out.as_given.empty())
    text += ", Output File <" + JobOption(job, out.overwrite ? "-oo" : "-o") + ">";
  if (!err.as_given.empty())
    text += ", Error File <" + JobOption(job, err.overwrite ? "-eo" : "-e") + ">";
  if (job.slots > 1) text += StrPrintf(", %d Task(s)", job.slots);
  if (!job.asked_hosts.empty()) text += ", Specified Hosts <" + Join(job.asked_hosts, ">, <") + ">";
  return text + ";";
}

std::string Started(const Job& job, const std::string& home, bool openlava) {
  std::string host = ExecHostText(job);
  std::string where = openlava ? "Started on <" + host + ">"
                               : StrPrintf(
                                     "Started %d Task(s) on Host(s) <%s>, Allocated %d "
                                     "Slot(s) on Host(s) <%s>",
                                     job.slots, host.c_str(), job.slots, host.c_str());
  return FormatLocalTime(job.start_time, kEventTime) + where + ", Execution Home <" +
         (home.empty() ? "/" : home) + ">, Execution CWD <" + ExecCwd(job) + ">;";
}

// The lines that end a finished job.
std::vector<std::string> EndedLines(const Job& job, bool openlava) {
  std::string when = FormatLocalTime(job.end_time, kEventTime);
  std::string cpu = StrPrintf(" The CPU time used is %.1f seconds.", job.cpu_s);
  if (job.status == "DONE") {
    std::vector<std::string> lines = {when + "Done successfully." + cpu};
    if (!openlava) lines.push_back(when + "Post job process done successfully.");
    return lines;
  }
  std::vector<std::string> lines;
  if (job.start_time == 0) {
    lines.push_back(when + "Exited");
  } else {
    lines.push_back(when + StrPrintf("Exited with exit code %d.", job.exit_code) + cpu);
  }
  if (!openlava) {
    lines.push_back(when + "Completed <exit>" +
                    (job.exit_reason.empty() ? "." : "; " + job.exit_reason + "."));
  }
  return lines;
}

// " Job slot limit reached: 2 hosts; Closed by ...: 1 host;" -> one line each.
std::string PendingReasons(const Job& job) {
  std::string out = " PENDING REASONS:\n";
  std::string reason;
  for (size_t i = 0; i < job.pend_reason.size(); ++i) {
    reason += job.pend_reason[i];
    if (job.pend_reason[i] == ';') {
      out += " " + reason + "\n";
      reason.clear();
      while (i + 1 < job.pend_reason.size() && job.pend_reason[i + 1] == ' ') ++i;
    }
  }
  if (!reason.empty()) out += " " + reason + ";\n";
  return out;
}

std::string Block(const Job& job, bool openlava) {
  bool wrap = !openlava;
  std::string home = HomeDirectoryOf(job.user);
  std::string out = "\n" + PrtLine(HeaderLine(job), wrap) + PrtLine(Submitted(job, home), wrap);
  if (job.start_time != 0) out += PrtLine(Started(job, home, openlava), wrap);
  if (IsFinished(job)) {
    for (const std::string& line : EndedLines(job, openlava)) out += PrtLine(line, wrap);
  }
  if (IsPending(job) && !job.pend_reason.empty()) out += PendingReasons(job);
  if (!IsPending(job) && job.max_mem_kb >= 0) {
    long long mb = (job.max_mem_kb + 512) / 1024;
    out += "\n MEMORY USAGE:\n";
    out += openlava ? StrPrintf(" MAX MEM: %lld Mbytes;  AVG MEM: %lld Mbytes\n", mb, mb)
                    : StrPrintf(
                          " MAX MEM: %lld Mbytes;  AVG MEM: %lld Mbytes; MEM Efficiency: "
                          "0.00%%\n",
                          mb, mb);
  }
  out += kSchedulingParameters;
  std::string combined =
      job.res_reqs.empty() ? "select[type == local] order[r15s:pg]" : Join(job.res_reqs, " ");
  out += "\n RESOURCE REQUIREMENT DETAILS:\n" + PrtLine(" Combined: " + combined, wrap);
  out += job.start_time != 0 ? PrtLine(" Effective: " + combined, wrap) : " Effective: -\n";
  return out;
}

}  // namespace

std::string FormatBjobsLong(const std::vector<const Job*>& jobs, const ClusterDef& cluster) {
  bool openlava = cluster.dialect == Dialect::kOpenlava;
  std::string out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0) out += std::string(78, '-') + "\n";
    out += Block(*jobs[i], openlava);
  }
  return out + "\n";
}

}  // namespace bplace::lsfsim
