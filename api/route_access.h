#pragma once

// How the router calls a route function: the caller identified once per
// request, its access checked, and the response stamped with the request's
// HTTP version and keep-alive (docs/api.md "Identity"). The adapters keep no
// state of their own: they are as thread-safe as the routes and the
// Services they call.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/verb.hpp>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"
#include "common/result.h"

namespace bplace::api {

// What a route asks of its caller before it runs.
enum class Access {
  // Any identified caller, anonymous included; the route decides the rest.
  kIdentified,
  // A caller who said who they are: a Unix-socket peer or a bearer token
  // (and, without an Authenticator, the daemon's user). Anonymous callers
  // get 401: a token could help. For routes that act on someone's behalf
  // (submitting, cancelling); the route decides the rest.
  kAuthenticated,
  // The `read` scope: every peer, tokens with it, anonymous callers when
  // anonymous_read.
  kRead,
  // The `admin` scope: tokens with it, the daemon's user and root on the
  // socket.
  kAdmin,
};

// A synchronous route: the whole answer to one request. Must not block (it
// runs on an io thread) and must be thread-safe. Guarded sets the
// response's version and keep-alive.
using Route = std::function<Response(const Services& services, const Caller& caller,
                                     const Request& req, const RouteParams& params)>;
// `route`, answering 400 to a request with any query parameter
// (RouteParams::OnlyQuery): for the routes whose OpenAPI operation lists
// none.
Route TakesNoQuery(Route route);

// A route anybody may call (health probes): no caller is identified.
using PublicRoute = std::function<Response(const Services& services, const Request& req)>;
// An asynchronous route: calls `respond` exactly once, now or later (the
// Responder contract of api/http/message.h), with a response whose version
// and keep-alive are stamped on the way out.
using AsyncRoute =
    std::function<void(const Services& services, const Caller& caller, Request&& req,
                       const RequestContext& ctx, const RouteParams& params, Responder respond)>;
// Told of a request the access check turned away, before the refusal is
// sent: the caller when it was identified (null for a 401 of bad or missing
// credentials), and the refusal's detail.
using RefusalHook =
    std::function<void(const Caller* caller, const RequestContext& ctx, std::string_view reason)>;

// Identifies the caller of `req`: the Authenticator's answer, or, without
// one (services.auth null), services.user with every right. Errors as
// Authenticator::Identify: kUnauthenticated for missing or bad credentials.
// May block on NSS for a Unix-socket peer (answers are cached five minutes).
Result<Caller> IdentifyCaller(const Services& services, const Request& req,
                              const RequestContext& ctx);

// Names a caller in a sentence, never with an empty name: "the token of
// alice", "uid 1001 (alice)", "uid 4242" (a peer not in passwd), or
// "anonymous callers".
std::string DescribeCaller(const Caller& caller);

// The 401 problem for `error` with `WWW-Authenticate: Bearer realm="bplace"`.
Response Unauthenticated(const Error& error);

// Why `caller` may not use a route needing `access`, or nullopt when it may:
//  - kUnauthenticated when the caller is not identified (the error `caller`
//    holds), and when an anonymous caller lacks the scope (a token could
//    help, so the client is asked to authenticate);
//  - kPermissionDenied naming the caller ("the token of bob lacks the
//    `admin` scope") when an identified caller lacks it.
// Pure.
std::optional<Error> AccessError(const Result<Caller>& caller, Access access);

// The response to an access error: 401 with WWW-Authenticate (Unauthenticated)
// for kUnauthenticated, else the problem of its code (403 for
// kPermissionDenied).
Response RefusalFor(const Error& error);

// AccessError as a response: nullopt when the caller may use the route.
std::optional<Response> AccessRefusal(const Result<Caller>& caller, Access access);

// Adapts `route` to the router: identifies the caller once, answers with
// AccessRefusal when it may not use the route, else with the route's
// response. `services` must outlive the handler.
RouteHandler Guarded(const Services& services, Access access, Route route);

// The same for an asynchronous route; `on_refused`, when set, is told of
// each refusal before it is sent (POST /v1/jobs audits them).
RouteHandler GuardedAsync(const Services& services, Access access, AsyncRoute route,
                          RefusalHook on_refused = {});

// Adapts a public route to the router; nobody is identified.
RouteHandler Public(const Services& services, PublicRoute route);

// The access check alone, for the headers of a request that waits for
// 100 Continue (HeaderCheck): the refusal AccessRefusal gives, so that a
// caller without credentials hears 401 before sending a body; nullopt lets
// the body come. `on_refused` as for GuardedAsync.
HeaderCheck AccessCheck(const Services& services, Access access, RefusalHook on_refused = {});

// Adds `route` to `router` as Guarded does, with AccessCheck for its
// requests that ask for 100 Continue: the access is named once.
void AddGuarded(Router& router, boost::beast::http::verb method, std::string_view pattern,
                const Services& services, Access access, Route route);

// The same for an asynchronous route, as GuardedAsync.
void AddGuardedAsync(Router& router, boost::beast::http::verb method, std::string_view pattern,
                     const Services& services, Access access, AsyncRoute route,
                     RefusalHook on_refused = {});

}  // namespace bplace::api
