#include "daemon/placement/event_log_feed.h"

#include "common/small_file.h"
#include "common/text.h"

namespace bplace {
namespace {

// lsf.conf is a few kilobytes; more is not a configuration file.
constexpr std::size_t kMaxLsfConfBytes = 1 << 20;

}  // namespace

Result<std::string> LsbSharedirOf(std::string_view lsf_conf) {
  std::optional<std::string> found;
  std::size_t start = 0;
  while (start < lsf_conf.size()) {
    const std::size_t end = std::min(lsf_conf.find('\n', start), lsf_conf.size());
    const std::string_view line = Trim(lsf_conf.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line.front() == '#') continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos || Trim(line.substr(0, equals)) != "LSB_SHAREDIR") {
      continue;
    }
    std::string_view value = Trim(line.substr(equals + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    found = std::string(value);  // the last assignment wins, as in a shell
  }
  if (!found || found->empty()) {
    return Fail(ErrorCode::kNotFound, "lsf.conf sets no LSB_SHAREDIR");
  }
  return *found;
}

Result<std::filesystem::path> DefaultEventsFile(const std::string& env_dir,
                                                const std::string& cluster) {
  if (cluster.empty()) {
    return Fail(ErrorCode::kUnavailable, "the cluster's name is not known yet (lsid)");
  }
  const std::string conf = (env_dir.empty() ? std::string("/etc") : env_dir) + "/lsf.conf";
  auto text = ReadSmallFile(conf, kMaxLsfConfBytes);
  if (!text) return tl::unexpected(text.error());
  auto sharedir = LsbSharedirOf(*text);
  if (!sharedir) return Fail(sharedir.error().code, conf + ": " + sharedir.error().message);
  return std::filesystem::path(*sharedir) / cluster / "logdir" / "lsb.events";
}

EventLogFeed::EventLogFeed(EventLogTailOptions options, WaitModel& model, Annotate annotate)
    : file_(options.file),
      tail_(std::move(options)),
      model_(model),
      annotate_(std::move(annotate)) {}

EventFeedPoll EventLogFeed::Poll(SystemTime now) {
  EventFeedPoll poll;
  EventLogBatch batch = tail_.Poll();
  poll.records = batch.events.size();
  poll.errors = batch.errors.size();
  if (!batch.errors.empty()) poll.first_error = batch.errors.front();
  poll.unreadable = batch.unreadable;
  poll.lost = batch.lost;
  for (const lsf::LsbEvent& event : batch.events) {
    if (auto wait = waits_.Feed(event)) poll.waits.push_back(std::move(*wait));
  }
  if (annotate_ && !poll.waits.empty()) annotate_(poll.waits);
  for (const WaitObservation& wait : poll.waits) {
    if (model_.Observe(wait) == ObserveOutcome::kLearned) ++poll.learned;
  }
  waits_.Prune(now - kForgetPendingAfter);
  readable_.store(!batch.unreadable, std::memory_order_release);
  return poll;
}

}  // namespace bplace
