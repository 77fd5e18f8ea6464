#include "tests/lsfsim/job_spool.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

std::string InfoDir(const StateDir& state) { return state.path() + "/info"; }

tl::expected<void, std::string> EnsureInfoDir(const StateDir& state) {
  std::string dir = InfoDir(state);
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return tl::unexpected("mkdir " + dir + ": " + std::strerror(errno));
  }
  // Whoever made it, the users' bsubs must be able to add files to it.
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && (st.st_mode & 07777) != 0777 && st.st_uid == ::geteuid()) {
    ::chmod(dir.c_str(), 0777);
  }
  return {};
}

}  // namespace

std::string JobSpoolPath(const StateDir& state, long long id) {
  return InfoDir(state) + "/" + std::to_string(id) + ".json";
}

tl::expected<void, std::string> SaveJobSpool(const StateDir& state, long long id,
                                             const JobSpool& spool) {
  if (auto made = EnsureInfoDir(state); !made) return made;
  nlohmann::json doc{{"environment", spool.environment}};
  // An environment may hold bytes that are not UTF-8; keep the file valid.
  std::string text = doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return AtomicWriteFile(JobSpoolPath(state, id), text);
}

tl::expected<JobSpool, std::string> LoadJobSpool(const StateDir& state, long long id) {
  std::string path = JobSpoolPath(state, id);
  JobSpool spool;
  if (!FileExists(path)) return spool;
  auto text = ReadFile(path);
  if (!text) return tl::unexpected(text.error());
  nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return tl::unexpected(path + ": corrupt JSON");
  try {
    spool.environment = doc.value("environment", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    return tl::unexpected(path + ": " + e.what());
  }
  return spool;
}

}  // namespace bplace::lsfsim
