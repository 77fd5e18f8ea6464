#include "api/route_access.h"

#include <utility>

#include <boost/beast/http/field.hpp>

#include "api/http/problem.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

// The scope a route's access names in messages, and whether `caller` has it.
std::string_view ScopeName(Access access) { return access == Access::kAdmin ? "admin" : "read"; }

bool Has(const Caller& caller, Access access) {
  switch (access) {
    case Access::kIdentified:
      return true;
    case Access::kAuthenticated:
      // Anonymous callers are the only ones without a name: the caller made
      // without an Authenticator is the daemon's user.
      return caller.method != AuthMethod::kAnonymous || !caller.user.empty();
    case Access::kRead:
      return caller.can_read;
    case Access::kAdmin:
      return caller.is_admin;
  }
  return false;
}

// Gives the response the request's HTTP version and keep-alive.
Response Stamped(Response response, unsigned version, bool keep_alive) {
  response.version(version);
  response.keep_alive(keep_alive);
  return response;
}

}  // namespace

Result<Caller> IdentifyCaller(const Services& services, const Request& req,
                              const RequestContext& ctx) {
  if (services.auth != nullptr) return services.auth->Identify(req, ctx);
  Caller caller;
  caller.user = services.user;
  caller.can_read = caller.can_submit = caller.is_admin = true;
  return caller;
}

std::string DescribeCaller(const Caller& caller) {
  switch (caller.method) {
    case AuthMethod::kBearerToken:
      return "the token of " + caller.user;
    case AuthMethod::kPeerCredentials: {
      std::string uid = caller.uid ? "uid " + std::to_string(*caller.uid) : "a local user";
      return caller.user.empty() ? uid : uid + " (" + caller.user + ")";
    }
    case AuthMethod::kAnonymous:
      break;
  }
  return caller.user.empty() ? "anonymous callers" : caller.user;
}

Response Unauthenticated(const Error& error) {
  // MakeProblem adds WWW-Authenticate to every 401.
  return MakeProblem(error);
}

std::optional<Error> AccessError(const Result<Caller>& caller, Access access) {
  if (!caller) return caller.error();
  if (Has(*caller, access)) return std::nullopt;
  if (access == Access::kAuthenticated) {
    return Error{ErrorCode::kUnauthenticated,
                 "anonymous callers may not do this; send a bearer token (the `submit` scope "
                 "submits and cancels), or use the Unix socket"};
  }
  const std::string scope = "`" + std::string(ScopeName(access)) + "` scope";
  if (caller->method == AuthMethod::kAnonymous) {
    return Error{ErrorCode::kUnauthenticated,
                 "anonymous callers lack the " + scope +
                     "; send a bearer token that has it, or use the Unix socket"};
  }
  return Error{ErrorCode::kPermissionDenied, DescribeCaller(*caller) + " lacks the " + scope};
}

Response RefusalFor(const Error& error) {
  return error.code == ErrorCode::kUnauthenticated ? Unauthenticated(error) : MakeProblem(error);
}

std::optional<Response> AccessRefusal(const Result<Caller>& caller, Access access) {
  std::optional<Error> error = AccessError(caller, access);
  if (!error) return std::nullopt;
  return RefusalFor(*error);
}

RouteHandler Guarded(const Services& services, Access access, Route route) {
  return
      [s = &services, access, route = std::move(route)](
          Request&& req, const RequestContext& ctx, const RouteParams& params, Responder respond) {
        const Result<Caller> caller = IdentifyCaller(*s, req, ctx);
        std::optional<Response> refusal = AccessRefusal(caller, access);
        Response response = refusal ? std::move(*refusal) : route(*s, *caller, req, params);
        respond(Stamped(std::move(response), req.version(), req.keep_alive()));
      };
}

RouteHandler GuardedAsync(const Services& services, Access access, AsyncRoute route,
                          RefusalHook on_refused) {
  return
      [s = &services, access, route = std::move(route), on_refused = std::move(on_refused)](
          Request&& req, const RequestContext& ctx, const RouteParams& params, Responder respond) {
        const unsigned version = req.version();
        const bool keep_alive = req.keep_alive();
        const Result<Caller> caller = IdentifyCaller(*s, req, ctx);
        if (std::optional<Error> error = AccessError(caller, access)) {
          if (on_refused) on_refused(caller ? &*caller : nullptr, ctx, error->message);
          return respond(Stamped(RefusalFor(*error), version, keep_alive));
        }
        route(*s, *caller, std::move(req), ctx, params,
              [respond = std::move(respond), version, keep_alive](Response response) {
                respond(Stamped(std::move(response), version, keep_alive));
              });
      };
}

HeaderCheck AccessCheck(const Services& services, Access access, RefusalHook on_refused) {
  return [s = &services, access, on_refused = std::move(on_refused)](
             const Request& header, const RequestContext& ctx) -> std::optional<Response> {
    const Result<Caller> caller = IdentifyCaller(*s, header, ctx);
    std::optional<Error> error = AccessError(caller, access);
    if (!error) return std::nullopt;
    if (on_refused) on_refused(caller ? &*caller : nullptr, ctx, error->message);
    // The body is left unread, so the connection cannot go on.
    return Stamped(RefusalFor(*error), header.version(), false);
  };
}

void AddGuarded(Router& router, http::verb method, std::string_view pattern,
                const Services& services, Access access, Route route) {
  router.Add(method, pattern, Guarded(services, access, std::move(route)),
             AccessCheck(services, access));
}

void AddGuardedAsync(Router& router, http::verb method, std::string_view pattern,
                     const Services& services, Access access, AsyncRoute route,
                     RefusalHook on_refused) {
  router.Add(method, pattern, GuardedAsync(services, access, std::move(route), on_refused),
             AccessCheck(services, access, on_refused));
}

RouteHandler Public(const Services& services, PublicRoute route) {
  return [s = &services, route = std::move(route)](Request&& req, const RequestContext&,
                                                   const RouteParams&, Responder respond) {
    respond(Stamped(route(*s, req), req.version(), req.keep_alive()));
  };
}

Route TakesNoQuery(Route route) {
  return [route = std::move(route)](const Services& services, const Caller& caller,
                                    const Request& req, const RouteParams& params) {
    if (auto known = params.OnlyQuery({}); !known) return MakeProblem(known.error());
    return route(services, caller, req, params);
  };
}

}  // namespace bplace::api
