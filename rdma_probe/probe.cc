#include "rdma_probe/probe.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "rdma_probe/counter_judge.h"
#include "rdma_probe/counter_state.h"
#include "rdma_probe/evaluator.h"
#include "rdma_probe/sysfs_reader.h"

namespace bplace::rdma {
namespace {

// The counter baseline for one probe: loaded at the start, updated per
// port, written at the end.
struct Baselines {
  bool enabled = false;
  bool rebooted = false;
  CounterState state;
  std::set<std::string> touched;  // ports whose baseline this probe wrote
};

Baselines LoadBaselines(const ProbeSettings& settings, std::vector<std::string>& notes) {
  Baselines out;
  if (!settings.use_state) {
    notes.push_back("counter state disabled (--no-state); counter rises are not judged");
    return out;
  }
  const std::string& path = settings.ib.state_file;
  if (std::string problem = CheckStateDirectory(path); !problem.empty()) {
    notes.push_back("state file " + path + " unusable (" + problem +
                    "); counter rises are not judged");
    return out;
  }
  out.enabled = true;
  Result<std::string> boot_id = ReadBootId(settings.boot_id_path);
  if (!boot_id) notes.push_back("boot id unreadable (" + boot_id.error().message + ")");
  Result<CounterState> loaded = LoadCounterState(path);
  if (!loaded) {
    // A missing file is the first run; a corrupt one is thrown away. Either
    // way the probe starts a new baseline rather than failing.
    notes.push_back("no counter baseline (" + loaded.error().message + ")");
  } else {
    out.state = std::move(*loaded);
    out.rebooted = boot_id && out.state.boot_id != *boot_id;
  }
  out.state.boot_id = boot_id ? *boot_id : std::string();
  return out;
}

bool PortSelected(const std::vector<DeviceSelector>& selectors, const std::string& device,
                  std::uint32_t port) {
  return std::any_of(selectors.begin(), selectors.end(), [&](const DeviceSelector& s) {
    return s.device == device && (!s.port || *s.port == port);
  });
}

bool DeviceSelected(const std::vector<DeviceSelector>& selectors, const std::string& device) {
  return std::any_of(selectors.begin(), selectors.end(),
                     [&](const DeviceSelector& s) { return s.device == device; });
}

bool IsWantedLinkLayer(LinkLayer actual, LinkLayerWanted wanted) {
  return wanted == LinkLayerWanted::kAny ||
         (wanted == LinkLayerWanted::kInfiniband && actual == LinkLayer::kInfiniband) ||
         (wanted == LinkLayerWanted::kEthernet && actual == LinkLayer::kEthernet);
}

std::string WantedLinkLayerName(LinkLayerWanted wanted) {
  switch (wanted) {
    case LinkLayerWanted::kInfiniband:
      return "InfiniBand";
    case LinkLayerWanted::kEthernet:
      return "Ethernet";
    case LinkLayerWanted::kAny:
      break;
  }
  return "any";
}

PortReport CheckPort(VerbsApi& api, const std::string& device, const PortFacts& facts,
                     std::chrono::system_clock::time_point now, const ProbeSettings& settings,
                     Baselines& baselines) {
  const ProbeOptions& ib = settings.ib;
  PortReport report;
  report.facts = facts;
  report.checked = true;
  PortObservation observation;
  observation.device = device;
  observation.facts = facts;
  if (facts.error.empty()) {
    if (Result<std::string> rate = ReadPortRateText(ib.sysfs_root, device, facts.port)) {
      observation.sysfs_rate = *rate;
      report.sysfs_rate = *rate;
    } else {
      report.notes.push_back("sysfs rate not read (" + rate.error().message + ")");
    }
    Result<std::map<std::string, std::uint64_t>> counters =
        ReadPortCounters(ib.sysfs_root, device, facts.port);
    if (!counters) {
      report.notes.push_back("counters not read (" + counters.error().message + ")");
    } else {
      const std::string key = PortKey(device, facts.port);
      std::optional<CounterSample> baseline;
      if (baselines.enabled) {
        if (auto it = baselines.state.ports.find(key); it != baselines.state.ports.end()) {
          baseline = it->second;
        }
      }
      CounterJudgement judged =
          JudgeCounters(*counters, now, baseline, baselines.enabled && baselines.rebooted, ib);
      report.counters = std::move(judged.counters);
      observation.counter_reasons = std::move(judged.reasons);
      if (baselines.enabled) {
        report.notes.insert(report.notes.end(), judged.notes.begin(), judged.notes.end());
        baselines.state.ports[key] = std::move(judged.next_baseline);
        baselines.touched.insert(key);
      }
    }
    if (ShouldRunLoopback(facts, ib)) {
      observation.loopback = api.RunLoopback(
          device, facts,
          std::chrono::duration_cast<std::chrono::milliseconds>(ib.loopback_timeout));
      report.loopback = observation.loopback;
    }
  }
  PortEvaluation evaluation = EvaluatePort(observation, ib);
  report.rate = evaluation.rate;
  report.healthy = evaluation.healthy;
  report.reasons = std::move(evaluation.reasons);
  report.notes.insert(report.notes.end(), evaluation.notes.begin(), evaluation.notes.end());
  return report;
}

}  // namespace

Result<std::vector<DeviceSelector>> ParseDeviceSelectors(const std::vector<std::string>& entries) {
  std::vector<DeviceSelector> out;
  for (const std::string& entry : entries) {
    DeviceSelector selector;
    const std::size_t colon = entry.rfind(':');
    selector.device = entry.substr(0, colon);
    if (colon != std::string::npos) {
      const std::string_view text = std::string_view(entry).substr(colon + 1);
      std::uint32_t port = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size() || port < 1 ||
          port > 255) {
        return Fail(ErrorCode::kInvalidArgument,
                    "bad device \"" + entry + "\": the port must be 1..255 (DEV or DEV:PORT)");
      }
      selector.port = port;
    }
    if (selector.device.empty()) {
      return Fail(ErrorCode::kInvalidArgument, "bad device \"" + entry + "\": no device name");
    }
    out.push_back(std::move(selector));
  }
  return out;
}

Report RunProbe(VerbsApi& api, Clock& clock, const ProbeSettings& settings) {
  const auto now = clock.Now();
  Report report;
  report.host = settings.host;
  report.probed_at = now;
  report.notes = settings.notes;
  report.verdict = Verdict::kUnhealthy;

  Result<std::vector<DeviceSelector>> selectors = ParseDeviceSelectors(settings.ib.devices);
  if (!selectors) {
    Report error =
        ErrorReport(settings.host, now, "config: ib.devices: " + selectors.error().message);
    error.notes = settings.notes;
    return error;
  }
  const bool explicit_selection = !selectors->empty();

  const DeviceList list = api.ListDevices();
  switch (list.status) {
    case DeviceListStatus::kNoStack:
      report.reasons.push_back("no RDMA stack (" + list.message + ")");
      return report;
    case DeviceListStatus::kNoDevices:
      report.reasons.push_back("no HCA (no RDMA device found)");
      return report;
    case DeviceListStatus::kError:
      report.reasons.push_back("no HCA usable (" + list.message + ")");
      return report;
    case DeviceListStatus::kOk:
      break;
  }

  Baselines baselines = LoadBaselines(settings, report.notes);
  std::size_t checked_ports = 0;

  for (const DeviceSelector& selector : *selectors) {
    if (std::find(list.names.begin(), list.names.end(), selector.device) == list.names.end()) {
      std::string found;
      for (const std::string& name : list.names) found += (found.empty() ? "" : ", ") + name;
      report.reasons.push_back(selector.device + ": no such device (found: " + found + ")");
    }
  }

  for (const std::string& name : list.names) {
    const bool selected = !explicit_selection || DeviceSelected(*selectors, name);
    DeviceReport device;
    device.name = name;
    Result<DeviceFacts> facts = api.QueryDevice(name);
    Result<std::vector<PortFacts>> ports =
        facts ? api.QueryPorts(name) : tl::unexpected(facts.error());
    if (!ports) {
      device.error = ports.error().message;
      if (selected) report.reasons.push_back(name + ": " + device.error);
      report.devices.push_back(std::move(device));
      continue;
    }
    device.facts = *facts;
    for (const PortFacts& port : *ports) {
      bool check = selected && (!explicit_selection || PortSelected(*selectors, name, port.port));
      std::string skipped;
      if (check && !explicit_selection && port.error.empty() &&
          !IsWantedLinkLayer(port.link_layer, settings.ib.link_layer)) {
        // With no explicit list, a port of the other link layer (a RoCE NIC
        // next to the IB HCA) is not what the config is about.
        check = false;
        skipped = "not checked: link layer " + LinkLayerName(port.link_layer) +
                  ", ib.link_layer is " + WantedLinkLayerName(settings.ib.link_layer);
      }
      if (!check) {
        PortReport listed;
        listed.facts = port;
        listed.notes.push_back(skipped.empty() ? "not checked: not selected" : skipped);
        device.ports.push_back(std::move(listed));
        continue;
      }
      ++checked_ports;
      PortReport checked = CheckPort(api, name, port, now, settings, baselines);
      report.reasons.insert(report.reasons.end(), checked.reasons.begin(), checked.reasons.end());
      if (checked.healthy && checked.rate) {
        report.rate_gbps =
            report.rate_gbps ? std::min(*report.rate_gbps, checked.rate->gbps) : checked.rate->gbps;
      }
      device.ports.push_back(std::move(checked));
    }
    if (selected && explicit_selection) {
      for (const DeviceSelector& s : *selectors) {
        if (s.device == name && s.port && *s.port > facts->phys_port_cnt) {
          report.reasons.push_back(name + " port " + std::to_string(*s.port) +
                                   ": no such port (the device has " +
                                   std::to_string(facts->phys_port_cnt) + ")");
        }
      }
    }
    report.devices.push_back(std::move(device));
  }

  if (checked_ports == 0 && report.reasons.empty()) {
    report.reasons.push_back("no port with link layer " +
                             WantedLinkLayerName(settings.ib.link_layer) + " found");
  }

  if (baselines.enabled) {
    if (baselines.rebooted) {
      // Baselines of ports not probed this time belong to the previous boot.
      std::erase_if(baselines.state.ports,
                    [&](const auto& entry) { return !baselines.touched.count(entry.first); });
    }
    if (Result<void> saved = SaveCounterState(settings.ib.state_file, baselines.state); !saved) {
      report.notes.push_back("counter baseline not saved (" + saved.error().message + ")");
    }
  }
  report.verdict = report.reasons.empty() ? Verdict::kHealthy : Verdict::kUnhealthy;
  return report;
}

}  // namespace bplace::rdma
