#include "rdma_probe/evaluator.h"

#include <cmath>

namespace bplace::rdma {
namespace {

std::string ExpectedLinkLayerName(LinkLayerWanted link_layer) {
  return link_layer == LinkLayerWanted::kEthernet ? "Ethernet" : "InfiniBand";
}

bool LinkLayerMatches(LinkLayer actual, LinkLayerWanted expected) {
  switch (expected) {
    case LinkLayerWanted::kAny:
      return true;
    case LinkLayerWanted::kInfiniband:
      return actual == LinkLayer::kInfiniband;
    case LinkLayerWanted::kEthernet:
      return actual == LinkLayer::kEthernet;
  }
  return false;
}

// Rates from sysfs are printed with at most one decimal (".5"); verbs
// rates are exact multiples of 2.5 or 10/14. Half a Gb/s absorbs the
// rounding and nothing else.
constexpr double kRateTolerance = 0.5;

}  // namespace

PortEvaluation EvaluatePort(const PortObservation& observation, const ProbeOptions& config) {
  PortEvaluation out;
  const PortFacts& port = observation.facts;
  const std::string prefix = observation.device + " port " + std::to_string(port.port) + ": ";
  auto reason = [&](const std::string& text) { out.reasons.push_back(prefix + text); };

  if (!port.error.empty()) {
    reason(port.error);
    return out;
  }
  const bool active = port.state == kPortStateActive;
  if (!active) reason("state " + PortStateName(port.state));
  if (port.phys_state != kPhysStateLinkUp) reason("phys_state " + PhysStateName(port.phys_state));
  if (!LinkLayerMatches(port.link_layer, config.link_layer)) {
    reason("link layer " + LinkLayerName(port.link_layer) + ", expected " +
           ExpectedLinkLayerName(config.link_layer));
  }
  if (port.link_layer == LinkLayer::kInfiniband) {
    if (port.lid == 0) reason("LID 0 (not configured by a subnet manager)");
    if (port.sm_lid == 0) reason("SM LID 0 (no subnet manager)");
  }
  if (port.link_layer == LinkLayer::kEthernet && !port.roce_v2_gid_index) {
    reason("no RoCE v2 GID");
  }

  if (active) {
    Result<LinkRate> rate = DecodeLinkRate(port.active_width, port.active_speed);
    if (!rate) {
      reason(rate.error().message);
    } else {
      out.rate = *rate;
      const std::string shown =
          FormatGbps(rate->gbps) + " Gb/s (" + rate->width + " " + rate->speed + ")";
      if (config.min_rate_gbps > 0 && rate->gbps + 1e-9 < config.min_rate_gbps) {
        reason("rate " + shown + " below the minimum " + FormatGbps(config.min_rate_gbps) +
               " Gb/s");
      }
      if (observation.sysfs_rate) {
        Result<double> sysfs = ParseSysfsRate(*observation.sysfs_rate);
        if (!sysfs) {
          out.notes.push_back("sysfs rate: " + sysfs.error().message);
        } else if (std::fabs(*sysfs - rate->gbps) > kRateTolerance) {
          reason("sysfs rate " + FormatGbps(*sysfs) + " Gb/s differs from " + shown +
                 " from ibv_query_port");
        }
      }
    }
  }

  for (const std::string& text : observation.counter_reasons) reason(text);
  if (observation.loopback && !observation.loopback->ok) {
    reason("loopback " + observation.loopback->stage + ": " + observation.loopback->message);
  }
  out.healthy = out.reasons.empty();
  return out;
}

bool ShouldRunLoopback(const PortFacts& port, const ProbeOptions& config) {
  if (!config.loopback || !port.error.empty()) return false;
  if (port.state != kPortStateActive || port.phys_state != kPhysStateLinkUp) return false;
  if (port.link_layer == LinkLayer::kEthernet) return port.roce_v2_gid_index.has_value();
  return port.lid != 0;
}

}  // namespace bplace::rdma
