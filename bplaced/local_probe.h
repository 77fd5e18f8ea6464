#pragma once

// [ib] source = "local": the InfiniBand probe of this host, rdma_probe run
// as a child of the daemon at an interval.

#include "bplaced/daemon.h"
#include "bplaced/wiring.h"
#include "config/config.h"

namespace bplace {

// Starts the probe of this host (named as LSF names hosts, the short form of
// gethostname) on the refresh thread when [ib] source is "local"; does
// nothing otherwise. rdma_probe reads the daemon's config file
// (`options.config_path`).
void StartLocalProbe(Wiring& wiring, const config::Config& config, const DaemonOptions& options);

}  // namespace bplace
