#include "lsf_adapter/metered_command_runner.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/fakes/fake_command_runner.h"

namespace bplace::lsf {
namespace {

using testing::FakeCommandRunner;
using ::testing::HasSubstr;

CommandSpec SpecOf(std::vector<std::string> argv) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  return spec;
}

class MeteredCommandRunnerTest : public ::testing::Test {
 protected:
  // Runs `argv` through the metered runner and returns the exposition.
  std::string RunAndRender(std::vector<std::string> argv) {
    bool called = false;
    metered_.Run(SpecOf(std::move(argv)), [&called](Result<CommandResult>) { called = true; });
    EXPECT_TRUE(called);
    return registry_.Render();
  }

  FakeCommandRunner fake_;
  metrics::Registry registry_;
  MeteredCommandRunner metered_{fake_, registry_};
};

TEST_F(MeteredCommandRunnerTest, CountsACommandByBasenameAndOutcomeWithItsDuration) {
  CommandResult ok = FakeCommandRunner::Output("QUEUE_NAME\n");
  ok.elapsed = std::chrono::milliseconds(40);
  fake_.OnPrefix({"/opt/lsf/bin/bqueues"}, ok);
  const std::string text = RunAndRender({"/opt/lsf/bin/bqueues", "-w"});
  EXPECT_THAT(text, HasSubstr("bplace_lsf_commands_total{command=\"bqueues\",outcome=\"ok\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_commands_total{command=\"bsub\",outcome=\"ok\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_command_duration_seconds_bucket{command=\"bqueues\","
                              "le=\"0.05\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_command_duration_seconds_bucket{command=\"bqueues\","
                              "le=\"0.025\"} 0\n"));
  EXPECT_THAT(text,
              HasSubstr("bplace_lsf_command_duration_seconds_sum{command=\"bqueues\"} 0.04\n"));
}

TEST_F(MeteredCommandRunnerTest, ClassifiesEveryEnding) {
  fake_.OnPrefix({"bsub"}, FakeCommandRunner::Output("", "Bad queue name\n", 255));
  fake_.OnPrefix({"bjobs"}, FakeCommandRunner::TimedOut());
  fake_.OnPrefix({"bhosts"}, FakeCommandRunner::Output("cut short"));
  fake_.OnPrefix({"bkill"}, FakeCommandRunner::Output("", "LSF is down. Please wait ...\n", 255));
  // Nothing answers lsid: the fake reports it could not start.
  RunAndRender({"bsub", "-q", "normal"});
  RunAndRender({"bjobs", "-w"});
  RunAndRender({"bhosts", "-w"});
  RunAndRender({"bkill", "12"});
  const std::string text = RunAndRender({"lsid"});
  EXPECT_THAT(text, HasSubstr("{command=\"bsub\",outcome=\"command_error\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{command=\"bjobs\",outcome=\"timeout\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{command=\"bhosts\",outcome=\"truncated\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{command=\"bkill\",outcome=\"unavailable\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{command=\"lsid\",outcome=\"not_started\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_lsf_command_duration_seconds_count{command=\"lsid\"} 0\n"));
}

TEST_F(MeteredCommandRunnerTest, OtherProgramsShareOneLabelWhateverTheirArguments) {
  fake_.SetDefaultReply(FakeCommandRunner::Output("ok\n"));
  RunAndRender({"/usr/libexec/bplace/rdma_probe", "--json"});
  const std::string text = RunAndRender({"/home/alice/bin/mytool", "alice"});
  EXPECT_THAT(text, HasSubstr("{command=\"other\",outcome=\"ok\"} 2\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("alice")));
  EXPECT_EQ(MeteredCommandRunner::CommandLabel("lsload"), "lsload");
  EXPECT_EQ(MeteredCommandRunner::CommandLabel("/x/bsubx"), "other");
}

TEST_F(MeteredCommandRunnerTest, PassesTheResultOnUnchanged) {
  fake_.OnPrefix({"lsid"}, FakeCommandRunner::Output("My cluster name is demo\n"));
  std::string out;
  metered_.Run(SpecOf({"lsid"}), [&out](Result<CommandResult> result) {
    ASSERT_TRUE(result.has_value());
    out = result->out;
  });
  EXPECT_EQ(out, "My cluster name is demo\n");
  ASSERT_EQ(fake_.Calls().size(), 1u);
  EXPECT_EQ(fake_.Calls()[0].argv, std::vector<std::string>{"lsid"});
}

}  // namespace
}  // namespace bplace::lsf
