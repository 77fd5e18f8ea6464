#include "cli/bsub_args.h"

#include <gtest/gtest.h>

#include "api/job_request_decoder.h"

namespace bplace::cli {
namespace {

using nlohmann::json;

json Body(const std::vector<std::string>& args) {
  auto parsed = ParseSubmitArgs(args);
  EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().message);
  return parsed ? parsed->body : json();
}

std::string Problem(const std::vector<std::string>& args) {
  auto parsed = ParseSubmitArgs(args);
  EXPECT_FALSE(parsed.has_value()) << parsed->body.dump();
  return parsed ? "" : parsed.error().message;
}

TEST(ParseSubmitArgs, ReadsTheSeedUsageHostFirst) {
  const json body = Body({"node007", "-n", "4", "-W", "2:00", "-o", "out.%J", "-q", "short normal",
                          "./run.sh", "input.dat"});
  EXPECT_EQ(body["host"], "node007");
  EXPECT_EQ(body["slots"], 4);
  EXPECT_TRUE(body["slots"].is_number_integer());
  EXPECT_EQ(body["walltime"], "2:00");
  EXPECT_EQ(body["output"], "out.%J");
  EXPECT_EQ(body["queues"], json({"short", "normal"}));
  EXPECT_EQ(body["argv"], json({"./run.sh", "input.dat"}));
  EXPECT_FALSE(body.contains("command"));
}

TEST(ParseSubmitArgs, TheBodyIsOneTheDaemonsDecoderAccepts) {
  const json body =
      Body({"node007", "-J",  "align", "-n",      "2",     "-R",      "rusage[mem=4000]",
            "-M",      "8GB", "-W",    "60",      "-e",    "err",     "-cwd",
            "/tmp",    "-P",  "proj",  "-app",    "prof",  "-G",      "grp",
            "-B",      "-q",  "a,b",   "--label", "wf=17", "--no-ib", "sleep",
            "60"});
  auto decoded = api::DecodeJobRequest(body.dump(), api::JobRequestLimits{});
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message << "\n" << body.dump();
}

TEST(ParseSubmitArgs, EveryOptionOfTheFieldTableFillsItsField) {
  for (const api::JobRequestField& field : api::JobRequestFields()) {
    const std::string option(field.bsub);
    if (option.empty() || option[0] != '-' || option.find(' ') != std::string::npos) continue;
    const std::string value = field.type == "integer" ? "3" : "x";
    const json parsed = Body({option, value, "true"});
    ASSERT_TRUE(parsed.contains(std::string(field.name))) << option << " " << parsed.dump();
    if (field.type == "integer") {
      EXPECT_EQ(parsed[std::string(field.name)], 3) << option;
    } else {
      EXPECT_EQ(parsed[std::string(field.name)], "x") << option;
    }
  }
}

TEST(ParseSubmitArgs, AJobNameWithAnIndexListIsAJobArrayAsBsubReadsIt) {
  json body = Body({"-J", "align[1-100:2]", "sleep", "1"});
  EXPECT_EQ(body["job_name"], "align");
  EXPECT_EQ(body["array"], "1-100:2");
  EXPECT_TRUE(api::DecodeJobRequest(body.dump(), api::JobRequestLimits{}).has_value())
      << body.dump();
  body = Body({"-J", "[1-3]", "true"});
  EXPECT_FALSE(body.contains("job_name"));
  EXPECT_EQ(body["array"], "1-3");
  // A name that merely holds brackets is left for the daemon to refuse.
  EXPECT_EQ(Body({"-J", "a]b[", "true"})["job_name"], "a]b[");
  EXPECT_EQ(Problem({"-J", "x[1-10]%5", "true"}),
            "-J x[1-10]%5: an array limit (%N) bplace does not pass");
  EXPECT_EQ(Problem({"-J", "[1-3]", "-J", "foo", "true"}), "-J: given twice");
}

TEST(ParseSubmitArgs, ALoneWordOrAPathIsTheCommandNotAHost) {
  // Snakemake's `--cluster "bplace submit"` passes the job script alone.
  EXPECT_EQ(Body({"/work/job.sh"})["command"], "/work/job.sh");
  EXPECT_FALSE(Body({"/work/job.sh"}).contains("host"));
  EXPECT_EQ(Body({"job.sh"})["command"], "job.sh");
  const json body = Body({"/work/job.sh", "input.dat"});
  EXPECT_FALSE(body.contains("host"));
  EXPECT_EQ(body["argv"], json({"/work/job.sh", "input.dat"}));
  // A first word that would be taken for the HOST: -- before the COMMAND.
  EXPECT_EQ(Body({"sleep", "5"})["host"], "sleep");
  const json after_dashes = Body({"--", "sleep", "5"});
  EXPECT_FALSE(after_dashes.contains("host"));
  EXPECT_EQ(after_dashes["argv"], json({"sleep", "5"}));
}

TEST(ParseSubmitArgs, OneCommandWordIsAShellCommandString) {
  const json body = Body({"--host", "node1", "sleep 60; date"});
  EXPECT_EQ(body["command"], "sleep 60; date");
  EXPECT_FALSE(body.contains("argv"));
}

TEST(ParseSubmitArgs, HostMayComeAsAnOptionAnywhereAmongTheOptions) {
  const json body = Body({"-n", "2", "--host", "node1", "hostname"});
  EXPECT_EQ(body["host"], "node1");
  EXPECT_EQ(Body({"-m", "node2", "hostname"})["host"], "node2");
  EXPECT_FALSE(Body({"-n", "2", "hostname"}).contains("host"));
}

TEST(ParseSubmitArgs, OptionsWithoutAFieldGoToExtraArgsWithTheirValues) {
  const json body = Body({"node1", "-G", "grp", "-B", "-sla", "gold", "-x", "a.out"});
  EXPECT_EQ(body["extra_args"], json({"-G", "grp", "-B", "-sla", "gold", "-x"}));
  EXPECT_EQ(body["command"], "a.out");
}

TEST(ParseSubmitArgs, DoubleDashEndsTheOptions) {
  const json body = Body({"node1", "--", "-weird", "arg"});
  EXPECT_EQ(body["argv"], json({"-weird", "arg"}));
}

TEST(ParseSubmitArgs, LabelsRequireIbAndQueuesFromSeveralQ) {
  const json body =
      Body({"-q", "a b", "-q", "c", "--label", "k=v", "--label", "x=", "--ib", "true"});
  EXPECT_EQ(body["queues"], json({"a", "b", "c"}));
  EXPECT_EQ(body["labels"], json({{"k", "v"}, {"x", ""}}));
  EXPECT_EQ(body["require_ib"], true);
}

TEST(ParseSubmitArgs, KeepsTheIdempotencyKeyOutOfTheBody) {
  auto parsed = ParseSubmitArgs({"--idempotency-key", "wf17-3", "true"});
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->idempotency_key, "wf17-3");
  EXPECT_FALSE(parsed->body.contains("idempotency_key"));
}

TEST(ParseSubmitArgs, RefusesWhatBplacedDoesNotPassOnNamingTheWord) {
  EXPECT_NE(Problem({"node1", "-Is", "bash"}).find("-Is: not a bsub option"), std::string::npos);
  EXPECT_NE(Problem({"node1", "-K", "true"}).find("-K:"), std::string::npos);
  EXPECT_NE(Problem({"node1", "-Jd", "x", "true"}).find("-Jd:"), std::string::npos);
  EXPECT_NE(Problem({"node1", "-frobnicate", "true"}).find("-frobnicate:"), std::string::npos);
  EXPECT_NE(Problem({"node1", "--frobnicate", "true"}).find("--frobnicate:"), std::string::npos);
}

TEST(ParseSubmitArgs, RefusesBadValuesAndRepeats) {
  EXPECT_EQ(Problem({"node1", "-n"}), "-n: needs a value after it");
  EXPECT_EQ(Problem({"node1", "-n", "two", "true"}), "-n: expected a whole number, got \"two\"");
  // An empty -q would otherwise let bplace choose among every queue.
  EXPECT_EQ(Problem({"-q", "", "true"}),
            "-q: no queue named (give one, or several in quotes: -q \"short normal\")");
  EXPECT_EQ(Problem({"-q", "  ", "true"}).substr(0, 19), "-q: no queue named ");
  EXPECT_EQ(Problem({"node1", "-J", "a", "-J", "b", "true"}), "-J: given twice");
  EXPECT_NE(Problem({"node1", "-m", "node2", "true"}).find("already given (node1)"),
            std::string::npos);
  EXPECT_EQ(Problem({"node1", "--label", "novalue", "true"}),
            "--label novalue: expected KEY=VALUE");
  EXPECT_NE(Problem({"node1", "-n", "2"}).find("no COMMAND given"), std::string::npos);
  EXPECT_NE(Problem({}).find("no COMMAND given"), std::string::npos);
}

}  // namespace
}  // namespace bplace::cli
