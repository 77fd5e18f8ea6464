#pragma once

// The one rule for the Content-Type of a request whose body is a JSON
// document (POST /v1/jobs, POST /v1/jobs:cancel; docs/api.md "Routes"). Pure.

#include <optional>

#include "api/http/http_server.h"

namespace bplace::api {

// Nullopt when the body of `req` is to be read as JSON, else the 415
// problem naming the type. Read as JSON: a request without Content-Type;
// application/json (media types are case-insensitive and parameters such as
// charset=utf-8 are ignored, RFC 9110); and application/x-www-form-urlencoded,
// which `curl -d` sends unless told otherwise: the body is read as JSON all
// the same (a real form body then fails as bad JSON does, 400). Any other
// type says the body is another kind of document, and gets 415:
// application/json-patch+json (a JSON Patch, not the request), text/plain,
// multipart/form-data.
std::optional<Response> JsonBodyRefusal(const Request& req);

}  // namespace bplace::api
