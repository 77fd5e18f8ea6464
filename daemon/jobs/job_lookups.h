#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "daemon/cluster/job_table.h"
#include "daemon/options.h"

namespace bplace {

// What callers' lookups of job ids bplace does not follow may cost
// (docs/api.md "Jobs: following and cancelling"). A lookup adds the id to the jobs tier's next
// bjobs; an id LSF does not know is then remembered for the caller who asked, for
// JobLookupOptions::not_found_ttl (a negative cache: asking again runs no
// bjobs and keeps no row), and a caller has at most max_in_flight_per_caller
// lookups running. Every count is bounded per caller and in callers, so a
// flood of requests for unknown ids costs bounded memory and never a row of
// the state store.
// Thread-safe: every method takes one mutex; none blocks otherwise.
class JobLookups {
 public:
  explicit JobLookups(JobLookupOptions options) : options_(options) {}

  // What Begin decided.
  enum class Admission {
    kLookUp,    // counted in flight: look the id up, then call Finish
    kNotFound,  // LSF said at `since` that it does not know the id: answer that
    kTooMany,   // the caller has too many lookups in flight (or no room is left for a new caller)
  };
  struct Verdict {
    Admission admission = Admission::kLookUp;
    SystemTime since{};  // kNotFound: when LSF said so
  };

  // Decides whether `caller` (a user name, or "uid N") may look `key` up at
  // `now`: kNotFound when LSF said within not_found_ttl before `now`, to a
  // lookup of this caller, that it does not know the id; kTooMany when the
  // caller has max_in_flight_per_caller lookups running, or max_callers
  // others hold lookups in flight; else kLookUp, counted until Finish.
  Verdict Begin(const std::string& caller, const JobKey& key, SystemTime now);

  // Ends a lookup Begin admitted. `not_found`: LSF does not know the id;
  // it is remembered for the caller (the caller's oldest entry goes beyond
  // max_not_found_per_caller).
  void Finish(const std::string& caller, const JobKey& key, bool not_found, SystemTime now);

  // Entries held: callers, and not-found ids over all callers.
  std::size_t Callers() const;
  std::size_t NotFoundEntries() const;

 private:
  struct CallerLookups {
    std::size_t in_flight = 0;
    std::map<JobKey, SystemTime> not_found;
    std::deque<JobKey> order;  // of not_found, oldest first
    SystemTime last_used{};
  };

  // These expect mutex_ held.
  void Expire(CallerLookups& lookups, SystemTime now) const;
  bool MakeRoomForCaller();

  const JobLookupOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, CallerLookups> callers_;  // guarded by mutex_
};

}  // namespace bplace
