#pragma once

#include "api/route_access.h"
#include "api/services.h"

namespace bplace::api {

// GET /v1/openapi.json: the OpenAPI document (api/openapi_document.h) as
// application/json, the same for every request. It is made once, when this
// is called (start-up), from services.options.request; the route keeps it.
// Public: anybody may fetch it, anonymous callers included, whatever
// anonymous_read says: it describes the API and holds nothing of the
// cluster, and client generators fetch it without credentials.
PublicRoute OpenApiRoute(const Services& services);

}  // namespace bplace::api
