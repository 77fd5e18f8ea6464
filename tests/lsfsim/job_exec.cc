#include "tests/lsfsim/job_exec.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include "tests/lsfsim/job_state.h"

namespace bplace::lsfsim {
namespace {

// The LSF variables sbatchd sets for a job (LSF 10.1 "Environment variables
// set for job execution").
std::map<std::string, std::string> JobVariables(const Job& job, const ClusterDef& cluster) {
  std::string hosts;
  for (int slot = 0; slot < job.slots; ++slot) hosts += (slot ? " " : "") + job.exec_host;
  std::map<std::string, std::string> vars = {
      {"LSB_JOBID", std::to_string(job.id)},
      {"LSB_JOBNAME", DisplayName(job)},
      {"LSB_QUEUE", job.queue},
      {"LSB_HOSTS", hosts},
      {"LSB_MCPU_HOSTS", job.exec_host + " " + std::to_string(job.slots)},
      {"LSB_DJOB_NUMPROC", std::to_string(job.slots)},
      {"LSB_SUB_HOST", job.from_host},
      {"LSB_EXEC_CLUSTER", cluster.name},
      {"LS_SUBCWD", job.cwd}};
  if (job.index != 0) vars["LSB_JOBINDEX"] = std::to_string(job.index);
  return vars;
}

std::vector<std::string> JobEnvironment(const Job& job, const JobSpool& spool,
                                        const ClusterDef& cluster) {
  std::map<std::string, std::string> vars = JobVariables(job, cluster);
  std::vector<std::string> out;
  for (const std::string& entry : spool.environment) {
    std::string key = entry.substr(0, entry.find('='));
    if (!vars.contains(key)) out.push_back(entry);
  }
  for (auto& [key, value] : vars) out.push_back(key + "=" + value);
  return out;
}

// Opens an output file for the job; /dev/null when it cannot.
int OpenOutput(const JobOutputFile& file) {
  int fd = -1;
  if (!file.path.empty()) {
    int flags = O_WRONLY | O_CREAT | (file.overwrite ? O_TRUNC : O_APPEND);
    fd = ::open(file.path.c_str(), flags, 0666);
  }
  return fd >= 0 ? fd : ::open("/dev/null", O_WRONLY);
}

}  // namespace

tl::expected<ExecPlan, std::string> MakeExecPlan(const Job& job, const JobSpool& spool,
                                                 const ClusterDef& cluster) {
  ExecPlan plan;
  struct passwd pwd {};
  struct passwd* pw = nullptr;
  std::vector<char> buffer(16384);
  ::getpwnam_r(job.user.c_str(), &pwd, buffer.data(), buffer.size(), &pw);
  if (pw == nullptr && ::geteuid() == 0) {
    return tl::unexpected("job " + JobIdText(job) + ": no such user " + job.user);
  }
  plan.user = job.user;
  plan.home = pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "/";
  if (pw != nullptr && ::geteuid() == 0 && pw->pw_uid != ::geteuid()) {
    plan.drop_privileges = true;
    plan.uid = pw->pw_uid;
    plan.gid = pw->pw_gid;
  }
  plan.cwd = ExecCwd(job);
  plan.umask = job.umask;
  plan.out = StdoutFile(job);
  plan.err = StderrFile(job);
  plan.environment = JobEnvironment(job, spool, cluster);
  plan.argv = {"/bin/sh", "-c", job.command};
  return plan;
}

void ExecJobChild(const ExecPlan& plan) {
  ::setpgid(0, 0);
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (plan.drop_privileges) {
    if (::initgroups(plan.user.c_str(), plan.gid) != 0 || ::setgid(plan.gid) != 0 ||
        ::setuid(plan.uid) != 0) {
      ::_exit(126);
    }
  }
  ::umask(static_cast<mode_t>(plan.umask));
  if (::chdir(plan.cwd.c_str()) != 0 && ::chdir("/tmp") != 0) ::_exit(126);
  int in = ::open("/dev/null", O_RDONLY);
  int out = OpenOutput(plan.out);
  int err = plan.err.path.empty() ? out : OpenOutput(plan.err);
  if (in < 0 || out < 0 || err < 0) ::_exit(126);
  ::dup2(in, 0);
  ::dup2(out, 1);
  ::dup2(err, 2);
  ::close_range(3, ~0U, 0);
  std::vector<char*> argv;
  for (const std::string& arg : plan.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& entry : plan.environment) {
    envp.push_back(const_cast<char*>(entry.c_str()));
  }
  envp.push_back(nullptr);
  ::execve(argv[0], argv.data(), envp.data());
  ::_exit(127);
}

}  // namespace bplace::lsfsim
