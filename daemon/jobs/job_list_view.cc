#include "daemon/jobs/job_list_view.h"

#include <algorithm>
#include <charconv>

namespace bplace {
namespace {

std::optional<std::int64_t> Digits(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

bool Within(const std::optional<SystemTime>& then, SystemTime now) {
  return then && now - *then <= kListDemandLinger;
}

}  // namespace

bool JobList::Holds(std::int64_t job_id, std::int64_t array_index) const {
  return std::binary_search(keys.begin(), keys.end(), std::make_pair(job_id, array_index));
}

std::shared_ptr<const JobList> MakeJobList(std::vector<lsf::JobRecord> records,
                                           SystemTime fetched_at, bool with_finished,
                                           bool table_form) {
  auto list = std::make_shared<JobList>();
  list->fetched_at = fetched_at;
  list->with_finished = with_finished;
  list->table_form = table_form;
  std::erase_if(records, [](const lsf::JobRecord& record) { return !Digits(record.job_id); });
  list->records = std::move(records);
  list->keys.reserve(list->records.size());
  for (std::size_t i = 0; i < list->records.size(); ++i) {
    const lsf::JobRecord& record = list->records[i];
    list->by_user[record.user].push_back(static_cast<std::uint32_t>(i));
    list->keys.emplace_back(*Digits(record.job_id), record.array_index);
  }
  std::sort(list->keys.begin(), list->keys.end());
  return list;
}

bool JobListView::Ask(SystemTime now, bool finished) {
  std::lock_guard lock(mutex_);
  if (!Within(last_ask_, now)) demand_since_ = now;
  last_ask_ = now;
  if (finished) {
    if (!Within(last_finished_ask_, now)) finished_demand_since_ = now;
    last_finished_ask_ = now;
    return last_finished_attempt_ && *last_finished_attempt_ >= finished_demand_since_;
  }
  return last_attempt_ && *last_attempt_ >= demand_since_;
}

std::optional<bool> JobListView::Wanted(SystemTime now) const {
  std::lock_guard lock(mutex_);
  if (!Within(last_ask_, now)) return std::nullopt;
  return Within(last_finished_ask_, now);
}

void JobListView::Attempted(SystemTime started, bool with_finished) {
  std::lock_guard lock(mutex_);
  last_attempt_ = started;
  if (with_finished) last_finished_attempt_ = started;
}

void JobListView::Publish(std::shared_ptr<const JobList> list) {
  std::lock_guard lock(mutex_);
  current_ = std::move(list);
}

std::shared_ptr<const JobList> JobListView::Current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

}  // namespace bplace
