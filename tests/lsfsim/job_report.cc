#include "tests/lsfsim/job_report.h"

#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

constexpr const char* kRule = "------------------------------------------------------------\n";

std::string UsageLine(const char* label, const std::string& value) {
  return StrPrintf("    %-45s%s\n", label, value.c_str());
}

std::string UsageSummary(const Job& job) {
  std::string max_mem = "-";
  std::string avg_mem = "-";
  if (job.max_mem_kb > 0) {
    long long mb = (job.max_mem_kb + 512) / 1024;
    if (mb == 0) mb = 1;
    max_mem = std::to_string(mb) + " MB";
    avg_mem = StrPrintf("%.2f MB", static_cast<double>(mb));
  }
  long long run = job.end_time - job.start_time;
  long long turnaround = job.end_time - job.submit_time;
  std::string out = "Resource usage summary:\n\n";
  out += UsageLine("CPU time :", StrPrintf("%.2f sec.", job.cpu_s));
  out += UsageLine("Max Memory :", max_mem);
  out += UsageLine("Average Memory :", avg_mem);
  out += UsageLine("Total Requested Memory :", "-");
  out += UsageLine("Delta Memory :", "-");
  out += UsageLine("Max Swap :", "-");
  out += UsageLine("Max Processes :", "-");
  out += UsageLine("Max Threads :", "-");
  out += UsageLine("Run time :", StrPrintf("%lld sec.", run < 0 ? 0 : run));
  out += UsageLine("Turnaround time :", StrPrintf("%lld sec.", turnaround < 0 ? 0 : turnaround));
  return out;
}

std::string Outcome(const Job& job) {
  if (job.status == "DONE") return "Successfully completed.\n";
  std::string out;
  if (!job.exit_reason.empty()) out += job.exit_reason + ".\n";
  return out + StrPrintf("Exited with exit code %d.\n", job.exit_code);
}

}  // namespace

std::string JobReport(const Job& job, const JobReportFacts& facts) {
  std::string name = DisplayName(job);
  std::string host =
      job.slots > 1 ? StrPrintf("%d*%s", job.slots, job.exec_host.c_str()) : job.exec_host;
  std::string command = job.command;
  if (!command.empty() && command.back() == '\n') command.pop_back();
  std::string out = "\n";
  out += kRule;
  out += "Sender: LSF System <" + facts.admin + "@" + job.exec_host + ">\n";
  out += "Subject: Job " + JobIdText(job) + ": <" + name + "> in cluster <" + facts.cluster + "> " +
         (job.status == "DONE" ? "Done" : "Exited") + "\n\n";
  out += "Job <" + name + "> was submitted from host <" + job.from_host + "> by user <" + job.user +
         "> in cluster <" + facts.cluster + "> at " + FormatLocalTime(job.submit_time, kCTime) +
         "\n";
  out += "Job was executed on host(s) <" + host + ">, in queue <" + job.queue + ">, as user <" +
         job.user + "> in cluster <" + facts.cluster + "> at " +
         FormatLocalTime(job.start_time, kCTime) + "\n";
  out += "<" + facts.home + "> was used as the home directory.\n";
  out += "<" + facts.exec_cwd + "> was used as the working directory.\n";
  out += "Started at " + FormatLocalTime(job.start_time, kCTime) + "\n";
  out += "Terminated at " + FormatLocalTime(job.end_time, kCTime) + "\n";
  out += "Results reported at " + FormatLocalTime(job.end_time, kCTime) + "\n\n";
  out += "Your job looked like:\n\n";
  out += kRule;
  out += "# LSBATCH: User input\n" + command + "\n";
  out += kRule;
  out += "\n" + Outcome(job) + "\n";
  out += UsageSummary(job);
  out += "\nThe output (if any) is above this job summary.\n\n";
  if (!facts.stderr_file.empty()) {
    out += "\n\nPS:\n\nRead file <" + facts.stderr_file + "> for stderr output of this job.\n\n";
  }
  return out;
}

}  // namespace bplace::lsfsim
