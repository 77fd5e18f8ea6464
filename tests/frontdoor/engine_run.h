#pragma once

// What the engine tests share (engines_integration_test.cc,
// openlava_integration_test.cc): the simulator's sbatchd, a work directory
// every user may use, and Toil's workflow of a root job, ten children and a
// follow-on. Test-only; not thread-safe.

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

}  // namespace bplace::testing
