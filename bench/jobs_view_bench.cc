// jobs_view_bench: what the jobs tier's view of every job of the cluster
// costs (docs/lsf-front-door.md "bjobs lists"; bench/README.md "Front door
// (issue 20)"), in this process: one `bjobs -u all -o ... -json` answer of N
// jobs (LSF 10.1's layout, docs/lsf-formats.md "bjobs -o -json"), read and
// indexed as the refresh thread does (lsf::ReadBjobsReply, MakeJobList):
// CPU time and the resident memory the list holds; then the answers a
// request computes from it (plain bjobs of one user, `-u all`).
// Usage: jobs_view_bench run|smoke [--jobs 10000,100000] [--users 200]
// smoke: 1000 jobs; fails only when the list is not what was generated.

#include <time.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "api/bjobs_list_answer.h"
#include "bench/bench_util.h"
#include "bench/canned_bjobs.h"
#include "lsf_adapter/bjobs_command.h"

namespace bplace::bench {
namespace {

double ThreadCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1000 + static_cast<double>(now.tv_nsec) / 1e6;
}

long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// The bytes `list` holds: its records with the heap of their strings and
// hosts, and its indexes (counted, not measured: RSS keeps what the parse
// freed).
std::size_t ListBytes(const JobList& list) {
  const auto heap = [](const std::string& text) {
    return text.capacity() > 15 ? text.capacity() + 1 : 0;  // beyond the small-string buffer
  };
  std::size_t bytes = list.records.capacity() * sizeof(lsf::JobRecord) +
                      list.keys.capacity() * sizeof(list.keys[0]);
  for (const lsf::JobRecord& job : list.records) {
    for (const std::string* text :
         {&job.job_id, &job.user, &job.status, &job.exit_reason, &job.pend_reason, &job.queue,
          &job.submit_time, &job.start_time, &job.finish_time, &job.job_name, &job.job_description,
          &job.from_host, &job.project, &job.error}) {
      bytes += heap(*text);
    }
    bytes += job.exec_hosts.capacity() * sizeof(lsf::ExecHost);
    for (const lsf::ExecHost& host : job.exec_hosts) bytes += heap(host.name);
  }
  for (const auto& [user, positions] : list.by_user) {
    bytes += sizeof(user) + heap(user) + positions.capacity() * sizeof(std::uint32_t) + 32;
  }
  return bytes;
}

template <typename Call>
double TimedMs(Call call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  return SecondsSince(start) * 1000;
}

int Run(const std::vector<int>& sizes, int users) {
  std::printf("The view of every job, %s, load %s\n\n", Timestamp().c_str(), LoadAverage().c_str());
  std::printf(
      "| jobs | answer bytes | read + index CPU | RSS growth while reading | bytes the list holds "
      "| plain bjobs (one user's %s jobs) | -u all -o \"id stat\" |\n"
      "|---|---|---|---|---|---|---|\n",
      "N/users");
  lsf::QueueDefinition normal;
  normal.name = "normal";
  const auto topology = Topology::Build({normal}, {}, {});
  for (int jobs : sizes) {
    lsf::CommandResult result;
    result.exit_code = 0;
    result.out = CannedBjobsJson(0, jobs, users);
    const std::size_t bytes = result.out.size();
    const long rss_before = RssKib();
    const double cpu_before = ThreadCpuMs();
    auto records = lsf::ReadBjobsReply(std::move(result), true);
    if (!records) throw std::runtime_error(records.error().message);
    const auto list = MakeJobList(std::move(*records), SystemTime{}, false, false);
    const double cpu_ms = ThreadCpuMs() - cpu_before;
    const long rss_after = RssKib();
    if (list->records.size() != static_cast<std::size_t>(jobs)) {
      throw std::runtime_error("the list lost jobs");
    }
    auto plain = lsf::ParseBjobsCommandLine({});
    auto all = lsf::ParseBjobsCommandLine({"-u", "all", "-o", "id stat"});
    const auto format = lsf::ParseBjobsFormat("id stat");
    std::size_t printed = 0;
    const double own_ms = TimedMs([&] {
      auto out = api::AnswerBjobsListFrom(*list, nullptr, *topology, *plain, nullptr,
                                          api::ListOwner{"user7"});
      if (!out) throw std::runtime_error(out.error());
      printed += out->out.size();
    });
    const double all_ms = TimedMs([&] {
      auto out = api::AnswerBjobsListFrom(*list, nullptr, *topology, *all, &*format,
                                          api::ListOwner{std::nullopt});
      if (!out) throw std::runtime_error(out.error());
      printed += out->out.size();
    });
    std::printf("| %d | %.1f MB | %.0f ms | %.1f MB | %.1f MB | %.2f ms | %.1f ms |\n", jobs,
                static_cast<double>(bytes) / 1e6, cpu_ms,
                static_cast<double>(rss_after - rss_before) / 1024,
                static_cast<double>(ListBytes(*list)) / 1e6, own_ms, all_ms);
    if (printed == 0) throw std::runtime_error("nothing printed");
  }
  return 0;
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "usage: jobs_view_bench run|smoke [--jobs 10000,100000] [--users 200]\n";
    return 2;
  }
  Flags flags(std::vector<std::string>(args.begin() + 1, args.end()));
  const bool smoke = args[0] == "smoke";
  const std::vector<int> sizes = flags.Ints("jobs", smoke ? "1000" : "10000,100000");
  const int users = flags.Int("users", 200);
  flags.CheckAllKnown();
  if (args[0] != "run" && !smoke) {
    std::cerr << "jobs_view_bench: unknown mode " << args[0] << "\n";
    return 2;
  }
  return Run(sizes, users);
}

}  // namespace
}  // namespace bplace::bench

int main(int argc, char** argv) {
  return bplace::bench::RunMain(argc, argv, "jobs_view_bench", bplace::bench::Main);
}
