#include "daemon/cluster/local_ib_probe.h"

#include <utility>

#include <spdlog/spdlog.h>

namespace bplace {
namespace {

// Time the probe gets beyond its own --timeout to print its report and exit
// before we kill it: its watchdog, not our kill, should end a hung probe.
constexpr auto kKillGrace = std::chrono::seconds(5);

}  // namespace

HostIbHealth HealthFromProbeRun(const Result<lsf::CommandResult>& run,
                                std::chrono::seconds kill_after, SystemTime now) {
  if (!run) return IbHealthFromProbe("", -1, "could not be started: " + run.error().message, now);
  if (run->timed_out) {
    return IbHealthFromProbe(
        "", -1, "still running after " + std::to_string(kill_after.count()) + " s; killed", now);
  }
  if (run->exit_code < 0) {
    return IbHealthFromProbe("", -1, "killed by signal " + std::to_string(run->term_signal), now);
  }
  return IbHealthFromProbe(run->out, run->exit_code, std::nullopt, now);
}

LocalIbProbe::LocalIbProbe(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                           Clock& clock, SnapshotStore& store, LocalIbProbeOptions options)
    : options_(std::move(options)),
      tier_(executor, runner, clock, store,
            {"ib", options_.interval, options_.interval, &ClusterSnapshot::ib_status},
            [this] { return Cycle(); }) {}

TierCycle LocalIbProbe::Cycle() const {
  lsf::CommandSpec spec;
  spec.argv = {options_.probe_path, "--timeout", std::to_string(options_.probe_timeout.count())};
  if (!options_.config_path.empty()) {
    spec.argv.push_back("--config");
    spec.argv.push_back(options_.config_path);
  }
  spec.env = options_.env;
  spec.timeout = options_.probe_timeout + kKillGrace;
  TierCycle cycle;
  cycle.queries = {{options_.probe_path, std::move(spec)}};
  cycle.build = [this](auto& results, const CycleTimes& times) -> Result<SnapshotStore::Change> {
    HostIbHealth health =
        HealthFromProbeRun(results[0], options_.probe_timeout + kKillGrace, times.started_wall);
    if (health.health != IbHealth::kHealthy) {
      std::string reasons;
      for (const std::string& reason : health.reasons) {
        reasons += (reasons.empty() ? "" : "; ") + reason;
      }
      spdlog::warn("InfiniBand on {} is {}: {}", options_.host, IbHealthName(health.health),
                   reasons);
    }
    auto state = std::make_shared<IbHealthState>();
    state->source = "local";
    state->as_of = health.as_of;
    state->hosts.insert_or_assign(options_.host, std::move(health));
    return [state = std::shared_ptr<const IbHealthState>(std::move(state))](
               ClusterSnapshot& snapshot) { snapshot.ib = state; };
  };
  return cycle;
}

}  // namespace bplace
