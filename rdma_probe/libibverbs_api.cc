#include "rdma_probe/libibverbs_api.h"

#include <endian.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "rdma_probe/sysfs_reader.h"

namespace bplace::rdma {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Most verbs return the errno value itself (ibv_modify_qp, ibv_post_send);
// a few return -1 and set errno. Either way this yields the error number.
int VerbsError(int rc) { return rc > 0 ? rc : (errno != 0 ? errno : EINVAL); }

// rdma-core 48 added active_speed_ex (32 bits, carries XDR = 256); older
// headers only have the 8-bit active_speed. Decided at compile time.
template <typename Attr>
std::uint32_t ActiveSpeed(const Attr& attr) {
  if constexpr (requires { attr.active_speed_ex; }) {
    if (attr.active_speed_ex != 0) return attr.active_speed_ex;
  }
  return attr.active_speed;
}

std::string FormatGuid(__be64 guid_be) {
  const std::uint64_t guid = be64toh(guid_be);
  char buf[24];
  std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x", static_cast<unsigned>(guid >> 48) & 0xffff,
                static_cast<unsigned>(guid >> 32) & 0xffff,
                static_cast<unsigned>(guid >> 16) & 0xffff, static_cast<unsigned>(guid) & 0xffff);
  return buf;
}

const char* WcStatusName(ibv_wc_status status) {
  switch (status) {
    case IBV_WC_SUCCESS:
      return "SUCCESS";
    case IBV_WC_LOC_LEN_ERR:
      return "LOC_LEN_ERR";
    case IBV_WC_LOC_QP_OP_ERR:
      return "LOC_QP_OP_ERR";
    case IBV_WC_LOC_PROT_ERR:
      return "LOC_PROT_ERR";
    case IBV_WC_WR_FLUSH_ERR:
      return "WR_FLUSH_ERR";
    case IBV_WC_BAD_RESP_ERR:
      return "BAD_RESP_ERR";
    case IBV_WC_LOC_ACCESS_ERR:
      return "LOC_ACCESS_ERR";
    case IBV_WC_REM_INV_REQ_ERR:
      return "REM_INV_REQ_ERR";
    case IBV_WC_REM_ACCESS_ERR:
      return "REM_ACCESS_ERR";
    case IBV_WC_REM_OP_ERR:
      return "REM_OP_ERR";
    case IBV_WC_RETRY_EXC_ERR:
      return "RETRY_EXC_ERR";
    case IBV_WC_RNR_RETRY_EXC_ERR:
      return "RNR_RETRY_EXC_ERR";
    case IBV_WC_FATAL_ERR:
      return "FATAL_ERR";
    case IBV_WC_RESP_TIMEOUT_ERR:
      return "RESP_TIMEOUT_ERR";
    case IBV_WC_GENERAL_ERR:
      return "GENERAL_ERR";
    default:
      return "ERR";
  }
}

// Owners of the loopback's verbs objects, destroyed in reverse order of
// creation by declaration order in RunLoopback.
struct PdDeleter {
  void operator()(ibv_pd* pd) const { ibv_dealloc_pd(pd); }
};
struct CqDeleter {
  void operator()(ibv_cq* cq) const { ibv_destroy_cq(cq); }
};
struct MrDeleter {
  void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
};
struct QpDeleter {
  void operator()(ibv_qp* qp) const { ibv_destroy_qp(qp); }
};
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

constexpr std::size_t kMessageBytes = 64;

}  // namespace

LibibverbsApi::LibibverbsApi(std::string sysfs_root) : sysfs_root_(std::move(sysfs_root)) {
  if (ibv_fork_init() != 0) fork_init_error_ = "ibv_fork_init: " + ErrnoText(errno);
}

LibibverbsApi::~LibibverbsApi() {
  for (auto& [name, context] : contexts_) ibv_close_device(context);
  if (list_ != nullptr) ibv_free_device_list(list_);
}

DeviceList LibibverbsApi::ListDevices() {
  DeviceList out;
  if (list_ == nullptr) {
    int count = 0;
    errno = 0;
    list_ = ibv_get_device_list(&count);
    const int err = errno;
    if (list_ == nullptr) {
      // rdma-core returns NULL with ENOSYS when the kernel has no uverbs
      // support (no /sys/class/infiniband_verbs): no RDMA stack at all.
      out.status = err == ENOSYS ? DeviceListStatus::kNoStack : DeviceListStatus::kError;
      out.message = "ibv_get_device_list: " + ErrnoText(err == 0 ? EIO : err);
      return out;
    }
  }
  for (ibv_device** d = list_; *d != nullptr; ++d) out.names.emplace_back(ibv_get_device_name(*d));
  out.status = out.names.empty() ? DeviceListStatus::kNoDevices : DeviceListStatus::kOk;
  return out;
}

Result<ibv_context*> LibibverbsApi::Open(const std::string& device) {
  if (auto it = contexts_.find(device); it != contexts_.end()) return it->second;
  if (list_ == nullptr) ListDevices();
  if (list_ == nullptr) return Fail(ErrorCode::kNotFound, device + ": no RDMA stack");
  for (ibv_device** d = list_; *d != nullptr; ++d) {
    if (device != ibv_get_device_name(*d)) continue;
    errno = 0;
    ibv_context* context = ibv_open_device(*d);
    if (context == nullptr) {
      const int err = errno;
      return Fail(ErrorCode::kCommandFailed, "ibv_open_device: " + ErrnoText(err == 0 ? EIO : err));
    }
    contexts_[device] = context;
    return context;
  }
  return Fail(ErrorCode::kNotFound, device + ": no such device");
}

Result<DeviceFacts> LibibverbsApi::QueryDevice(const std::string& device) {
  Result<ibv_context*> context = Open(device);
  if (!context) return tl::unexpected(context.error());
  ibv_device_attr attr{};
  if (const int rc = ibv_query_device(*context, &attr); rc != 0) {
    return Fail(ErrorCode::kCommandFailed, "ibv_query_device: " + ErrnoText(VerbsError(rc)));
  }
  DeviceFacts facts;
  facts.name = device;
  facts.node_guid = FormatGuid(attr.node_guid);
  facts.fw_ver = attr.fw_ver;
  facts.vendor_id = attr.vendor_id;
  facts.vendor_part_id = attr.vendor_part_id;
  facts.phys_port_cnt = attr.phys_port_cnt;
  return facts;
}

Result<std::vector<PortFacts>> LibibverbsApi::QueryPorts(const std::string& device) {
  Result<DeviceFacts> facts = QueryDevice(device);
  if (!facts) return tl::unexpected(facts.error());
  ibv_context* context = contexts_.at(device);
  std::vector<PortFacts> ports;
  for (std::uint32_t n = 1; n <= facts->phys_port_cnt; ++n) {
    PortFacts port;
    port.port = n;
    ibv_port_attr attr{};
    if (const int rc = ibv_query_port(context, static_cast<std::uint8_t>(n), &attr); rc != 0) {
      port.error = "ibv_query_port: " + ErrnoText(VerbsError(rc));
      ports.push_back(std::move(port));
      continue;
    }
    port.state = attr.state;
    port.phys_state = attr.phys_state;
    port.link_layer = attr.link_layer == IBV_LINK_LAYER_ETHERNET     ? LinkLayer::kEthernet
                      : attr.link_layer == IBV_LINK_LAYER_INFINIBAND ? LinkLayer::kInfiniband
                                                                     : LinkLayer::kUnspecified;
    // Providers older than the IBoE support leave link_layer unspecified,
    // which means InfiniBand.
    if (port.link_layer == LinkLayer::kUnspecified) port.link_layer = LinkLayer::kInfiniband;
    port.lid = attr.lid;
    port.sm_lid = attr.sm_lid;
    port.active_width = attr.active_width;
    port.active_speed = ActiveSpeed(attr);
    port.active_mtu = attr.active_mtu;
    port.gid_tbl_len = attr.gid_tbl_len;
    if (port.link_layer == LinkLayer::kEthernet) {
      bool gid_ex_works = true;
      for (int i = 0; i < attr.gid_tbl_len && gid_ex_works; ++i) {
        ibv_gid_entry entry{};
        const int rc = ibv_query_gid_ex(context, n, static_cast<std::uint32_t>(i), &entry, 0);
        if (rc == EOPNOTSUPP || rc == ENOSYS) gid_ex_works = false;
        // Unused entries fail with ENODATA; keep looking.
        if (rc == 0 && entry.gid_type == IBV_GID_TYPE_ROCE_V2) {
          port.roce_v2_gid_index = static_cast<std::uint32_t>(i);
          break;
        }
      }
      if (!gid_ex_works) {
        port.roce_v2_gid_index = FindRoceV2GidIndex(sysfs_root_, device, n, attr.gid_tbl_len);
      }
    }
    ports.push_back(std::move(port));
  }
  return ports;
}

LoopbackResult LibibverbsApi::RunLoopback(const std::string& device, const PortFacts& port,
                                          std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  LoopbackResult result;
  auto fail = [&](std::string stage, std::string message) {
    result.ok = false;
    result.stage = std::move(stage);
    result.message = std::move(message);
    result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start);
    return result;
  };

  Result<ibv_context*> opened = Open(device);
  if (!opened) return fail("open", opened.error().message);
  ibv_context* context = *opened;
  const bool roce = port.link_layer == LinkLayer::kEthernet;
  if (roce && !port.roce_v2_gid_index) return fail("gid", "no RoCE v2 GID");

  ibv_gid gid{};
  if (roce) {
    if (const int rc = ibv_query_gid(context, static_cast<std::uint8_t>(port.port),
                                     static_cast<int>(*port.roce_v2_gid_index), &gid);
        rc != 0) {
      return fail("gid", "ibv_query_gid: " + ErrnoText(VerbsError(rc)));
    }
  }

  std::unique_ptr<ibv_pd, PdDeleter> pd(ibv_alloc_pd(context));
  if (!pd) return fail("pd", ErrnoText(errno));
  std::unique_ptr<ibv_cq, CqDeleter> cq(ibv_create_cq(context, 4, nullptr, nullptr, 0));
  if (!cq) return fail("cq", ErrnoText(errno));
  // One page: a send half and a receive half, registered once.
  std::unique_ptr<char, FreeDeleter> buffer(static_cast<char*>(std::aligned_alloc(4096, 4096)));
  if (!buffer) return fail("mr", "out of memory");
  std::memset(buffer.get(), 0, 4096);
  char* send_buf = buffer.get();
  char* recv_buf = buffer.get() + 2048;
  std::snprintf(send_buf, kMessageBytes, "bplace rdma_probe loopback %s:%u", device.c_str(),
                port.port);
  std::unique_ptr<ibv_mr, MrDeleter> mr(
      ibv_reg_mr(pd.get(), buffer.get(), 4096, IBV_ACCESS_LOCAL_WRITE));
  if (!mr) return fail("mr", ErrnoText(errno));

  ibv_qp_init_attr init{};
  init.send_cq = cq.get();
  init.recv_cq = cq.get();
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = 1;
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  std::unique_ptr<ibv_qp, QpDeleter> qp(ibv_create_qp(pd.get(), &init));
  if (!qp) return fail("qp", ErrnoText(errno));

  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = static_cast<std::uint8_t>(port.port);
  attr.qp_access_flags = 0;
  if (const int rc = ibv_modify_qp(
          qp.get(), &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
      rc != 0) {
    return fail("init", ErrnoText(VerbsError(rc)));
  }

  attr = {};
  attr.qp_state = IBV_QPS_RTR;
  // The smallest MTU every port supports; the message is 64 bytes.
  attr.path_mtu = IBV_MTU_1024;
  if (port.active_mtu >= IBV_MTU_256 && port.active_mtu < IBV_MTU_1024) {
    attr.path_mtu = static_cast<ibv_mtu>(port.active_mtu);
  }
  attr.dest_qp_num = qp->qp_num;  // connected to itself
  attr.rq_psn = 0;
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = 12;
  attr.ah_attr.port_num = static_cast<std::uint8_t>(port.port);
  attr.ah_attr.sl = 0;
  if (roce) {
    // RoCE has no LIDs: the address is the port's own RoCE v2 GID, which
    // routes through the NIC's loopback.
    attr.ah_attr.is_global = 1;
    attr.ah_attr.grh.dgid = gid;
    attr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(*port.roce_v2_gid_index);
    attr.ah_attr.grh.hop_limit = 1;
  } else {
    attr.ah_attr.dlid = static_cast<std::uint16_t>(port.lid);
  }
  if (const int rc =
          ibv_modify_qp(qp.get(), &attr,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                            IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
      rc != 0) {
    return fail("rtr", ErrnoText(VerbsError(rc)));
  }

  attr = {};
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = 0;
  // 4.096 us * 2^14 = 67 ms per try, 7 retries: a dead path ends in
  // RETRY_EXC_ERR after about half a second, inside the usual 2 s deadline.
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;
  attr.max_rd_atomic = 1;
  if (const int rc =
          ibv_modify_qp(qp.get(), &attr,
                        IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                            IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
      rc != 0) {
    return fail("rts", ErrnoText(VerbsError(rc)));
  }

  ibv_sge recv_sge{reinterpret_cast<std::uintptr_t>(recv_buf), kMessageBytes, mr->lkey};
  ibv_recv_wr recv_wr{};
  recv_wr.wr_id = 2;
  recv_wr.sg_list = &recv_sge;
  recv_wr.num_sge = 1;
  ibv_recv_wr* bad_recv = nullptr;
  if (const int rc = ibv_post_recv(qp.get(), &recv_wr, &bad_recv); rc != 0) {
    return fail("post_recv", ErrnoText(VerbsError(rc)));
  }
  ibv_sge send_sge{reinterpret_cast<std::uintptr_t>(send_buf), kMessageBytes, mr->lkey};
  ibv_send_wr send_wr{};
  send_wr.wr_id = 1;
  send_wr.sg_list = &send_sge;
  send_wr.num_sge = 1;
  send_wr.opcode = IBV_WR_SEND;
  send_wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad_send = nullptr;
  if (const int rc = ibv_post_send(qp.get(), &send_wr, &bad_send); rc != 0) {
    return fail("post_send", ErrnoText(VerbsError(rc)));
  }

  const auto deadline = start + timeout;
  int completions = 0;
  while (completions < 2) {
    ibv_wc wc[2]{};
    const int n = ibv_poll_cq(cq.get(), 2, wc);
    if (n < 0) return fail("poll", "ibv_poll_cq failed");
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        return fail("wc", std::string(WcStatusName(wc[i].status)) + " (" +
                              ibv_wc_status_str(wc[i].status) + ")");
      }
    }
    completions += n;
    if (completions >= 2) break;
    if (std::chrono::steady_clock::now() >= deadline) return fail("poll", "timeout");
    // Polling without events keeps the test free of a completion channel;
    // a loopback completes in microseconds, so the pause only matters on
    // the failure path.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (std::memcmp(send_buf, recv_buf, kMessageBytes) != 0) {
    return fail("data", "received payload differs from the one sent");
  }
  result.ok = true;
  result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  return result;
}

}  // namespace bplace::rdma
