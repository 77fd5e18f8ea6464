// Authenticator: who a request is from, per transport, token and mode. Uses
// the real passwd database: root (uid 0) always exists; uid 4242424 never does.

#include "api/auth.h"

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace::api {
namespace {

using ::testing::HasSubstr;

// `printf %s bpl_alice-token | sha256sum`, as tools/bplace-token writes it.
constexpr char kAliceLine[] =
    "sha256:adbc10796f04712395dbc9b8b216237afc86b7dbd6550008c56805a6b3315254 alice read,submit\n";
constexpr uid_t kNoSuchUid = 4242424;

std::shared_ptr<const TokenStore> Tokens(const std::string& text) {
  auto store = TokenStore::Parse(text, "tokens");
  EXPECT_TRUE(store) << store.error().message;
  return std::make_shared<const TokenStore>(store.value_or(TokenStore{}));
}

Request WithAuthorization(const std::string& value) {
  Request req;
  if (!value.empty()) req.set(boost::beast::http::field::authorization, value);
  return req;
}

RequestContext Tcp() { return RequestContext{}; }

RequestContext UnixPeer(uid_t uid) {
  RequestContext ctx;
  ctx.transport = Transport::kUnix;
  ctx.peer = PeerCredentials{1234, uid, 0};
  return ctx;
}

AuthPolicy Policy(AuthMode mode, bool anonymous_read = false) {
  AuthPolicy policy;
  policy.mode = mode;
  policy.anonymous_read = anonymous_read;
  policy.daemon_user = "alice";
  policy.daemon_uid = 4242;
  return policy;
}

TEST(AuthenticatorTest, TcpWithoutTokenIsRefusedUnlessAnonymousReadsAreOn) {
  const Authenticator closed(Policy(AuthMode::kServiceAccount), nullptr);
  auto refused = closed.Identify(WithAuthorization(""), Tcp());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnauthenticated);

  const Authenticator open(Policy(AuthMode::kServiceAccount, true), nullptr);
  auto anonymous = open.Identify(WithAuthorization(""), Tcp());
  ASSERT_TRUE(anonymous) << anonymous.error().message;
  EXPECT_EQ(anonymous->method, AuthMethod::kAnonymous);
  EXPECT_TRUE(anonymous->can_read);
  EXPECT_FALSE(anonymous->can_submit);
  EXPECT_THAT(anonymous->submit_refusal, HasSubstr("anonymous callers may not submit"));
}

TEST(AuthenticatorTest, MalformedOrUnknownTokensAre401EvenWithAnonymousReads) {
  const Authenticator auth(Policy(AuthMode::kServiceAccount, true), Tokens(kAliceLine));
  EXPECT_EQ(auth.Identify(WithAuthorization("Basic YWxpY2U6eA=="), Tcp()).error().code,
            ErrorCode::kUnauthenticated);
  EXPECT_EQ(auth.Identify(WithAuthorization("Bearer bpl_mallory"), Tcp()).error().code,
            ErrorCode::kUnauthenticated);
}

TEST(AuthenticatorTest, TokenOfTheServiceUserMaySubmitInServiceAccountMode) {
  const Authenticator auth(Policy(AuthMode::kServiceAccount), Tokens(kAliceLine));
  auto caller = auth.Identify(WithAuthorization("Bearer bpl_alice-token"), Tcp());
  ASSERT_TRUE(caller) << caller.error().message;
  EXPECT_EQ(caller->method, AuthMethod::kBearerToken);
  EXPECT_EQ(caller->user, "alice");
  EXPECT_TRUE(caller->can_read);
  EXPECT_TRUE(caller->can_submit);
  EXPECT_FALSE(caller->is_admin);
}

TEST(AuthenticatorTest, TokenOfAnotherUserMayNotSubmitInServiceAccountMode) {
  AuthPolicy policy = Policy(AuthMode::kServiceAccount);
  policy.daemon_user = "bplace";
  const Authenticator auth(policy, Tokens(kAliceLine));
  auto caller = auth.Identify(WithAuthorization("Bearer bpl_alice-token"), Tcp());
  ASSERT_TRUE(caller) << caller.error().message;
  EXPECT_FALSE(caller->can_submit);
  EXPECT_THAT(caller->submit_refusal, HasSubstr("only bplace may submit"));
}

TEST(AuthenticatorTest, PeerCredentialsDecideOnTheUnixSocket) {
  AuthPolicy policy = Policy(AuthMode::kServiceAccount);
  policy.daemon_user = "root";
  policy.daemon_uid = 0;
  const Authenticator auth(policy, Tokens(kAliceLine));
  // The header is ignored: the kernel's uid wins.
  auto root = auth.Identify(WithAuthorization("Bearer bpl_alice-token"), UnixPeer(0));
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(root->method, AuthMethod::kPeerCredentials);
  EXPECT_EQ(root->user, "root");
  EXPECT_TRUE(root->can_submit);
  EXPECT_TRUE(root->is_admin);
}

TEST(AuthenticatorTest, MultiUserModeRefusesRootAndUnknownUids) {
  const Authenticator auth(Policy(AuthMode::kMultiUser), nullptr);
  auto root = auth.Identify(WithAuthorization(""), UnixPeer(0));
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_TRUE(root->can_read);
  EXPECT_FALSE(root->can_submit);
  EXPECT_THAT(root->submit_refusal, HasSubstr("uid 0 (root) may not submit"));
  EXPECT_EQ(root->submit_refusal_code, ErrorCode::kPermissionDenied);

  auto ghost = auth.Identify(WithAuthorization(""), UnixPeer(kNoSuchUid));
  ASSERT_TRUE(ghost) << ghost.error().message;
  EXPECT_FALSE(ghost->can_submit);
  EXPECT_FALSE(ghost->is_admin);
  EXPECT_THAT(ghost->submit_refusal, HasSubstr("not in the passwd database"));
}

}  // namespace
}  // namespace bplace::api
