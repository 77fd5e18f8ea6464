#include "client/caller_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace bplace::client {
namespace {

TEST(CallerContextTest, UmaskIsReadWithoutChangingIt) {
  const mode_t before = ::umask(027);
  EXPECT_EQ(UmaskText(), "027");
  EXPECT_EQ(::umask(before), 027u);
}

TEST(CallerContextTest, EnvironmentKeepsTheJobsVariablesButNeverTheToken) {
  ::setenv("BPLACE_TEST_VARIABLE", "a=b c", 1);
  ::setenv("BPLACE_TOKEN", "secret", 1);
  const nlohmann::json env = EnvironmentJson();
  EXPECT_EQ(env.value("BPLACE_TEST_VARIABLE", ""), "a=b c");
  EXPECT_FALSE(env.contains("BPLACE_TOKEN"));
  EXPECT_EQ(EnvironmentMap().at("BPLACE_TOKEN"), "secret");  // the front door's own settings
  ::unsetenv("BPLACE_TOKEN");
  ::unsetenv("BPLACE_TEST_VARIABLE");
}

TEST(CallerContextTest, WorkingDirectoryIsAbsolute) {
  const auto cwd = WorkingDirectory();
  ASSERT_TRUE(cwd);
  EXPECT_EQ(cwd->front(), '/');
}

}  // namespace
}  // namespace bplace::client
