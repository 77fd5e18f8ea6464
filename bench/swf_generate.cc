#include "bench/swf_generate.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "bench/swf_schedule.h"

namespace bplace::bench {
namespace {

// One queue of the synthetic site: who goes there and for how long.
struct QueueModel {
  std::int64_t number;
  const char* name;
  int priority;
  double share;                     // of the jobs
  std::vector<std::int64_t> procs;  // equally likely sizes
  double median_run_s;
  double run_sigma;        // of the log-normal run time
  std::int64_t max_run_s;  // the queue's run limit
};

const std::vector<QueueModel>& Queues() {
  static const std::vector<QueueModel> queues = {
      {1, "short", 3, 0.40, {1, 1, 1, 2, 4}, 300, 1.0, 3600},
      {2, "normal", 2, 0.45, {1, 2, 4, 8, 16, 32}, 3600, 1.2, 86400},
      {3, "long", 1, 0.15, {16, 32, 64, 128}, 4 * 3600, 1.0, 2 * 86400},
  };
  return queues;
}

class Generator {
 public:
  explicit Generator(const GenerateOptions& options) : options_(options), rng_(options.seed) {}

  SwfJob Job(const QueueModel& queue) {
    SwfJob job;
    job.queue = queue.number;
    job.procs = job.requested_procs =
        queue.procs[std::uniform_int_distribution<std::size_t>(0, queue.procs.size() - 1)(rng_)];
    std::lognormal_distribution<double> run(std::log(queue.median_run_s), queue.run_sigma);
    job.run_s = std::clamp<std::int64_t>(std::llround(run(rng_)), 1, queue.max_run_s);
    // Users ask for more than they use, up to the queue's limit.
    const double pad = std::uniform_real_distribution<double>(1.0, 3.0)(rng_);
    job.requested_time_s = std::min<std::int64_t>(queue.max_run_s, std::llround(job.run_s * pad));
    job.status = 1;
    return job;
  }

  const QueueModel& PickQueue() {
    double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    for (const QueueModel& q : Queues()) {
      if ((u -= q.share) <= 0) return q;
    }
    return Queues().back();
  }

  // Processor-seconds per job, by sampling the same model (its caps make a
  // closed form awkward) with a separate generator.
  double MeanWork() {
    Generator sampler(GenerateOptions{.seed = options_.seed ^ 0x9e3779b97f4a7c15ULL});
    double total = 0;
    const int samples = 20000;
    for (int i = 0; i < samples; ++i) {
      const SwfJob job = sampler.Job(sampler.PickQueue());
      total += static_cast<double>(job.procs * job.run_s);
    }
    return total / samples;
  }

  std::vector<SwfJob> Jobs() {
    const double burst_mean = 70.0;  // jobs in a burst: 20..120
    const double jobs_per_event = 1.0 + options_.burst_probability * (burst_mean - 1.0);
    const double base_rate =
        static_cast<double>(options_.machine_procs) / MeanWork() / jobs_per_event;
    const std::size_t change = static_cast<std::size_t>(options_.change_at * options_.jobs);
    std::vector<SwfJob> jobs;
    double t = 0;
    while (jobs.size() < options_.jobs) {
      const double load = jobs.size() < change ? options_.load : options_.load_after;
      // A daily cycle of +-40% around the mean rate.
      const double rate =
          base_rate * load * (1.0 + 0.4 * std::sin(2 * std::numbers::pi * t / 86400));
      t += std::exponential_distribution<double>(rate)(rng_);
      const std::int64_t user = std::uniform_int_distribution<std::int64_t>(1, 200)(rng_);
      SwfJob job = Job(PickQueue());
      std::size_t count = 1;
      if (std::bernoulli_distribution(options_.burst_probability)(rng_)) {
        count = std::uniform_int_distribution<std::size_t>(20, 120)(rng_);
      }
      for (std::size_t i = 0; i < count && jobs.size() < options_.jobs; ++i) {
        job.id = static_cast<std::int64_t>(jobs.size()) + 1;
        job.submit_s = static_cast<std::int64_t>(t) + static_cast<std::int64_t>(2 * i);
        job.user = user;
        jobs.push_back(job);
      }
    }
    return jobs;
  }

 private:
  GenerateOptions options_;
  std::mt19937_64 rng_;
};

}  // namespace

SwfTrace GenerateSwf(const GenerateOptions& options) {
  SwfTrace trace;
  trace.jobs = Generator(options).Jobs();
  ScheduleOptions schedule;
  schedule.machine_procs = options.machine_procs;
  schedule.session_s = options.session_s;
  for (const QueueModel& q : Queues()) schedule.queue_priority[q.number] = q.priority;
  ScheduleEasy(trace.jobs, schedule);

  const std::size_t change = static_cast<std::size_t>(options.change_at * options.jobs);
  const std::string jobs = std::to_string(trace.jobs.size());
  trace.header = {
      {"Version", "2.2"},
      {"Computer", "synthetic (bplace bench/wait_replay generate)"},
      {"Note",
       "seed " + std::to_string(options.seed) + "; daily cycle; bursts of 20-120 like jobs"},
      {"Note", "waits from FCFS-by-priority with EASY backfilling, sessions every " +
                   std::to_string(options.session_s) + " s"},
      {"Note", "change point after job " + std::to_string(change) + ": offered load " +
                   std::to_string(options.load).substr(0, 4) + " -> " +
                   std::to_string(options.load_after).substr(0, 4)},
      {"MaxJobs", jobs},
      {"MaxRecords", jobs},
      {"MaxNodes", std::to_string(options.machine_procs)},
      {"MaxProcs", std::to_string(options.machine_procs)},
      {"MaxQueues", std::to_string(Queues().size())},
  };
  for (const QueueModel& q : Queues()) {
    trace.header.emplace_back("Queue", std::to_string(q.number) + " " + q.name);
  }
  return trace;
}

}  // namespace bplace::bench
