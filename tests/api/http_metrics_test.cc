#include "api/http_metrics.h"

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/router.h"
#include "common/manual_clock.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;
using ::testing::HasSubstr;
using ::testing::Not;

// A router whose routes answer `status` after `took` on the manual clock,
// reporting to HttpMetrics.
class HttpMetricsTest : public ::testing::Test {
 protected:
  HttpMetricsTest() {
    router_.SetObserver(&metrics_);
    AddRoute("/v1/queues/{name}", 200, std::chrono::milliseconds(30));
    AddRoute("/v1/jobs", 201, std::chrono::milliseconds(0));
  }

  void AddRoute(const std::string& pattern, unsigned status, std::chrono::milliseconds took) {
    router_.Add(pattern == "/v1/jobs" ? http::verb::post : http::verb::get, pattern,
                [this, status, took](Request&&, const RequestContext&, const RouteParams&,
                                     Responder respond) {
                  clock_.Advance(took);
                  Response res{static_cast<http::status>(status), 11};
                  respond(std::move(res));
                });
  }

  // Dispatches `method target`; returns the status answered.
  unsigned Send(http::verb method, const std::string& target) {
    Request req{method, target, 11};
    RequestContext ctx;
    ctx.received = clock_.SteadyNow();
    unsigned status = 0;
    router_.Dispatch(std::move(req), ctx, [&status](Response res) { status = res.result_int(); });
    return status;
  }

  ManualClock clock_;
  metrics::Registry registry_;
  HttpMetrics metrics_{registry_, clock_};
  Router router_;
};

TEST_F(HttpMetricsTest, CountsByRoutePatternNeverThePath) {
  EXPECT_EQ(Send(http::verb::get, "/v1/queues/normal"), 200u);
  EXPECT_EQ(Send(http::verb::get, "/v1/queues/short?x=1"), 200u);
  const std::string text = registry_.Render();
  EXPECT_THAT(text, HasSubstr("bplace_http_requests_total{method=\"GET\","
                              "route=\"/v1/queues/{name}\",code=\"200\"} 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("normal")));
  EXPECT_THAT(text, Not(HasSubstr("short")));
  // Codes that never occurred are left out.
  EXPECT_THAT(text, Not(HasSubstr("code=\"404\"")));
}

TEST_F(HttpMetricsTest, TimesFromTheRequestReadToTheResponse) {
  Send(http::verb::get, "/v1/queues/normal");
  const std::string text = registry_.Render();
  EXPECT_THAT(text, HasSubstr("bplace_http_request_duration_seconds_bucket{method=\"GET\","
                              "route=\"/v1/queues/{name}\",le=\"0.025\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("bplace_http_request_duration_seconds_bucket{method=\"GET\","
                              "route=\"/v1/queues/{name}\",le=\"0.05\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_http_request_duration_seconds_sum{method=\"GET\","
                              "route=\"/v1/queues/{name}\"} 0.03\n"));
}

TEST_F(HttpMetricsTest, RouterAnswersWithoutARouteAreUnmatched) {
  EXPECT_EQ(Send(http::verb::get, "/v1/nothing/here"), 404u);
  EXPECT_EQ(Send(http::verb::delete_, "/v1/jobs"), 405u);
  EXPECT_EQ(Send(http::verb::get, "/v1/queues/%zz"), 400u);
  const std::string text = registry_.Render();
  EXPECT_THAT(text, HasSubstr("{method=\"any\",route=\"unmatched\",code=\"404\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{method=\"any\",route=\"unmatched\",code=\"405\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{method=\"any\",route=\"unmatched\",code=\"400\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("nothing")));
}

TEST_F(HttpMetricsTest, AnUnexpectedCodeGetsItsOwnSeries) {
  router_.Add(http::verb::get, "/teapot",
              [](Request&&, const RequestContext&, const RouteParams&, Responder respond) {
                respond(Response{static_cast<http::status>(418), 11});
              });
  EXPECT_EQ(Send(http::verb::get, "/teapot"), 418u);
  EXPECT_EQ(Send(http::verb::post, "/v1/jobs"), 201u);
  const std::string text = registry_.Render();
  EXPECT_THAT(text, HasSubstr("{method=\"GET\",route=\"/teapot\",code=\"418\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("{method=\"POST\",route=\"/v1/jobs\",code=\"201\"} 1\n"));
}

}  // namespace
}  // namespace bplace::api
