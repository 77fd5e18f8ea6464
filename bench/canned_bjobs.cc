#include "bench/canned_bjobs.h"

namespace bplace::bench {

std::int64_t CannedJobId(int i) { return 1000000 + i; }

std::string CannedStatus(int i) {
  const int kind = i % 20;
  if (kind == 19) return "EXIT";
  return kind < 8 ? "RUN" : "PEND";
}

std::string CannedBjobsJson(int first, int count, int users,
                            const std::function<std::string(int)>& status) {
  std::string text =
      "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":" + std::to_string(count) + ",\n  \"RECORDS\":[\n";
  for (int i = first; i < first + count; ++i) {
    const std::string stat = status ? status(i) : CannedStatus(i);
    const bool exited = stat == "EXIT";
    const bool started = stat == "RUN" || exited;
    const std::string host = "node" + std::to_string(100 + i % 900);
    text += "    {\n      \"JOBID\":\"" + std::to_string(CannedJobId(i)) +
            "\",\n      \"JOBINDEX\":\"0\",\n      \"USER\":\"user" + std::to_string(i % users) +
            "\",\n      \"STAT\":\"" + stat + "\",\n      \"QUEUE\":\"normal\"" +
            ",\n      \"EXIT_CODE\":\"" + (exited ? "1" : "") + "\",\n      \"EXIT_REASON\":\"\"" +
            ",\n      \"PEND_REASON\":\"" + (started ? "" : "New job is waiting for scheduling;") +
            "\",\n      \"SUBMIT_TIME\":\"Dec  1 10:00\",\n      \"START_TIME\":\"" +
            (started ? "Dec  1 10:01" : "") + "\",\n      \"FINISH_TIME\":\"" +
            (exited ? "Dec  1 11:00" : "") + "\",\n      \"EXEC_HOST\":\"" +
            (started ? "4*" + host : "") + "\",\n      \"SLOTS\":\"4\"" +
            ",\n      \"JOB_NAME\":\"snakejob.align." + std::to_string(i) +
            ".sh\",\n      \"JOB_DESCRIPTION\":\"\",\n      \"FROM_HOST\":\"login01\"" +
            ",\n      \"PROJ_NAME\":\"default\"\n    }" + (i + 1 < first + count ? ",\n" : "\n");
  }
  return text + "  ]\n}\n";
}

}  // namespace bplace::bench
