#include "api/routes_openapi.h"

#include <memory>

#include <boost/beast/http/field.hpp>

#include "api/openapi_document.h"

namespace bplace::api {

PublicRoute OpenApiRoute(const Services& services) {
  // Dumped from ordered_json (MakeJson would sort the keys): "openapi" and
  // "info" stay first, as a reader of curl output expects.
  auto answer = std::make_shared<Response>(boost::beast::http::status::ok, 11);
  answer->set(boost::beast::http::field::content_type, "application/json");
  answer->body() = OpenApiDocument(services.options.request).dump() + "\n";
  answer->prepare_payload();
  return [answer = std::shared_ptr<const Response>(std::move(answer))](
             const Services&, const Request&) { return *answer; };
}

}  // namespace bplace::api
