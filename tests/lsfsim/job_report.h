#pragma once

#include <string>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// What the job report needs besides the job record.
struct JobReportFacts {
  std::string cluster;      // "in cluster <...>"
  std::string admin;        // the mail sender: "LSF System <admin@exec_host>"
  std::string home;         // the job user's home directory
  std::string exec_cwd;     // the directory the job ran in
  std::string stderr_file;  // -e/-eo as given (%J expanded); empty: stderr is in this file
};

// The job report LSF 10.1 appends to the -o file when a job ends (the mail
// it sends without -o): a separator, the Sender/Subject lines, where and
// when the job ran, the command ("Your job looked like:"), then
// "Successfully completed." or "[TERM_...: reason.]" "Exited with exit
// code N.", two lines above "Resource usage summary:" (which the Snakemake
// 7 LSF profile reads), the usage figures, and "The output (if any) is
// above this job summary."; with -e a "PS:" block names the stderr file.
// The layout is that of real LSF 10.1 output files (tests/lsfsim/README.md
// cites them); times are ctime-style in the local time zone. `job` must be
// DONE or EXIT with start_time and end_time set; figures the simulator
// does not measure print "-".
std::string JobReport(const Job& job, const JobReportFacts& facts);

}  // namespace bplace::lsfsim
