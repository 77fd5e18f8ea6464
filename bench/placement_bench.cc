// Parse + index time and memory for a large generated cluster, and placement
// latency. The cluster comes from the LSF simulator's generator (default 300
// queues, 5000 hosts, 200 host groups 3 deep) and its LSF 10.1 output.
//
//   build/test/bench/placement_bench [--benchmark_filter=...]
// Environment: BPLACE_BENCH_QUEUES, BPLACE_BENCH_HOSTS, BPLACE_BENCH_GROUPS.

#include <malloc.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/placement_answer_cache.h"

#include "daemon/cluster/ib_health.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/cluster/topology.h"
#include "daemon/placement/placement.h"
#include "lsf_adapter/bhosts_parser.h"
#include "lsf_adapter/bqueues_long_parser.h"
#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/group_parser.h"
#include "tests/fakes/capture_command.h"

namespace {

const char* EnvOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

// LSF output of the generated cluster, made once.
struct ClusterText {
  std::string bqueues_w, bqueues_l, bmgroup, bugroup, bhosts;
};

const ClusterText& Text() {
  static const ClusterText text = [] {
    const std::string bin = LSFSIM_BIN_DIR;
    const std::string dir = "/tmp/bplace-bench-" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    const std::string generate =
        bin + "/lsfsim generate --queues " + EnvOr("BPLACE_BENCH_QUEUES", "300") + " --hosts " +
        EnvOr("BPLACE_BENCH_HOSTS", "5000") + " --host-groups " +
        EnvOr("BPLACE_BENCH_GROUPS", "200") + " --depth 3 > " + dir + "/cluster.toml";
    if (std::system(generate.c_str()) != 0) throw std::runtime_error("lsfsim generate failed");
    const std::string init =
        bin + "/lsfsim init --cluster " + dir + "/cluster.toml --state " + dir + "/lsf >/dev/null";
    if (std::system(init.c_str()) != 0) throw std::runtime_error("lsfsim init failed");
    const std::string env = "LSF_ENVDIR=" + dir + "/lsf " + bin + "/";
    ClusterText t;
    t.bqueues_w = bplace::testing::CaptureCommand(env + "bqueues -w");
    t.bqueues_l = bplace::testing::CaptureCommand(env + "bqueues -l");
    t.bmgroup = bplace::testing::CaptureCommand(env + "bmgroup -w");
    t.bugroup = bplace::testing::CaptureCommand(env + "bugroup -w");
    t.bhosts = bplace::testing::CaptureCommand(env + "bhosts -w");
    std::filesystem::remove_all(dir);
    return t;
  }();
  return text;
}

std::shared_ptr<const bplace::ClusterSnapshot> BuildSnapshot(const ClusterText& text) {
  auto queues = bplace::lsf::ParseBqueuesLong(text.bqueues_l);
  auto host_groups = bplace::lsf::ParseBmgroup(text.bmgroup);
  auto user_groups = bplace::lsf::ParseBugroup(text.bugroup);
  auto loads = bplace::lsf::ParseBqueues(text.bqueues_w);
  auto hosts = bplace::lsf::ParseBhosts(text.bhosts);
  if (!queues || !host_groups || !user_groups || !loads || !hosts) {
    throw std::runtime_error("parse failed on generated cluster");
  }
  auto snapshot = std::make_shared<bplace::ClusterSnapshot>();
  snapshot->topology = bplace::Topology::Build(std::move(*queues), *host_groups, *user_groups);
  auto load = std::make_shared<bplace::LoadState>();
  for (auto& queue : *loads) load->queues.emplace(queue.name, std::move(queue));
  load->hosts = std::move(*hosts);
  for (std::size_t i = 0; i < load->hosts.size(); ++i) {
    load->host_index.emplace(load->hosts[i].name, i);
  }
  snapshot->load = load;
  snapshot->host_counts = bplace::CountQueueHosts(*snapshot->topology, *load, nullptr);
  return snapshot;
}

// Heap bytes in use (glibc): unlike RSS, not hidden by memory freed and reused.
std::size_t HeapInUse() { return mallinfo2().uordblks; }

void BM_ParseTopology(benchmark::State& state) {
  const ClusterText& text = Text();
  for (auto _ : state) {
    auto queues = bplace::lsf::ParseBqueuesLong(text.bqueues_l);
    auto host_groups = bplace::lsf::ParseBmgroup(text.bmgroup);
    auto user_groups = bplace::lsf::ParseBugroup(text.bugroup);
    auto topology = bplace::Topology::Build(std::move(*queues), *host_groups, *user_groups);
    benchmark::DoNotOptimize(topology);
  }
  state.counters["bqueues_l_bytes"] = static_cast<double>(text.bqueues_l.size());
}
BENCHMARK(BM_ParseTopology)->Unit(benchmark::kMillisecond);

void BM_ParseLoad(benchmark::State& state) {
  const ClusterText& text = Text();
  for (auto _ : state) {
    auto loads = bplace::lsf::ParseBqueues(text.bqueues_w);
    auto hosts = bplace::lsf::ParseBhosts(text.bhosts);
    benchmark::DoNotOptimize(loads);
    benchmark::DoNotOptimize(hosts);
  }
}
BENCHMARK(BM_ParseLoad)->Unit(benchmark::kMillisecond);

// A whole snapshot as a refresh publishes it, including the per-queue host
// counts (queues x hosts admissions). Reports the heap the snapshot holds.
void BM_BuildSnapshot(benchmark::State& state) {
  const ClusterText& text = Text();
  double held_mib = 0;
  for (auto _ : state) {
    const std::size_t before = HeapInUse();
    auto snapshot = BuildSnapshot(text);
    held_mib = static_cast<double>(HeapInUse() - before) / (1024.0 * 1024.0);
    benchmark::DoNotOptimize(snapshot);
  }
  state.counters["snapshot_heap_MiB"] = held_mib;
  state.counters["hosts"] = static_cast<double>(BuildSnapshot(text)->load->hosts.size());
}
BENCHMARK(BM_BuildSnapshot)->Unit(benchmark::kMillisecond)->Iterations(3);

// What a load (or InfiniBand) publish recomputes: the per-queue host counts
// and queues_admitting of SnapshotStore::Publish (docs/design.md "Site
// scale"). With
// `with_ib`, every host has an lsload verdict (a third unhealthy).
void CountBench(benchmark::State& state, bool with_ib) {
  const auto snapshot = BuildSnapshot(Text());
  bplace::IbHealthState ib;
  ib.source = "lsload";
  for (std::size_t i = 0; i < snapshot->load->hosts.size(); ++i) {
    bplace::HostIbHealth entry;
    entry.health = i % 3 == 0 ? bplace::IbHealth::kUnhealthy : bplace::IbHealth::kHealthy;
    ib.hosts.insert_or_assign(snapshot->load->hosts[i].name, std::move(entry));
  }
  std::vector<std::int32_t> admitting;
  for (auto _ : state) {
    auto counts = bplace::CountQueueHosts(*snapshot->topology, *snapshot->load,
                                          with_ib ? &ib : nullptr, &admitting);
    benchmark::DoNotOptimize(counts);
  }
  state.counters["hosts"] = static_cast<double>(snapshot->load->hosts.size());
}
void BM_CountQueueHosts(benchmark::State& state) { CountBench(state, false); }
void BM_CountQueueHostsIb(benchmark::State& state) { CountBench(state, true); }
BENCHMARK(BM_CountQueueHosts)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountQueueHostsIb)->Unit(benchmark::kMillisecond);

void PlaceBench(benchmark::State& state, bool with_host) {
  const auto snapshot = BuildSnapshot(Text());
  const auto& hosts = snapshot->load->hosts;
  std::unordered_map<std::string, std::int64_t> inflight;
  bplace::PlacementContext context;
  context.inflight_slots = &inflight;
  bplace::PlacementRequest request;
  request.user = "user001";
  std::size_t i = 0;
  for (auto _ : state) {
    if (with_host) request.host = hosts[i++ % hosts.size()].name;
    auto placement = bplace::Place(*snapshot, context, request);
    benchmark::DoNotOptimize(placement);
  }
}
void BM_PlaceOnHost(benchmark::State& state) { PlaceBench(state, true); }
void BM_PlaceAnyHost(benchmark::State& state) { PlaceBench(state, false); }
BENCHMARK(BM_PlaceOnHost)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceAnyHost)->Unit(benchmark::kMicrosecond);

// GET /v1/placement?host=H bodies (docs/design.md "Site scale"), one host after
// another of the 5,000: uncached (Place, the nlohmann DOM, its dump), a cache
// miss (the same, then the template, then the body rendered from it) and a hit
// (the look-up and the body rendered with its ages). The route adds parsing the
// query and reading the stamp to each.
struct AnswerBench {
  std::shared_ptr<const bplace::ClusterSnapshot> snapshot = BuildSnapshot(Text());
  std::unordered_map<std::string, std::int64_t> inflight;
  bplace::PlacementContext context;
  const bplace::SystemTime now{std::chrono::seconds(1'800'000'000)};

  AnswerBench() { context.inflight_slots = &inflight; }

  bplace::PlacementRequest Request(std::size_t i) const {
    bplace::PlacementRequest request;
    request.user = "user001";
    const auto& hosts = snapshot->load->hosts;
    request.host = hosts[i % hosts.size()].name;
    return request;
  }

  nlohmann::json Body(const bplace::PlacementRequest& request) const {
    auto placement = bplace::Place(*snapshot, context, request);
    nlohmann::json body = bplace::api::PlacementJson(request, *placement, snapshot->ib.get(), now);
    bplace::api::AddAge(body, *snapshot, now);
    return body;
  }

  std::shared_ptr<bplace::api::PlacementAnswer> Answer(const bplace::PlacementRequest& request) {
    nlohmann::json body = Body(request);
    auto answer = std::make_shared<bplace::api::PlacementAnswer>();
    using Pointer = nlohmann::json::json_pointer;
    answer->body = *bplace::api::BodyTemplate::Make(
        body, {{Pointer("/age_s"), snapshot->as_of()},
               {Pointer("/topology_age_s"), snapshot->topology_as_of}});
    answer->placed_at = now;
    return answer;
  }
};

void BM_PlacementAnswerUncached(benchmark::State& state) {
  AnswerBench bench;
  std::size_t i = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = bplace::api::DumpJson(bench.Body(bench.Request(i++)));
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["body_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_PlacementAnswerUncached)->Unit(benchmark::kMicrosecond);

void BM_PlacementAnswerMiss(benchmark::State& state) {
  AnswerBench bench;
  bplace::api::PlacementAnswerCache cache;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto request = bench.Request(i++);
    auto answer = bench.Answer(request);
    std::string text = answer->body.Render(bench.now);
    cache.Insert(bplace::api::PlacementAnswerCache::Key(request), std::move(answer));
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_PlacementAnswerMiss)->Unit(benchmark::kMicrosecond);

// Hits spread over 256 stored answers (256 hosts asked about repeatedly).
void BM_PlacementAnswerHit(benchmark::State& state) {
  AnswerBench bench;
  bplace::api::PlacementAnswerCache cache;
  constexpr std::size_t kKeys = 256;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < kKeys; ++i) {
    keys.push_back(bplace::api::PlacementAnswerCache::Key(bench.Request(i)));
    cache.Insert(keys.back(), bench.Answer(bench.Request(i)));
  }
  const bplace::PlacementStamp stamp;
  std::size_t i = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto answer = cache.Find(keys[i++ % kKeys], stamp, bench.now);
    std::string text = answer->body.Render(bench.now + std::chrono::milliseconds(i));
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["body_bytes"] = static_cast<double>(bytes);
  state.counters["cache_MiB"] = static_cast<double>(cache.stats().bytes) / (1024.0 * 1024.0);
}
BENCHMARK(BM_PlacementAnswerHit)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
