#pragma once

// What the engine tests share (engines_integration_test.cc,
// openlava_integration_test.cc, and the realsched tier's engine runs): the
// simulator's sbatchd, a work directory every user may use, Toil's workflow
// of a root job, ten children and a follow-on, and Snakemake's workflow of
// three rules with its LSF status script. Test-only; not thread-safe.

#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/integration/harness.h"

extern char** environ;

namespace bplace::testing {

// `lsfsim daemon`: the simulator's sbatchd, dispatching and running jobs.
class SimDaemon {
 public:
  explicit SimDaemon(const SimCluster& sim) {
    const std::string lsfsim = std::string(LSFSIM_BIN_DIR) + "/lsfsim";
    const std::string envdir = "LSF_ENVDIR=" + (sim.dir() / "lsf").string();
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    env.push_back(envdir);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    char* argv[] = {const_cast<char*>(lsfsim.c_str()), const_cast<char*>("daemon"),
                    const_cast<char*>("--interval-ms"), const_cast<char*>("200"), nullptr};
    if (posix_spawn(&pid_, lsfsim.c_str(), nullptr, nullptr, argv, envp.data()) != 0) pid_ = -1;
  }
  ~SimDaemon() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  bool running() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

// A work directory every user may use (the workflow runs as the service
// user when the tests run as root), removed at the end.
inline std::filesystem::path OpenDirectory(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
  std::filesystem::permissions(pattern, std::filesystem::perms::all);
  return pattern;
}

inline void Write(const std::filesystem::path& path, const std::string& text,
                  bool executable = false) {
  std::ofstream(path) << text;
  std::filesystem::permissions(
      path, executable ? std::filesystem::perms::all
                       : (std::filesystem::perms::all & ~std::filesystem::perms::others_write));
}

inline constexpr char kToilWorkflow[] = R"(from toil.common import Toil
from toil.job import Job


def child(job, n):
    return n * 10


def follow_on(job, a, b):
    return a + b


def root(job):
    children = [job.addChildJobFn(child, n) for n in range(1, 11)]
    return job.addFollowOnJobFn(follow_on, children[0].rv(), children[1].rv()).rv()


if __name__ == "__main__":
    options = Job.Runner.getDefaultArgumentParser().parse_args()
    with Toil(options) as toil:
        print("workflow result:", toil.start(Job.wrapJobFn(root)))
)";

inline constexpr char kSnakefile[] = R"(rule all:
    input: "c.txt"

rule a:
    output: "a.txt"
    shell: "echo a > {output}"

rule b:
    input: "a.txt"
    output: "b.txt"
    shell: "cat {input} > {output}; echo b >> {output}"

rule c:
    input: "b.txt"
    output: "c.txt"
    shell: "cat {input} > {output}; echo c >> {output}"
)";

// The status script in the style of the public Snakemake LSF profile
// (docs/lsf-front-door.md "bjobs"): bjobs -o stat,
// then the -o file's job report once LSF no longer knows the job.
inline constexpr char kStatusScript[] = R"(#!/bin/sh
id=$(printf '%s\n' "$1" | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
[ -n "$id" ] || id=$1
stat=$(bjobs -o stat -noheader "$id" 2>/dev/null)
case "$stat" in
  PEND|RUN|PSUSP|USUSP|SSUSP|WAIT|UNKWN) echo running; exit 0 ;;
  DONE|POST_DONE) echo success; exit 0 ;;
  EXIT|POST_ERR|ZOMBI) echo failed; exit 0 ;;
esac
log=$(grep -l "^Subject: Job $id:" logs/*.out 2>/dev/null | head -1)
[ -n "$log" ] || { echo failed; exit 0; }
line=$(grep -B2 '^Resource usage summary:' "$log" | tail -3 | head -1)
case "$line" in
  "Successfully completed.") echo success ;;
  *) echo failed ;;
esac
)";

}  // namespace bplace::testing
