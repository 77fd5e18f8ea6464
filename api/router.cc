#include "api/router.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <boost/beast/http/field.hpp>

#include "api/http/problem.h"
#include "common/text.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

// "/v1/queues/" -> {"v1", "queues", ""}; "/" -> {""}. Expects a leading '/'.
std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  path.remove_prefix(1);
  while (true) {
    const std::size_t slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

bool IsParamName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// A request target cut at the first '?': both views point into the target.
struct PathAndQuery {
  std::string_view path;
  std::string_view query;  // "" when there is no '?'
};

PathAndQuery SplitTarget(std::string_view target) {
  const std::size_t question = target.find('?');
  return {target.substr(0, question),
          question == std::string_view::npos ? std::string_view() : target.substr(question + 1)};
}

// Percent-decodes each segment of `raw_path` (which starts with '/').
// Returns kInvalidArgument as PercentDecode for the first bad segment.
Result<std::vector<std::string>> DecodePath(std::string_view raw_path) {
  std::vector<std::string> segments;
  for (std::string_view part : SplitPath(raw_path)) {
    // '+' is a literal in paths; only queries use it for space.
    auto decoded = PercentDecode(part, false);
    if (!decoded) return tl::unexpected(decoded.error());
    segments.push_back(std::move(*decoded));
  }
  return segments;
}

// A problem+json response to `req` that the router gives itself, with the
// request's HTTP version and keep-alive.
Response RouterProblem(const Request& req, unsigned status, std::string_view detail) {
  return MakeProblem(status, "", detail, {}, req.version(), req.keep_alive());
}

// The 405 for `req` on `raw_path`, whose patterns accept only `allowed`
// (not empty, in table order); the Allow header lists the same methods.
Response MethodNotAllowed(const Request& req, std::string_view raw_path,
                          const std::vector<http::verb>& allowed) {
  std::string allow;
  for (http::verb v : allowed) {
    if (!allow.empty()) allow += ", ";
    allow += std::string(http::to_string(v));
  }
  Response res = RouterProblem(req, 405,
                               std::string(req.method_string()) + " is not allowed on " +
                                   std::string(raw_path) + "; allowed: " + allow);
  res.set(http::field::allow, allow);
  return res;
}

// The 404 for `req` on `raw_path`. A trailing slash is the likely mistake
// (see Router's class comment), so the detail names the path without it.
Response NoRoute(const Request& req, std::string_view raw_path) {
  std::string detail = "no route for " + std::string(raw_path);
  if (raw_path.size() > 1 && raw_path.back() == '/') {
    detail +=
        "; paths do not end with '/': try " + std::string(raw_path.substr(0, raw_path.size() - 1));
  }
  return RouterProblem(req, 404, detail);
}

}  // namespace

std::string_view RouteParams::Path(std::string_view name) const {
  auto it = path.find(name);
  return it == path.end() ? std::string_view() : std::string_view(it->second);
}

std::optional<std::string_view> RouteParams::Query(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

Result<void> RouteParams::OnlyQuery(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : query) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string use;
    for (const std::string_view name : known) use += (use.empty() ? "" : ", ") + std::string(name);
    return Fail(ErrorCode::kInvalidArgument,
                key + ": unknown query parameter " +
                    (use.empty() ? "(this route takes none)" : "(use " + use + ")"));
  }
  return {};
}

Result<std::string> PercentDecode(std::string_view text, bool plus_as_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_as_space) {
      out += ' ';
    } else if (c != '%') {
      out += c;
    } else {
      const int hi = i + 1 < text.size() ? HexDigitValue(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return Fail(ErrorCode::kInvalidArgument,
                    "invalid percent-escape '" + std::string(text.substr(i, 3)) + "'");
      }
      if (hi == 0 && lo == 0) return Fail(ErrorCode::kInvalidArgument, "%00 is not allowed");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) continue;
    const std::size_t eq = piece.find('=');
    auto name = PercentDecode(piece.substr(0, eq), true);
    if (!name) return tl::unexpected(name.error());
    std::string value;
    if (eq != std::string_view::npos) {
      auto decoded = PercentDecode(piece.substr(eq + 1), true);
      if (!decoded) return tl::unexpected(decoded.error());
      value = std::move(*decoded);
    }
    pairs.emplace_back(std::move(*name), std::move(value));
  }
  return pairs;
}

void Router::Add(http::verb method, std::string_view pattern, RouteHandler handler,
                 HeaderCheck before_continue) {
  if (pattern.empty() || pattern.front() != '/') {
    throw std::invalid_argument("route pattern must start with '/': " + std::string(pattern));
  }
  Entry entry{method, std::string(pattern), {}, std::move(handler), std::move(before_continue)};
  const std::vector<std::string_view> parts = SplitPath(pattern);
  for (std::string_view part : parts) {
    Segment segment;
    if (!part.empty() && part.front() == '{' && part.back() == '}') {
      segment.text = std::string(part.substr(1, part.size() - 2));
      segment.is_param = true;
      if (!IsParamName(segment.text)) {
        throw std::invalid_argument("bad parameter name in route pattern " + entry.pattern);
      }
      for (const Segment& other : entry.segments) {
        if (other.is_param && other.text == segment.text) {
          throw std::invalid_argument("repeated parameter in route pattern " + entry.pattern);
        }
      }
    } else {
      // Literals are compared with decoded request segments, so they are
      // written decoded; an empty literal only makes sense for the root.
      if (part.find_first_of("{}%") != std::string_view::npos ||
          (part.empty() && parts.size() > 1)) {
        throw std::invalid_argument("bad segment in route pattern " + entry.pattern);
      }
      segment.text = std::string(part);
    }
    entry.segments.push_back(std::move(segment));
  }
  for (const Entry& other : routes_) {
    if (other.method != method || other.segments.size() != entry.segments.size()) continue;
    bool same_shape = true;
    for (std::size_t i = 0; i < entry.segments.size() && same_shape; ++i) {
      const Segment& a = other.segments[i];
      const Segment& b = entry.segments[i];
      same_shape = a.is_param == b.is_param && (a.is_param || a.text == b.text);
    }
    if (same_shape) {
      throw std::invalid_argument("route " + std::string(http::to_string(method)) + " " +
                                  entry.pattern + " clashes with " + other.pattern);
    }
  }
  if (observer_ != nullptr) entry.observer_id = observer_->OnRouteAdded(method, entry.pattern);
  routes_.push_back(std::move(entry));
}

Responder Router::Observed(std::size_t route, const RequestContext& ctx, Responder respond) const {
  if (observer_ == nullptr) return respond;
  return [observer = observer_, route, received = ctx.received,
          respond = std::move(respond)](Response res) {
    observer->OnResponse(route, res.result_int(), received);
    respond(std::move(res));
  };
}

Router::Match Router::FindRoute(http::verb method, const std::vector<std::string>& segments) const {
  Match match;
  std::vector<bool> best_literals;
  for (const Entry& entry : routes_) {
    if (entry.segments.size() != segments.size()) continue;
    std::vector<bool> literals;
    bool fits = true;
    for (std::size_t i = 0; i < segments.size() && fits; ++i) {
      const Segment& segment = entry.segments[i];
      fits = segment.is_param ? !segments[i].empty() : segment.text == segments[i];
      literals.push_back(!segment.is_param);
    }
    if (!fits) continue;
    if (entry.method != method) {
      if (std::find(match.allowed.begin(), match.allowed.end(), entry.method) ==
          match.allowed.end()) {
        match.allowed.push_back(entry.method);
      }
      continue;
    }
    // Vectors of bool compare lexicographically with true > false: the most
    // literal segments leftmost wins.
    if (match.route == nullptr || literals > best_literals) {
      match.route = &entry;
      best_literals = std::move(literals);
    }
  }
  return match;
}

void Router::Dispatch(Request&& req, const RequestContext& ctx, Responder respond) const {
  // Answers without a route; each path below answers exactly once.
  const auto unmatched = [&](Response res) {
    Observed(RouteObserver::kUnmatched, ctx, std::move(respond))(std::move(res));
  };
  // Boost 1.74's beast::string_view is boost::string_view, not std's.
  const std::string_view target(req.target().data(), req.target().size());
  if (target.empty() || target.front() != '/') {
    unmatched(RouterProblem(req, 400, "the request target must be a path starting with '/'"));
    return;
  }
  const auto [raw_path, raw_query] = SplitTarget(target);
  auto segments = DecodePath(raw_path);
  if (!segments) {
    unmatched(RouterProblem(req, 400, "path: " + segments.error().message));
    return;
  }

  const Match match = FindRoute(req.method(), *segments);
  if (match.route == nullptr) {
    // 405 only when some pattern fits the path: otherwise the path is wrong,
    // whatever the method.
    unmatched(match.allowed.empty() ? NoRoute(req, raw_path)
                                    : MethodNotAllowed(req, raw_path, match.allowed));
    return;
  }

  // From here on the answer is the route's, even a 400 for its query.
  Responder answer = Observed(match.route->observer_id, ctx, std::move(respond));
  // Only a matched route's query is parsed: a request without a route is
  // answered 404 or 405 even when its query is malformed.
  RouteParams params;
  for (std::size_t i = 0; i < segments->size(); ++i) {
    const Segment& segment = match.route->segments[i];
    if (segment.is_param) params.path.emplace(segment.text, (*segments)[i]);
  }
  auto query = ParseQuery(raw_query);
  if (!query) {
    answer(RouterProblem(req, 400, "query: " + query.error().message));
    return;
  }
  params.query = std::move(*query);
  match.route->handler(std::move(req), ctx, params, std::move(answer));
}

std::optional<Response> Router::CheckHeader(const Request& header,
                                            const RequestContext& ctx) const {
  const std::string_view target(header.target().data(), header.target().size());
  if (target.empty() || target.front() != '/') return std::nullopt;
  auto segments = DecodePath(SplitTarget(target).path);
  if (!segments) return std::nullopt;
  const Match match = FindRoute(header.method(), *segments);
  if (match.route == nullptr || !match.route->before_continue) return std::nullopt;
  return match.route->before_continue(header, ctx);
}

std::vector<Router::RouteKey> Router::Routes() const {
  std::vector<RouteKey> keys;
  keys.reserve(routes_.size());
  for (const Entry& entry : routes_) keys.push_back({entry.method, entry.pattern});
  return keys;
}

Handler Router::AsHandler() const {
  auto table = std::make_shared<const Router>(*this);
  return [table](Request&& req, const RequestContext& ctx, Responder respond) {
    table->Dispatch(std::move(req), ctx, std::move(respond));
  };
}

HeaderCheck Router::AsHeaderCheck() const {
  auto table = std::make_shared<const Router>(*this);
  return [table](const Request& header, const RequestContext& ctx) {
    return table->CheckHeader(header, ctx);
  };
}

}  // namespace bplace::api
