#pragma once

#include <map>
#include <string>

#include "rdma_probe/verbs_api.h"

struct ibv_context;
struct ibv_device;

namespace bplace::rdma {

// VerbsApi on libibverbs (rdma-core 44 or later).
//
// The constructor calls ibv_fork_init() before any other verbs call, as
// libibverbs requires, so that memory registered by the loopback test is
// never shared with a forked child (the daemon and the elim fork; a child
// writing into a registered page would corrupt it). Devices are opened on
// first use and closed by the destructor.
//
// Not thread-safe: one thread uses an instance.
class LibibverbsApi final : public VerbsApi {
 public:
  // `sysfs_root` is where the port's gid_attrs are read when
  // ibv_query_gid_ex cannot tell a GID's type. Never fails; a failing
  // ibv_fork_init is kept in fork_init_error().
  explicit LibibverbsApi(std::string sysfs_root);
  ~LibibverbsApi() override;

  LibibverbsApi(const LibibverbsApi&) = delete;
  LibibverbsApi& operator=(const LibibverbsApi&) = delete;

  DeviceList ListDevices() override;
  Result<DeviceFacts> QueryDevice(const std::string& device) override;
  Result<std::vector<PortFacts>> QueryPorts(const std::string& device) override;
  LoopbackResult RunLoopback(const std::string& device, const PortFacts& port,
                             std::chrono::milliseconds timeout) override;

  // "ibv_fork_init: <errno text>" if it failed, else empty.
  const std::string& fork_init_error() const { return fork_init_error_; }

 private:
  // The open context of `device`, opening it on first use.
  Result<ibv_context*> Open(const std::string& device);

  std::string sysfs_root_;
  std::string fork_init_error_;
  ibv_device** list_ = nullptr;  // kept until destruction: contexts refer to its devices
  std::map<std::string, ibv_context*> contexts_;
};

}  // namespace bplace::rdma
