#pragma once

// The fixtures the tests of daemon/submit/ share: SubmitterTest, a
// ClusterCache and a Submitter over a FakeCommandRunner that answers the
// canned cluster of tests/fakes/canned_cluster.h (bsub accepts every job),
// and SubmissionServiceTest, the exactly-once layer over it with a real
// state store in a temporary directory.

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>

#include "common/manual_clock.h"
#include "daemon/submit/submission_service.h"
#include "daemon/submit/submitter.h"
#include "tests/fakes/canned_cluster.h"
#include "tests/fakes/fake_command_runner.h"

namespace bplace::testing {

using namespace std::chrono_literals;

// `bmgroup -w`: hg_two, the hosts of qc, is both hosts.
inline constexpr char kBmgroupW[] =
    "GROUP_NAME    HOSTS\n"
    "hg_two       node001 node002 \n";

// The permission query for alice, which the fixture answers with kBqueuesW.
inline const std::vector<std::string> kAliceQuery = {"bqueues", "-u", "alice", "-w"};

// A ClusterCache refreshed from the canned cluster and a Submitter over it;
// bsub accepts every job into the queue it names (job ids from 1000). One
// io_context, run on the test's thread by RunUntil.
class SubmitterTest : public ::testing::Test {
 protected:
  SubmitterTest() {
    // Refresh failures and submissions are logged; tests check them instead.
    spdlog::set_level(spdlog::level::err);
    AnswerAsCannedCluster(fake_, kBmgroupW);
  }

  // Refreshes both tiers of the cache and builds the submitter.
  Submitter& Ready() {
    if (submitter_) return *submitter_;
    cache_ = std::make_unique<ClusterCache>(io_.get_executor(), fake_, lsf_, ledger_, clock_,
                                            CacheOptions{});
    int done = 0;
    cache_->RefreshTopology([&](Result<void> r) {
      EXPECT_TRUE(r) << r.error().message;
      ++done;
    });
    cache_->RefreshLoad([&](Result<void> r) {
      EXPECT_TRUE(r) << r.error().message;
      ++done;
    });
    RunUntil([&] { return done == 2; });
    submitter_ =
        std::make_unique<Submitter>(fake_, lsf_, *cache_, ledger_, memory_, clock_, options_);
    return *submitter_;
  }

  void RunUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "condition not reached";
        return;
      }
      io_.restart();
      io_.run_one_for(50ms);
    }
  }

  SubmissionResult Submit(JobRequest job, const std::string& request_id = "rid1") {
    Submitter& submitter = Ready();
    std::optional<SubmissionResult> got;
    submitter.Submit(std::move(job), SubmitContext{"alice", request_id, std::nullopt, {}},
                     [&](SubmissionResult r) { got = std::move(r); });
    RunUntil([&] { return got.has_value(); });
    return got.value_or(SubmissionResult{});
  }

  // bsub calls so far, in order.
  std::vector<testing::RecordedCall> BsubCalls() const {
    std::vector<testing::RecordedCall> calls;
    for (auto& call : fake_.Calls()) {
      if (!call.argv.empty() && call.argv[0] == "bsub") calls.push_back(call);
    }
    return calls;
  }

  std::size_t CallsOf(const std::vector<std::string>& argv) const {
    std::size_t n = 0;
    for (const auto& call : fake_.Calls()) n += call.argv == argv;
    return n;
  }

  // The queues remembered as refused for alice (and `host`), with why.
  std::map<std::string, std::string> Refused(std::optional<std::string> host = std::nullopt) const {
    std::map<std::string, std::string> refused;
    for (auto& [queue, refusal] :
         memory_.Refusals(*cache_->Current(), clock_.SystemNow(), "alice", host)) {
      refused.emplace(queue, refusal.cause + ": " + refusal.reason);
    }
    return refused;
  }

  // bsub with `-q queue` answers `reply`.
  void BsubReplies(const std::string& queue, FakeCommandRunner::Reply reply) {
    fake_.On(
        [queue](const lsf::CommandSpec& spec) {
          return IsBsub(spec) && ValueOf(spec.argv, "-q") == queue;
        },
        [reply](const lsf::CommandSpec&) { return reply; });
  }

  static JobRequest Command(std::string command) {
    JobRequest job;
    job.command = std::move(command);
    return job;
  }

  boost::asio::io_context io_;
  FakeCommandRunner fake_{io_.get_executor()};
  lsf::LsfInvoker lsf_{"", "", 9000ms, {}};
  InflightLedger ledger_;
  ManualClock clock_;
  RefusalMemory memory_;
  SubmitterOptions options_;
  std::unique_ptr<ClusterCache> cache_;
  std::unique_ptr<Submitter> submitter_;
};

// The exactly-once layer over the submitter, with a real state store.
class SubmissionServiceTest : public SubmitterTest {
 protected:
  SubmissionServiceTest() {
    std::string pattern = ::testing::TempDir() + "bplace-service-XXXXXX";
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Reopen();
  }
  ~SubmissionServiceTest() override {
    service_.reset();
    tracker_.reset();
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A restart: the same state directory, new objects.
  void Reopen() {
    service_.reset();
    tracker_.reset();
    journal_.reset();
    auto store = JobStore::Open(dir_);
    ASSERT_TRUE(store) << store.error().message;
    journal_ = std::make_unique<JobJournal>(std::move(*store));
    tracker_ = std::make_unique<JobTracker>(io_.get_executor(), fake_, clock_, cache().store(),
                                            lsf_, journal_.get(), JobTrackerOptions{}, dialect_);
    service_ = std::make_unique<SubmissionService>(Ready(), *tracker_, journal_.get(), clock_,
                                                   fake_, lsf_, ExactlyOnceOptions{check_lsf_});
  }
  ClusterCache& cache() {
    Ready();
    return *cache_;
  }

  // One call end to end, as the API makes it: submit, render, record.
  SubmissionAnswer Call(const std::string& key, char body_hash) {
    SubmissionCall call;
    call.job = Command("true");
    call.context = SubmitContext{"alice", "req-" + key + body_hash, std::nullopt, "tag-" + key};
    call.idempotency_key = key;
    call.body_sha256 = std::string(64, body_hash);  // one hex digit, repeated
    std::mutex mutex;
    std::optional<SubmissionAnswer> got;
    service_->Submit(call, [&](SubmissionAnswer answer) {
      if (answer.kind != SubmissionAnswer::Kind::kSubmitted) {
        std::lock_guard lock(mutex);
        got = std::move(answer);
        return;
      }
      const std::string body = "{\"job_id\":\"" + answer.result.job_id + "\"}";
      service_->Record(call, answer.result, 201, body, [&, answer]() mutable {
        std::lock_guard lock(mutex);
        got = std::move(answer);
      });
    });
    RunUntil([&] {
      std::lock_guard lock(mutex);
      return got.has_value();
    });
    std::lock_guard lock(mutex);
    return got.value_or(SubmissionAnswer{});
  }

  bool check_lsf_ = false;
  BjobsDialect dialect_;
  std::string dir_;
  std::unique_ptr<JobJournal> journal_;
  std::unique_ptr<JobTracker> tracker_;
  std::unique_ptr<SubmissionService> service_;
};

}  // namespace bplace::testing
