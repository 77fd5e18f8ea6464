#include "tests/fakes/fake_command_runner.h"

#include <signal.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

namespace bplace::testing {
namespace {

using lsf::CommandResult;
using lsf::CommandSpec;
using namespace std::chrono_literals;

CommandSpec Spec(std::vector<std::string> argv) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.env = {"PATH=/usr/bin"};
  return spec;
}

// Runs `spec` on a synchronous fake and returns the reply.
Result<CommandResult> RunSync(FakeCommandRunner& fake, CommandSpec spec) {
  std::optional<Result<CommandResult>> reply;
  fake.Run(std::move(spec), [&](Result<CommandResult> result) { reply = std::move(result); });
  EXPECT_TRUE(reply.has_value()) << "no synchronous reply";
  return reply.value_or(Fail(ErrorCode::kInternal, "no reply"));
}

TEST(FakeCommandRunnerTest, RepliesByExactArgv) {
  FakeCommandRunner fake;
  fake.OnArgv({"bqueues", "-w"}, FakeCommandRunner::Output("QUEUE_NAME\n"));
  Result<CommandResult> hit = RunSync(fake, Spec({"bqueues", "-w"}));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->out, "QUEUE_NAME\n");
  EXPECT_EQ(hit->exit_code, 0);
  EXPECT_FALSE(RunSync(fake, Spec({"bqueues", "-w", "-u", "alice"})));
}

TEST(FakeCommandRunnerTest, RepliesByPrefixAndByPredicate) {
  FakeCommandRunner fake;
  fake.OnPrefix({"bsub"}, FakeCommandRunner::Output("Job <42> is submitted.\n"));
  fake.On([](const CommandSpec& spec) { return spec.stdin_data.has_value(); },
          [](const CommandSpec& spec) { return FakeCommandRunner::Output(*spec.stdin_data); });
  EXPECT_EQ(RunSync(fake, Spec({"bsub", "-q", "normal"}))->out, "Job <42> is submitted.\n");
  CommandSpec with_stdin = Spec({"cat"});
  with_stdin.stdin_data = "echoed";
  EXPECT_EQ(RunSync(fake, with_stdin)->out, "echoed");
}

TEST(FakeCommandRunnerTest, LaterRulesOverrideEarlierOnes) {
  FakeCommandRunner fake;
  fake.OnPrefix({"bhosts"}, FakeCommandRunner::Output("old"));
  EXPECT_EQ(RunSync(fake, Spec({"bhosts", "-w"}))->out, "old");
  fake.OnArgv({"bhosts", "-w"}, FakeCommandRunner::Output("new"));
  EXPECT_EQ(RunSync(fake, Spec({"bhosts", "-w"}))->out, "new");
  EXPECT_EQ(RunSync(fake, Spec({"bhosts"}))->out, "old");
}

TEST(FakeCommandRunnerTest, FailsUnmatchedCallsUnlessADefaultIsSet) {
  FakeCommandRunner fake;
  Result<CommandResult> unmatched = RunSync(fake, Spec({"lsid"}));
  ASSERT_FALSE(unmatched);
  EXPECT_EQ(unmatched.error().code, ErrorCode::kCommandFailed);
  EXPECT_NE(unmatched.error().message.find("lsid"), std::string::npos);

  fake.SetDefaultReply(FakeCommandRunner::Output("", "LSF is down.\n", 255));
  Result<CommandResult> defaulted = RunSync(fake, Spec({"lsid"}));
  ASSERT_TRUE(defaulted);
  EXPECT_EQ(defaulted->exit_code, 255);
  EXPECT_EQ(defaulted->err, "LSF is down.\n");
}

TEST(FakeCommandRunnerTest, RecordsEveryCall) {
  FakeCommandRunner fake;
  fake.SetDefaultReply(FakeCommandRunner::Output(""));
  CommandSpec bsub = Spec({"bsub", "-q", "gpu"});
  bsub.env = {"PATH=/lsf/bin", "LSF_ENVDIR=/etc/lsf"};
  bsub.stdin_data = "#!/bin/sh\nhostname\n";
  bsub.timeout = 5s;
  RunSync(fake, bsub);
  RunSync(fake, Spec({"bqueues"}));

  std::vector<RecordedCall> calls = fake.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(fake.CallCount(), 2u);
  EXPECT_EQ(calls[0].argv, bsub.argv);
  EXPECT_EQ(calls[0].env, bsub.env);
  EXPECT_EQ(calls[0].stdin_data, bsub.stdin_data);
  EXPECT_EQ(calls[0].timeout, 5s);
  EXPECT_EQ(calls[1].argv, std::vector<std::string>{"bqueues"});
  EXPECT_FALSE(calls[1].stdin_data);
}

TEST(FakeCommandRunnerTest, FailsTheNthCall) {
  FakeCommandRunner fake;
  fake.SetDefaultReply(FakeCommandRunner::Output("ok"));
  fake.FailNthCall(2, Error{ErrorCode::kCommandFailed, "fork: Resource temporarily unavailable"});
  EXPECT_TRUE(RunSync(fake, Spec({"bqueues"})));
  Result<CommandResult> second = RunSync(fake, Spec({"bqueues"}));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, "fork: Resource temporarily unavailable");
  EXPECT_TRUE(RunSync(fake, Spec({"bqueues"})));
}

TEST(FakeCommandRunnerTest, TimesOutTheNthCall) {
  FakeCommandRunner fake;
  fake.SetDefaultReply(FakeCommandRunner::Output("ok"));
  fake.TimeOutNthCall(1);
  CommandSpec spec = Spec({"bqueues"});
  spec.timeout = 1500ms;
  Result<CommandResult> first = RunSync(fake, spec);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->timed_out);
  EXPECT_EQ(first->term_signal, SIGKILL);
  EXPECT_EQ(first->elapsed, 1500ms);
  EXPECT_FALSE(RunSync(fake, spec)->timed_out);
}

TEST(FakeCommandRunnerTest, PostsRepliesToTheExecutorWhenGivenOne) {
  boost::asio::io_context io;
  FakeCommandRunner fake(io.get_executor());
  fake.SetDefaultReply(FakeCommandRunner::Output("later"));
  std::optional<Result<CommandResult>> reply;
  fake.Run(Spec({"bqueues"}), [&](Result<CommandResult> result) { reply = std::move(result); });
  EXPECT_FALSE(reply);
  io.run();
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)->out, "later");
}

TEST(FakeCommandRunnerTest, HoldsRepliesUntilReleased) {
  FakeCommandRunner fake;
  fake.SetDefaultReply(FakeCommandRunner::Output("x"));
  fake.HoldReplies();
  int delivered = 0;
  fake.Run(Spec({"bqueues"}), [&](Result<CommandResult>) { ++delivered; });
  fake.Run(Spec({"bhosts"}), [&](Result<CommandResult>) { ++delivered; });
  EXPECT_EQ(delivered, 0);
  EXPECT_EQ(fake.HeldCount(), 2u);
  EXPECT_EQ(fake.ReleaseHeld(), 2u);
  EXPECT_EQ(delivered, 2);
  fake.Run(Spec({"lsid"}), [&](Result<CommandResult>) { ++delivered; });
  EXPECT_EQ(delivered, 3);
}

TEST(FakeCommandRunnerTest, CallbackMayCallRunAgain) {
  FakeCommandRunner fake;
  fake.SetDefaultReply(FakeCommandRunner::Output("x"));
  int delivered = 0;
  fake.Run(Spec({"a"}), [&](Result<CommandResult>) {
    ++delivered;
    fake.Run(Spec({"b"}), [&](Result<CommandResult>) { ++delivered; });
  });
  EXPECT_EQ(delivered, 2);
}

TEST(FakeCommandRunnerTest, RecordsConcurrentCallsFromManyThreads) {
  FakeCommandRunner fake;
  fake.SetDefaultReply(FakeCommandRunner::Output("x"));
  std::atomic<int> delivered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        fake.Run(Spec({"bqueues"}), [&](Result<CommandResult>) { ++delivered; });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(fake.CallCount(), 400u);
  EXPECT_EQ(delivered.load(), 400);
}

}  // namespace
}  // namespace bplace::testing
