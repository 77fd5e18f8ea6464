#include "api/status_page.h"

#include <string>

#include <boost/beast/http/field.hpp>

namespace bplace::api {

namespace http = boost::beast::http;

Response ServeAsset(const StaticAsset& asset, const Request& req) {
  Response res{http::status::ok, req.version()};
  res.set(http::field::content_type, std::string(asset.content_type));
  // Boost 1.74's field enum has none of these three.
  res.set("Content-Security-Policy", std::string(kStatusPageCsp));
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set(http::field::cache_control, "no-cache");
  res.body() = std::string(asset.body);
  res.prepare_payload();
  return res;
}

}  // namespace bplace::api
