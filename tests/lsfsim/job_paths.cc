#include "tests/lsfsim/job_paths.h"

#include <sys/stat.h>

#include <filesystem>

#include "tests/lsfsim/job_state.h"

namespace bplace::lsfsim {
namespace {

// `path` made absolute against `base` and normalised ("/a/./b/" is
// "/a/b"), as the job sees its directory.
std::string Absolute(const std::string& path, const std::string& base) {
  std::filesystem::path joined = path.empty() || path[0] == '/'
                                     ? std::filesystem::path(path)
                                     : std::filesystem::path(base.empty() ? "/" : base) / path;
  std::string out = joined.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

JobOutputFile OutputFile(const Job& job, const char* append, const char* overwrite,
                         const char* suffix) {
  JobOutputFile file;
  std::string name = JobOption(job, overwrite);
  file.overwrite = !name.empty();
  if (name.empty()) name = JobOption(job, append);
  if (name.empty()) return file;
  file.as_given = ExpandJobPattern(name, job);
  file.path = Absolute(file.as_given, ExecCwd(job));
  if (file.as_given.back() == '/' || IsDirectory(file.path)) {
    if (file.path.back() != '/') file.path += '/';
    file.path += std::to_string(job.id);
    if (job.index != 0) file.path += "_" + std::to_string(job.index);
    file.path += suffix;
  }
  return file;
}

}  // namespace

std::string ExpandJobPattern(const std::string& pattern, const Job& job) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() &&
        (pattern[i + 1] == 'J' || pattern[i + 1] == 'I')) {
      out += std::to_string(pattern[i + 1] == 'J' ? job.id : job.index);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

std::string ExecCwd(const Job& job) {
  std::string cwd = ExpandJobPattern(JobOption(job, "-cwd"), job);
  if (!cwd.empty()) return Absolute(cwd, job.cwd.empty() ? "/tmp" : job.cwd);
  return job.cwd.empty() ? "/tmp" : job.cwd;
}

JobOutputFile StdoutFile(const Job& job) { return OutputFile(job, "-o", "-oo", ".out"); }

JobOutputFile StderrFile(const Job& job) { return OutputFile(job, "-e", "-eo", ".err"); }

}  // namespace bplace::lsfsim
