#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/http/message.h"
#include "common/result.h"

namespace bplace::api {

// Problem types (RFC 9457 `type`). Problems the HTTP layer itself reports
// (404 no route, 405, 400 malformed request, 408, 413, 431, 500, 503 over the
// connection limit) use "about:blank": their status says all there is, and
// their title is the status phrase. Problems that come from an Error use
// kProblemTypeBase + the code's name with '-' for '_', e.g.
// "https://bplace.invalid/problems/not-found": stable identifiers a client may
// compare. The ".invalid" top-level domain (RFC 2606) never resolves, so
// nobody expects a page behind them.
inline constexpr std::string_view kProblemTypeBase = "https://bplace.invalid/problems/";

// The one mapping from ErrorCode to HTTP status: kInvalidArgument 400,
// kNotFound 404, kConflict 409, kRejected 422, kUnavailable 503, kTimeout 504,
// kParseError and kCommandFailed 502, kInternal 500.
unsigned HttpStatusFor(ErrorCode code);

// Builds an `application/problem+json` response (RFC 9457) of type
// "about:blank" with members `type`, `title`, `status` and `detail`, then
// every member of `extra` (an object; anything else is ignored), which
// overrides a standard member of the same name (pass {"type": ...} for a
// specific type). An empty `title` becomes the status phrase ("Not Found").
// `version` is 10 or 11; with keep_alive false the response asks to close the
// connection. Strings that are not valid UTF-8 are repaired (U+FFFD), never
// thrown on. The body ends with a newline.
// The WWW-Authenticate header of every 401 (RFC 9110 §11.6.1; bearer tokens
// as RFC 6750 describes them).
inline constexpr char kBearerChallenge[] = "Bearer realm=\"bplace\"";

Response MakeProblem(unsigned status, std::string_view title, std::string_view detail,
                     const nlohmann::json& extra = {}, unsigned version = 11,
                     bool keep_alive = true);

// Builds the problem response for `error`: status HttpStatusFor(error.code),
// type kProblemTypeBase + slug of the code, a fixed title per code ("Not
// found", "Rejected by LSF", ...) and error.message as detail, then `extra`
// as above.
Response MakeProblem(const Error& error, const nlohmann::json& extra = {}, unsigned version = 11,
                     bool keep_alive = true);

// Builds an `application/json` response whose body is `body` dumped compactly
// plus a newline (so curl output ends cleanly). Invalid UTF-8 in strings is
// repaired, never thrown on. `version` and `keep_alive` as for MakeProblem.
Response MakeJson(unsigned status, const nlohmann::json& body, unsigned version = 11,
                  bool keep_alive = true);

// `body` serialised as MakeJson sends it: compact, invalid UTF-8 repaired,
// and a newline.
std::string DumpJson(const nlohmann::json& body);

// Builds an `application/json` response whose body is `text`, already
// serialised (DumpJson, or bytes made from it). As MakeJson otherwise.
Response MakeJsonText(unsigned status, std::string text, unsigned version = 11,
                      bool keep_alive = true);

}  // namespace bplace::api
