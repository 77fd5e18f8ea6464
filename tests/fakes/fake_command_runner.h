#pragma once

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>

#include "common/result.h"
#include "lsf_adapter/command_runner.h"

namespace bplace::testing {

// One call as the fake received it.
struct RecordedCall {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::optional<std::string> stdin_data;
  std::chrono::milliseconds timeout{0};
  std::optional<lsf::RunAs> run_as;
};

// A CommandRunner for unit tests: canned replies chosen by argv, every call
// recorded, no process started.
//
// A reply is looked up in this order: a per-call override (FailNthCall,
// TimeOutNthCall), then the rules (OnArgv, OnPrefix, On) from the most
// recently added to the oldest, so a test can replace an earlier reply by
// adding a new rule; then the default reply. Without SetDefaultReply an
// unmatched call fails with kCommandFailed naming its argv, which shows up
// unexpected calls in test output.
//
// Delivery: constructed with an executor, the callback is posted to it
// (never run inside Run, like the real runner); constructed without one, it
// runs synchronously inside Run on the caller's thread, after the fake's
// lock is released (so a callback may call Run again). HoldReplies() keeps
// replies back until ReleaseHeld(), to test what happens while calls are in
// flight.
//
// Thread-safe: every method may be called from any thread, concurrently.
class FakeCommandRunner final : public lsf::CommandRunner {
 public:
  using Reply = Result<lsf::CommandResult>;
  using Matcher = std::function<bool(const lsf::CommandSpec&)>;
  using Responder = std::function<Reply(const lsf::CommandSpec&)>;

  // Delivers callbacks synchronously inside Run.
  FakeCommandRunner() = default;

  // Delivers callbacks by posting them to `executor`.
  explicit FakeCommandRunner(boost::asio::any_io_executor executor)
      : executor_(std::move(executor)) {}

  // A successful run that printed `out` (and `err`) and exited with
  // `exit_code`.
  static lsf::CommandResult Output(std::string out, std::string err = {}, int exit_code = 0) {
    lsf::CommandResult result;
    result.exit_code = exit_code;
    result.out = std::move(out);
    result.err = std::move(err);
    return result;
  }

  // What the real runner reports when the timeout killed the command: killed
  // by SIGKILL, timed_out set, with whatever was printed before.
  static lsf::CommandResult TimedOut(std::string out = {}, std::string err = {}) {
    lsf::CommandResult result;
    result.exit_code = -1;
    result.term_signal = SIGKILL;
    result.timed_out = true;
    result.out = std::move(out);
    result.err = std::move(err);
    return result;
  }

  // Replies `reply` to calls whose argv equals `argv` exactly.
  void OnArgv(std::vector<std::string> argv, Reply reply) {
    On([argv = std::move(argv)](const lsf::CommandSpec& spec) { return spec.argv == argv; },
       [reply = std::move(reply)](const lsf::CommandSpec&) { return reply; });
  }

  // Replies `reply` to calls whose argv starts with `prefix` (e.g. {"bsub"}).
  void OnPrefix(std::vector<std::string> prefix, Reply reply) {
    On(
        [prefix = std::move(prefix)](const lsf::CommandSpec& spec) {
          return spec.argv.size() >= prefix.size() &&
                 std::equal(prefix.begin(), prefix.end(), spec.argv.begin());
        },
        [reply = std::move(reply)](const lsf::CommandSpec&) { return reply; });
  }

  // Replies with `responder(spec)` to calls for which `matcher(spec)` holds.
  // Both are called under the fake's lock: they must not call the fake.
  void On(Matcher matcher, Responder responder) {
    std::lock_guard lock(mu_);
    rules_.push_back({std::move(matcher), std::move(responder)});
  }

  // Replaces the reply to calls no rule matches.
  void SetDefaultReply(Reply reply) {
    std::lock_guard lock(mu_);
    default_reply_ = std::move(reply);
  }

  // The `n`th call to Run (counting from 1, over all argv) fails with
  // `error`, whatever the rules say.
  void FailNthCall(std::size_t n, Error error) {
    std::lock_guard lock(mu_);
    overrides_[n] = Reply(tl::unexpected(std::move(error)));
  }

  // The `n`th call to Run (counting from 1) times out: TimedOut() with
  // elapsed equal to that call's spec.timeout.
  void TimeOutNthCall(std::size_t n) {
    std::lock_guard lock(mu_);
    overrides_[n] = std::nullopt;
  }

  // From now on replies are kept back until ReleaseHeld().
  void HoldReplies() {
    std::lock_guard lock(mu_);
    holding_ = true;
  }

  // Delivers every held reply, in call order, and stops holding. Returns how
  // many were released.
  std::size_t ReleaseHeld() {
    std::vector<Delivery> held;
    {
      std::lock_guard lock(mu_);
      holding_ = false;
      held.swap(held_);
    }
    for (Delivery& delivery : held) Deliver(std::move(delivery));
    return held.size();
  }

  // Replies held back by HoldReplies() and not yet released.
  std::size_t HeldCount() const {
    std::lock_guard lock(mu_);
    return held_.size();
  }

  // Every call so far, in the order Run received them.
  std::vector<RecordedCall> Calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

  // Number of calls to Run so far.
  std::size_t CallCount() const {
    std::lock_guard lock(mu_);
    return calls_.size();
  }

  // Records the call and delivers the chosen reply as described above.
  void Run(lsf::CommandSpec spec, Callback done) override {
    Delivery delivery;
    delivery.done = std::move(done);
    {
      std::lock_guard lock(mu_);
      calls_.push_back({spec.argv, spec.env, spec.stdin_data, spec.timeout, spec.run_as});
      delivery.reply = ChooseReply(calls_.size(), spec);
      if (holding_) {
        held_.push_back(std::move(delivery));
        return;
      }
    }
    Deliver(std::move(delivery));
  }

 private:
  struct Rule {
    Matcher matcher;
    Responder responder;
  };
  struct Delivery {
    Callback done;
    Reply reply;
  };

  // Called with mu_ held.
  Reply ChooseReply(std::size_t call_number, const lsf::CommandSpec& spec) const {
    if (auto it = overrides_.find(call_number); it != overrides_.end()) {
      if (it->second) return *it->second;
      lsf::CommandResult result = TimedOut();
      result.elapsed = spec.timeout;
      return result;
    }
    for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
      if (rule->matcher(spec)) return rule->responder(spec);
    }
    if (default_reply_) return *default_reply_;
    std::string argv;
    for (const std::string& arg : spec.argv) argv += (argv.empty() ? "" : " ") + arg;
    return tl::unexpected(
        Error{ErrorCode::kCommandFailed, "FakeCommandRunner: no reply for argv: " + argv});
  }

  void Deliver(Delivery delivery) {
    if (executor_) {
      boost::asio::post(executor_,
                        [done = std::move(delivery.done),
                         reply = std::move(delivery.reply)]() mutable { done(std::move(reply)); });
    } else {
      delivery.done(std::move(delivery.reply));
    }
  }

  const boost::asio::any_io_executor executor_;  // empty: deliver synchronously

  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::optional<Reply> default_reply_;
  // Call number -> the error to fail it with, or nullopt to time it out.
  std::map<std::size_t, std::optional<Reply>> overrides_;
  std::vector<RecordedCall> calls_;
  bool holding_ = false;
  std::vector<Delivery> held_;
};

}  // namespace bplace::testing
