#include "api/auth.h"

#include <boost/beast/http/field.hpp>

namespace bplace::api {
namespace {

// Long enough that a busy user costs one NSS lookup per few minutes, short
// enough that a removed account stops working soon.
constexpr auto kIdentityTtl = std::chrono::minutes(5);
// Bounds the caches; entries are few (local users), this only guards floods.
constexpr std::size_t kMaxCachedIdentities = 10000;

}  // namespace

const char* AuthMethodName(AuthMethod method) {
  switch (method) {
    case AuthMethod::kPeerCredentials:
      return "peer_credentials";
    case AuthMethod::kBearerToken:
      return "bearer_token";
    case AuthMethod::kAnonymous:
      return "anonymous";
  }
  return "anonymous";
}

Authenticator::Authenticator(AuthPolicy policy, std::shared_ptr<const TokenStore> tokens)
    : policy_(std::move(policy)),
      tokens_(tokens ? std::move(tokens) : std::make_shared<const TokenStore>()) {}

void Authenticator::SetTokens(std::shared_ptr<const TokenStore> tokens) {
  tokens_.store(tokens ? std::move(tokens) : std::make_shared<const TokenStore>());
}

Result<identity::UserIdentity> Authenticator::LookupUid(uid_t uid) const {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(cache_mutex_);
    const auto it = by_uid_.find(uid);
    if (it != by_uid_.end() && it->second.expires > now) return it->second.identity;
  }
  Result<identity::UserIdentity> identity = identity::LookupUserByUid(uid);
  std::lock_guard lock(cache_mutex_);
  if (by_uid_.size() >= kMaxCachedIdentities) by_uid_.clear();
  // A directory that is down (kUnavailable) is not remembered.
  if (identity || identity.error().code == ErrorCode::kNotFound) {
    by_uid_.insert_or_assign(uid, Cached{identity, now + kIdentityTtl});
  }
  return identity;
}

Result<identity::UserIdentity> Authenticator::LookupName(const std::string& name) const {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(cache_mutex_);
    const auto it = by_name_.find(name);
    if (it != by_name_.end() && it->second.expires > now) return it->second.identity;
  }
  Result<identity::UserIdentity> identity = identity::LookupUserByName(name);
  std::lock_guard lock(cache_mutex_);
  if (by_name_.size() >= kMaxCachedIdentities) by_name_.clear();
  if (identity || identity.error().code == ErrorCode::kNotFound) {
    by_name_.insert_or_assign(name, Cached{identity, now + kIdentityTtl});
  }
  return identity;
}

void Authenticator::DecideSubmit(Caller& caller) const {
  if (!caller.can_submit) return;
  if (policy_.mode == AuthMode::kServiceAccount) {
    if (caller.user != policy_.daemon_user) {
      caller.can_submit = false;
      caller.submit_refusal = "bplaced runs in service-account mode as " + policy_.daemon_user +
                              "; only " + policy_.daemon_user + " may submit, and you are " +
                              (caller.user.empty() ? std::string("unknown") : caller.user);
    }
    return;
  }
  auto identity = SubmitterIdentity(caller);
  if (!identity) {
    caller.can_submit = false;
    caller.submit_refusal = identity.error().message;
    caller.submit_refusal_code = identity.error().code;
  }
}

Result<identity::UserIdentity> Authenticator::SubmitterIdentity(const Caller& caller) const {
  Result<identity::UserIdentity> identity =
      caller.uid ? LookupUid(*caller.uid) : LookupName(caller.user);
  if (!identity) {
    if (identity.error().code == ErrorCode::kNotFound) {
      return Fail(ErrorCode::kPermissionDenied, identity.error().message);
    }
    return identity;
  }
  if (auto allowed = identity::CheckCaller(*identity, policy_.min_uid); !allowed) {
    return Fail(ErrorCode::kPermissionDenied, allowed.error().message);
  }
  return identity;
}

Result<Caller> Authenticator::Identify(const Request& req, const RequestContext& ctx) const {
  Caller caller;
  if (ctx.transport == Transport::kUnix && ctx.peer) {
    caller.method = AuthMethod::kPeerCredentials;
    caller.uid = ctx.peer->uid;
    auto identity = LookupUid(ctx.peer->uid);
    if (identity) {
      caller.user = identity->name;
    } else {
      caller.user = "";
    }
    caller.can_read = true;
    // The service account and root administer the daemon (forced refreshes,
    // placements for other users); other local users read and submit.
    caller.is_admin = ctx.peer->uid == policy_.daemon_uid || ctx.peer->uid == 0;
    caller.can_submit = identity.has_value();
    if (!identity) {
      caller.submit_refusal = identity.error().message;
      if (identity.error().code == ErrorCode::kUnavailable) {
        caller.submit_refusal_code = ErrorCode::kUnavailable;
      }
    }
    DecideSubmit(caller);
    return caller;
  }

  const auto header = req[boost::beast::http::field::authorization];
  if (header.empty()) {
    if (!policy_.anonymous_read) {
      return Fail(ErrorCode::kUnauthenticated,
                  "this listener needs `Authorization: Bearer <token>` ([auth] tokens_file); "
                  "local users can use the Unix socket instead");
    }
    caller.method = AuthMethod::kAnonymous;
    caller.can_read = true;
    caller.submit_refusal =
        "anonymous callers may not submit; send a bearer token with the "
        "`submit` scope, or use the Unix socket";
    return caller;
  }
  const auto token = BearerToken(std::string_view(header.data(), header.size()));
  if (!token) {
    return Fail(ErrorCode::kUnauthenticated,
                "Authorization must be `Bearer <token>` with one token");
  }
  const std::shared_ptr<const TokenStore> tokens = tokens_.load();
  const std::optional<TokenGrant> grant = tokens->Authenticate(*token);
  if (!grant) return Fail(ErrorCode::kUnauthenticated, "unknown bearer token");
  caller.method = AuthMethod::kBearerToken;
  caller.user = grant->user;
  caller.can_read = grant->scopes.HasScope(Scope::kRead);
  caller.is_admin = grant->scopes.HasScope(Scope::kAdmin);
  caller.can_submit = grant->scopes.HasScope(Scope::kSubmit);
  if (!caller.can_submit) {
    caller.submit_refusal = "the token of " + grant->user + " lacks the `submit` scope";
  }
  DecideSubmit(caller);
  return caller;
}

}  // namespace bplace::api
