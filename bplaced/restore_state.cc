// What the daemon takes over from before this start (bplaced/restore_state.h).
#include "bplaced/restore_state.h"

#include <sys/types.h>

#include <optional>
#include <vector>

#include <spdlog/spdlog.h>

namespace bplace {

Result<void> RestoreState(Wiring& wiring) {
  JobStore& store = wiring.journal.StoreForStartup();
  std::vector<TrackedJob> rows;
  JobFilter filter;
  filter.limit = 1000;
  for (;;) {
    auto page = store.ListJobs(filter);
    if (!page) return Fail(page.error().code, "state store: " + page.error().message);
    rows.insert(rows.end(), page->jobs.begin(), page->jobs.end());
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  wiring.tracker.Load(rows);
  auto unsettled = store.Unreconciled();
  if (!unsettled) return Fail(unsettled.error().code, "state store: " + unsettled.error().message);
  for (const StoredSubmission& row : *unsettled) {
    std::optional<pid_t> pid;
    if (row.bsub_pid) pid = static_cast<pid_t>(*row.bsub_pid);
    wiring.reconciler.Add({row.caller, row.tag, row.request_id, row.created_at, pid,
                           row.idempotency_key, row.labels});
  }
  if (!unsettled->empty()) {
    spdlog::warn("state store: {} submissions without a known outcome; settling them through LSF",
                 unsettled->size());
  }
  return {};
}

}  // namespace bplace
