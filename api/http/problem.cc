#include "api/http/problem.h"

#include <string>
#include <utility>

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

// Handlers echo client input (queue and host names) in details; a byte that
// is not UTF-8 must not turn an error response into an exception.
template <typename Json>
std::string Dump(const Json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  return text;
}

Response MakeResponse(unsigned status, std::string_view content_type, std::string body,
                      unsigned version, bool keep_alive) {
  Response res;
  res.version(version);
  // The unsigned overload keeps codes Beast has no enumerator for.
  res.result(status);
  res.set(http::field::content_type,
          boost::beast::string_view(content_type.data(), content_type.size()));
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

std::string_view TitleFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "Invalid request";
    case ErrorCode::kNotFound:
      return "Not found";
    case ErrorCode::kParseError:
      return "Unreadable LSF output";
    case ErrorCode::kCommandFailed:
      return "LSF command failed";
    case ErrorCode::kTimeout:
      return "LSF command timed out";
    case ErrorCode::kUnavailable:
      return "LSF unavailable";
    case ErrorCode::kRejected:
      return "Rejected by LSF";
    case ErrorCode::kConflict:
      return "Nothing eligible";
    case ErrorCode::kUnauthenticated:
      return "Unauthorized";
    case ErrorCode::kPermissionDenied:
      return "Forbidden";
    case ErrorCode::kRateLimited:
      return "Too Many Requests";
    case ErrorCode::kInternal:
      return "Internal error";
  }
  return "Internal error";
}

Response BuildProblem(unsigned status, std::string_view type, std::string_view title,
                      std::string_view detail, const nlohmann::json& extra, unsigned version,
                      bool keep_alive) {
  std::string phrase;
  if (title.empty()) {
    // Boost 1.74's beast::string_view is boost::string_view, not std's.
    phrase = std::string(http::obsolete_reason(http::int_to_status(status)));
    title = phrase;
  }
  // Ordered so that people reading curl output see type and title first.
  nlohmann::ordered_json body = {
      {"type", type},
      {"title", title},
      {"status", status},
      {"detail", detail},
  };
  if (extra.is_object()) {
    for (const auto& [key, value] : extra.items()) body[key] = value;
  }
  Response response =
      MakeResponse(status, "application/problem+json", Dump(body), version, keep_alive);
  // RFC 9110 §11.6.1: a 401 must say how to authenticate. Here, for every
  // 401 wherever it is made.
  if (status == 401) response.set(http::field::www_authenticate, kBearerChallenge);
  return response;
}

}  // namespace

unsigned HttpStatusFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return 400;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kConflict:
      return 409;
    case ErrorCode::kRejected:
      return 422;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kTimeout:
      return 504;
    case ErrorCode::kParseError:
    case ErrorCode::kCommandFailed:
      // LSF is the upstream here: it answered, but not usefully.
      return 502;
    case ErrorCode::kUnauthenticated:
      return 401;
    case ErrorCode::kPermissionDenied:
      return 403;
    case ErrorCode::kRateLimited:
      return 429;
    case ErrorCode::kInternal:
      return 500;
  }
  return 500;
}

Response MakeProblem(unsigned status, std::string_view title, std::string_view detail,
                     const nlohmann::json& extra, unsigned version, bool keep_alive) {
  return BuildProblem(status, "about:blank", title, detail, extra, version, keep_alive);
}

Response MakeProblem(const Error& error, const nlohmann::json& extra, unsigned version,
                     bool keep_alive) {
  std::string type(kProblemTypeBase);
  for (const char* c = ErrorCodeName(error.code); *c != '\0'; ++c) type += *c == '_' ? '-' : *c;
  return BuildProblem(HttpStatusFor(error.code), type, TitleFor(error.code), error.message, extra,
                      version, keep_alive);
}

Response MakeJson(unsigned status, const nlohmann::json& body, unsigned version, bool keep_alive) {
  return MakeResponse(status, "application/json", Dump(body), version, keep_alive);
}

std::string DumpJson(const nlohmann::json& body) { return Dump(body); }

Response MakeJsonText(unsigned status, std::string text, unsigned version, bool keep_alive) {
  return MakeResponse(status, "application/json", std::move(text), version, keep_alive);
}

}  // namespace bplace::api
