#pragma once

// The JSON body of a response, for the tests of the transport and the router.

#include <nlohmann/json.hpp>

#include "api/http/message.h"

namespace bplace::api::http_test {

// `response`'s body parsed as JSON; throws nlohmann::json::parse_error when
// it is not JSON (the test fails with the parser's message).
inline nlohmann::json Body(const Response& response) {
  return nlohmann::json::parse(response.body());
}

}  // namespace bplace::api::http_test
