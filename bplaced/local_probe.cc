// [ib] source = "local": the probe of this host (bplaced/local_probe.h).
#include "bplaced/local_probe.h"

#include <unistd.h>

#include <string>

#include <spdlog/spdlog.h>

namespace bplace {
namespace {

// This host's name as LSF names hosts: the short form of gethostname.
std::string ShortHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  std::string host = name;
  return host.substr(0, host.find('.'));
}

}  // namespace

void StartLocalProbe(Wiring& wiring, const config::Config& config, const DaemonOptions& options) {
  if (config.submit.ib.source != IbSource::kLocal) return;
  LocalIbProbeOptions probe;
  probe.probe_path = config.submit.ib.probe_path;
  probe.config_path = options.config_path;
  probe.host = ShortHostName();
  probe.interval = config.submit.ib.local_interval;
  probe.probe_timeout = config.probe.probe_timeout;
  probe.env = wiring.lsf.env();
  wiring.local_probe.emplace(wiring.refresh.executor(), wiring.runner, wiring.clock,
                             wiring.cache.store(), probe);
  wiring.local_probe->Start();
  spdlog::info("InfiniBand health: running {} every {} s for host {}", probe.probe_path,
               probe.interval.count(), probe.host);
}

}  // namespace bplace
