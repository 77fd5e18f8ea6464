#include "api/openapi_document.h"

#include <stdexcept>
#include <string>

#include "api/job_request_decoder.h"
#include "common/version.h"

namespace bplace::api {

nlohmann::ordered_json OpenApiDocument(const JobRequestLimits& limits) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(OpenApiText(), nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    throw std::logic_error("the embedded OpenAPI document is not a JSON object");
  }
  const nlohmann::ordered_json::json_pointer request("/components/schemas/JobRequest");
  if (!document.contains(request) || !document[request].is_object()) {
    throw std::logic_error("the embedded OpenAPI document has no " + request.to_string());
  }
  document["info"]["version"] = kVersion;
  nlohmann::ordered_json& properties = document[request]["properties"];
  properties = nlohmann::ordered_json::object();
  for (const JobRequestField& field : JobRequestFields(limits)) {
    properties[std::string(field.name)] = field.schema;
  }
  return document;
}

}  // namespace bplace::api
