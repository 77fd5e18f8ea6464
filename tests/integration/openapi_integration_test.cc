// GET /v1/openapi.json from the real bplaced: what a client generator fetches.

#include <string>

#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

TEST(OpenApiIntegrationTest, AnonymousCallersGetTheDocumentThatPrintOpenApiPrints) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.anonymous_read = false;
  DaemonProcess daemon(sim, settings);

  // Reads need credentials here; the document and the probes do not.
  EXPECT_EQ(daemon.Get("/v1/queues").status, 401);
  EXPECT_EQ(daemon.Get("/healthz").status, 200);
  const HttpReply reply = daemon.Get("/v1/openapi.json");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.headers.at("content-type"), "application/json");
  const nlohmann::json served = reply.Json();
  ASSERT_TRUE(served.is_object()) << reply.body.substr(0, 200);
  EXPECT_EQ(served["openapi"], "3.1.0");
  EXPECT_TRUE(served["paths"].contains("/v1/jobs"));

  const ProcessOutput printed = RunProcess(
      {BPLACED_PATH, "--print-openapi", "--config", (sim.dir() / "bplaced.toml").string()});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(nlohmann::json::parse(printed.out, nullptr, false), served);
}

}  // namespace
}  // namespace bplace::testing
