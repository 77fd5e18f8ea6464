#pragma once

#include <optional>
#include <string>

#include <tl/expected.hpp>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Which event log the simulated mbatchd writes ([cluster] event_log).
enum class EventLogFormat {
  kNone,      // none written
  kLsf10,     // IBM Spectrum LSF 10.1 (the default)
  kOpenLava,  // the OpenLava family's layout, where it differs from LSF's
};

// Reads "lsf10", "openlava", "none"; nullopt for anything else.
std::optional<EventLogFormat> EventLogFormatFromName(const std::string& name);
const char* EventLogFormatName(EventLogFormat format);

// Where and how a state directory's event log is written, as `lsfsim init`
// recorded it in lsf.conf: LSB_SHAREDIR, LSF_CLUSTER_NAME and
// LSFSIM_EVENT_LOG.
struct EventLogConfig {
  EventLogFormat format = EventLogFormat::kNone;
  std::string path;  // LSB_SHAREDIR/<cluster>/logdir/lsb.events, as LSF lays it out
};

// The state directory's event log, from its lsf.conf; kNone when the file
// has no LSFSIM_EVENT_LOG (a state directory made before event logs).
EventLogConfig EventLogOf(const StateDir& state);

// The first line of a new lsb.events: "#<offset of its first history
// record>", padded to a fixed width as mbatchd writes it.
std::string EventLogHeader(std::size_t history_offset);

// Appends to the event log the records that take the job table from
// `before` to `after` (the simulated mbatchd logs every change it makes):
//   a job (or array) not in `before`       JOB_NEW at its submit time
//   PEND or PSUSP -> a dispatched status   JOB_START at its start time
//   -> DONE or EXIT                        JOB_STATUS at its end time
//   any other status change                JOB_STATUS at `now`
//   another queue                          JOB_SWITCH at `now`
// Records in lsb.events(5)'s layout for config.format (see event_log.cc).
// Call with the state lock held. Returns the failing call on an I/O error.
tl::expected<void, std::string> AppendJobEvents(const EventLogConfig& config,
                                                const JobTable& before, const JobTable& after,
                                                long long now);

// Switches the event log as mbatchd does when it reaches MAX_JOB_NUM:
// lsb.events.N -> .N+1 ..., lsb.events -> lsb.events.1, and a new lsb.events
// that first holds the JOB_NEW (and JOB_START) records of the unfinished
// jobs of `table`, then the history, whose offset its first line gives.
tl::expected<void, std::string> SwitchEventLog(const EventLogConfig& config, const JobTable& table);

}  // namespace bplace::lsfsim
