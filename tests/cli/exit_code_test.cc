#include "cli/exit_code.h"

#include <gtest/gtest.h>

namespace bplace::cli {
namespace {

TEST(ExitCodeForStatus, SuccessIsZeroEveryRefusalOne) {
  for (int status : {200, 201, 202}) EXPECT_EQ(ExitCodeForStatus(status), ExitCode::kOk) << status;
  for (int status : {400, 401, 403, 404, 409, 415, 422, 429, 500, 502, 503, 504}) {
    EXPECT_EQ(ExitCodeForStatus(status), ExitCode::kRefused) << status;
  }
  for (int status : {100, 301, 304}) EXPECT_EQ(ExitCodeForStatus(status), ExitCode::kRefused);
}

TEST(ExitCode, ValuesAreTheDocumentedOnes) {
  EXPECT_EQ(static_cast<int>(ExitCode::kOk), 0);
  EXPECT_EQ(static_cast<int>(ExitCode::kRefused), 1);
  EXPECT_EQ(static_cast<int>(ExitCode::kUsage), 2);
  EXPECT_EQ(static_cast<int>(ExitCode::kUnreachable), 3);
  const std::string help = kExitCodesHelp;
  for (const char* code : {"0 ok", "1 refused", "2 usage", "3 bplaced unreachable"}) {
    EXPECT_NE(help.find(code), std::string::npos) << code;
  }
}

}  // namespace
}  // namespace bplace::cli
