#include "api/openapi_document.h"

#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include "api/handlers.h"
#include "api/http/problem.h"
#include "api/job_request_decoder.h"
#include "api/router.h"
#include "api/services.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;
using nlohmann::ordered_json;

// The HTTP methods an OpenAPI path item may hold operations for.
constexpr const char* kMethods[] = {"get",   "put",  "post",    "delete",
                                    "patch", "head", "options", "trace"};

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The routes over the route tests' daemon without sockets: Services needs
// its parts, though the route functions are not called here.
class OpenApiRoutesTest : public testing::HandlersTest {};

// "get /v1/queues/{name}" for every route of `router`.
std::set<std::string> RegisteredRoutes(const Router& router) {
  std::set<std::string> routes;
  for (const Router::RouteKey& key : router.Routes()) {
    routes.insert(Lower(std::string(http::to_string(key.method))) + " " + key.pattern);
  }
  return routes;
}

// The same for every operation of the document.
std::set<std::string> DocumentedOperations(const ordered_json& document) {
  std::set<std::string> operations;
  for (const auto& [path, item] : document["paths"].items()) {
    for (const char* method : kMethods) {
      if (item.contains(method)) operations.insert(std::string(method) + " " + path);
    }
  }
  return operations;
}

std::string Missing(const std::set<std::string>& from, const std::set<std::string>& in) {
  std::string missing;
  for (const std::string& entry : from) {
    if (!in.contains(entry)) missing += "\n  " + entry;
  }
  return missing;
}

TEST_F(OpenApiRoutesTest, HasAnOperationForEveryRouteAndARouteForEveryOperation) {
  const std::set<std::string> routes = RegisteredRoutes(router_);
  const std::set<std::string> operations = DocumentedOperations(OpenApiDocument({}));
  ASSERT_FALSE(routes.empty());
  EXPECT_EQ(Missing(routes, operations), "")
      << "routes of api/handlers.cc without an operation in api/openapi/openapi.json";
  EXPECT_EQ(Missing(operations, routes), "")
      << "operations of api/openapi/openapi.json that no route of api/handlers.cc serves";
}

TEST(OpenApiDocumentTest, EveryOperationListsItsResponsesWithoutADefault) {
  const ordered_json document = OpenApiDocument({});
  for (const auto& [path, item] : document["paths"].items()) {
    for (const char* method : kMethods) {
      if (!item.contains(method)) continue;
      const ordered_json& responses = item[method]["responses"];
      EXPECT_FALSE(responses.empty()) << method << " " << path;
      // A default would match any status: the validator could not tell an
      // answer the document forgot.
      EXPECT_FALSE(responses.contains("default")) << method << " " << path;
    }
  }
}

TEST(OpenApiDocumentTest, BodySchemaOfPostJobsHasExactlyTheDecodersFields) {
  const ordered_json document = OpenApiDocument({});
  const ordered_json& body =
      document["paths"]["/v1/jobs"]["post"]["requestBody"]["content"]["application/json"]["schema"];
  ASSERT_EQ(body.value("$ref", ""), "#/components/schemas/JobRequest");
  const ordered_json& schema = document["components"]["schemas"]["JobRequest"];
  EXPECT_EQ(schema["additionalProperties"], false);
  std::set<std::string> fields;
  for (const JobRequestField& field : JobRequestFields()) {
    fields.emplace(field.name);
    ASSERT_TRUE(schema["properties"].contains(field.name)) << field.name;
    EXPECT_TRUE(schema["properties"][std::string(field.name)].contains("type") ||
                schema["properties"][std::string(field.name)].contains("oneOf"))
        << field.name << " has no type";
  }
  std::set<std::string> properties;
  for (const auto& [name, property] : schema["properties"].items()) properties.insert(name);
  EXPECT_EQ(properties, fields);
}

TEST(OpenApiDocumentTest, BodySchemaBoundsAreTheDaemonsLimits) {
  JobRequestLimits limits;
  limits.max_slots = 64;
  limits.max_list_items = 5;
  limits.max_name_bytes = 40;
  const ordered_json document = OpenApiDocument(limits);
  const ordered_json& properties = document["components"]["schemas"]["JobRequest"]["properties"];
  EXPECT_EQ(properties["slots"]["maximum"], 64);
  EXPECT_EQ(properties["queues"]["maxItems"], 5);
  EXPECT_EQ(properties["host"]["maxLength"], 40);
  EXPECT_EQ(properties["queues"]["items"]["maxLength"], 40);
}

TEST(OpenApiDocumentTest, ListsTheProblemTypeOfEveryErrorCode) {
  const ordered_json document = OpenApiDocument({});
  const ordered_json& types = document["components"]["schemas"]["Problem"]["properties"]["type"];
  const auto listed = [&](const std::string& type) {
    for (const auto& entry : types["enum"]) {
      if (entry == type) return true;
    }
    return false;
  };
  EXPECT_TRUE(listed("about:blank"));
  int codes = 0;
  // ErrorCode's enumerators are consecutive from 0; ErrorCodeName says
  // "unknown" past the last.
  for (int i = 0; std::string(ErrorCodeName(static_cast<ErrorCode>(i))) != "unknown"; ++i) {
    const Response problem = MakeProblem(Error{static_cast<ErrorCode>(i), "x"});
    const auto body = nlohmann::json::parse(problem.body());
    EXPECT_TRUE(listed(body["type"].get<std::string>())) << body["type"];
    ++codes;
  }
  EXPECT_GE(codes, 12);
}

TEST_F(OpenApiRoutesTest, EveryReadRouteRefusesAQueryParameterItsOperationDoesNotList) {
  // A misspelt filter (?stauts=RUN) answered as if absent is a silent
  // wrong answer. Path parameters get a value the canned cluster knows;
  // the check comes before the lookup either way.
  services_.tracker = &tracker_;  // the job routes too
  const ordered_json document = OpenApiDocument({});
  int checked = 0;
  for (const auto& [path, item] : document["paths"].items()) {
    if (!item.contains("get") || !path.starts_with("/v1/") || path == "/v1/openapi.json") {
      continue;
    }
    std::string target = path;
    for (const auto& [name, value] :
         {std::pair{"{name}", "qa"}, {"{host}", "node001"}, {"{id}", "1"}}) {
      if (const auto at = target.find(name); at != std::string::npos) {
        target.replace(at, std::string_view(name).size(), value);
      }
    }
    const Response response = Get(target + "?not_a_parameter=1");
    EXPECT_EQ(response.result_int(), 400u) << path << ": " << response.body();
    EXPECT_THAT(Detail(response), ::testing::StartsWith("not_a_parameter: unknown query parameter"))
        << path;
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

TEST_F(OpenApiRoutesTest, IsServedAtV1OpenApiJsonWithoutCredentials) {
  Services& services = services_;
  services.options.request.max_slots = 12;
  Router router;
  RegisterRoutes(router, services);
  Request req{http::verb::get, "/v1/openapi.json", 11};
  std::optional<Response> answer;
  router.Dispatch(std::move(req), RequestContext{}, [&](Response res) { answer = std::move(res); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->result_int(), 200u);
  EXPECT_EQ(std::string((*answer)[http::field::content_type]), "application/json");
  const ordered_json served = ordered_json::parse(answer->body());
  EXPECT_EQ(served, OpenApiDocument(services.options.request));
  EXPECT_EQ(served.begin().key(), "openapi");
  EXPECT_EQ(served["openapi"], "3.1.0");
  EXPECT_EQ(served["info"]["version"], BPLACE_TEST_VERSION);
}

}  // namespace
}  // namespace bplace::api
