#include "api/bsub_request.h"

#include <gtest/gtest.h>

#include "api/job_request_decoder.h"

namespace bplace::api {
namespace {

using nlohmann::json;

json Body(const std::vector<std::string>& args,
          BsubSubmitter submitter = {"/home/alice", {}, {}, {}}) {
  auto line = lsf::ParseBsubCommandLine(args);
  EXPECT_TRUE(line);
  auto body = JobBodyFromBsub(*line, submitter);
  EXPECT_TRUE(body) << (body ? "" : body.error().message);
  return body ? *body : json();
}

TEST(JobBodyFromBsubTest, ToilsCommandLineBecomesTheRequestFields) {
  const json body =
      Body({"-cwd", ".", "-J", "toil_job_3", "-R", "select[mem>100MB] rusage[mem=100MB]", "-M",
            "100MB", "-n", "2", "-o", "/t/o.%J", "-e", "/t/e.%J", "_toil_worker", "run", "x"});
  EXPECT_EQ(body["cwd"], ".");
  EXPECT_EQ(body["job_name"], "toil_job_3");
  EXPECT_EQ(body["resources"], json::array({"select[mem>100MB] rusage[mem=100MB]"}));
  EXPECT_EQ(body["memory"], "100MB");
  EXPECT_EQ(body["slots"], 2);
  EXPECT_EQ(body["output"], "/t/o.%J");
  EXPECT_EQ(body["error"], "/t/e.%J");
  // bsub joins the command words with blanks (quoting only what needs it).
  EXPECT_EQ(body["command"], "_toil_worker run x");
  EXPECT_EQ(body["workdir"], "/home/alice");
  EXPECT_FALSE(body.contains("queues"));
  // What the decoder reads from it is what bsub would run.
  auto job = DecodeJobRequest(body.dump(), {});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->workdir, "/home/alice");
}

TEST(JobBodyFromBsubTest, QueuesHostArraysAndPassedOptions) {
  const json body = Body({"-q", "short, long", "-m", "node007", "-J", "nf-x[1-10]", "-G", "grp",
                          "-B", "-env", "all", "-R", "a", "-R", "span[hosts=1]", "true"});
  EXPECT_EQ(body["queues"], json::array({"short", "long"}));
  EXPECT_EQ(body["host"], "node007");
  EXPECT_EQ(body["job_name"], "nf-x");
  EXPECT_EQ(body["array"], "1-10");
  EXPECT_EQ(body["extra_args"], json::array({"-G", "grp", "-B", "-env", "all"}));
  EXPECT_EQ(body["resources"], json::array({"a", "span[hosts=1]"}));
}

TEST(JobBodyFromBsubTest, AScriptOnStdinWhenNoCommand) {
  BsubSubmitter submitter{"/w", "022", json{{"PATH", "/usr/bin"}}, "#BSUB -n 2\nhostname\n"};
  const json body = Body({"-q", "short"}, submitter);
  EXPECT_EQ(body["script"], "#BSUB -n 2\nhostname\n");
  EXPECT_EQ(body["umask"], "022");
  EXPECT_EQ(body["environment"]["PATH"], "/usr/bin");
  EXPECT_FALSE(body.contains("command"));
}

TEST(JobBodyFromBsubTest, WhatBplaceCannotExpressIsLeftToBsub) {
  const BsubSubmitter submitter{"/w", {}, {}, {}};
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-Jd", "mine", "true"},
                                               {"-m", "a b", "true"},
                                               {"-n", "2,4", "true"},
                                               {"-J", "a[1-9]%2", "true"},
                                               {"-o", "a", "-o", "b", "true"},
                                               {"-Is", "bash"},
                                               {"-q", "", "true"},
                                               {"-q", " , ", "true"},
                                               {"-m", "", "true"},
                                               {"-q", "short"}}) {
    auto line = lsf::ParseBsubCommandLine(args);
    ASSERT_TRUE(line);
    EXPECT_FALSE(JobBodyFromBsub(*line, submitter)) << args.front();
  }
}

TEST(SplitQueueListTest, BlanksAndCommas) {
  EXPECT_EQ(SplitQueueList(" a,b  c,"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(SplitQueueList("  ").empty());
}

}  // namespace
}  // namespace bplace::api
