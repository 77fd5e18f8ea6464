#pragma once

// A small Prometheus client: counters, gauges and histograms with fixed
// label sets, and families computed at scrape time, rendered in the text
// exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// A series is created once, when its label values are known (at start-up,
// or the first time a rare value such as a queue name appears), and the
// caller keeps the reference: updating it is one relaxed atomic operation,
// without a lock or a lookup. Values that already live elsewhere (the
// snapshot's queues and hosts, connection counts) are not copied into
// series: a collector computes them when /metrics is read.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bplace::metrics {

// The TYPE line of a family.
enum class MetricType { kCounter, kGauge, kHistogram };

// A count that only goes up. Thread-safe, lock-free.
class Counter {
 public:
  void Inc(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// A value that goes up and down. Thread-safe, lock-free.
class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A distribution over fixed bucket upper bounds (`le`, in the unit of the
// family: seconds for `_seconds`), with their sum. Thread-safe, lock-free;
// Observe is a binary search over the bounds and three atomic additions.
class Histogram {
 public:
  // `bounds` must be finite and strictly increasing (Registry checks).
  explicit Histogram(std::vector<double> bounds);

  // Counts `value` in the first bucket whose bound is >= value (and in the
  // implicit +Inf bucket). NaN is ignored: it belongs to no bucket.
  void Observe(double value);

  // The bounds, without +Inf.
  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative counts per bound and +Inf last (bounds().size() + 1 values),
  // as the exposition shows them; the last one is the count. Read bucket by
  // bucket while observations may go on, so a scrape may miss one that
  // arrived during it, but the counts never decrease and are never cut.
  std::vector<std::uint64_t> CumulativeCounts() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double> bounds_;
  // Non-cumulative: index i counts values in (bounds_[i-1], bounds_[i]];
  // the last counts those above every bound.
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
  std::atomic<double> sum_{0};
};

// Bucket bounds in seconds for latencies from milliseconds (a cached read)
// to a minute (a slow LSF command near its timeout).
std::vector<double> LatencyBuckets();

// One series of a family computed at scrape time: its label values, in the
// order of the family's label names, and its value.
struct CollectedSample {
  std::vector<std::string> label_values;
  double value = 0;
};

// A counter or gauge family computed at scrape time by a Collector.
struct CollectedFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;  // kCounter or kGauge
  std::vector<std::string> label_names;
  std::vector<CollectedSample> samples;
};

// Computes families when /metrics is read. Runs on the scraping thread; must
// be thread-safe and must not block.
using Collector = std::function<std::vector<CollectedFamily>()>;

// A family of series of one type that share a name, a help text and label
// names, each series with its own label values. Thread-safety: WithLabels
// takes the family's mutex (call it at registration, or rarely); the series
// it returns are lock-free and live as long as the Registry.
template <typename Series>
class Family {
 public:
  // The series with these label values (in the order of the label names),
  // created on first use. Throws std::invalid_argument when the number of
  // values differs from the number of label names (a programming error).
  Series& WithLabels(const std::vector<std::string>& label_values);

  const std::string& name() const { return name_; }

 private:
  friend class Registry;
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::function<std::unique_ptr<Series>()> make, bool hide_unused)
      : name_(std::move(name)),
        help_(std::move(help)),
        label_names_(std::move(label_names)),
        make_(std::move(make)),
        hide_unused_(hide_unused) {}

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::function<std::unique_ptr<Series>()> make_;
  const bool hide_unused_;
  mutable std::mutex mutex_;  // guards the two below
  // In creation order, which is the order of the exposition.
  std::vector<std::pair<std::vector<std::string>, std::unique_ptr<Series>>> series_;
  std::map<std::vector<std::string>, Series*> index_;
};

// Registration options of a family.
struct FamilyOptions {
  // Leave out series that never counted anything (a counter at 0, a
  // histogram without observations): for label values created in advance
  // that most processes never see (HTTP status codes per route).
  bool hide_unused = false;
};

// Owns every family of the process and renders them. Names follow
// Prometheus: a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*, a label name
// [a-zA-Z_][a-zA-Z0-9_]* and does not start with "__"; histograms may not
// use the label `le`. Registering a bad name, a name twice or bad buckets
// is a programming error and throws std::invalid_argument (at start-up).
// Thread-safe: registration, WithLabels, AddCollector and Render may run
// concurrently; updates of series never lock.
class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  Family<Counter>& AddCounter(const std::string& name, const std::string& help,
                              std::vector<std::string> label_names, FamilyOptions options = {});
  Family<Gauge>& AddGauge(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names, FamilyOptions options = {});
  // `bounds`: finite, strictly increasing upper bounds; +Inf is implicit.
  Family<Histogram>& AddHistogram(const std::string& name, const std::string& help,
                                  std::vector<std::string> label_names, std::vector<double> bounds,
                                  FamilyOptions options = {});

  // Adds a collector whose families are rendered with the registered ones.
  void AddCollector(Collector collector);

  // The text exposition (format 0.0.4, Content-Type
  // kExpositionContentType) of every family, sorted by name: `# HELP` and
  // `# TYPE` lines, then one line per series in creation (or collection)
  // order. Label values are escaped (\\, \", \n), as are help texts (\\,
  // \n); a histogram has its `_bucket` lines with cumulative counts up to
  // le="+Inf", then `_sum` and `_count`. A collected family whose name is
  // registered or collected twice, or whose samples carry the wrong number
  // of label values, throws std::logic_error (a programming error; the
  // /metrics route answers 500).
  std::string Render() const;

 private:
  // Checks the name and label names and reserves the name; throws as above.
  void Reserve(const std::string& name, const std::vector<std::string>& label_names,
               bool histogram);

  mutable std::mutex mutex_;  // guards everything below
  std::map<std::string, MetricType> names_;
  std::vector<std::unique_ptr<Family<Counter>>> counters_;
  std::vector<std::unique_ptr<Family<Gauge>>> gauges_;
  std::vector<std::unique_ptr<Family<Histogram>>> histograms_;
  std::vector<Collector> collectors_;
};

// The Content-Type of Registry::Render's output.
inline constexpr char kExpositionContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// `value` as a label value inside double quotes: backslash, double quote
// and line feed escaped.
std::string EscapeLabelValue(std::string_view value);
// A sample value or bucket bound: "+Inf", "-Inf", "NaN", or the shortest
// decimal that reads back as the same double ("0.005", "3", "1e+21").
std::string FormatValue(double value);

template <typename Series>
Series& Family<Series>::WithLabels(const std::vector<std::string>& label_values) {
  if (label_values.size() != label_names_.size()) {
    throw std::invalid_argument(name_ + ": " + std::to_string(label_values.size()) +
                                " label values for " + std::to_string(label_names_.size()) +
                                " label names");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(label_values);
  if (it != index_.end()) return *it->second;
  series_.emplace_back(label_values, make_());
  Series* series = series_.back().second.get();
  index_.emplace(label_values, series);
  return *series;
}

}  // namespace bplace::metrics
