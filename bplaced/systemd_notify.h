#pragma once

// Telling systemd how the daemon is: sd_notify states, and WATCHDOG=1 from
// the event loops when the unit sets WatchdogSec=.

#include <string>

#include "bplaced/wiring.h"

namespace bplace {

// Sends `state` ("READY=1", "STATUS=...") to systemd; nothing when bplaced
// was not started by systemd (no NOTIFY_SOCKET).
void Notify(const std::string& state);

// WatchdogSec= set: WATCHDOG=1 from the event loop, from now on, every half
// of WATCHDOG_USEC, while the main, refresh and HTTP loops all run. Does
// nothing when systemd asks for no watchdog.
void StartWatchdog(Wiring& wiring);

}  // namespace bplace
