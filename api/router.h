#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/http/verb.hpp>

#include "api/http/message.h"
#include "common/result.h"

namespace bplace::api {

// What the router took from the request target for the route that matched.
struct RouteParams {
  // Path parameters by name ("name" for "/v1/queues/{name}"), percent-decoded.
  std::map<std::string, std::string, std::less<>> path;
  // Query parameters in the order given, percent-decoded with '+' as space.
  // Repeated names are kept; "a" alone has the value "".
  std::vector<std::pair<std::string, std::string>> query;

  // Returns the value of path parameter `name`, or "" when the route has none.
  std::string_view Path(std::string_view name) const;
  // Returns the first value of query parameter `name`, or nullopt when absent.
  std::optional<std::string_view> Query(std::string_view name) const;
  // Fails (kInvalidArgument, "<name>: unknown query parameter (use a, b)",
  // or "(this route takes none)") on the first query parameter not in
  // `known`: a misspelt filter must not be silently ignored.
  Result<void> OnlyQuery(std::initializer_list<std::string_view> known) const;
};

// Answers a request that matched a route; the contract of Handler applies.
using RouteHandler = std::function<void(Request&& req, const RequestContext& ctx,
                                        const RouteParams& params, Responder respond)>;

// Told of every response the router's table gives (routes' and the
// router's own 400/404/405), for metrics (api/http_metrics.h). Thread
// safety: OnRouteAdded runs during Router::Add only; OnResponse from any
// thread, concurrently, and must not block.
class RouteObserver {
 public:
  // The route id OnResponse gets for requests no route matched.
  static constexpr std::size_t kUnmatched = static_cast<std::size_t>(-1);

  virtual ~RouteObserver() = default;
  // A route was added with this method and pattern (the template, never a
  // request's path); returns the id OnResponse will get for it.
  virtual std::size_t OnRouteAdded(boost::beast::http::verb method, std::string_view pattern) = 0;
  // A response with `status` is being sent for a request of route `route`
  // (or kUnmatched) that was read completely at `received`.
  virtual void OnResponse(std::size_t route, unsigned status,
                          std::chrono::steady_clock::time_point received) = 0;
};

// Picks the handler for a request from a table of (method, path pattern).
// A pattern is '/'-separated segments, each a literal ("queues") or a
// parameter ("{name}") that matches one non-empty segment; "/" is the root.
// When several patterns match a path, the one with a literal where the others
// have a parameter wins, segment by segment from the left.
//
// Trailing slashes are significant: "/v1/queues/" does not match
// "/v1/queues" (each resource has one URL, and a script that builds
// "/v1/queues/$NAME" with an empty NAME gets an error rather than the list);
// the 404 then names the path without the slash.
//
// Thread safety: Add must not run concurrently with anything else; once the
// table is built, Dispatch may be called from any number of threads.
class Router {
 public:
  // Adds a route. `pattern` must start with '/', parameter names must be
  // [A-Za-z0-9_]+ and unique within the pattern, and no other route may have
  // the same method and the same pattern shape. A violation is a programming
  // error and throws std::invalid_argument (start-up, caught in main).
  // `before_continue`, when set, vets the route's requests that ask for
  // 100 Continue before their body is sent (HeaderCheck, api/http/message.h).
  void Add(boost::beast::http::verb method, std::string_view pattern, RouteHandler handler,
           HeaderCheck before_continue = {});

  // Calls the matching route's handler with the decoded parameters, or
  // responds itself (problem+json): 400 when the target is not a path or has
  // an invalid percent-escape or %00, 404 when no pattern matches the path,
  // 405 with an `Allow` header listing the methods of the matching patterns
  // when none is for this method. Exceptions of the handler propagate.
  void Dispatch(Request&& req, const RequestContext& ctx, Responder respond) const;

  // Returns a Handler for HttpServer that dispatches on a copy of the current
  // table; later Add calls do not change it, and the Router may be destroyed.
  Handler AsHandler() const;

  // Runs the before_continue check of the route `header` matches; nullopt
  // when it has none, or when no route matches (Dispatch answers those once
  // the body is in). Thread-safe once the table is built.
  std::optional<Response> CheckHeader(const Request& header, const RequestContext& ctx) const;

  // Returns a HeaderCheck for HttpServer that runs CheckHeader on a copy of
  // the current table, as AsHandler does.
  HeaderCheck AsHeaderCheck() const;

  // One route of the table: its method and its pattern as given to Add.
  struct RouteKey {
    boost::beast::http::verb method;
    std::string pattern;
  };
  // Returns every route in the order added (the OpenAPI document's test
  // compares them with its operations). Thread-safe once the table is built.
  std::vector<RouteKey> Routes() const;

  // Reports every route added from now on, and every response given by the
  // table (and its copies: AsHandler), to `observer`, which must outlive
  // them. Call it before the first Add; null stops nothing already copied.
  void SetObserver(RouteObserver* observer) { observer_ = observer; }

 private:
  struct Segment {
    std::string text;  // the literal, or the parameter name
    bool is_param = false;
  };
  struct Entry {
    boost::beast::http::verb method;
    std::string pattern;
    std::vector<Segment> segments;
    RouteHandler handler;
    HeaderCheck before_continue;                          // may be empty
    std::size_t observer_id = RouteObserver::kUnmatched;  // OnRouteAdded's answer
  };
  // What the table holds for a path: the route for the method, if any, and
  // the methods of the other routes whose patterns fit the path.
  struct Match {
    const Entry* route = nullptr;
    std::vector<boost::beast::http::verb> allowed;  // in table order, each once
  };

  // Finds the route for `method` among those whose pattern fits the decoded
  // path `segments`, preferring literals from the left (see the class comment).
  Match FindRoute(boost::beast::http::verb method, const std::vector<std::string>& segments) const;

  // `respond`, telling the observer (if any) about the response on the way.
  Responder Observed(std::size_t route, const RequestContext& ctx, Responder respond) const;

  std::vector<Entry> routes_;
  RouteObserver* observer_ = nullptr;
};

// Decodes %XX escapes (and '+' as space when `plus_as_space`). Returns
// kInvalidArgument for a '%' not followed by two hex digits and for %00.
Result<std::string> PercentDecode(std::string_view text, bool plus_as_space);

// Splits a query string ("a=1&b=x+y&c") into decoded name/value pairs, in
// order, skipping empty pieces. Returns kInvalidArgument as PercentDecode.
Result<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query);

}  // namespace bplace::api
