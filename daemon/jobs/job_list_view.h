#pragma once

// The jobs tier's view of every job of the cluster, for bjobs lists
// (docs/lsf-front-door.md "bjobs lists"): one `bjobs -u all [-a]` per jobs
// interval while callers ask for lists, whatever their number, and nothing
// while none does.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "lsf_adapter/job_record.h"

namespace bplace {

// How long after the last list request the view is still fetched every
// jobs interval: longer than the slowest list poller engines run
// (Snakemake 8 backs off to 180 s; docs/lsf-front-door.md "bjobs lists"),
// so a polling engine never finds it stopped, and a site without list
// callers pays nothing after it.
inline constexpr std::chrono::minutes kListDemandLinger{5};

// One answer of the view's query: every job of the cluster in mbatchd's
// order (RUN and suspended, then PEND, then finished, by queue priority and
// job id), indexed by user and by job. Immutable once published.
struct JobList {
  std::vector<lsf::JobRecord> records;  // mbatchd's order
  // Positions in `records` of each user's jobs, in the same order.
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_user;
  // (job id, array index) of every record, sorted: Holds().
  std::vector<std::pair<std::int64_t, std::int64_t>> keys;
  SystemTime fetched_at{};     // when its query started
  bool with_finished = false;  // asked with -a: DONE/EXIT jobs are in it
  bool table_form = false;     // read from the `bjobs -w` table (no -o fields)

  // Whether the list holds job `job_id` (element `array_index`, 0 for none).
  bool Holds(std::int64_t job_id, std::int64_t array_index) const;
};

// The list of `records` (mbatchd's order kept) with its indexes. Records
// whose job id is not digits are left out (never printed by bjobs). Pure;
// O(n log n).
std::shared_ptr<const JobList> MakeJobList(std::vector<lsf::JobRecord> records,
                                           SystemTime fetched_at, bool with_finished,
                                           bool table_form);

// Who wants the view and the last one fetched. The API's list requests
// call Ask; the jobs tier calls Wanted when it builds a cycle, Attempted
// when that cycle's query ran, and Publish with what it read.
// Thread-safe: every method takes one mutex; none blocks otherwise.
class JobListView {
 public:
  // Notes a list request at `now` (`finished`: it lists DONE/EXIT jobs,
  // so the view must be fetched with -a). Returns true when a query of the
  // kind it needs has run since that demand began: waiting for the next
  // one would not help (the caller answers from the view or runs LSF's
  // bjobs); false when the caller should wait for the jobs tier's next run.
  bool Ask(SystemTime now, bool finished);

  // What the jobs tier's cycle at `now` must fetch: nullopt (no list
  // request within kListDemandLinger), else whether with -a.
  std::optional<bool> Wanted(SystemTime now) const;

  // The tier ran the view's query (started at `started`, with -a or not),
  // whatever its outcome.
  void Attempted(SystemTime started, bool with_finished);

  void Publish(std::shared_ptr<const JobList> list);
  // The last list published, or null.
  std::shared_ptr<const JobList> Current() const;

 private:
  mutable std::mutex mutex_;
  std::optional<SystemTime> last_ask_;           // any list
  std::optional<SystemTime> last_finished_ask_;  // lists with -a / -d
  SystemTime demand_since_{};                    // of the demand in force
  SystemTime finished_demand_since_{};
  std::optional<SystemTime> last_attempt_;
  std::optional<SystemTime> last_finished_attempt_;
  std::shared_ptr<const JobList> current_;
};

}  // namespace bplace
