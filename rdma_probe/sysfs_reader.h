#pragma once

// Reads the InfiniBand files of sysfs (/sys/class/infiniband/<dev>/ports/<n>/)
// under a configurable root, so that tests build the tree in a temp dir.
// Blocking file reads; no state; safe from any thread.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/result.h"

namespace bplace::rdma {

// The error counters rdma_probe judges (names of files in ports/N/counters/)
// and the width of each in the PMA PortCounters attribute, which is where
// the kernel takes them from: at 2^bits - 1 a counter stops (saturates).
struct CounterSpec {
  const char* name;
  int bits;
  bool any_rise_fails;  // true: any rise is unhealthy; false: judged by rate per hour
};
inline constexpr CounterSpec kJudgedCounters[] = {
    {"symbol_error", 16, false},
    {"link_error_recovery", 8, false},
    {"port_rcv_errors", 16, false},
    {"link_downed", 8, true},
    {"local_link_integrity_errors", 4, true},
    {"excessive_buffer_overrun_errors", 4, true},
};

// Largest value of a counter `bits` wide.
constexpr std::uint64_t CounterMax(int bits) { return (std::uint64_t{1} << bits) - 1; }

// Reads every counter of kJudgedCounters present in
// `<root>/<device>/ports/<port>/counters/`. A missing file is left out (some
// drivers lack some counters). Fails with kNotFound naming the directory
// when it does not exist, and kParseError naming the file when one does not
// hold a decimal number.
Result<std::map<std::string, std::uint64_t>> ReadPortCounters(const std::string& root,
                                                              const std::string& device,
                                                              std::uint32_t port);

// Contents of `<root>/<device>/ports/<port>/rate` ("100 Gb/sec (4X EDR)"),
// without the trailing newline. kNotFound when it cannot be read.
Result<std::string> ReadPortRateText(const std::string& root, const std::string& device,
                                     std::uint32_t port);

// Index of the first GID of `port` whose `gid_attrs/types/<i>` file reads
// "RoCE v2", scanning i = 0 .. gid_tbl_len - 1 (an unreadable entry, unused
// GIDs give EINVAL, is skipped). nullopt when none.
std::optional<std::uint32_t> FindRoceV2GidIndex(const std::string& root, const std::string& device,
                                                std::uint32_t port, int gid_tbl_len);

// The boot id from `path` (normally /proc/sys/kernel/random/boot_id), trimmed.
// kNotFound naming the path when it cannot be read or is empty.
Result<std::string> ReadBootId(const std::string& path);

// Reads a whole small file (sysfs attributes are at most a page). kNotFound
// with "PATH: <errno text>" on failure.
Result<std::string> ReadSmallFile(const std::string& path);

}  // namespace bplace::rdma
