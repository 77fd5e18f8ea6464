#pragma once

// Binding the daemon's HTTP listeners and starting to serve: the [server]
// listen entries or the sockets systemd passed, the HTTP threads, the port
// file.

#include <string>

#include "bplaced/daemon.h"
#include "bplaced/wiring.h"
#include "common/result.h"
#include "config/config.h"

namespace bplace {

// Binds every listener and starts serving; writes the port file. Listeners
// are the sockets systemd passed (socket activation) when there are any,
// else one per [server] listen entry; the HTTP connections are spread over
// the main loop and server.threads - 1 threads of their own. Returns the
// error of sd_listen_fds, or "cannot listen: ..." when an address cannot
// be bound.
Result<void> Listen(Wiring& wiring, const config::Config& config, const DaemonOptions& options,
                    const std::string& user);

}  // namespace bplace
