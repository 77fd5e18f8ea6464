#include "daemon/submit/tag_check.h"

#include <utility>

#include "daemon/submit/caller_jobs.h"

namespace bplace {

TagCheck::TagCheck(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf, BjobsDialect& dialect)
    : runner_(runner), lsf_(lsf), dialect_(dialect) {}

std::uint64_t TagCheck::queries() const {
  std::lock_guard lock(mutex_);
  return queries_;
}

void TagCheck::Find(const std::string& caller, const std::string& tag, Done done) {
  {
    std::lock_guard lock(mutex_);
    Caller& state = callers_[caller];
    if (state.running) {
      state.waiting.push_back({tag, std::move(done)});
      return;
    }
    state.running = true;
  }
  std::vector<Waiter> batch;
  batch.push_back({tag, std::move(done)});
  Ask(caller, std::move(batch));
}

void TagCheck::Ask(const std::string& caller, std::vector<Waiter> batch) {
  const bool long_form = dialect_.NeedsTableForm();
  {
    std::lock_guard lock(mutex_);
    ++queries_;
  }
  runner_.Run(CallerJobsQuery(lsf_, caller, long_form),
              [this, caller, long_form,
               batch = std::move(batch)](Result<lsf::CommandResult> result) mutable {
                if (!long_form && result && dialect_.LearnFrom(*result, "key check")) {
                  return Ask(caller, std::move(batch));  // the same batch, in the long form
                }
                Answer(caller, std::move(batch), ReadCallerJobs(std::move(result), long_form));
              });
}

void TagCheck::Answer(const std::string& caller, std::vector<Waiter> batch,
                      const Result<std::vector<lsf::JobRecord>>& jobs) {
  for (Waiter& waiter : batch) {
    if (!jobs) {
      waiter.done(tl::unexpected(jobs.error()));
    } else if (const lsf::JobRecord* job = FindTagged(*jobs, waiter.tag)) {
      waiter.done(std::optional<lsf::JobRecord>(*job));
    } else {
      waiter.done(std::optional<lsf::JobRecord>());
    }
  }
  std::vector<Waiter> next;
  {
    std::lock_guard lock(mutex_);
    auto found = callers_.find(caller);
    next.swap(found->second.waiting);
    if (next.empty()) callers_.erase(found);
  }
  if (!next.empty()) Ask(caller, std::move(next));
}

}  // namespace bplace
