#include "api/token_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace bplace::api {
namespace {

namespace fs = std::filesystem;

// Tokens and their SHA-256 as `printf %s TOKEN | sha256sum` prints them.
constexpr std::string_view kAliceToken = "bpl_alice-token";
constexpr std::string_view kAliceHash =
    "adbc10796f04712395dbc9b8b216237afc86b7dbd6550008c56805a6b3315254";
constexpr std::string_view kBobToken = "bpl_bob-token";
constexpr std::string_view kBobHash =
    "88159a55d0ae26e4dddf8e5660b75f26d9539469c6b3a1973c6ab8de8bc8a368";
constexpr std::string_view kCarolToken = "bpl_carol-token";
constexpr std::string_view kCarolHash =
    "e48e56858075caefc8a55e65013f5864457b149f4a20bc05beab7c2013705c90";
// FIPS 180-2's test vector: SHA-256("abc").
constexpr std::string_view kAbcHash =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

std::string Line(std::string_view hash, std::string_view user, std::string_view scopes) {
  return "sha256:" + std::string(hash) + " " + std::string(user) + " " + std::string(scopes) + "\n";
}

std::string GoodFile() {
  return "# bplace tokens\n"
         "\n" +
         Line(kAliceHash, "alice", "read,submit") +
         "   # an indented comment\n"
         "sha256:" +
         std::string(kBobHash) + "\tbob\t\tread  \n" + Line(kCarolHash, "carol", "admin");
}

// The problem Parse reports for `text` (named "tokens"), or "" when it parses.
std::string ParseError(const std::string& text) {
  const Result<TokenStore> store = TokenStore::Parse(text, "tokens");
  if (store) return "";
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
  return store.error().message;
}

TEST(TokenStoreParseTest, ParsesGoodFile) {
  const Result<TokenStore> store = TokenStore::Parse(GoodFile(), "tokens");
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ(store->size(), 3U);
}

TEST(TokenStoreParseTest, EmptyFileGivesEmptyStore) {
  const Result<TokenStore> store = TokenStore::Parse("# nothing yet\n\n", "tokens");
  ASSERT_TRUE(store);
  EXPECT_EQ(store->size(), 0U);
  EXPECT_FALSE(store->Authenticate(kAliceToken));
}

TEST(TokenStoreParseTest, AcceptsCrlfUppercaseHexAndNoFinalNewline) {
  std::string upper(kAbcHash);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const Result<TokenStore> store =
      TokenStore::Parse("sha256:" + upper + " dave read\r\n# x\r\n" +
                            "sha256:" + std::string(kAliceHash) + " alice read",
                        "tokens");
  ASSERT_TRUE(store) << store.error().message;
  const auto grant = store->Authenticate("abc");
  ASSERT_TRUE(grant);
  EXPECT_EQ(grant->user, "dave");
  EXPECT_TRUE(store->Authenticate(kAliceToken));
}

TEST(TokenStoreParseTest, AllowsSeveralTokensForOneUser) {
  const Result<TokenStore> store = TokenStore::Parse(
      Line(kAliceHash, "alice", "read") + Line(kBobHash, "alice", "submit"), "tokens");
  ASSERT_TRUE(store);
  EXPECT_EQ(store->Authenticate(kAliceToken)->scopes, Scopes{Scope::kRead});
  EXPECT_EQ(store->Authenticate(kBobToken)->scopes, Scopes{Scope::kSubmit});
}

TEST(TokenStoreParseTest, NamesFileAndLineOfUnknownScope) {
  EXPECT_EQ(ParseError("# tokens\n\n" + Line(kAliceHash, "alice", "read,wrte")),
            "tokens:3: unknown scope `wrte`; expected read, submit or admin");
}

TEST(TokenStoreParseTest, RefusesScopesSpelledOtherwise) {
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "Read")),
            "tokens:1: unknown scope `Read`; expected read, submit or admin");
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read,,submit")),
            "tokens:1: empty scope in `read,,submit`");
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read,")), "tokens:1: empty scope in `read,`");
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read,submit,read")),
            "tokens:1: scope `read` listed twice");
}

TEST(TokenStoreParseTest, RefusesWrongNumberOfFields) {
  EXPECT_EQ(ParseError("sha256:" + std::string(kAliceHash) + " alice\n"),
            "tokens:1: expected `sha256:<hex> <user> <scopes>`, got 2 fields");
  EXPECT_EQ(ParseError("sha256:" + std::string(kAliceHash) + "\n"),
            "tokens:1: expected `sha256:<hex> <user> <scopes>`, got 1 field");
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read # trailing comment")),
            "tokens:1: expected `sha256:<hex> <user> <scopes>`, got 6 fields");
  // Scopes with a space after the comma are two fields, not a list.
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read, submit")),
            "tokens:1: expected `sha256:<hex> <user> <scopes>`, got 4 fields");
}

TEST(TokenStoreParseTest, RefusesBadHashes) {
  EXPECT_EQ(ParseError(std::string(kAliceHash) + " alice read\n"),
            "tokens:1: hash must start with `sha256:`");
  EXPECT_EQ(ParseError("SHA256:" + std::string(kAliceHash) + " alice read\n"),
            "tokens:1: hash must start with `sha256:`");
  EXPECT_EQ(ParseError(Line(kAliceHash.substr(1), "alice", "read")),
            "tokens:1: hash must be 64 hex digits, got 63 characters");
  EXPECT_EQ(ParseError(Line(std::string(kAliceHash) + "0", "alice", "read")),
            "tokens:1: hash must be 64 hex digits, got 65 characters");
  std::string bad(kAliceHash);
  bad[10] = 'g';
  EXPECT_EQ(ParseError(Line(bad, "alice", "read")), "tokens:1: hash has a non-hex character `g`");
}

TEST(TokenStoreParseTest, RefusesDuplicateHashEvenInOtherCase) {
  std::string upper(kAliceHash);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read") + "# x\n" + Line(upper, "bob", "submit")),
            "tokens:3: duplicate token hash (first on line 1)");
}

TEST(TokenStoreParseTest, RefusesBadUserNames) {
  const std::string expected_tail = "`: 1 to 64 of [A-Za-z0-9._-], not starting with - or .";
  EXPECT_EQ(ParseError(Line(kAliceHash, "-alice", "read")),
            "tokens:1: bad user name `-alice" + expected_tail);
  EXPECT_EQ(ParseError(Line(kAliceHash, ".alice", "read")),
            "tokens:1: bad user name `.alice" + expected_tail);
  EXPECT_EQ(ParseError(Line(kAliceHash, "al/ice", "read")),
            "tokens:1: bad user name `al/ice" + expected_tail);
  EXPECT_EQ(ParseError(Line(kAliceHash, std::string(65, 'a'), "read")),
            "tokens:1: bad user name `" + std::string(65, 'a') + expected_tail);
  EXPECT_EQ(ParseError(Line(kAliceHash, std::string(64, 'a'), "read")), "");
  EXPECT_EQ(ParseError(Line(kAliceHash, "first.last_2-x", "read")), "");
}

TEST(TokenStoreParseTest, RefusesControlCharacters) {
  EXPECT_EQ(ParseError(Line(kAliceHash, "alice", "read") + "sha256:" + std::string(kBobHash) +
                       " bob\x1b[2K read\n"),
            "tokens:2: control character 0x1b");
  // A bare CR in mid-line would let a line look like another in a terminal.
  EXPECT_EQ(ParseError("sha256:" + std::string(kBobHash) + " bob\r read\n"),
            "tokens:1: control character 0x0d");
}

TEST(TokenStoreParseTest, RefusesTextOverOneMebibyte) {
  const std::string text(TokenStore::kMaxFileBytes + 1, '#');
  EXPECT_EQ(ParseError(text), "tokens: larger than 1048576 bytes");
}

TEST(ScopesTest, EachScopeStandsAlone) {
  const Scopes admin{Scope::kAdmin};
  EXPECT_TRUE(admin.HasScope(Scope::kAdmin));
  EXPECT_FALSE(admin.HasScope(Scope::kRead));
  EXPECT_FALSE(admin.HasScope(Scope::kSubmit));
  EXPECT_TRUE(Scopes{}.empty());
  EXPECT_EQ((Scopes{Scope::kAdmin, Scope::kRead}).ToString(), "read,admin");
  EXPECT_EQ(Scopes{}.ToString(), "");
  EXPECT_EQ(ParseScope("submit"), Scope::kSubmit);
  EXPECT_EQ(ParseScope("SUBMIT"), std::nullopt);
}

class TokenStoreAuthenticateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<TokenStore> store = TokenStore::Parse(GoodFile(), "tokens");
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
  }
  TokenStore store_;
};

TEST_F(TokenStoreAuthenticateTest, ReturnsUserAndScopesOfMatchingToken) {
  const std::optional<TokenGrant> alice = store_.Authenticate(kAliceToken);
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->user, "alice");
  EXPECT_TRUE(alice->scopes.HasScope(Scope::kRead));
  EXPECT_TRUE(alice->scopes.HasScope(Scope::kSubmit));
  EXPECT_FALSE(alice->scopes.HasScope(Scope::kAdmin));

  const std::optional<TokenGrant> bob = store_.Authenticate(kBobToken);
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->user, "bob");
  EXPECT_EQ(bob->scopes, Scopes{Scope::kRead});

  const std::optional<TokenGrant> carol = store_.Authenticate(kCarolToken);
  ASSERT_TRUE(carol);
  EXPECT_EQ(carol->user, "carol");
  EXPECT_EQ(carol->scopes, Scopes{Scope::kAdmin});
}

TEST_F(TokenStoreAuthenticateTest, RefusesUnknownToken) {
  EXPECT_FALSE(store_.Authenticate("bpl_mallory-token"));
}

TEST_F(TokenStoreAuthenticateTest, RefusesTokenInOtherCase) {
  EXPECT_FALSE(store_.Authenticate("BPL_ALICE-TOKEN"));
  EXPECT_FALSE(store_.Authenticate("bpl_Alice-token"));
}

TEST_F(TokenStoreAuthenticateTest, RefusesPrefixAndExtensionOfRealToken) {
  EXPECT_FALSE(store_.Authenticate(kAliceToken.substr(0, kAliceToken.size() - 1)));
  EXPECT_FALSE(store_.Authenticate("bpl_"));
  EXPECT_FALSE(store_.Authenticate(std::string(kAliceToken) + "x"));
  EXPECT_FALSE(store_.Authenticate(std::string(kAliceToken) + "\n"));
}

TEST_F(TokenStoreAuthenticateTest, RefusesEmptyToken) { EXPECT_FALSE(store_.Authenticate("")); }

TEST_F(TokenStoreAuthenticateTest, RefusesTheHashPresentedAsToken) {
  EXPECT_FALSE(store_.Authenticate(kAliceHash));
  EXPECT_FALSE(store_.Authenticate("sha256:" + std::string(kAliceHash)));
}

TEST(TokenStoreTest, DefaultStoreAuthenticatesNoOne) {
  const TokenStore store;
  EXPECT_EQ(store.size(), 0U);
  EXPECT_FALSE(store.Authenticate(kAliceToken));
}

TEST(BearerTokenTest, ExtractsToken) {
  EXPECT_EQ(BearerToken("Bearer bpl_abc-DEF_123"), "bpl_abc-DEF_123");
  EXPECT_EQ(BearerToken("bearer abc"), "abc");
  EXPECT_EQ(BearerToken("BEARER abc"), "abc");
  EXPECT_EQ(BearerToken("bEaReR abc"), "abc");
  EXPECT_EQ(BearerToken("Bearer   abc"), "abc");
  EXPECT_EQ(BearerToken("Bearer a.b~c+d/e=="), "a.b~c+d/e==");
}

TEST(BearerTokenTest, RefusesOtherSchemesAndMissingToken) {
  EXPECT_EQ(BearerToken(""), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer    "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearerabc"), std::nullopt);
  EXPECT_EQ(BearerToken("Basic YWxpY2U6cHc="), std::nullopt);
  EXPECT_EQ(BearerToken("Bearers abc"), std::nullopt);
  EXPECT_EQ(BearerToken(" Bearer abc"), std::nullopt);
  EXPECT_EQ(BearerToken("abc"), std::nullopt);
}

TEST(BearerTokenTest, RefusesWhitespaceControlAndOtherCharacters) {
  EXPECT_EQ(BearerToken("Bearer abc def"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer abc "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer\tabc"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer abc\t"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer ab\x01"
                        "c"),
            std::nullopt);
  EXPECT_EQ(BearerToken(std::string_view("Bearer ab\0c", 11)), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer abc\r\n"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer \"abc\""), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer abc,def"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer ==="), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer a=b"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer \xc3\xa9t\xc3\xa9"), std::nullopt);
}

// A fresh directory under the test temp dir, removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "bplace-auth-XXXXXX";
    const char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string Path(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

std::string WriteFile(const TempDir& dir, std::string_view name, const std::string& text,
                      mode_t mode) {
  const std::string path = dir.Path(name);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
  }
  EXPECT_EQ(chmod(path.c_str(), mode), 0);
  return path;
}

class TokenStoreLoadTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(TokenStoreLoadTest, LoadsPrivateFile) {
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0600);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ(store->size(), 3U);
  EXPECT_EQ(store->Authenticate(kAliceToken)->user, "alice");
}

TEST_F(TokenStoreLoadTest, LoadsOwnerReadOnlyFile) {
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0400);
  EXPECT_TRUE(TokenStore::Load(path));
}

TEST_F(TokenStoreLoadTest, RefusesFileReadableByOthers) {
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0644);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(store.error().message,
            path + ": readable by group or others (mode 0644); run chmod 600");
}

TEST_F(TokenStoreLoadTest, RefusesFileReadableByGroup) {
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0640);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            path + ": readable by group or others (mode 0640); run chmod 600");
}

TEST_F(TokenStoreLoadTest, RefusesFileWritableByGroup) {
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0620);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            path + ": writable by group or others (mode 0620); run chmod 600");
}

TEST_F(TokenStoreLoadTest, RefusesFileExecutableByOthers) {
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0601);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message, path + ": open to group or others (mode 0601); run chmod 600");
}

TEST_F(TokenStoreLoadTest, RefusesSymbolicLinkEvenToGoodFile) {
  const std::string target = WriteFile(dir_, "real", GoodFile(), 0600);
  const std::string link = dir_.Path("tokens");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const Result<TokenStore> store = TokenStore::Load(link);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(store.error().message, link + ": is a symbolic link; name the file itself");
}

TEST_F(TokenStoreLoadTest, RefusesDirectory) {
  const std::string path = dir_.Path("tokens.d");
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(store.error().message, path + ": not a regular file (directory)");
}

TEST_F(TokenStoreLoadTest, RefusesFifoWithoutBlocking) {
  const std::string path = dir_.Path("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message, path + ": not a regular file (fifo)");
}

TEST_F(TokenStoreLoadTest, ReportsMissingFileAsNotFound) {
  const std::string path = dir_.Path("missing");
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store.error().message, path + ": open: No such file or directory");
}

TEST_F(TokenStoreLoadTest, RefusesFileOwnedBySomeoneElse) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  const std::string path = WriteFile(dir_, "tokens", GoodFile(), 0600);
  ASSERT_EQ(chown(path.c_str(), 4242, 4242), 0);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(store.error().message,
            path + ": owned by uid 4242; must be owned by root or by the daemon's user (uid 0)");
}

TEST_F(TokenStoreLoadTest, NamesPathAndLineOfParseError) {
  const std::string path =
      WriteFile(dir_, "tokens", "# header\n" + Line(kAliceHash, "alice", "wrte"), 0600);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            path + ":2: unknown scope `wrte`; expected read, submit or admin");
}

TEST_F(TokenStoreLoadTest, RefusesFileOverOneMebibyte) {
  const std::string path =
      WriteFile(dir_, "tokens", std::string(TokenStore::kMaxFileBytes + 1, '#'), 0600);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message, path + ": larger than 1048576 bytes");
}

// Runs `command` with /bin/sh; returns its stdout and exit status.
struct CommandOutput {
  std::string out;
  int status = -1;
};

CommandOutput RunShell(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// True when `token` looks like what tools/bplace-token prints: "bpl_" and 43
// base64url characters.
bool IsToolToken(std::string_view token) {
  if (token.size() != 4 + 43 || !token.starts_with("bpl_")) return false;
  for (const char c : token.substr(4)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// True when `line` is "sha256:<64 lowercase hex digits>" followed by `rest`.
bool IsToolLine(std::string_view line, std::string_view rest) {
  constexpr std::string_view kPrefix = "sha256:";
  if (line.size() != kPrefix.size() + 64 + rest.size() || !line.starts_with(kPrefix) ||
      !line.ends_with(rest)) {
    return false;
  }
  for (const char c : line.substr(kPrefix.size(), 64)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

std::string StripNewline(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

TEST(BplaceTokenToolTest, PrintsTokenThatItsLineAuthenticates) {
  const TempDir dir;
  const std::string err_path = dir.Path("stderr");
  const CommandOutput run =
      RunShell(std::string(BPLACE_TOKEN_TOOL) + " alice read,submit 2>" + err_path);
  ASSERT_EQ(run.status, 0);
  const std::string token = StripNewline(run.out);
  EXPECT_TRUE(IsToolToken(token)) << token;
  const std::string line = ReadAll(err_path);
  EXPECT_TRUE(IsToolLine(line, " alice read,submit\n")) << line;
  EXPECT_EQ(line.find(token), std::string::npos);

  const std::string path = WriteFile(dir, "tokens", "# made by bplace-token\n" + line, 0600);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_TRUE(store) << store.error().message;
  const std::optional<TokenGrant> grant = store->Authenticate(token);
  ASSERT_TRUE(grant);
  EXPECT_EQ(grant->user, "alice");
  EXPECT_EQ(grant->scopes, (Scopes{Scope::kRead, Scope::kSubmit}));
  EXPECT_EQ(BearerToken("Bearer " + token), token);
}

TEST(BplaceTokenToolTest, AppendsLinesToPrivateFile) {
  const TempDir dir;
  const std::string path = dir.Path("tokens");
  const std::string tool(BPLACE_TOKEN_TOOL);
  const CommandOutput first = RunShell(tool + " --append " + path + " alice read 2>/dev/null");
  const CommandOutput second =
      RunShell(tool + " --append " + path + " bob submit,admin 2>/dev/null");
  ASSERT_EQ(first.status, 0);
  ASSERT_EQ(second.status, 0);
  EXPECT_NE(first.out, second.out);

  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  const Result<TokenStore> store = TokenStore::Load(path);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ(store->size(), 2U);
  EXPECT_EQ(store->Authenticate(StripNewline(first.out))->user, "alice");
  EXPECT_EQ(store->Authenticate(StripNewline(second.out))->scopes,
            (Scopes{Scope::kSubmit, Scope::kAdmin}));
}

TEST(BplaceTokenToolTest, RefusesToAppendToFileOthersCanRead) {
  const TempDir dir;
  const std::string path = WriteFile(dir, "tokens", "", 0644);
  const CommandOutput run =
      RunShell(std::string(BPLACE_TOKEN_TOOL) + " --append " + path + " alice read 2>/dev/null");
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(ReadAll(path), "");
}

TEST(BplaceTokenToolTest, HashesTokenFromStdin) {
  const CommandOutput run =
      RunShell("printf %s " + std::string(kAliceToken) + " | " + BPLACE_TOKEN_TOOL + " --hash");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "sha256:" + std::string(kAliceHash) + "\n");
}

TEST(BplaceTokenToolTest, RefusesBadArgumentsWithUsageStatus) {
  const std::string tool(BPLACE_TOKEN_TOOL);
  for (const std::string args :
       {"", "alice", "alice read extra", "alice wrte", "alice read,,submit", "alice read,read",
        "-alice read", "'al ice' read", "alice ''", "--bogus alice read"}) {
    const CommandOutput run = RunShell(tool + " " + args + " 2>/dev/null");
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(run.out, "") << args;
  }
}

}  // namespace
}  // namespace bplace::api
