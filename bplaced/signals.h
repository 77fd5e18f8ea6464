#pragma once

// What the daemon does on signals: SIGHUP re-reads the config file and
// applies what can change at run time; SIGTERM and SIGINT stop it
// gracefully.

#include <atomic>
#include <string>

#include <boost/asio/signal_set.hpp>

#include "bplaced/wiring.h"
#include "config/config.h"

namespace bplace {

// What SIGHUP needs besides the wiring: the config in force and where it
// came from. Used on the signal's handler only (one at a time), except
// `ready`, set once by the first snapshot.
struct Reloading {
  config::Config running;
  std::string path;             // the config file; empty: started without one
  std::string listen_override;  // --listen, which replaces server.listen of every file read
  std::atomic<bool> ready{false};
};

// Waits on `hangup` (SIGHUP) and, on each signal, re-reads the config file
// and applies what can change at run time (bplaced/config_reload.h); a bad
// file keeps the running config. systemd is told RELOADING=1 before and
// READY=1 after, with the outcome in STATUS= (before the first READY=1, only
// the STATUS=). Runs on the main loop; `hangup`, `wiring` and `reloading`
// must outlive it (until `hangup` is cancelled).
void WaitForHangup(boost::asio::signal_set& hangup, Wiring& wiring, Reloading& reloading);

// SIGTERM/SIGINT: stop the tiers, drain the connections, then the runner.
// Waits on `signals` (SIGTERM, SIGINT); on the first, tells systemd
// STOPPING=1, cancels `hangup`, stops accepting and, once the last
// connection closes, stops the main loop.
void StopOnSignal(boost::asio::signal_set& signals, boost::asio::signal_set& hangup,
                  Wiring& wiring);

}  // namespace bplace
