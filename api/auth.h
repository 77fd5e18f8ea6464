#pragma once

// Who a request comes from, and what it may do (docs/api.md "Identity").

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "api/http/message.h"
#include "api/options.h"
#include "api/token_store.h"
#include "common/result.h"
#include "identity/user_identity.h"

namespace bplace::api {

// How a caller proved who it is.
enum class AuthMethod {
  kPeerCredentials,  // a Unix-socket peer: the kernel's SO_PEERCRED uid
  kBearerToken,      // TCP with `Authorization: Bearer <token>` from the tokens file
  kAnonymous,        // TCP without a token ([auth] anonymous_read)
};

// "peer_credentials", "bearer_token" or "anonymous", for logs and JSON.
const char* AuthMethodName(AuthMethod method);

// What the request may do on behalf of whom.
struct Caller {
  AuthMethod method = AuthMethod::kAnonymous;
  std::string user;          // the LSF (passwd) user name; empty when anonymous
  std::optional<uid_t> uid;  // known for peers, and for token users once looked up
  bool can_read = false;
  bool can_submit = false;
  bool is_admin = false;  // may force a cache refresh
  // Why submitting is refused (empty when can_submit), and the code of the
  // answer: kPermissionDenied (403), or kUnavailable (503) when the passwd
  // database could not be asked.
  std::string submit_refusal;
  ErrorCode submit_refusal_code = ErrorCode::kPermissionDenied;
};

// The daemon's side of identity: the [auth] options and who it runs as.
struct AuthPolicy : AuthOptions {
  std::string daemon_user;  // the service account (service-account mode)
  uid_t daemon_uid = 0;
};

// Turns a request's transport, peer credentials and Authorization header
// into a Caller:
//  - Unix socket: the peer uid (an Authorization header is ignored: the
//    kernel's word is stronger). Everybody may read; submitting needs, in
//    service-account mode, the daemon's own uid; in multi-user mode a uid
//    that is not 0, at least min_uid and in the passwd database.
//  - TCP with a bearer token: the token file's user and scopes; `submit`
//    also needs the user rules above (the token's user, in service-account
//    mode, must be the daemon's user).
//  - TCP without a token: anonymous reads when anonymous_read, else 401.
// Passwd lookups go through NSS and may block (LDAP); answers are cached for
// five minutes per uid and per name, so a caller costs one lookup per five
// minutes. Thread-safe; SetTokens swaps the token file atomically (SIGHUP).
class Authenticator {
 public:
  Authenticator(AuthPolicy policy, std::shared_ptr<const TokenStore> tokens);

  // Identifies the caller. Errors: kUnauthenticated (HTTP 401) for a TCP
  // request without a token when anonymous reads are off, an Authorization
  // header that is not "Bearer <token>", or a token not in the file.
  Result<Caller> Identify(const Request& req, const RequestContext& ctx) const;

  // The passwd entry of a caller who may submit, for running bsub as them
  // (multi-user mode). Errors: kPermissionDenied naming the rule broken
  // (uid 0, below min_uid, not in passwd). Blocks on NSS (cached).
  Result<identity::UserIdentity> SubmitterIdentity(const Caller& caller) const;

  void SetTokens(std::shared_ptr<const TokenStore> tokens);

  const AuthPolicy& policy() const { return policy_; }

 private:
  Result<identity::UserIdentity> LookupUid(uid_t uid) const;
  Result<identity::UserIdentity> LookupName(const std::string& name) const;
  // The submit decision for a known user; fills can_submit/submit_refusal.
  void DecideSubmit(Caller& caller) const;

  struct Cached {
    Result<identity::UserIdentity> identity;
    std::chrono::steady_clock::time_point expires;
  };

  const AuthPolicy policy_;
  std::atomic<std::shared_ptr<const TokenStore>> tokens_;
  mutable std::mutex cache_mutex_;  // guards the two maps
  mutable std::unordered_map<uid_t, Cached> by_uid_;
  mutable std::unordered_map<std::string, Cached> by_name_;
};

}  // namespace bplace::api
