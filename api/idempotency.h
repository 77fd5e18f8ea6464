#pragma once

// What makes two POST /v1/jobs "the same submission" (docs/api.md "Exactly
// once"): the caller, the client's key, and the body. Pure functions;
// thread-safe.

#include <optional>
#include <string>
#include <string_view>

#include "api/http/message.h"
#include "common/result.h"

namespace bplace::api {

// The client's key of a submission: the Idempotency-Key header
// (draft-ietf-httpapi-idempotency-key-header; 1..255 printable ASCII
// characters, quotes of a structured-field string removed), else the
// client's own X-Request-Id when it sent a usable one (`ctx.request_id` is
// then the client's). nullopt: neither; every such call is a new submission.
// Errors: kInvalidArgument for a malformed or repeated Idempotency-Key.
Result<std::optional<std::string>> IdempotencyKeyOf(const Request& req, const RequestContext& ctx);

// The hex SHA-256 of `body` as JSON in one canonical form (keys sorted, no
// blanks), so that a retry that re-serialises the same object is the same
// body; of the bytes themselves when they are not JSON (the decoder refuses
// those anyway).
std::string CanonicalBodyHash(std::string_view body);

// The job's tag (bsub -Jd bplace:<tag>): "k" and 32 hex digits of the
// SHA-256 of caller and key when there is a key, so that a retry reaching
// another bplaced can find the job in LSF by it; else the request id the
// daemon made up (16 hex digits: it never equals a keyed tag). Tags are
// compared whole, never as prefixes.
std::string TagFor(std::string_view caller, const std::optional<std::string>& key,
                   std::string_view request_id);

}  // namespace bplace::api
