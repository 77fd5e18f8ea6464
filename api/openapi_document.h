#pragma once

// The OpenAPI 3.1 document of bplaced's HTTP API (docs/api.md), served at
// GET /v1/openapi.json and printed by `bplaced --print-openapi`.
//
// Decision: the document is written by hand in api/openapi/openapi.json (one
// file a reviewer reads next to the route functions) and embedded in the
// binary at build time (api/CMakeLists.txt turns it into a .cc), so a
// running daemon never looks for a file. Only what has another source is
// filled in at start-up: `info.version` (the project version CMake holds)
// and the properties of the POST /v1/jobs body (components.schemas.JobRequest)
// from JobRequestFields(), the table the decoder reads through. The tests
// keep the rest honest: tests/api/openapi_document_test.cc compares the
// router's routes with the document's operations, and every JSON answer the
// integration tests receive is validated against it
// (tools/validate-responses.py).

#include <string_view>

#include <nlohmann/json.hpp>

#include "api/options.h"

namespace bplace::api {

// The text of api/openapi/openapi.json as embedded at build time.
std::string_view OpenApiText();

// The document as served: OpenApiText() parsed (keys in the file's order),
// with info.version set and
// the JobRequest schema's properties made from JobRequestFields(limits) (so
// slots' maximum is the daemon's submit.max_slots), in the table's order. Throws std::logic_error
// when the embedded text is not JSON or lacks
// components.schemas.JobRequest (a build defect; start-up, caught in main).
nlohmann::ordered_json OpenApiDocument(const JobRequestLimits& limits);

}  // namespace bplace::api
