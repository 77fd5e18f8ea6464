#include "daemon/local_ib_probe.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/ib_health.h"

namespace bplace {

namespace {

// Time the probe gets beyond its own --timeout to print its report and exit
// before we kill it: its watchdog, not our kill, should end a hung probe.
constexpr auto kKillGrace = std::chrono::seconds(5);

}  // namespace

LocalIbProbe::LocalIbProbe(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                           ClusterCache& cache, LocalIbProbeOptions options)
    : strand_(boost::asio::make_strand(executor)),
      runner_(runner),
      cache_(cache),
      options_(std::move(options)),
      timer_(strand_) {}

void LocalIbProbe::Start() {
  boost::asio::post(strand_, [this] { RunOnce(); });
}

void LocalIbProbe::Stop() {
  boost::asio::post(strand_, [this] {
    stopped_ = true;
    timer_.cancel();
  });
}

void LocalIbProbe::RunOnce() {
  if (stopped_) return;
  lsf::CommandSpec spec;
  spec.argv = {options_.probe_path, "--timeout", std::to_string(options_.probe_timeout.count())};
  if (!options_.config_path.empty()) {
    spec.argv.push_back("--config");
    spec.argv.push_back(options_.config_path);
  }
  spec.env = options_.env;
  spec.timeout = options_.probe_timeout + kKillGrace;
  runner_.Run(std::move(spec), [this](Result<lsf::CommandResult> result) {
    const auto now = std::chrono::system_clock::now();
    HostIbHealth health;
    if (!result) {
      health = IbHealthFromProbe("", -1, "could not be started: " + result.error().message, now);
    } else if (result->timed_out) {
      health = IbHealthFromProbe("", -1,
                                 "still running after " +
                                     std::to_string((options_.probe_timeout + kKillGrace).count()) +
                                     " s; killed",
                                 now);
    } else if (result->exit_code < 0) {
      health =
          IbHealthFromProbe("", -1, "killed by signal " + std::to_string(result->term_signal), now);
    } else {
      health = IbHealthFromProbe(result->out, result->exit_code, std::nullopt, now);
    }
    if (health.health != IbHealth::kHealthy) {
      std::string reasons;
      for (const std::string& reason : health.reasons)
        reasons += (reasons.empty() ? "" : "; ") + reason;
      spdlog::warn("InfiniBand on {} is {}: {}", options_.host, IbHealthName(health.health),
                   reasons);
    }
    cache_.SetLocalIbHealth(options_.host, std::move(health));
    boost::asio::post(strand_, [this] { Schedule(); });
  });
}

void LocalIbProbe::Schedule() {
  if (stopped_) return;
  timer_.expires_after(options_.interval);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    RunOnce();
  });
}

}  // namespace bplace
