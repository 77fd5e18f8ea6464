#include "api/json_body.h"

#include <string>
#include <string_view>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>

#include "api/http/problem.h"

namespace bplace::api {
namespace {

// The type/subtype of a Content-Type value: before any ';', blanks trimmed.
std::string_view MediaType(std::string_view value) {
  value = value.substr(0, value.find(';'));
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

}  // namespace

std::optional<Response> JsonBodyRefusal(const Request& req) {
  const auto header = req[boost::beast::http::field::content_type];
  if (header.empty()) return std::nullopt;
  const std::string_view type = MediaType(std::string_view(header.data(), header.size()));
  for (std::string_view accepted : {"application/json", "application/x-www-form-urlencoded"}) {
    if (boost::beast::iequals(boost::beast::string_view(type.data(), type.size()),
                              boost::beast::string_view(accepted.data(), accepted.size()))) {
      return std::nullopt;
    }
  }
  return MakeProblem(415, "Unsupported Media Type",
                     "Content-Type " + std::string(type) +
                         " is not a JSON request body; send application/json (or no "
                         "Content-Type)");
}

}  // namespace bplace::api
