#include "lsf_adapter/bjobs_parser.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {

// Lets GoogleTest print hosts in failure messages ("node001*4").
void PrintTo(const ExecHost& host, std::ostream* out) { *out << host.name << "*" << host.slots; }

namespace {

using testing::ReadTestdata;
using testing::WithCrlf;

std::vector<ExecHost> Hosts(std::initializer_list<std::pair<const char*, std::int64_t>> hosts) {
  std::vector<ExecHost> out;
  for (const auto& [name, slots] : hosts) out.push_back(ExecHost{name, slots});
  return out;
}

// A bjobs -json document with the given records (objects, as JSON text).
std::string Json(const std::string& records, int jobs) {
  return "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":" + std::to_string(jobs) +
         ",\n  \"RECORDS\":[\n" + records + "\n  ]\n}\n";
}

JobRecord OneJsonRecord(const std::string& record) {
  auto jobs = ParseBjobsJson(Json(record, 1));
  EXPECT_TRUE(jobs.has_value()) << jobs.error().message;
  if (!jobs || jobs->size() != 1) return {};
  return jobs->front();
}

std::string JsonError(const std::string& text) {
  auto jobs = ParseBjobsJson(text);
  EXPECT_FALSE(jobs.has_value());
  if (jobs) return "";
  EXPECT_EQ(jobs.error().code, ErrorCode::kParseError);
  return jobs.error().message;
}

// ---- BjobsOutputFields ------------------------------------------------------

TEST(BjobsOutputFieldsTest, IsTheListTheDaemonAsksFor) {
  EXPECT_EQ(BjobsOutputFields(),
            "jobid jobindex user stat queue exit_code exit_reason pend_reason submit_time "
            "start_time finish_time exec_host slots job_name job_description from_host proj_name");
}

TEST(BjobsOutputFieldsTest, EveryFieldComesBackAsAKeyOfTheLsf10Capture) {
  // The capture asked for exactly BjobsOutputFields (make_bjobs_bkill_captures.sh).
  // ordered_json keeps the keys in LSF's order, which is the order of -o.
  const nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(ReadTestdata("lsf/lsf10/bjobs_json_lifecycle.txt"));
  std::string keys;
  for (const auto& [key, value] : doc["RECORDS"][0].items()) {
    if (!keys.empty()) keys += ' ';
    for (char c : key) keys += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  EXPECT_EQ(keys, BjobsOutputFields());
}

// ---- ParseExecHosts -----------------------------------------------------------

TEST(ParseExecHostsTest, ExpandsCountsAndRepeatsToDistinctHosts) {
  EXPECT_EQ(*ParseExecHosts("vm"), Hosts({{"vm", 1}}));
  EXPECT_EQ(*ParseExecHosts("4*node001"), Hosts({{"node001", 4}}));
  EXPECT_EQ(*ParseExecHosts("node001:node001"), Hosts({{"node001", 2}}));
  EXPECT_EQ(*ParseExecHosts("4*node001:node002:node002"), Hosts({{"node001", 4}, {"node002", 2}}));
  EXPECT_EQ(*ParseExecHosts("node002:2*node001:node002"), Hosts({{"node002", 2}, {"node001", 2}}));
  EXPECT_EQ(*ParseExecHosts(" 4*a  2*b\t"), Hosts({{"a", 4}, {"b", 2}}));
}

TEST(ParseExecHostsTest, GivesNoHostForEmptyAndDash) {
  EXPECT_TRUE(ParseExecHosts("")->empty());
  EXPECT_TRUE(ParseExecHosts("   -   ")->empty());
}

TEST(ParseExecHostsTest, RefusesEmptyNamesAndBadCounts) {
  for (const char* text :
       {"a::b", ":a", "a:", "4*", "*a", "0*a", "x*a", "4**a", "4*a*b", "1234567890*a", "-1*a"}) {
    auto hosts = ParseExecHosts(text);
    ASSERT_FALSE(hosts.has_value()) << text;
    EXPECT_EQ(hosts.error().code, ErrorCode::kParseError);
    EXPECT_FALSE(hosts.error().message.empty());
  }
}

// ---- ParseBjobsJson: captures -------------------------------------------------

TEST(ParseBjobsJsonTest, ParsesTheLsf10LifecycleCapture) {
  auto jobs = ParseBjobsJson(ReadTestdata("lsf/lsf10/bjobs_json_lifecycle.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 8u);

  const JobRecord& exited = (*jobs)[0];
  EXPECT_EQ(exited.job_id, "1");
  EXPECT_EQ(exited.array_index, 0);
  EXPECT_EQ(exited.user, "root");
  EXPECT_EQ(exited.status, "EXIT");
  EXPECT_EQ(exited.queue, "short");
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_EQ(exited.exit_reason, "TERM_RUNLIMIT: job killed after reaching LSF run time limit");
  EXPECT_EQ(exited.pend_reason, "");
  EXPECT_EQ(exited.submit_time, "Nov 30 11:40");
  EXPECT_EQ(exited.start_time, "Nov 30 11:41");
  EXPECT_EQ(exited.finish_time, "Nov 30 11:50");
  EXPECT_FALSE(exited.finish_time_estimated);
  EXPECT_EQ(exited.exec_hosts, Hosts({{"node001", 4}}));
  EXPECT_EQ(exited.slots, 4);
  EXPECT_EQ(exited.job_name, "sleep 60");
  EXPECT_EQ(exited.job_description, "bplace:demo1");
  EXPECT_EQ(exited.from_host, "login01");
  EXPECT_EQ(exited.project, "default");
  EXPECT_FALSE(exited.not_found);

  const JobRecord& element = (*jobs)[1];
  EXPECT_EQ(element.IdText(), "2[1]");
  EXPECT_EQ(element.status, "DONE");
  EXPECT_EQ(element.exit_code, std::nullopt);
  EXPECT_EQ(element.job_name, "arr[1]");

  const JobRecord& limited = (*jobs)[4];
  EXPECT_EQ(limited.IdText(), "3");
  EXPECT_EQ(limited.status, "RUN");
  EXPECT_EQ(limited.finish_time, "Nov 30 13:11");
  EXPECT_TRUE(limited.finish_time_estimated);
  EXPECT_EQ(limited.job_name, "my job name");
  EXPECT_EQ(limited.project, "proj1");

  const JobRecord& pending = (*jobs)[5];
  EXPECT_EQ(pending.status, "PEND");
  EXPECT_EQ(pending.pend_reason, "The queue is inactivated by its time windows");
  EXPECT_TRUE(pending.exec_hosts.empty());
  EXPECT_EQ(pending.start_time, "");
  EXPECT_EQ(pending.slots, 1);

  EXPECT_TRUE((*jobs)[6].not_found);
  EXPECT_EQ((*jobs)[6].IdText(), "999");
  EXPECT_EQ((*jobs)[6].error, "Job <999> is not found");
  EXPECT_TRUE((*jobs)[7].not_found);
  EXPECT_EQ((*jobs)[7].IdText(), "2[7]");
  EXPECT_EQ((*jobs)[7].status, "");
}

TEST(ParseBjobsJsonTest, ParsesAnLsf10AnswerOfOnlyUnknownIds) {
  auto jobs = ParseBjobsJson(ReadTestdata("lsf/lsf10/bjobs_json_not_found.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_TRUE((*jobs)[0].not_found);
  EXPECT_EQ((*jobs)[1].IdText(), "2[7]");
}

TEST(ParseBjobsJsonTest, ParsesVolclavasTabLayoutAndItsFewerFields) {
  auto jobs = ParseBjobsJson(ReadTestdata("lsf/openlava/bjobs_json.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 13u);
  const JobRecord& first = (*jobs)[0];
  EXPECT_EQ(first.job_id, "5");
  EXPECT_EQ(first.status, "RUN");
  EXPECT_EQ(first.user, "alice");
  EXPECT_EQ(first.queue, "short");
  EXPECT_EQ(first.exec_hosts, Hosts({{"vm", 1}}));
  EXPECT_EQ(first.job_name, "sleep 30");
  EXPECT_EQ(first.exit_code, std::nullopt);
  EXPECT_EQ(first.slots, 0);
  EXPECT_EQ(first.submit_time, "");
  const JobRecord& pending = (*jobs)[4];
  EXPECT_EQ(pending.job_id, "12");
  EXPECT_EQ(pending.status, "PEND");
  EXPECT_TRUE(pending.exec_hosts.empty());
  EXPECT_EQ((*jobs)[12].job_id, "8");
}

// ---- ParseBjobsJson: one rule each ---------------------------------------------

TEST(ParseBjobsJsonTest, SkipsChatterBeforeTheDocument) {
  auto jobs = ParseBjobsJson("LSF is processing your request. Please wait...\n" +
                             Json(R"({"JOBID":"7","STAT":"RUN"})", 1));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_EQ(jobs->front().status, "RUN");
}

TEST(ParseBjobsJsonTest, LeavesFieldsNotAskedForEmpty) {
  const JobRecord job = OneJsonRecord(R"({"JOBID":"7"})");
  EXPECT_EQ(job.job_id, "7");
  EXPECT_EQ(job.status, "");
  EXPECT_EQ(job.exit_code, std::nullopt);
  EXPECT_TRUE(job.exec_hosts.empty());
  EXPECT_EQ(job.slots, 0);
}

TEST(ParseBjobsJsonTest, IgnoresKeysItDoesNotKnow) {
  const JobRecord job = OneJsonRecord(R"({"JOBID":"7","GPU_NUM":"2","MEM":{"x":1}})");
  EXPECT_EQ(job.job_id, "7");
}

TEST(ParseBjobsJsonTest, AcceptsIntegersAndNullForStrings) {
  const JobRecord job = OneJsonRecord(R"({"JOBID":7,"SLOTS":16,"EXIT_CODE":null,"USER":null})");
  EXPECT_EQ(job.job_id, "7");
  EXPECT_EQ(job.slots, 16);
  EXPECT_EQ(job.exit_code, std::nullopt);
}

TEST(ParseBjobsJsonTest, ReadsADashAsEmptyButKeepsJobNamesAsPrinted) {
  const JobRecord job = OneJsonRecord(
      R"({"JOBID":"7","START_TIME":"-","FINISH_TIME":"-","EXEC_HOST":"   -   ",)"
      R"("EXIT_CODE":"-","JOB_NAME":"-","JOB_DESCRIPTION":" spaced "})");
  EXPECT_EQ(job.start_time, "");
  EXPECT_EQ(job.finish_time, "");
  EXPECT_TRUE(job.exec_hosts.empty());
  EXPECT_EQ(job.exit_code, std::nullopt);
  EXPECT_EQ(job.job_name, "-");
  EXPECT_EQ(job.job_description, " spaced ");
}

TEST(ParseBjobsJsonTest, KeepsTheEstimateMarkerOfFinishTimeApart) {
  for (const char* marker : {"L", "E", "X"}) {
    const JobRecord job = OneJsonRecord(std::string(R"({"JOBID":"7","FINISH_TIME":"Nov 30 13:10 )") +
                                        marker + "\"}");
    EXPECT_EQ(job.finish_time, "Nov 30 13:10") << marker;
    EXPECT_TRUE(job.finish_time_estimated) << marker;
  }
  const JobRecord done = OneJsonRecord(R"({"JOBID":"7","FINISH_TIME":"Nov 30 13:10"})");
  EXPECT_FALSE(done.finish_time_estimated);
}

TEST(ParseBjobsJsonTest, ExpandsExecHostsWithSlotCounts) {
  const JobRecord job = OneJsonRecord(R"({"JOBID":"7","EXEC_HOST":"4*node001:node002:node002"})");
  EXPECT_EQ(job.exec_hosts, Hosts({{"node001", 4}, {"node002", 2}}));
}

TEST(ParseBjobsJsonTest, TakesTheIndexFromJobindexElseFromTheJobName) {
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"7","JOBINDEX":"3","JOB_NAME":"a[3]"})").array_index, 3);
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"7","JOB_NAME":"a[3]"})").array_index, 3);
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"7","JOBINDEX":"0","JOB_NAME":"a[3]"})").array_index, 0);
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"7","JOB_NAME":"a[x]"})").array_index, 0);
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"7","JOB_NAME":""})").array_index, 0);
}

TEST(ParseBjobsJsonTest, KeepsAStatusItDoesNotKnowAndFlagsIt) {
  const JobRecord job = OneJsonRecord(R"({"JOBID":"7","STAT":"PROV"})");
  EXPECT_EQ(job.status, "PROV");
  EXPECT_EQ(job.status_kind(), JobStatus::kUnrecognized);
}

TEST(ParseBjobsJsonTest, ReadsAnErrorRecordAsNotFound) {
  const JobRecord plain = OneJsonRecord(R"({"JOBID":"999","ERROR":"Job <999> is not found"})");
  EXPECT_TRUE(plain.not_found);
  EXPECT_EQ(plain.IdText(), "999");
  // The element is named only in the sentence; a sentence without an id
  // leaves JOBID alone.
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"2","ERROR":"Job <2[7]> is not found"})").IdText(), "2[7]");
  EXPECT_EQ(OneJsonRecord(R"({"ERROR":"Job <2[7]> is not found"})").IdText(), "2[7]");
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"5","ERROR":"No job found"})").IdText(), "5");
  EXPECT_EQ(OneJsonRecord(R"({"JOBID":"5","ERROR":"Job <6> is not found"})").IdText(), "5");
}

TEST(ParseBjobsJsonTest, GivesNoRecordsForZeroJobs) {
  auto jobs = ParseBjobsJson(R"({"COMMAND":"bjobs","JOBS":0,"RECORDS":[]})");
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_TRUE(jobs->empty());
}

TEST(ParseBjobsJsonTest, TakesAJobsCountThatDisagreesForOutputCutShort) {
  const std::string message = JsonError(Json(R"({"JOBID":"1"})", 2));
  EXPECT_NE(message.find("JOBS says 2 but RECORDS holds 1"), std::string::npos) << message;
  EXPECT_NE(message.find("cut short"), std::string::npos) << message;
}

TEST(ParseBjobsJsonTest, RefusesADocumentCutShort) {
  const std::string whole = ReadTestdata("lsf/lsf10/bjobs_json_lifecycle.txt");
  EXPECT_NE(JsonError(whole.substr(0, whole.size() / 2)).find("not valid JSON"),
            std::string::npos);
}

TEST(ParseBjobsJsonTest, RefusesWhatIsNotABjobsDocument) {
  EXPECT_NE(JsonError("").find("no JSON object"), std::string::npos);
  EXPECT_NE(JsonError("No job found\n").find("no JSON object"), std::string::npos);
  EXPECT_NE(JsonError("{not json}").find("not valid JSON"), std::string::npos);
  EXPECT_NE(JsonError(R"({"COMMAND":"bjobs","JOBS":0})").find("no RECORDS"), std::string::npos);
  EXPECT_NE(JsonError(R"({"RECORDS":{}})").find("no RECORDS"), std::string::npos);
  EXPECT_NE(JsonError(R"({"RECORDS":[]})").find("no JOBS"), std::string::npos);
  EXPECT_NE(JsonError(R"({"JOBS":-1,"RECORDS":[]})").find("no JOBS"), std::string::npos);
}

TEST(ParseBjobsJsonTest, NamesTheRecordOfABadValue) {
  const std::string records = R"({"JOBID":"1"},)"
                              "\n"
                              R"({"JOBID":"x1"})";
  EXPECT_NE(JsonError(Json(records, 2)).find("record 1: JOBID is \"x1\""), std::string::npos);
  EXPECT_NE(JsonError(Json(R"({"STAT":"RUN"})", 1)).find("record 0: no JOBID"), std::string::npos);
  EXPECT_NE(JsonError(Json(R"("7")", 1)).find("record 0: not an object"), std::string::npos);
  for (const char* bad :
       {R"({"JOBID":"7","EXIT_CODE":"x"})", R"({"JOBID":"7","SLOTS":"4.5"})",
        R"({"JOBID":"7","SLOTS":"-1"})", R"({"JOBID":"7","JOBINDEX":"a"})",
        R"({"JOBID":"7","EXEC_HOST":"a::b"})", R"({"JOBID":"7","USER":["a"]})",
        R"({"JOBID":"7","STAT":1.5})", R"({"JOBID":"0"})", R"({"JOBID":"7","ERROR":{}})",
        R"({"JOBID":"x","ERROR":"Job <x> is not found"})"}) {
    EXPECT_NE(JsonError(Json(bad, 1)).find("record 0"), std::string::npos) << bad;
  }
}

// ---- ParseBjobsTable: captures ---------------------------------------------------

TEST(ParseBjobsTableTest, ParsesTheLsf10WideCapture) {
  auto jobs = ParseBjobsTable(ReadTestdata("lsf/lsf10/bjobs_a_w.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 6u);
  const JobRecord& element = (*jobs)[0];
  EXPECT_EQ(element.IdText(), "2[2]");
  EXPECT_EQ(element.user, "root");
  EXPECT_EQ(element.status, "RUN");
  EXPECT_EQ(element.queue, "normal");
  EXPECT_EQ(element.from_host, "login01");
  EXPECT_EQ(element.exec_hosts, Hosts({{"node001", 1}}));
  EXPECT_EQ(element.slots, 1);
  EXPECT_EQ(element.job_name, "arr[2]");
  EXPECT_EQ(element.submit_time, "Nov 30 11:40");
  EXPECT_EQ((*jobs)[2].job_name, "my job name");
  EXPECT_EQ((*jobs)[2].array_index, 0);
  const JobRecord& pending = (*jobs)[3];
  EXPECT_EQ(pending.status, "PEND");
  EXPECT_TRUE(pending.exec_hosts.empty());
  EXPECT_EQ(pending.slots, 0);
  EXPECT_EQ(pending.job_name, "sleep 10");
  EXPECT_EQ((*jobs)[4].exec_hosts, Hosts({{"node001", 4}}));
  EXPECT_EQ((*jobs)[4].slots, 4);
  EXPECT_EQ((*jobs)[5].IdText(), "2[1]");
  EXPECT_EQ((*jobs)[5].status, "DONE");
}

TEST(ParseBjobsTableTest, ParsesTheLsf10PlainCaptureWithBlankExecHosts) {
  auto jobs = ParseBjobsTable(ReadTestdata("lsf/lsf10/bjobs_a.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 6u);
  EXPECT_EQ((*jobs)[2].job_name, "* job name");
  EXPECT_EQ((*jobs)[2].exec_hosts, Hosts({{"node001", 1}}));
  EXPECT_TRUE((*jobs)[3].exec_hosts.empty());
  EXPECT_EQ((*jobs)[3].job_name, "sleep 10");
}

struct VolclavaCapture {
  const char* file;
  std::size_t rows;
};

TEST(ParseBjobsTableTest, ParsesEveryVolclavaCapture) {
  for (const VolclavaCapture& capture :
       {VolclavaCapture{"lsf/openlava/bjobs_u_all_w.txt", 13},
        {"lsf/openlava/bjobs_a_u_all.txt", 13},
        {"lsf/openlava/bjobs_u_all.txt", 16},
        {"lsf/openlava/bjobs_u_all_w_long_name.txt", 16},
        {"lsf/openlava/bjobs_a_u_all_w_unkwn.txt", 18},
        {"lsf/openlava/bjobs_a_u_all_w_restarted.txt", 18}}) {
    auto jobs = ParseBjobsTable(ReadTestdata(capture.file));
    ASSERT_TRUE(jobs.has_value()) << capture.file << ": " << jobs.error().message;
    EXPECT_EQ(jobs->size(), capture.rows) << capture.file;
    for (const JobRecord& job : *jobs) {
      EXPECT_NE(job.status_kind(), JobStatus::kUnrecognized) << capture.file << " " << job.job_id;
      EXPECT_EQ(job.from_host, "vm") << capture.file << " " << job.job_id;
      EXPECT_EQ(job.submit_time.substr(0, 7), "Nov 30 ") << capture.file;
      const bool dispatched = job.status != "PEND" && !(job.status == "EXIT" && job.job_id == "1");
      EXPECT_EQ(job.exec_hosts, dispatched ? Hosts({{"vm", 1}}) : Hosts({}))
          << capture.file << " " << job.job_id;
      EXPECT_TRUE(job.job_name.rfind("sleep ", 0) == 0 || job.job_name == "named_job" ||
                  job.job_name.find("bcdefghij") != std::string::npos)
          << capture.file << " " << job.job_name;
    }
  }
}

TEST(ParseBjobsTableTest, ReadsVolclavaRowsPushedRightByALongUserName) {
  auto jobs = ParseBjobsTable(ReadTestdata("lsf/openlava/bjobs_a_u_all_w_unkwn.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  const JobRecord& pushed = (*jobs)[4];
  EXPECT_EQ(pushed.job_id, "21");
  EXPECT_EQ(pushed.user, "lsfadmin");
  EXPECT_EQ(pushed.status, "PEND");
  EXPECT_EQ(pushed.queue, "aliceq");
  EXPECT_TRUE(pushed.exec_hosts.empty());
  EXPECT_EQ(pushed.job_name, "sleep 30");
  EXPECT_EQ(pushed.submit_time, "Nov 30 11:41");
  EXPECT_EQ((*jobs)[0].status, "UNKWN");
  EXPECT_EQ((*jobs)[11].job_name, "averyveryverylongjobname_abcdefghij");
}

TEST(ParseBjobsTableTest, KeepsTheCutNameOfPlainBjobs) {
  auto jobs = ParseBjobsTable(ReadTestdata("lsf/openlava/bjobs_u_all.txt"));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_EQ((*jobs)[4].user, "lsfadmi");
  EXPECT_EQ((*jobs)[11].job_name, "*bcdefghij");
}

// ---- ParseBjobsTable: one rule each ------------------------------------------------

constexpr const char* kHeader =
    "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n";

JobRecord OneRow(const std::string& row) {
  auto jobs = ParseBjobsTable(std::string(kHeader) + row);
  EXPECT_TRUE(jobs.has_value()) << jobs.error().message;
  if (!jobs || jobs->size() != 1) {
    ADD_FAILURE() << "expected one row";
    return {};
  }
  return jobs->front();
}

std::string TableError(const std::string& text) {
  auto jobs = ParseBjobsTable(text);
  EXPECT_FALSE(jobs.has_value());
  if (jobs) return "";
  EXPECT_EQ(jobs.error().code, ErrorCode::kParseError);
  return jobs.error().message;
}

TEST(ParseBjobsTableTest, AddsTheContinuationHostsOfPlainBjobs) {
  auto jobs = ParseBjobsTable(std::string(kHeader) +
                              "1234    alice   RUN   normal     login01     4*node001   mpi job    Nov 19 13:22\n"
                              "                                             4*node002\n"
                              "                                             node001\n"
                              "1235    alice   PEND  normal     login01                 next       Nov 19 13:23\n");
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].exec_hosts, Hosts({{"node001", 5}, {"node002", 4}}));
  EXPECT_EQ((*jobs)[0].slots, 9);
  EXPECT_EQ((*jobs)[0].job_name, "mpi job");
  EXPECT_TRUE((*jobs)[1].exec_hosts.empty());
}

TEST(ParseBjobsTableTest, ReadsTheColonListOfWideBjobs) {
  const JobRecord job = OneRow(
      "1234    alice   RUN   normal     login01     node001:node001:node002 mpi job Nov 19 13:22\n");
  EXPECT_EQ(job.exec_hosts, Hosts({{"node001", 2}, {"node002", 1}}));
  EXPECT_EQ(job.slots, 3);
  EXPECT_EQ(job.job_name, "mpi job");
}

TEST(ParseBjobsTableTest, FindsTheExecHostOfARowPushedRightByALongQueue) {
  const JobRecord pending = OneRow(
      "1234    alice   PEND  general-interactive login01        -        sleep 1    Nov 19 13:22\n");
  EXPECT_EQ(pending.queue, "general-interactive");
  EXPECT_TRUE(pending.exec_hosts.empty());
  EXPECT_EQ(pending.job_name, "sleep 1");
  const JobRecord running = OneRow(
      "1234    alice   RUN   general-interactive login01     node001     sleep 1    Nov 19 13:22\n");
  EXPECT_EQ(running.exec_hosts, Hosts({{"node001", 1}}));
  EXPECT_EQ(running.job_name, "sleep 1");
}

TEST(ParseBjobsTableTest, FindsABlankExecHostWhenAnEightDigitIdPushesTheRow) {
  const JobRecord job = OneRow(
      "12345678 alice   PEND  normal     login01                 sleep 30   Nov 30 11:40\n");
  EXPECT_EQ(job.job_id, "12345678");
  EXPECT_TRUE(job.exec_hosts.empty());
  EXPECT_EQ(job.job_name, "sleep 30");
}

TEST(ParseBjobsTableTest, TakesAOneWordMiddleAsTheJobName) {
  const JobRecord job = OneRow("1 alice PEND normal login01 sleep Nov 30 11:40\n");
  EXPECT_TRUE(job.exec_hosts.empty());
  EXPECT_EQ(job.job_name, "sleep");
}

TEST(ParseBjobsTableTest, KeepsSubmitTimeAsPrinted) {
  EXPECT_EQ(OneRow("1 alice RUN normal login01 vm job Nov  3 11:40\n").submit_time, "Nov  3 11:40");
  const JobRecord with_year = OneRow("1 alice RUN normal login01 vm job 2 Nov 30 11:40 2026\n");
  EXPECT_EQ(with_year.submit_time, "Nov 30 11:40 2026");
  EXPECT_EQ(with_year.job_name, "job 2");
}

TEST(ParseBjobsTableTest, TakesTheArrayIndexFromTheJobName) {
  EXPECT_EQ(OneRow("1234 alice RUN normal login01 vm arr[7] Nov 30 11:40\n").IdText(), "1234[7]");
  EXPECT_EQ(OneRow("1234 alice RUN normal login01 vm *rr[17] Nov 30 11:40\n").IdText(),
            "1234[17]");
  EXPECT_EQ(OneRow("1234 alice RUN normal login01 vm a[b] Nov 30 11:40\n").IdText(), "1234");
}

TEST(ParseBjobsTableTest, SkipsChatterAndReadsCrlf) {
  auto jobs = ParseBjobsTable(WithCrlf("LSF is processing your request. Please wait...\n" +
                                       ReadTestdata("lsf/lsf10/bjobs_a_w.txt")));
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_EQ(jobs->size(), 6u);
  EXPECT_EQ((*jobs)[2].job_name, "my job name");
  EXPECT_EQ((*jobs)[2].submit_time, "Nov 30 11:40");
}

TEST(ParseBjobsTableTest, GivesNoRecordsForAHeaderAlone) {
  auto jobs = ParseBjobsTable(std::string(kHeader) + "\n");
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_TRUE(jobs->empty());
}

TEST(ParseBjobsTableTest, IgnoresExtraOneWordColumnsBeforeExecHost) {
  auto jobs = ParseBjobsTable(
      "JOBID   USER    STAT  QUEUE      PRIO FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
      "1       alice   RUN   normal     50   login01     vm          a job      Nov 30 11:40\n");
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_EQ(jobs->front().from_host, "login01");
  EXPECT_EQ(jobs->front().job_name, "a job");
}

TEST(ParseBjobsTableTest, RefusesTablesItCannotRead) {
  EXPECT_NE(TableError("").find("no header"), std::string::npos);
  EXPECT_NE(TableError("No job found\n").find("no header"), std::string::npos);
  EXPECT_NE(TableError("JOBID USER STAT QUEUE FROM_HOST JOB_NAME SUBMIT_TIME\n").find("EXEC_HOST"),
            std::string::npos);
  EXPECT_NE(TableError("JOBID USER STAT QUEUE FROM_HOST EXEC_HOST JOB_NAME SUBMIT_TIME PROJ_NAME\n")
                .find("does not end with EXEC_HOST JOB_NAME SUBMIT_TIME"),
            std::string::npos);
  const std::string header(kHeader);
  EXPECT_NE(TableError(header + "1 alice RUN normal login01 vm job\n").find("line 2: no SUBMIT_TIME"),
            std::string::npos);
  EXPECT_NE(TableError(header + "1 alice RUN normal Nov 30 11:40\n").find("line 2: expected at least"),
            std::string::npos);
  EXPECT_NE(TableError(header + "x1 alice RUN normal login01 vm job Nov 30 11:40\n")
                .find("line 2: JOBID is \"x1\""),
            std::string::npos);
  EXPECT_NE(TableError(header + "1 alice RUN normal login01 a::b job Nov 30 11:40\n")
                .find("line 2: EXEC_HOST"),
            std::string::npos);
  EXPECT_NE(TableError(header + "        node002\n").find("line 2: indented line"),
            std::string::npos);
  EXPECT_NE(TableError(header + "1 alice RUN normal login01 vm job Nov 30 11:40\n"
                                " Job slot limit reached: 1 host;\n")
                .find("line 3: indented line"),
            std::string::npos);
}

}  // namespace
}  // namespace bplace::lsf
