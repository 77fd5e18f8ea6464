#include "common/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

namespace bplace::metrics {
namespace {

bool IsMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// HELP text: backslash and line feed escaped (the format allows no others).
std::string EscapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void AppendHeader(std::string& out, const std::string& name, const std::string& help,
                  MetricType type) {
  out += "# HELP " + name + " " + EscapeHelp(help) + "\n";
  out += "# TYPE " + name + " " + TypeName(type) + "\n";
}

// `{a="x",b="y"}`, with `extra` (e.g. le="0.5") last; "" without labels.
std::string LabelSet(const std::vector<std::string>& names, const std::vector<std::string>& values,
                     std::string_view extra = {}) {
  if (names.empty() && extra.empty()) return "";
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra.empty()) {
    if (!names.empty()) out += ',';
    out += extra;
  }
  return out + "}";
}

// One rendered family, to be sorted by name with the others.
struct Block {
  std::string name;
  std::string text;
};

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "NaN";  // cannot happen with 64 bytes
  return std::string(buffer, end);
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  const auto index = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

std::vector<std::uint64_t> Histogram::CumulativeCounts() const {
  std::vector<std::uint64_t> counts(bounds_.size() + 1);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    counts[i] = total;
  }
  return counts;
}

std::vector<double> LatencyBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

void Registry::Reserve(const std::string& name, const std::vector<std::string>& label_names,
                       bool histogram) {
  if (!IsMetricName(name)) throw std::invalid_argument("bad metric name '" + name + "'");
  std::set<std::string> seen;
  for (const std::string& label : label_names) {
    if (!IsLabelName(label)) {
      throw std::invalid_argument(name + ": bad label name '" + label + "'");
    }
    if (histogram && label == "le") {
      throw std::invalid_argument(name + ": a histogram may not have the label 'le'");
    }
    if (!seen.insert(label).second) {
      throw std::invalid_argument(name + ": label '" + label + "' given twice");
    }
  }
  if (names_.count(name) != 0) {
    throw std::invalid_argument("metric '" + name + "' registered twice");
  }
}

Family<Counter>& Registry::AddCounter(const std::string& name, const std::string& help,
                                      std::vector<std::string> label_names, FamilyOptions options) {
  std::lock_guard<std::mutex> lock(mutex_);
  Reserve(name, label_names, false);
  names_.emplace(name, MetricType::kCounter);
  return *counters_.emplace_back(new Family<Counter>(
      name, help, std::move(label_names), [] { return std::make_unique<Counter>(); },
      options.hide_unused));
}

Family<Gauge>& Registry::AddGauge(const std::string& name, const std::string& help,
                                  std::vector<std::string> label_names, FamilyOptions options) {
  std::lock_guard<std::mutex> lock(mutex_);
  Reserve(name, label_names, false);
  names_.emplace(name, MetricType::kGauge);
  return *gauges_.emplace_back(new Family<Gauge>(
      name, help, std::move(label_names), [] { return std::make_unique<Gauge>(); },
      options.hide_unused));
}

Family<Histogram>& Registry::AddHistogram(const std::string& name, const std::string& help,
                                          std::vector<std::string> label_names,
                                          std::vector<double> bounds, FamilyOptions options) {
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
      throw std::invalid_argument(name + ": bucket bounds must be finite and strictly increasing");
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Reserve(name, label_names, true);
  names_.emplace(name, MetricType::kHistogram);
  return *histograms_.emplace_back(new Family<Histogram>(
      name, help, std::move(label_names),
      [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); },
      options.hide_unused));
}

void Registry::AddCollector(Collector collector) {
  std::lock_guard<std::mutex> lock(mutex_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::Render() const {
  std::vector<Block> blocks;
  std::vector<Collector> collectors;
  std::set<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    collectors = collectors_;
    for (const auto& [name, type] : names_) names.insert(name);
    for (const auto& owned : counters_) {
      const Family<Counter>& family = *owned;
      std::lock_guard<std::mutex> series_lock(family.mutex_);
      std::string text;
      AppendHeader(text, family.name_, family.help_, MetricType::kCounter);
      for (const auto& [labels, counter] : family.series_) {
        const std::uint64_t value = counter->Value();
        if (family.hide_unused_ && value == 0) continue;
        text += family.name_ + LabelSet(family.label_names_, labels) + " " + std::to_string(value) +
                "\n";
      }
      blocks.push_back({family.name_, std::move(text)});
    }
    for (const auto& owned : gauges_) {
      const Family<Gauge>& family = *owned;
      std::lock_guard<std::mutex> series_lock(family.mutex_);
      std::string text;
      AppendHeader(text, family.name_, family.help_, MetricType::kGauge);
      for (const auto& [labels, gauge] : family.series_) {
        text += family.name_ + LabelSet(family.label_names_, labels) + " " +
                FormatValue(gauge->Value()) + "\n";
      }
      blocks.push_back({family.name_, std::move(text)});
    }
    for (const auto& owned : histograms_) {
      const Family<Histogram>& family = *owned;
      std::lock_guard<std::mutex> series_lock(family.mutex_);
      std::string text;
      AppendHeader(text, family.name_, family.help_, MetricType::kHistogram);
      for (const auto& [labels, histogram] : family.series_) {
        const std::vector<std::uint64_t> counts = histogram->CumulativeCounts();
        if (family.hide_unused_ && counts.back() == 0) continue;
        const std::vector<double>& bounds = histogram->bounds();
        for (std::size_t i = 0; i < counts.size(); ++i) {
          const std::string le =
              "le=\"" + (i < bounds.size() ? FormatValue(bounds[i]) : std::string("+Inf")) + "\"";
          text += family.name_ + "_bucket" + LabelSet(family.label_names_, labels, le) + " " +
                  std::to_string(counts[i]) + "\n";
        }
        // The sum is read after the buckets; an observation between the two
        // shows in the sum only, which Prometheus tolerates (rates of both).
        text += family.name_ + "_sum" + LabelSet(family.label_names_, labels) + " " +
                FormatValue(histogram->Sum()) + "\n";
        text += family.name_ + "_count" + LabelSet(family.label_names_, labels) + " " +
                std::to_string(counts.back()) + "\n";
      }
      blocks.push_back({family.name_, std::move(text)});
    }
  }
  // Collectors run outside the registry's mutex: they read other parts of
  // the daemon, which must never wait for a scrape.
  for (const Collector& collector : collectors) {
    for (const CollectedFamily& family : collector()) {
      const bool labels_ok = std::all_of(family.label_names.begin(), family.label_names.end(),
                                         [](const std::string& l) { return IsLabelName(l); });
      if (!IsMetricName(family.name) || !labels_ok || !names.insert(family.name).second) {
        throw std::logic_error("collected metric '" + family.name + "' is invalid or not unique");
      }
      const MetricType type =
          family.type == MetricType::kCounter ? MetricType::kCounter : MetricType::kGauge;
      std::string text;
      AppendHeader(text, family.name, family.help, type);
      for (const CollectedSample& sample : family.samples) {
        if (sample.label_values.size() != family.label_names.size()) {
          throw std::logic_error("collected metric '" + family.name +
                                 "': wrong number of label values");
        }
        text += family.name + LabelSet(family.label_names, sample.label_values) + " " +
                FormatValue(sample.value) + "\n";
      }
      blocks.push_back({family.name, std::move(text)});
    }
  }
  std::sort(blocks.begin(), blocks.end(),
            [](const Block& a, const Block& b) { return a.name < b.name; });
  std::string out;
  for (const Block& block : blocks) out += block.text;
  return out;
}

}  // namespace bplace::metrics
