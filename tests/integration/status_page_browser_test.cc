// The status page at GET / in a real browser: the real bplaced on the LSF
// simulator, headless Chromium (tests/integration/status_page_probe.py,
// Debian's chromium, chromium-driver, python3-selenium) loading the page on
// 127.0.0.1 and reading the DOM it drew. Screenshots land in
// STATUS_PAGE_ARTIFACTS (the build tree).

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// What the probe saw, or a failure naming why there is nothing to look at.
struct PageView {
  json dom;
  std::string failure;
};

// Loads http://127.0.0.1:PORT/`query` in Chromium and waits (at most 60 s)
// until the page drew its data and `until` (a JavaScript expression) holds.
PageView LoadPage(int port, const std::string& screenshot, const std::string& until = "true",
                  const std::string& query = "?refresh=2") {
  std::filesystem::create_directories(STATUS_PAGE_ARTIFACTS);
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/" + query;
  const ProcessOutput run = RunProcess(
      {"/usr/bin/python3", STATUS_PAGE_PROBE, url, "--screenshot",
       std::string(STATUS_PAGE_ARTIFACTS) + "/" + screenshot, "--timeout", "60", "--until", until},
      {}, std::chrono::seconds(120));
  PageView view;
  view.dom = json::parse(run.out, nullptr, false);
  if (run.exit_code == 2) {
    view.failure = "the probe could not run: " + run.err;
  } else if (view.dom.is_discarded()) {
    view.failure = "the probe printed no JSON (exit " + std::to_string(run.exit_code) +
                   "): " + run.out + run.err;
  } else if (view.dom["waited_out"] == true) {
    view.failure = "the page never showed what was waited for (" + until +
                   "); it showed: " + view.dom.dump().substr(0, 4000);
  }
  return view;
}

// Console lines that say the page broke: script errors and CSP refusals
// (favicon.ico is not served: its 404 is expected; so is the 401 of
// /v1/jobs to the anonymous browser, which sees no jobs by design and says
// so on the page: docs/operations.md "Security").
std::vector<std::string> PageErrors(const json& dom) {
  std::vector<std::string> errors;
  for (const json& line : dom["console"]) {
    const std::string text = line.get<std::string>();
    if (text.find("favicon.ico") != std::string::npos) continue;
    if (text.find("/v1/jobs?") != std::string::npos && text.find("401") != std::string::npos) {
      continue;
    }
    errors.push_back(text);
  }
  return errors;
}

// The demo cluster, plus a queue whose description is markup: the page must
// show it as text.
std::string DemoWithHostileQueue() {
  std::ifstream in(DEMO_CLUSTER);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text +=
      "\n[[queue]]\nname = \"zz_markup\"\npriority = 1\n"
      "description = \"<img id=\\\"injected\\\" src=\\\"/x\\\"><b>bold</b>\"\n";
  const std::string path = "/tmp/bplace-status-demo-" + std::to_string(getpid()) + ".toml";
  std::ofstream(path) << text;
  return path;
}

class StatusPageTest : public ::testing::Test {
 protected:
  static DaemonSettings Settings() {
    DaemonSettings settings;
    settings.load_refresh_s = 1;
    settings.jobs_refresh_s = 1;
    settings.extra_config = "[ib]\nsource = \"lsload\"\n";
    return settings;
  }
  StatusPageTest() : definition_(DemoWithHostileQueue()), sim_(definition_) {
    std::filesystem::remove(definition_);
  }

  std::string definition_;
  SimCluster sim_;
};

TEST_F(StatusPageTest, ServesThePageWithAStrictPolicyAndItsAssets) {
  DaemonProcess daemon(sim_, Settings());
  const HttpReply page = daemon.Get("/");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.headers.at("content-type"), "text/html; charset=utf-8");
  EXPECT_THAT(page.headers.at("content-security-policy"), HasSubstr("script-src 'self'"));
  EXPECT_THAT(page.headers.at("content-security-policy"), HasSubstr("default-src 'none'"));
  EXPECT_EQ(page.headers.at("x-content-type-options"), "nosniff");
  EXPECT_THAT(page.body, HasSubstr("<script src=\"/status/status.js\" defer></script>"));
  EXPECT_EQ(page.body.find("<script>"), std::string::npos) << "no inline script";
  const HttpReply script = daemon.Get("/status/status.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.headers.at("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(script.body.find("innerHTML"), std::string::npos) << "API strings are never markup";
  EXPECT_EQ(daemon.Get("/status/status.css").headers.at("content-type"), "text/css; charset=utf-8");
  EXPECT_EQ(daemon.Get("/status/nothing.js").status, 404);
  EXPECT_EQ(Http(daemon.port(), "POST", "/", "{}").status, 405);
}

TEST_F(StatusPageTest, ShowsTheSickHostTheBusiestQueueFirstAndTheJobCounts) {
  // node005 turns sick before the daemon starts; node017 has ib_ok = 0 in
  // the demo; node021 is closed_Adm with a healthy reading, node033 unreach.
  ASSERT_EQ(sim_.Lsf({"lsfsim", "set-ib", "node005", "0"}).exit_code, 0);
  DaemonProcess daemon(sim_, Settings());
  for (int i = 0; i < 2; ++i) {
    const HttpReply job = daemon.Post("/v1/jobs", R"({"command": "sleep 60"})");
    ASSERT_EQ(job.status, 201) << job.body;
  }
  const json queues = daemon.Get("/v1/queues").Json()["queues"];
  const std::size_t hosts = daemon.Get("/v1/hosts").Json()["hosts"].size();

  // The browser is an anonymous reader: it sees no jobs (docs/operations.md "Security").
  const PageView view =
      LoadPage(daemon.port(), "status-page-demo.png",
               "document.getElementById('jobs-note').textContent.includes('anonymous') && "
               "document.querySelector('#hostmap .h[data-host=\"node005\"].sick') !== null");
  ASSERT_EQ(view.failure, "");
  const json& dom = view.dom;

  // Sick hosts: class and letter, not colour alone.
  for (const char* sick : {"node005", "node017"}) {
    EXPECT_EQ(dom["hosts"][sick]["class"], "h sick") << sick;
    EXPECT_EQ(dom["hosts"][sick]["text"], "!") << sick;
  }
  EXPECT_EQ(dom["hosts"]["node021"]["class"], "h closed");
  EXPECT_EQ(dom["hosts"]["node033"]["class"], "h down");
  EXPECT_EQ(dom["hosts"]["node007"]["class"], "h ok");
  EXPECT_EQ(dom["host_cells"], hosts) << "one cell per bhosts host";

  // Queues: most pending first, every one of /v1/queues.
  ASSERT_EQ(dom["queues"].size(), queues.size());
  const auto busiest = std::max_element(
      queues.begin(), queues.end(),
      [](const json& a, const json& b) { return a["pend"].get<int>() < b["pend"].get<int>(); });
  EXPECT_EQ(dom["queues"][0]["name"], (*busiest)["name"]) << dom["queues"].dump();
  for (std::size_t i = 1; i < dom["queues"].size(); ++i) {
    EXPECT_GE(dom["queues"][i - 1]["pend"].get<int>(), dom["queues"][i]["pend"].get<int>());
  }

  // Jobs by state: none for an anonymous reader, and the page says why.
  EXPECT_EQ(dom["jobs"], json::object()) << dom["jobs_note"];
  EXPECT_THAT(dom["jobs_note"].get<std::string>(), HasSubstr("anonymous readers see no jobs"));

  // A description that is markup stays text.
  EXPECT_FALSE(dom["injected"]);
  bool shown_as_text = false;
  for (const json& queue : dom["queues"]) {
    shown_as_text |= queue["name"] == "zz_markup" &&
                     queue["title"] == "<img id=\"injected\" src=\"/x\"><b>bold</b>";
  }
  EXPECT_TRUE(shown_as_text) << dom["queues"].dump();

  EXPECT_EQ(dom["legend"].size(), 7u);
  EXPECT_TRUE(dom["banner"].is_null()) << dom["banner"];
  EXPECT_THAT(PageErrors(dom), ::testing::IsEmpty());
}

TEST_F(StatusPageTest, ShowsAnLsfFailureInTheBanner) {
  DaemonProcess daemon(sim_, Settings());
  ASSERT_EQ(sim_.Lsf({"lsfsim", "fault", "--command", "bqueues", "--down", "fail"}).exit_code, 0);
  const PageView view =
      LoadPage(daemon.port(), "status-page-lsf-down.png",
               "(document.getElementById('banner').textContent || '').includes('load refresh')");
  ASSERT_EQ(view.failure, "");
  EXPECT_THAT(view.dom["banner"].get<std::string>(), HasSubstr("load refresh failing"));
  // The last good snapshot is still drawn.
  EXPECT_GT(view.dom["host_cells"].get<int>(), 40);
}

// `lsfsim generate`: 5,000 hosts (and the generator's gpu hosts) in nested
// host groups.
TEST(StatusPageLargeTest, DrawsEveryCellOfAFiveThousandHostCluster) {
  const std::string definition = "/tmp/bplace-status-large-" + std::to_string(getpid()) + ".toml";
  const ProcessOutput generated = RunProcess(
      {std::string(LSFSIM_BIN_DIR) + "/lsfsim", "generate", "--hosts", "5000", "--queues", "100"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::ofstream(definition) << generated.out;
  SimCluster sim(definition);
  std::filesystem::remove(definition);
  DaemonSettings settings;
  settings.extra_config = "[ib]\nsource = \"lsload\"\n";
  DaemonProcess daemon(sim, settings);
  const std::size_t hosts = daemon.Get("/v1/hosts").Json()["hosts"].size();
  ASSERT_GE(hosts, 5000u);

  // Without ?refresh= the page polls at the daemon's load interval (3600 s
  // in the harness).
  const PageView view = LoadPage(daemon.port(), "status-page-5000-hosts.png",
                                 "document.querySelectorAll('#hostmap .h').length >= 5000", "");
  ASSERT_EQ(view.failure, "");
  EXPECT_THAT(view.dom["ages"].get<std::string>(), HasSubstr("every 3600 s"));
  EXPECT_EQ(view.dom["host_cells"], hosts);
  EXPECT_EQ(view.dom["hosts"].size(), hosts) << "each host once";
  EXPECT_EQ(view.dom["queues"].size(), 100u);
  EXPECT_THAT(PageErrors(view.dom), ::testing::IsEmpty());
}

}  // namespace
}  // namespace bplace::testing
