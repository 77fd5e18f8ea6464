#pragma once

#include <string>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Where a job runs and where its output goes, as sbatchd decides them
// (LSF 10.1 bsub -cwd, -o/-oo, -e/-eo and their %J/%I). Pure apart from
// telling whether an output name is a directory. Thread-compatible.

// Replaces bsub's %J (the job id) and %I (the array index; 0 for a job that
// is no array) in a file or directory name.
std::string ExpandJobPattern(const std::string& pattern, const Job& job);

// The execution directory: -cwd (%J/%I expanded; a relative one is
// relative to the submission directory), else the submission directory;
// "/tmp" when neither is known (LSF runs a job whose directory is missing
// in /tmp too; the runner falls back to it when chdir fails).
std::string ExecCwd(const Job& job);

// One of the job's output files.
struct JobOutputFile {
  std::string path;        // absolute; empty when the option was not given
  std::string as_given;    // the name with %J/%I expanded, as the job report names it
  bool overwrite = false;  // -oo / -eo truncate; -o / -e append
};

// -o/-oo (stdout) and -e/-eo (stderr). A relative name is relative to the
// execution directory; a name that is an existing directory, or ends in
// '/', gets "<id>.out" / "<id>.err" ("<id>_<index>" for an array element)
// inside it, as LSF does.
JobOutputFile StdoutFile(const Job& job);
JobOutputFile StderrFile(const Job& job);

}  // namespace bplace::lsfsim
