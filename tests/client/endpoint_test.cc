#include "client/endpoint.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace bplace::client {
namespace {

TEST(ParseEndpoint, ReadsUnixAndHttp) {
  auto unix_socket = ParseEndpoint("unix:/run/bplace/bplace.sock");
  ASSERT_TRUE(unix_socket.has_value());
  EXPECT_EQ(unix_socket->kind, Endpoint::Kind::kUnix);
  EXPECT_EQ(unix_socket->path, "/run/bplace/bplace.sock");
  auto tcp = ParseEndpoint("http://127.0.0.1:8080/");
  ASSERT_TRUE(tcp.has_value());
  EXPECT_EQ(tcp->kind, Endpoint::Kind::kTcp);
  EXPECT_EQ(tcp->host, "127.0.0.1");
  EXPECT_EQ(tcp->port, "8080");
  auto v6 = ParseEndpoint("http://[::1]:9090");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "9090");
}

TEST(ParseEndpoint, RefusesWhatItCannotUseNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"unix:relative.sock", "ABSOLUTE"},
      {"https://127.0.0.1:1", "plain HTTP"},
      {"http://127.0.0.1", "no port"},
      {"http://127.0.0.1:x", "port must be"},
      {"http://127.0.0.1:70000", "port must"},
      {"http://127.0.0.1:80/v1", "no path"},
      {"127.0.0.1:8080", "expected unix:"},
      {"unix:/tmp/"
       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
       "aaaaaaaaaaaaaaaa",
       "longer than 107"},
      {"http://:80", "no host"},
  };
  for (const auto& [url, problem] : cases) {
    auto parsed = ParseEndpoint(url);
    ASSERT_FALSE(parsed.has_value()) << url;
    EXPECT_NE(parsed.error().message.find(problem), std::string::npos)
        << url << ": " << parsed.error().message;
  }
}

TEST(ChooseEndpoint, OptionThenEnvironmentThenTheSocket) {
  EXPECT_EQ(ChooseEndpoint("", {})->text, kDefaultUrl);
  EXPECT_EQ(ChooseEndpoint("", {{"BPLACE_URL", "http://127.0.0.1:1"}})->text, "http://127.0.0.1:1");
  EXPECT_EQ(ChooseEndpoint("unix:/x", {{"BPLACE_URL", "http://127.0.0.1:1"}})->text, "unix:/x");
  auto bad = ChooseEndpoint("", {{"BPLACE_URL", "ftp://x"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message.rfind("$BPLACE_URL ", 0), 0u) << bad.error().message;
}

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/bplace-cli-token-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    home_ = pattern;
    std::filesystem::create_directories(home_ / ".config/bplace");
  }
  void TearDown() override { std::filesystem::remove_all(home_); }
  void WriteToken(const std::string& text, mode_t mode) {
    const auto path = home_ / ".config/bplace/token";
    std::ofstream(path) << text;
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
  }
  std::map<std::string, std::string> Env() const { return {{"HOME", home_.string()}}; }
  std::filesystem::path home_;
};

TEST_F(TokenFileTest, EnvironmentWinsOverTheFile) {
  WriteToken("from-file\n", 0600);
  auto env = Env();
  env["BPLACE_TOKEN"] = "from-env";
  EXPECT_EQ(ChooseToken(env).value(), "from-env");
  EXPECT_EQ(ChooseToken(Env()).value(), "from-file");
}

TEST_F(TokenFileTest, NoFileIsNoToken) {
  auto token = ChooseToken(Env());
  ASSERT_TRUE(token.has_value());
  EXPECT_FALSE(token->has_value());
}

TEST_F(TokenFileTest, RefusesAFileGroupOrOthersCanRead) {
  for (mode_t mode : {0644, 0640, 0604, 0660}) {
    WriteToken("secret\n", mode);
    auto token = ChooseToken(Env());
    ASSERT_FALSE(token.has_value()) << std::oct << mode;
    EXPECT_EQ(token.error().code, ErrorCode::kPermissionDenied);
    EXPECT_NE(token.error().message.find("accessible by group or others"), std::string::npos);
    EXPECT_NE(token.error().message.find("chmod 600"), std::string::npos);
  }
}

TEST_F(TokenFileTest, XdgConfigHomeComesFirstAndAnEmptyFileIsAnError) {
  EXPECT_EQ(TokenFilePath({{"XDG_CONFIG_HOME", "/c"}, {"HOME", "/h"}}), "/c/bplace/token");
  EXPECT_EQ(TokenFilePath({{"HOME", "/h"}}), "/h/.config/bplace/token");
  WriteToken("\n", 0600);
  auto token = ChooseToken(Env());
  ASSERT_FALSE(token.has_value());
  EXPECT_NE(token.error().message.find("empty"), std::string::npos);
}

}  // namespace
}  // namespace bplace::client
