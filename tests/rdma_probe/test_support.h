#pragma once

// Helpers of the rdma_probe tests: a manual clock and sysfs trees in
// temporary directories.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "rdma_probe/clock.h"

namespace bplace::testing {

// A Clock that only moves when told to. Starts at 2024-05-01T12:00:00Z.
class ManualClock final : public rdma::Clock {
 public:
  std::chrono::system_clock::time_point Now() override { return now_; }
  void Advance(std::chrono::system_clock::duration by) { now_ += by; }

 private:
  std::chrono::system_clock::time_point now_{std::chrono::seconds(1714564800)};
};

// A fresh directory under the system temp dir, removed with its contents on
// destruction. Holds a fake sysfs root ("sys/") with a boot id file and a
// state directory ("state/").
class SysfsTree {
 public:
  SysfsTree() {
    static std::atomic<int> counter{0};
    root_ = std::filesystem::temp_directory_path() /
            ("bplace-rdma-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "sys");
    std::filesystem::create_directories(root_ / "state");
    SetBootId("11111111-2222-3333-4444-555555555555");
  }
  ~SysfsTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  SysfsTree(const SysfsTree&) = delete;
  SysfsTree& operator=(const SysfsTree&) = delete;

  std::string sysfs_root() const { return (root_ / "sys").string(); }
  std::string state_file() const { return (root_ / "state" / "ib-counters.json").string(); }
  std::string boot_id_path() const { return (root_ / "boot_id").string(); }
  const std::filesystem::path& root() const { return root_; }

  void SetBootId(const std::string& id) { Write(root_ / "boot_id", id + "\n"); }

  // Writes ports/<port>/counters/<name> of `device`.
  void SetCounter(const std::string& device, std::uint32_t port, const std::string& name,
                  std::uint64_t value) {
    Write(PortDir(device, port) / "counters" / name, std::to_string(value) + "\n");
  }

  // Every judged counter of the port at zero.
  void ZeroCounters(const std::string& device, std::uint32_t port) {
    for (const char* name :
         {"symbol_error", "link_error_recovery", "port_rcv_errors", "link_downed",
          "local_link_integrity_errors", "excessive_buffer_overrun_errors"}) {
      SetCounter(device, port, name, 0);
    }
  }

  void SetRate(const std::string& device, std::uint32_t port, const std::string& text) {
    Write(PortDir(device, port) / "rate", text + "\n");
  }

  void SetGidType(const std::string& device, std::uint32_t port, int index,
                  const std::string& type) {
    Write(PortDir(device, port) / "gid_attrs" / "types" / std::to_string(index), type + "\n");
  }

  static void Write(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::trunc) << text;
  }

 private:
  std::filesystem::path PortDir(const std::string& device, std::uint32_t port) const {
    return root_ / "sys" / device / "ports" / std::to_string(port);
  }

  std::filesystem::path root_;
};

}  // namespace bplace::testing
