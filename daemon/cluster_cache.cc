#include "daemon/cluster_cache.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "lsf_adapter/bhosts_parser.h"
#include "lsf_adapter/bqueues_long_parser.h"
#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/group_parser.h"
#include "lsf_adapter/lsid_parser.h"
#include "lsf_adapter/lsload_parser.h"

namespace bplace {
namespace {

using SteadyClock = std::chrono::steady_clock;

std::string CommandLine(const std::string& command, const std::vector<std::string>& args) {
  std::string line = command;
  for (const std::string& arg : args) line += " " + arg;
  return line;
}

// The last non-empty line of a command's stderr (or stdout), which is where
// LSF puts its reason; retry chatter comes before it.
std::string LastLine(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) {
      --end;
    }
    const std::size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    if (end > from) return text.substr(from, end - from);
    if (start == std::string::npos) break;
    end = start;
  }
  return "";
}

// LSF words for "the batch system is not there" (FORMATS.md, openlava captures).
bool LooksUnavailable(const std::string& message) {
  static const char* const kSigns[] = {
      "lsb_init",    "LIM is down",           "Connection refused",          "not responding",
      "LSF is down", "Cannot connect to LSF", "Unable to open file lsf.conf"};
  for (const char* sign : kSigns) {
    if (message.find(sign) != std::string::npos) return true;
  }
  return false;
}

// bmgroup/bugroup exit non-zero when the cluster defines no group at all.
bool SaysNoGroups(const std::string& message) {
  return message.find("No ") != std::string::npos && message.find("group") != std::string::npos &&
         !LooksUnavailable(message);
}

// Records one run of a refresh tier that started at `started`.
void RecordRun(TierStatus& status, const Result<void>& outcome, SystemTime started,
               std::chrono::milliseconds duration) {
  status.last_attempt = started;
  status.last_duration = duration;
  if (outcome) {
    status.last_success = started;
    status.last_error.clear();
    status.consecutive_failures = 0;
  } else {
    status.last_error = outcome.error().message;
    ++status.consecutive_failures;
  }
}

// LSF's answer to `bqueues -u USER -w` (run at `started`) as permissions.
Result<std::shared_ptr<const UserPermissions>> ToPermissions(const std::string& user,
                                                             SystemTime started,
                                                             const Result<std::string>& out) {
  if (!out) return tl::unexpected(out.error());
  auto rows = lsf::ParseBqueues(*out);
  if (!rows) {
    return Fail(rows.error().code, "bqueues -u " + user + " -w: " + rows.error().message);
  }
  auto value = std::make_shared<UserPermissions>();
  value->user = user;
  value->as_of = started;
  for (const auto& row : *rows) value->queues.insert(row.name);
  return std::shared_ptr<const UserPermissions>(std::move(value));
}

}  // namespace

ClusterCache::ClusterCache(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                           const lsf::LsfInvoker& lsf, InflightLedger& ledger, CacheOptions options)
    : executor_(executor),
      strand_(boost::asio::make_strand(executor)),
      runner_(runner),
      lsf_(lsf),
      ledger_(ledger),
      options_(std::move(options)),
      current_(std::make_shared<const ClusterSnapshot>()),
      load_timer_(strand_),
      topology_timer_(strand_) {}

ClusterCache::~ClusterCache() = default;

void ClusterCache::Start(std::function<void()> on_first_complete) {
  boost::asio::post(strand_, [this, on_first_complete = std::move(on_first_complete)]() mutable {
    on_first_complete_ = std::move(on_first_complete);
    stopped_ = false;
  });
  RefreshTopology();
  RefreshLoad();
}

void ClusterCache::Stop() {
  boost::asio::post(strand_, [this] {
    stopped_ = true;
    load_timer_.cancel();
    topology_timer_.cancel();
  });
}

std::shared_ptr<const ClusterSnapshot> ClusterCache::Current() const { return current_.load(); }

void ClusterCache::RefreshLoad(Done done) {
  boost::asio::post(strand_, [this, done = std::move(done)]() mutable {
    if (done) load_flight_.waiters.push_back(std::move(done));
    if (load_flight_.running) return;
    load_flight_.running = true;
    StartLoad();
  });
}

void ClusterCache::RefreshTopology(Done done) {
  boost::asio::post(strand_, [this, done = std::move(done)]() mutable {
    if (done) topology_flight_.waiters.push_back(std::move(done));
    if (topology_flight_.running) return;
    topology_flight_.running = true;
    StartTopology();
  });
}

std::optional<std::chrono::seconds> ClusterCache::RequestRefresh() {
  // Decided under the users mutex rather than on the strand so the caller
  // gets an answer at once.
  {
    std::lock_guard lock(users_mutex_);
    const auto now = SteadyClock::now();
    if (last_manual_ != SteadyClock::time_point{} &&
        now - last_manual_ < options_.min_manual_interval) {
      const auto wait = options_.min_manual_interval - (now - last_manual_);
      return std::chrono::ceil<std::chrono::seconds>(wait);
    }
    last_manual_ = now;
  }
  RefreshTopology();
  RefreshLoad();
  return std::nullopt;
}

void ClusterCache::RunQuery(std::string command, std::vector<std::string> args,
                            std::function<void(Result<std::string>)> done) {
  const std::string line = CommandLine(command, args);
  runner_.Run(lsf_.Spec(command, std::move(args)), [line, done = std::move(done)](
                                                       Result<lsf::CommandResult> result) {
    if (!result) {
      done(Fail(ErrorCode::kUnavailable, line + ": " + result.error().message));
      return;
    }
    if (result->timed_out) {
      done(Fail(ErrorCode::kTimeout, line + ": no answer within " +
                                         std::to_string(result->elapsed.count()) + " ms (killed)"));
      return;
    }
    if (result->exit_code != 0) {
      std::string reason = LastLine(result->err);
      if (reason.empty()) reason = LastLine(result->out);
      const std::string message =
          line + ": " +
          (result->exit_code < 0 ? "killed by signal " + std::to_string(result->term_signal)
                                 : "exit status " + std::to_string(result->exit_code)) +
          (reason.empty() ? std::string() : ": " + reason);
      done(Fail(LooksUnavailable(reason) ? ErrorCode::kUnavailable : ErrorCode::kCommandFailed,
                message));
      return;
    }
    done(std::move(result->out));
  });
}

void ClusterCache::StartLoad() {
  struct State {
    std::optional<Result<std::string>> bqueues;
    std::optional<Result<std::string>> bhosts;
    SteadyClock::time_point started = SteadyClock::now();
    SystemTime started_wall = std::chrono::system_clock::now();
  };
  auto state = std::make_shared<State>();
  auto finish = [this, state] {
    if (!state->bqueues || !state->bhosts) return;
    const auto duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - state->started);
    Result<void> outcome;
    auto load = std::make_shared<LoadState>();
    load->counted_at = state->started;
    if (!*state->bqueues) {
      outcome = tl::unexpected(state->bqueues->error());
    } else if (!*state->bhosts) {
      outcome = tl::unexpected(state->bhosts->error());
    } else if (auto queues = lsf::ParseBqueues(**state->bqueues); !queues) {
      outcome = Fail(queues.error().code, "bqueues -w: " + queues.error().message);
    } else if (auto hosts = lsf::ParseBhosts(**state->bhosts); !hosts) {
      outcome = Fail(hosts.error().code, "bhosts -w: " + hosts.error().message);
    } else {
      for (auto& queue : *queues) load->queues.emplace(queue.name, std::move(queue));
      load->hosts = std::move(*hosts);
      for (std::size_t i = 0; i < load->hosts.size(); ++i) {
        load->host_index.emplace(load->hosts[i].name, i);
      }
    }
    const bool ok = outcome.has_value();
    Publish([&](ClusterSnapshot& snapshot) {
      RecordRun(snapshot.load_status, outcome, state->started_wall, duration);
      if (ok) {
        snapshot.load = load;
        snapshot.load_as_of = state->started_wall;
      }
    });
    if (ok) {
      ledger_.OnLoadCounted(state->started);
    } else {
      spdlog::warn("load refresh failed: {}", outcome.error().message);
    }
    FinishTier(load_flight_, outcome);
    ScheduleLoad(!ok);
  };
  RunQuery("bqueues", {"-w"}, [this, state, finish](Result<std::string> out) {
    boost::asio::post(strand_, [state, finish, out = std::move(out)]() mutable {
      state->bqueues = std::move(out);
      finish();
    });
  });
  RunQuery("bhosts", {"-w"}, [this, state, finish](Result<std::string> out) {
    boost::asio::post(strand_, [state, finish, out = std::move(out)]() mutable {
      state->bhosts = std::move(out);
      finish();
    });
  });
  if (options_.ib_from_lsload) {
    // Published on its own: LIM may hang while mbatchd answers, and the
    // queue counters must not wait for the health data.
    RunQuery("lsload", {"-w", "-I", std::string(kIbOkIndex)},
             [this, state](Result<std::string> out) {
               boost::asio::post(strand_, [this, state, out = std::move(out)] {
                 auto ib = IbFromLsload(out, state->started_wall);
                 Publish([&](ClusterSnapshot& snapshot) { snapshot.ib = std::move(ib); });
               });
             });
  }
}

// On strand_. The health `lsload` gave, or on failure the previous health
// with the error recorded (its hosts keep their verdicts and their as_of).
std::shared_ptr<const IbHealthState> ClusterCache::IbFromLsload(const Result<std::string>& out,
                                                                SystemTime started_wall) const {
  std::string error;
  if (!out) {
    error = out.error().message;
  } else if (auto rows = lsf::ParseLsload(*out, kIbOkIndex); !rows) {
    error = "lsload -w -I " + std::string(kIbOkIndex) + ": " + rows.error().message;
  } else {
    return std::make_shared<const IbHealthState>(IbHealthFromLsload(*rows, started_wall));
  }
  spdlog::warn("InfiniBand health: {}", error);
  const auto previous = current_.load()->ib;
  auto kept =
      previous ? std::make_shared<IbHealthState>(*previous) : std::make_shared<IbHealthState>();
  kept->source = "lsload";
  // Verdicts older than a few load intervals no longer say anything about
  // the host: a healthy one must not keep admitting it, nor a sick one keep
  // it out forever.
  const auto max_age = 3 * options_.load_interval;
  for (auto& [host, health] : kept->hosts) {
    if (health.health != IbHealth::kUnknown && started_wall - health.as_of > max_age) {
      health.health = IbHealth::kUnknown;
      health.reasons = {
          "the last ib_ok reading is older than 3 load refreshes and lsload is "
          "failing: " +
          error};
    }
  }
  kept->last_error = std::move(error);
  return kept;
}

void ClusterCache::SetLocalIbHealth(const std::string& host, HostIbHealth health) {
  boost::asio::post(strand_, [this, host, health = std::move(health)]() mutable {
    auto state = std::make_shared<IbHealthState>();
    state->source = "local";
    state->as_of = health.as_of;
    state->hosts.insert_or_assign(host, std::move(health));
    Publish([&](ClusterSnapshot& snapshot) { snapshot.ib = std::move(state); });
  });
}

void ClusterCache::StartTopology() {
  struct State {
    std::optional<Result<std::string>> bqueues_l;
    std::optional<Result<std::string>> bmgroup;
    std::optional<Result<std::string>> bugroup;
    std::optional<Result<std::string>> lsid;
    std::optional<Result<std::string>> permissions;
    SteadyClock::time_point started = SteadyClock::now();
    SystemTime started_wall = std::chrono::system_clock::now();
    int pending = 0;
  };
  auto state = std::make_shared<State>();
  auto finish = [this, state] {
    if (--state->pending > 0) return;
    const auto duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - state->started);
    auto groups = [](const Result<std::string>& out, const char* command,
                     auto parse) -> Result<std::vector<lsf::Group>> {
      if (!out) {
        if (out.error().code == ErrorCode::kCommandFailed && SaysNoGroups(out.error().message)) {
          return std::vector<lsf::Group>{};
        }
        return tl::unexpected(out.error());
      }
      auto parsed = parse(*out);
      if (!parsed)
        return Fail(parsed.error().code, std::string(command) + ": " + parsed.error().message);
      return parsed;
    };
    Result<void> outcome;
    std::shared_ptr<const Topology> topology;
    auto host_groups = groups(*state->bmgroup, "bmgroup -w", lsf::ParseBmgroup);
    auto user_groups = groups(*state->bugroup, "bugroup -w", lsf::ParseBugroup);
    if (!*state->bqueues_l) {
      outcome = tl::unexpected(state->bqueues_l->error());
    } else if (!host_groups) {
      outcome = tl::unexpected(host_groups.error());
    } else if (!user_groups) {
      outcome = tl::unexpected(user_groups.error());
    } else if (auto queues = lsf::ParseBqueuesLong(**state->bqueues_l); !queues) {
      outcome = Fail(queues.error().code, "bqueues -l: " + queues.error().message);
    } else {
      topology = Topology::Build(std::move(*queues), *host_groups, *user_groups);
      for (const std::string& warning : topology->warnings()) {
        spdlog::warn("topology: {}", warning);
      }
    }
    ClusterIdentity identity;
    if (*state->lsid) {
      if (auto parsed = lsf::ParseLsid(**state->lsid)) {
        identity.cluster_name = parsed->cluster_name;
        identity.master_name = parsed->master_name;
        identity.version = parsed->version;
      }
    }
    const bool ok = outcome.has_value();
    Publish([&](ClusterSnapshot& snapshot) {
      RecordRun(snapshot.topology_status, outcome, state->started_wall, duration);
      if (ok) {
        snapshot.topology = topology;
        snapshot.topology_as_of = state->started_wall;
        if (!identity.cluster_name.empty()) snapshot.identity = identity;
      }
    });
    if (ok) {
      // Learned rejections and per-user answers last until the topology
      // changes: a queue's USERS may have been edited.
      std::lock_guard lock(users_mutex_);
      rejections_.clear();
      rewrites_.clear();
    } else {
      spdlog::warn("topology refresh failed: {}", outcome.error().message);
    }
    if (state->permissions) {
      FinishPermissions(
          options_.prefetch_user,
          ToPermissions(options_.prefetch_user, state->started_wall, *state->permissions));
    }
    FinishTier(topology_flight_, outcome);
    ScheduleTopology(!ok);
  };
  auto collect = [this, finish](std::optional<Result<std::string>>& slot) {
    return [this, finish, &slot](Result<std::string> out) {
      boost::asio::post(strand_, [finish, &slot, out = std::move(out)]() mutable {
        slot = std::move(out);
        finish();
      });
    };
  };
  // Every query of the tier runs at once: mbatchd answers them independently
  // and the tier's time is then the slowest one's, not the sum.
  state->pending = options_.prefetch_user.empty() ? 4 : 5;
  RunQuery("bqueues", {"-l"}, collect(state->bqueues_l));
  RunQuery("bmgroup", {"-w"}, collect(state->bmgroup));
  RunQuery("bugroup", {"-w"}, collect(state->bugroup));
  RunQuery("lsid", {}, collect(state->lsid));
  if (!options_.prefetch_user.empty()) {
    {
      std::lock_guard lock(users_mutex_);
      permissions_[options_.prefetch_user].fetching = true;
    }
    RunQuery("bqueues", {"-u", options_.prefetch_user, "-w"}, collect(state->permissions));
  }
}

void ClusterCache::FinishTier(Flight& flight, Result<void> result) {
  std::vector<Done> waiters = std::move(flight.waiters);
  flight.waiters.clear();
  flight.running = false;
  for (Done& waiter : waiters) waiter(result);
}

void ClusterCache::Publish(std::function<void(ClusterSnapshot&)> change) {
  const std::shared_ptr<const ClusterSnapshot> old = current_.load();
  auto next = std::make_shared<ClusterSnapshot>(*old);
  change(*next);
  const bool counts_stale =
      next->topology != old->topology || next->load != old->load || next->ib != old->ib;
  if (next->complete() && counts_stale) {
    next->host_counts = CountQueueHosts(*next->topology, *next->load, next->ib.get());
  }
  const bool first_complete = next->complete() && !old->complete();
  current_.store(std::move(next));
  if (first_complete && on_first_complete_) {
    auto callback = std::move(on_first_complete_);
    on_first_complete_ = nullptr;
    callback();
  }
}

void ClusterCache::ScheduleLoad(bool failed) {
  if (stopped_) return;
  load_timer_.expires_after(failed ? std::min(options_.load_interval, options_.retry_interval)
                                   : options_.load_interval);
  load_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) RefreshLoad();
  });
}

void ClusterCache::ScheduleTopology(bool failed) {
  if (stopped_) return;
  topology_timer_.expires_after(failed
                                    ? std::min(options_.topology_interval, options_.retry_interval)
                                    : options_.topology_interval);
  topology_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) RefreshTopology();
  });
}

std::shared_ptr<const UserPermissions> ClusterCache::Permissions(const std::string& user) const {
  std::lock_guard lock(users_mutex_);
  const auto it = permissions_.find(user);
  if (it == permissions_.end() || !it->second.value) return nullptr;
  // Allow one interval of slack so the prefetched user never expires just
  // before its scheduled refresh.
  if (SteadyClock::now() - it->second.fetched_at > 2 * options_.topology_interval) return nullptr;
  return it->second.value;
}

void ClusterCache::FetchPermissions(const std::string& user, PermissionsDone done) {
  {
    std::lock_guard lock(users_mutex_);
    PermissionEntry& entry = permissions_[user];
    if (entry.value && SteadyClock::now() - entry.fetched_at <= options_.topology_interval) {
      auto value = entry.value;
      boost::asio::post(executor_, [done = std::move(done), value] { done(value); });
      return;
    }
    entry.waiters.push_back(std::move(done));
    if (entry.fetching) return;
    entry.fetching = true;
  }
  const SystemTime started = std::chrono::system_clock::now();
  RunQuery("bqueues", {"-u", user, "-w"}, [this, user, started](Result<std::string> out) {
    FinishPermissions(user, ToPermissions(user, started, out));
  });
}

void ClusterCache::FinishPermissions(const std::string& user,
                                     Result<std::shared_ptr<const UserPermissions>> result) {
  std::vector<PermissionsDone> waiters;
  {
    std::lock_guard lock(users_mutex_);
    PermissionEntry& entry = permissions_[user];
    entry.fetching = false;
    if (result) {
      entry.value = *result;
      entry.fetched_at = SteadyClock::now();
    }
    waiters = std::move(entry.waiters);
    entry.waiters.clear();
  }
  if (!result) spdlog::warn("permissions of {}: {}", user, result.error().message);
  for (auto& waiter : waiters) waiter(result);
}

void ClusterCache::RememberRejection(const std::string& user, const std::string& queue,
                                     const std::string& message) {
  std::lock_guard lock(users_mutex_);
  rejections_[user][queue] = message;
}

std::unordered_map<std::string, std::string> ClusterCache::Rejections(
    const std::string& user) const {
  std::lock_guard lock(users_mutex_);
  const auto it = rejections_.find(user);
  return it == rejections_.end() ? std::unordered_map<std::string, std::string>{} : it->second;
}

void ClusterCache::RememberRewrite(const std::string& requested, const std::string& landed) {
  std::lock_guard lock(users_mutex_);
  rewrites_[requested] = landed;
}

std::unordered_map<std::string, std::string> ClusterCache::Rewrites() const {
  std::lock_guard lock(users_mutex_);
  return rewrites_;
}

}  // namespace bplace
