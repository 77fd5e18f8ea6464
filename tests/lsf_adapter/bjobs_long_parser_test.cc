#include "lsf_adapter/bjobs_long_parser.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "lsf_adapter/lsf_time.h"
#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using namespace std::chrono_literals;
using testing::ReadTestdata;
using testing::WithCrlf;
using Argv = std::vector<std::string>;

// Every bjobs -l sample: byte-exact volclava 2.2 stdout, then the constructed
// LSF 10.1 files (tests/testdata/README.md).
const std::vector<std::string>& SampleFiles() {
  static const std::vector<std::string> files = {"lsf/openlava/bjobs_l_done.txt",
                                                 "lsf/openlava/bjobs_l_exit3.txt",
                                                 "lsf/openlava/bjobs_l_exit137.txt",
                                                 "lsf/openlava/bjobs_l_killed_running.txt",
                                                 "lsf/openlava/bjobs_l_killed_pending.txt",
                                                 "lsf/openlava/bjobs_l_array_element.txt",
                                                 "lsf/openlava/bjobs_l_pend.txt",
                                                 "lsf/openlava/bjobs_l_run.txt",
                                                 "lsf/lsf10/bjobs_l.txt",
                                                 "lsf/lsf10/bjobs_l_year.txt"};
  return files;
}

std::vector<JobLongRecord> ParseOk(std::string_view text) {
  auto jobs = ParseBjobsLong(text);
  EXPECT_TRUE(jobs.has_value()) << jobs.error().message;
  return jobs.value_or(std::vector<JobLongRecord>{});
}

// The one record of a one-job sample file.
JobLongRecord OnlyJob(std::string_view file) {
  const std::vector<JobLongRecord> jobs = ParseOk(ReadTestdata(file));
  EXPECT_EQ(jobs.size(), 1u) << file;
  return jobs.empty() ? JobLongRecord{} : jobs.front();
}

TEST(SplitBjobsLongTest, JoiningTheBlocksGivesBackWhatBjobsPrinted) {
  for (const std::string& file : SampleFiles()) {
    const std::string text = ReadTestdata(file);
    auto blocks = SplitBjobsLong(text);
    ASSERT_TRUE(blocks.has_value()) << file << ": " << blocks.error().message;
    std::vector<std::string_view> texts;
    for (const BjobsLongBlock& block : *blocks) texts.push_back(block.text);
    EXPECT_EQ(JoinBjobsLong(texts), text) << file;
  }
}

TEST(SplitBjobsLongTest, EachBlockIsOneJobsLinesAndSaysWhichJob) {
  auto blocks = SplitBjobsLong(ReadTestdata("lsf/lsf10/bjobs_l.txt"));
  ASSERT_TRUE(blocks.has_value()) << blocks.error().message;
  ASSERT_EQ(blocks->size(), 5u);
  EXPECT_EQ((*blocks)[0].job.IdText(), "3101");
  EXPECT_EQ((*blocks)[0].job.status, "DONE");
  EXPECT_EQ((*blocks)[3].job.IdText(), "3104[7]");
  EXPECT_TRUE((*blocks)[1].text.starts_with("Job <3102>, User <alice>"));
  EXPECT_TRUE(
      (*blocks)[1].text.ends_with(" Effective: select[type == local && (hname != "
                                  "login1)] order[-slots:-maxslots:-\n"
                                  "                     mem] rusage[mem=1024.00]\n"));
  // One block alone is framed as bjobs -l of that one job prints it.
  EXPECT_EQ(JoinBjobsLong({(*blocks)[1].text}), "\n" + (*blocks)[1].text + "\n");
}

TEST(SplitBjobsLongTest, CrlfLineEndsAreKeptAndNoJobIsNoBlock) {
  const std::string crlf = WithCrlf(ReadTestdata("lsf/openlava/bjobs_l_done.txt"));
  auto blocks = SplitBjobsLong(crlf);
  ASSERT_TRUE(blocks.has_value());
  ASSERT_EQ(blocks->size(), 1u);
  EXPECT_TRUE(blocks->front().text.ends_with("\r\n"));
  EXPECT_EQ(SplitBjobsLong("No matching job found\n").value().size(), 0u);
  EXPECT_FALSE(SplitBjobsLong("garbage\n").has_value());
  EXPECT_EQ(JoinBjobsLong({}), "");
}

// Platform's prtLine (openlava lsbatch/cmd/cmd.misc.c), through which LSF
// 10.1's bjobs -l prints its long lines: 79 characters, then a line end and
// `indent` blanks; a blank that would open the new line is dropped.
// `unwrapped`, when given, receives `line` without the dropped blanks: what
// an exact reader can get back.
std::string WrapLikeLsf(std::string_view line, std::size_t indent,
                        std::string* unwrapped = nullptr) {
  std::string out;
  std::size_t cursor = 1;
  for (char c : line) {
    if (cursor == 80) {
      out += "\n" + std::string(indent, ' ');
      cursor = indent + 1;
      if (c == ' ') continue;
    }
    out.push_back(c);
    if (unwrapped != nullptr) unwrapped->push_back(c);
    ++cursor;
  }
  return out + "\n";
}

constexpr std::string_view kSubmitted = "Tue Dec  1 10:40:47: Submitted from host <login1>;\n";

// A block with `header` as its first line, wrapped like LSF 10.1.
std::string WrappedBlock(std::string_view header, std::string* unwrapped = nullptr) {
  return "\n" + WrapLikeLsf(header, 21, unwrapped) + std::string(kSubmitted);
}

std::string HeaderWithDescription(std::string_view description) {
  return "Job <42>, User <alice>, Project <default>, Status <PEND>, Queue <normal>, Command "
         "<sleep 1>, Job Description <" +
         std::string(description) + ">";
}

// volclava 2.2: one job per capture (tests/realsched/captures/).

TEST(ParseBjobsLongTest, ReadsADoneJobAndItsDescription) {
  const JobLongRecord job = OnlyJob("lsf/openlava/bjobs_l_done.txt");
  EXPECT_EQ(job.job_id, "18");
  EXPECT_EQ(job.array_index, 0);
  EXPECT_EQ(job.IdText(), "18");
  EXPECT_EQ(job.job_name, "");
  EXPECT_EQ(job.user, "root");
  EXPECT_EQ(job.status, "DONE");
  EXPECT_EQ(job.status_kind(), JobStatus::kDone);
  EXPECT_EQ(job.queue, "short");
  EXPECT_EQ(job.job_description, "bplace:done");
  EXPECT_EQ(job.submit_time, "Tue Dec  1 11:00:59");
  EXPECT_EQ(job.start_time, "Tue Dec  1 11:01:01");
  EXPECT_EQ(job.finish_time, "Tue Dec  1 11:01:02");
  EXPECT_TRUE(job.done_successfully);
  EXPECT_FALSE(job.exited);
  EXPECT_FALSE(job.exit_code.has_value());
  EXPECT_FALSE(job.exit_signal.has_value());
  EXPECT_EQ(job.pend_reason, "");
}

TEST(ParseBjobsLongTest, ReadsTheExitCodeOfAnExitedJob) {
  const JobLongRecord exit3 = OnlyJob("lsf/openlava/bjobs_l_exit3.txt");
  EXPECT_EQ(exit3.job_id, "19");
  EXPECT_EQ(exit3.status, "EXIT");
  EXPECT_EQ(exit3.job_description, "bplace:exit3");
  EXPECT_TRUE(exit3.exited);
  EXPECT_FALSE(exit3.done_successfully);
  EXPECT_EQ(exit3.exit_code, 3);
  EXPECT_EQ(exit3.finish_time, "Tue Dec  1 11:01:01");

  // Killed by its own SIGKILL: volclava reports the shell's 128+9.
  const JobLongRecord exit137 = OnlyJob("lsf/openlava/bjobs_l_exit137.txt");
  EXPECT_EQ(exit137.job_id, "20");
  EXPECT_EQ(exit137.exit_code, 137);
  EXPECT_EQ(exit137.job_description, "");

  // bkill of a running job: SIGINT first, 128+2; MEMORY USAGE is skipped.
  const JobLongRecord killed = OnlyJob("lsf/openlava/bjobs_l_killed_running.txt");
  EXPECT_EQ(killed.job_id, "14");
  EXPECT_EQ(killed.queue, "tiny");
  EXPECT_EQ(killed.exit_code, 130);
  EXPECT_EQ(killed.start_time, "Tue Dec  1 11:00:55");
}

TEST(ParseBjobsLongTest, AJobKilledWhilePendingExitedWithoutACode) {
  const JobLongRecord job = OnlyJob("lsf/openlava/bjobs_l_killed_pending.txt");
  EXPECT_EQ(job.job_id, "15");
  EXPECT_EQ(job.status, "EXIT");
  EXPECT_EQ(job.job_description, "bplace:pend");
  EXPECT_TRUE(job.exited);
  EXPECT_FALSE(job.exit_code.has_value());
  EXPECT_FALSE(job.exit_signal.has_value());
  EXPECT_EQ(job.start_time, "");
  EXPECT_EQ(job.finish_time, "Tue Dec  1 11:00:58");
}

TEST(ParseBjobsLongTest, ReadsAnArrayElement) {
  const JobLongRecord job = OnlyJob("lsf/openlava/bjobs_l_array_element.txt");
  EXPECT_EQ(job.job_id, "21");
  EXPECT_EQ(job.array_index, 3);
  EXPECT_EQ(job.IdText(), "21[3]");
  EXPECT_EQ(job.job_name, "arr[3]");
  EXPECT_EQ(job.user, "root");
  EXPECT_EQ(job.status, "EXIT");
  EXPECT_EQ(job.queue, "normal");
  EXPECT_TRUE(job.exited);
  EXPECT_FALSE(job.exit_code.has_value());
}

TEST(ParseBjobsLongTest, ReadsThePendingReasons) {
  const JobLongRecord job = OnlyJob("lsf/openlava/bjobs_l_pend.txt");
  EXPECT_EQ(job.job_id, "1");
  EXPECT_EQ(job.status, "PEND");
  EXPECT_EQ(job.submit_time, "Mon Nov 30 11:40:47");
  EXPECT_EQ(job.pend_reason, "Job slot limit reached: 1 host;");
  EXPECT_EQ(job.start_time, "");
  EXPECT_EQ(job.finish_time, "");
  EXPECT_FALSE(job.exited);
  EXPECT_FALSE(job.done_successfully);
}

TEST(ParseBjobsLongTest, ReadsARunningJob) {
  const JobLongRecord job = OnlyJob("lsf/openlava/bjobs_l_run.txt");
  EXPECT_EQ(job.job_id, "3");
  EXPECT_EQ(job.user, "alice");
  EXPECT_EQ(job.status, "RUN");
  EXPECT_EQ(job.queue, "devq");
  EXPECT_EQ(job.start_time, "Mon Nov 30 11:40:51");
  EXPECT_EQ(job.finish_time, "");
  EXPECT_EQ(job.pend_reason, "");
}

// `bjobs -a -l -u all | grep '^Job <'` keeps only the header lines; each is
// read as the block it came from.
TEST(ParseBjobsLongTest, ReadsEveryCapturedHeaderLine) {
  const std::string lines = ReadTestdata("lsf/openlava/bjobs_a_l_u_all_job_lines.txt");
  std::vector<JobLongRecord> jobs;
  std::size_t start = 0;
  while (start < lines.size()) {
    const std::size_t end = lines.find('\n', start);
    const std::vector<JobLongRecord> one = ParseOk("\n" + lines.substr(start, end - start) + "\n");
    EXPECT_EQ(one.size(), 1u) << lines.substr(start, end - start);
    jobs.insert(jobs.end(), one.begin(), one.end());
    start = end + 1;
  }
  ASSERT_EQ(jobs.size(), 9u);
  std::vector<std::string> ids;
  for (const JobLongRecord& job : jobs) ids.push_back(job.IdText());
  EXPECT_EQ(ids, (Argv{"1", "3", "2", "11", "13", "12[1]", "12[2]", "12[3]", "6"}));
  EXPECT_EQ(jobs[1].job_name, "bplace-named");
  EXPECT_EQ(jobs[1].job_description, "bplace:abc");
  EXPECT_EQ(jobs[3].job_description, "description with blanks <and brackets>");
  EXPECT_EQ(jobs[4].job_name, "b[1-2");
  EXPECT_EQ(jobs[4].job_description, "");
  EXPECT_EQ(jobs[6].job_name, "a[2]");
  EXPECT_EQ(jobs[6].array_index, 2);
  EXPECT_EQ(jobs[8].queue, "inactq");
  for (const JobLongRecord& job : jobs) EXPECT_EQ(job.status, "PEND") << job.IdText();
}

// Several jobs in one text, as volclava's bjobs.c joins them: a line of 78
// dashes before every block but the first, and one more line end at the end.
TEST(ParseBjobsLongTest, ReadsSeveralVolclavaBlocksInOrder) {
  std::string text;
  for (std::size_t i = 0; i < 8; ++i) {  // the volclava files
    std::string block = ReadTestdata(SampleFiles()[i]);
    block.pop_back();  // each capture ends with the final extra line end
    if (i > 0) text += std::string(78, '-') + "\n";
    text += block;
  }
  text += "\n";
  const std::vector<JobLongRecord> jobs = ParseOk(text);
  std::vector<std::string> ids;
  for (const JobLongRecord& job : jobs) ids.push_back(job.IdText());
  EXPECT_EQ(ids, (Argv{"18", "19", "20", "14", "15", "21[3]", "1", "3"}));
  ASSERT_EQ(jobs.size(), 8u);
  EXPECT_EQ(jobs[1].exit_code, 3);
  EXPECT_EQ(jobs[4].job_description, "bplace:pend");
  EXPECT_EQ(jobs[6].pend_reason, "Job slot limit reached: 1 host;");
}

// LSF 10.1 (constructed samples, wrapped at 79 columns).

TEST(ParseBjobsLongTest, UnwrapsTheLsf10Sample) {
  const std::vector<JobLongRecord> jobs = ParseOk(ReadTestdata("lsf/lsf10/bjobs_l.txt"));
  ASSERT_EQ(jobs.size(), 5u);

  const JobLongRecord& done = jobs[0];
  EXPECT_EQ(done.IdText(), "3101");
  EXPECT_EQ(done.job_name, "bplace-build");
  EXPECT_EQ(done.user, "alice");
  EXPECT_EQ(done.status, "DONE");  // cut after "<D"
  EXPECT_EQ(done.queue, "normal");
  EXPECT_EQ(done.job_description, "bplace:4f9c2d1e-8a7b-4c3d-9e0f-1a2b3c4d5e6f");
  EXPECT_EQ(done.submit_time, "Tue Dec  1 10:40:47");
  EXPECT_EQ(done.start_time, "Tue Dec  1 10:40:49");
  EXPECT_EQ(done.finish_time, "Tue Dec  1 10:41:02");
  EXPECT_TRUE(done.done_successfully);

  const JobLongRecord& exited = jobs[1];
  EXPECT_EQ(exited.IdText(), "3102");
  EXPECT_EQ(exited.job_name, "");
  EXPECT_EQ(exited.status, "EXIT");
  EXPECT_EQ(exited.queue, "short");
  // Over four lines, with '<', '>' and ", " inside.
  EXPECT_EQ(exited.job_description, "nightly <main>, retry 2 of 3, see <https://ci.example/j/77>");
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_EQ(exited.finish_time, "Tue Dec  1 10:42:12");

  const JobLongRecord& pending = jobs[2];
  EXPECT_EQ(pending.IdText(), "3103");
  EXPECT_EQ(pending.job_name, "wide");
  EXPECT_EQ(pending.status, "PEND");
  EXPECT_EQ(pending.job_description, "bplace:5d6e7f80-1234-4abc-8def-000000000003");
  EXPECT_EQ(pending.pend_reason,
            "Job's resource requirements not satisfied: 3 hosts; Closed by LSF administrator: 1 "
            "host;");

  const JobLongRecord& element = jobs[3];
  EXPECT_EQ(element.IdText(), "3104[7]");
  EXPECT_EQ(element.job_name, "sweep[7]");
  EXPECT_EQ(element.status, "RUN");
  EXPECT_EQ(element.start_time, "Tue Dec  1 10:44:03");
  EXPECT_EQ(element.job_description, "");
  EXPECT_EQ(element.finish_time, "");

  const JobLongRecord& killed = jobs[4];
  EXPECT_EQ(killed.IdText(), "3105");
  EXPECT_EQ(killed.job_description, "bplace:0badc0de-0000-4000-8000-000000000005");
  EXPECT_TRUE(killed.exited);
  EXPECT_FALSE(killed.exit_code.has_value());
}

TEST(ParseBjobsLongTest, UnwrapsTheWiderIndentOfTimesWithAYear) {
  const std::vector<JobLongRecord> jobs = ParseOk(ReadTestdata("lsf/lsf10/bjobs_l_year.txt"));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].status, "DONE");
  EXPECT_EQ(jobs[0].job_description, "bplace:4f9c2d1e-8a7b-4c3d-9e0f-1a2b3c4d5e6f");
  EXPECT_EQ(jobs[0].submit_time, "Tue Dec  1 10:40:47 2026");
  EXPECT_EQ(jobs[0].finish_time, "Tue Dec  1 10:41:02 2026");
  EXPECT_EQ(jobs[1].job_description, "nightly <main>, retry 2 of 3, see <https://ci.example/j/77>");
  EXPECT_EQ(jobs[1].exit_code, 3);
}

TEST(ParseBjobsLongTest, EveryTimeOfEverySampleIsReadByParseLsfTime) {
  const SystemTime now = SystemTime{std::chrono::sys_days{2026y / 12 / 2}};
  for (const std::string& file : SampleFiles()) {
    for (const JobLongRecord& job : ParseOk(ReadTestdata(file))) {
      ASSERT_FALSE(job.submit_time.empty()) << file;
      for (const std::string* time : {&job.submit_time, &job.start_time, &job.finish_time}) {
        if (time->empty()) continue;
        EXPECT_TRUE(ParseLsfTime(*time, now, 0).has_value()) << file << ": " << *time;
      }
    }
  }
  EXPECT_EQ(ParseLsfTime("Tue Dec  1 11:00:59", now, 0),
            SystemTime{std::chrono::sys_days{2026y / 12 / 1} + 11h + 59s});
}

TEST(ParseBjobsLongTest, ReadsCrlfTheSameAsLf) {
  for (const std::string& file : SampleFiles()) {
    const std::string text = ReadTestdata(file);
    const std::vector<JobLongRecord> lf = ParseOk(text);
    const std::vector<JobLongRecord> crlf = ParseOk(WithCrlf(text));
    ASSERT_EQ(lf.size(), crlf.size()) << file;
    for (std::size_t i = 0; i < lf.size(); ++i) {
      EXPECT_EQ(lf[i].IdText(), crlf[i].IdText()) << file;
      EXPECT_EQ(lf[i].job_description, crlf[i].job_description) << file;
      EXPECT_EQ(lf[i].exit_code, crlf[i].exit_code) << file;
      EXPECT_EQ(lf[i].pend_reason, crlf[i].pend_reason) << file;
      EXPECT_EQ(lf[i].finish_time, crlf[i].finish_time) << file;
    }
  }
}

// Wrapping, built with WrapLikeLsf.

// The number of 'a's before " tail" in a description that puts its blank
// where `wanted` says, once wrapped like LSF.
std::size_t PaddingFor(
    const std::function<bool(const std::string& text, const std::string& unwrapped)>& wanted) {
  for (std::size_t n = 0; n < 200; ++n) {
    std::string unwrapped;
    const std::string text =
        WrappedBlock(HeaderWithDescription(std::string(n, 'a') + " tail"), &unwrapped);
    if (wanted(text, unwrapped)) return n;
  }
  ADD_FAILURE() << "no padding found";
  return 0;
}

TEST(ParseBjobsLongTest, KeepsABlankThatEndsACutLine) {
  const std::size_t n = PaddingFor([](const std::string& text, const std::string&) {
    return text.find(" \n" + std::string(21, ' ') + "tail>") != std::string::npos;
  });
  const std::string description = std::string(n, 'a') + " tail";
  const std::vector<JobLongRecord> jobs = ParseOk(WrappedBlock(HeaderWithDescription(description)));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_description, description);
}

TEST(ParseBjobsLongTest, ABlankRightAfterACutIsLostAsLsfDropsIt) {
  const std::size_t n = PaddingFor([](const std::string&, const std::string& unwrapped) {
    return unwrapped.find("atail>") != std::string::npos;
  });
  const std::string text = WrappedBlock(HeaderWithDescription(std::string(n, 'a') + " tail"));
  ASSERT_NE(text.find("a\n" + std::string(21, ' ') + "tail>"), std::string::npos) << text;
  const std::vector<JobLongRecord> jobs = ParseOk(text);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_description, std::string(n, 'a') + "tail");
}

TEST(ParseBjobsLongTest, ReadsALabelWhoseBlankWasDroppedAtACut) {
  // "Job Name" cut between its words, the blank dropped: "Job" and "Name <".
  for (std::size_t n = 1; n < 80; ++n) {
    const std::string header = "Job <42>, User <alice>, Project <" + std::string(n, 'p') +
                               ">, Job Name <n1>, Status <RUN>, Queue <q>";
    std::string unwrapped;
    const std::string text = WrappedBlock(header, &unwrapped);
    if (unwrapped.find("JobName <n1>") == std::string::npos) continue;
    const std::vector<JobLongRecord> jobs = ParseOk(text);
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs[0].job_name, "n1") << text;
    EXPECT_EQ(jobs[0].status, "RUN") << text;
    return;
  }
  ADD_FAILURE() << "no project name puts the blank of \"Job Name\" at a cut";
}

// Random descriptions (with '<', '>', ", " and blanks) wrapped like LSF come
// back as the unwrapped text holds them: exactly, unless LSF dropped a blank.
TEST(ParseBjobsLongTest, RandomWrappedDescriptionsComeBackExactly) {
  std::mt19937 rng(20261201);
  const std::string_view chars = "abcdefghij0123456789 <>,:-_./";
  int exact = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string description;
    for (std::size_t n = rng() % 220; n > 0; --n) {
      description.push_back(chars[rng() % chars.size()]);
    }
    for (std::size_t indent : {std::size_t{21}, std::size_t{26}}) {
      const std::string time = indent == 21 ? "Tue Dec  1 10:40:47" : "Tue Dec  1 10:40:47 2026";
      const std::string header = HeaderWithDescription(description);
      std::string unwrapped;
      const std::string text = "\n" + WrapLikeLsf(header, indent, &unwrapped) + time +
                               ": Submitted from host <login1>;\n";
      const std::vector<JobLongRecord> wrapped_jobs = ParseOk(text);
      const std::vector<JobLongRecord> flat_jobs = ParseOk("\n" + unwrapped + "\n");
      ASSERT_EQ(wrapped_jobs.size(), 1u) << text;
      ASSERT_EQ(flat_jobs.size(), 1u) << unwrapped;
      EXPECT_EQ(wrapped_jobs[0].job_description, flat_jobs[0].job_description) << text;
      EXPECT_EQ(wrapped_jobs[0].submit_time, time);
      EXPECT_EQ(wrapped_jobs[0].status, "PEND") << text;
      if (unwrapped == header) {
        EXPECT_EQ(wrapped_jobs[0].job_description, description) << text;
        ++exact;
      }
    }
  }
  EXPECT_GT(exact, 3000);  // most have no blank at a cut
}

// The header, field by field.

TEST(ParseBjobsLongTest, ADescriptionRunsToTheLastBracketOfTheLine) {
  for (const std::string_view description :
       {"a <> b, c", "<>", "x>y", "ends with >", " padded ", ">, lower <case>", ""}) {
    const std::vector<JobLongRecord> jobs =
        ParseOk("\n" + HeaderWithDescription(description) + "\n" + std::string(kSubmitted));
    ASSERT_EQ(jobs.size(), 1u) << description;
    EXPECT_EQ(jobs[0].job_description, description);
    EXPECT_EQ(jobs[0].queue, "normal") << description;
  }
}

TEST(ParseBjobsLongTest, AFieldAfterTheDescriptionEndsIt) {
  const std::vector<JobLongRecord> jobs = ParseOk(
      "\nJob <7>, User <bob>, Status <RUN>, Queue <q>, Command <a>b>, Job Description "
      "<bplace:t1 <x>>, Esub <default>, Interactive pseudo-terminal shell mode\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_description, "bplace:t1 <x>");
  EXPECT_EQ(jobs[0].user, "bob");
}

TEST(ParseBjobsLongTest, AJobNameMayLookLikeAnotherField) {
  const std::vector<JobLongRecord> jobs = ParseOk(
      "\nJob <7>, Job Name <n, User <evil>, User <bob>, Interactive mode, Status <RUN>, Queue "
      "<q>\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_name, "n, User <evil");
  EXPECT_EQ(jobs[0].user, "bob");
  EXPECT_EQ(jobs[0].status, "RUN");
  EXPECT_EQ(jobs[0].queue, "q");
}

// Event lines.

TEST(ParseBjobsLongTest, ReadsEveryWayAJobEnds) {
  auto ending = [](std::string_view line) {
    const std::vector<JobLongRecord> jobs =
        ParseOk("\nJob <5>, User <u>, Status <EXIT>, Queue <q>\n" + std::string(kSubmitted) +
                "Tue Dec  1 10:41:00: " + std::string(line) + "\n");
    EXPECT_EQ(jobs.size(), 1u) << line;
    return jobs.empty() ? JobLongRecord{} : jobs[0];
  };
  EXPECT_EQ(ending("Exited by signal 9. The CPU time used is 0.1 seconds.").exit_signal, 9);
  EXPECT_FALSE(ending("Exited by signal 9.").exit_code.has_value());
  EXPECT_TRUE(ending("Exited with exit code 300.").exited);
  EXPECT_FALSE(ending("Exited with exit code 300.").exit_code.has_value());
  EXPECT_FALSE(ending("Exited with exit code x.").exit_code.has_value());
  EXPECT_EQ(ending("Exited with exit code 0.").exit_code, 0);
  EXPECT_TRUE(ending("Exited; TERM_OWNER: job killed by owner.").exited);
  EXPECT_FALSE(ending("Exitedly").exited);
  EXPECT_EQ(ending("Exitedly").finish_time, "");
  EXPECT_EQ(ending("[3] started on <vm>").start_time, "Tue Dec  1 10:41:00");
  EXPECT_EQ(ending("Dispatched 1 Task(s) on Host(s) <h>").start_time, "Tue Dec  1 10:41:00");
  EXPECT_EQ(ending("Will be started;").start_time, "");
  EXPECT_EQ(ending("Completed <exit>.").finish_time, "");
  EXPECT_EQ(ending("Done successfully.").finish_time, "Tue Dec  1 10:41:00");
}

TEST(ParseBjobsLongTest, TheLastEndingOfARequeuedJobCounts) {
  const std::vector<JobLongRecord> jobs =
      ParseOk("\nJob <5>, User <u>, Status <DONE>, Queue <q>\n" + std::string(kSubmitted) +
              "Tue Dec  1 10:41:00: Started on <a>;\n"
              "Tue Dec  1 10:41:05: Exited with exit code 99. The CPU time used is 0.1 seconds.\n"
              "Tue Dec  1 10:42:00: Started on <b>;\n"
              "Tue Dec  1 10:42:07: Done successfully. The CPU time used is 0.1 seconds.\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(jobs[0].done_successfully);
  EXPECT_FALSE(jobs[0].exited);
  EXPECT_FALSE(jobs[0].exit_code.has_value());
  EXPECT_EQ(jobs[0].start_time, "Tue Dec  1 10:42:00");
  EXPECT_EQ(jobs[0].finish_time, "Tue Dec  1 10:42:07");
}

TEST(ParseBjobsLongTest, PendingReasonsRunToTheNextSection) {
  const std::vector<JobLongRecord> jobs =
      ParseOk("\nJob <5>, User <u>, Status <PEND>, Queue <q>\n" + std::string(kSubmitted) +
              " PENDING REASONS:\n"
              " Candidate host pending reasons (0 of 4 hosts).\n"
              "\n"
              " Non-candidate host pending reasons (4 of 4 hosts):\n"
              "   Closed by LSF administrator: 1 host;\n"
              "   Job's requirements for resource reservation not satisfied (Resource: mem): 3 h\n"
              "                     osts;\n"
              "\n"
              " SCHEDULING PARAMETERS:\n"
              "           r15s   r1m\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].pend_reason,
            "Candidate host pending reasons (0 of 4 hosts). Non-candidate host pending reasons "
            "(4 of 4 hosts): Closed by LSF administrator: 1 host; Job's requirements for "
            "resource reservation not satisfied (Resource: mem): 3 hosts;");
}

// What is not a job block.

TEST(ParseBjobsLongTest, NoJobAnswersGiveNoRecords) {
  for (const std::string_view text :
       {"", "\n", " \n\n", "No unfinished job found\n", "No job found\n",
        "LSF is processing your request. Please wait ...\nNo unfinished job found\r\n"}) {
    auto jobs = ParseBjobsLong(text);
    ASSERT_TRUE(jobs.has_value()) << text << ": " << jobs.error().message;
    EXPECT_TRUE(jobs->empty()) << text;
  }
}

TEST(ParseBjobsLongTest, TextWithoutAJobBlockIsAParseError) {
  for (const std::string_view text :
       {"LSF is down. Please wait...\n", "Job <22> is not found\n", "garbage",
        "\nJob <x>, User <root>\n", "\nJob <01>, User <root>\n", "\n Job <1>, User <root>\n",
        "text\nJob <1>, User <root>\n"}) {
    auto jobs = ParseBjobsLong(text);
    ASSERT_FALSE(jobs.has_value()) << text;
    EXPECT_EQ(jobs.error().code, ErrorCode::kParseError);
    EXPECT_NE(jobs.error().message.find("no job block"), std::string::npos) << jobs.error().message;
  }
}

TEST(ParseBjobsLongTest, SkipsABlockWhoseHeaderCannotBeRead) {
  const std::string good = ReadTestdata("lsf/openlava/bjobs_l_done.txt");
  const std::vector<JobLongRecord> jobs =
      ParseOk("\nJob <1x>, User <root>, Status <RUN>\nTue Dec  1 10:41:00: Started on <a>;\n" +
              std::string(78, '-') + "\n" + good);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_id, "18");
}

// BjobsLongArgv.

TEST(BjobsLongArgvTest, ListsTheUsersJobsFinishedOnesToo) {
  EXPECT_EQ(BjobsLongArgv("/opt/lsf/bin/bjobs", "alice"),
            (Argv{"/opt/lsf/bin/bjobs", "-a", "-l", "-u", "alice"}));
  EXPECT_EQ(BjobsLongArgv("bjobs", "all"), (Argv{"bjobs", "-a", "-l", "-u", "all"}));
  EXPECT_EQ(BjobsLongArgv("bjobs", "DOMAIN\\bob"),
            (Argv{"bjobs", "-a", "-l", "-u", "DOMAIN\\bob"}));
}

TEST(BjobsLongArgvTest, RefusesWordsThatAreNotUserNames) {
  for (const std::string& user :
       {std::string(""), std::string("-a"), std::string("-"), std::string("al ice"),
        std::string("alice "), std::string("a\tb"), std::string("a\nb"), std::string("a\rb"),
        std::string("a\x7f"), std::string("a\0b", 3)}) {
    EXPECT_TRUE(BjobsLongArgv("bjobs", user).empty()) << user;
  }
}

// Robustness: whatever the bytes, a value or an error, never a crash or a
// throw (the suite also runs under ASan/UBSan). Fixed seeds, so a failure
// reproduces.

constexpr std::uint32_t kBjobsLongSeed = 20261202;
constexpr int kRandomInputs = 20000;

// A parse that ended well holds only records a caller can use; a failure
// says why.
::testing::AssertionResult SoundLongRecords(const Result<std::vector<JobLongRecord>>& jobs) {
  if (!jobs) {
    if (jobs.error().message.empty()) return ::testing::AssertionFailure() << "empty error";
    return ::testing::AssertionSuccess();
  }
  for (const JobLongRecord& job : *jobs) {
    const std::optional<JobId> id = ParseJobId(job.IdText());
    if (!id || id->job_id != job.job_id) {
      return ::testing::AssertionFailure() << "record with job id \"" << job.IdText() << "\"";
    }
    if (job.exit_code && (*job.exit_code < 0 || *job.exit_code > 255)) {
      return ::testing::AssertionFailure() << "exit code " << *job.exit_code;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(BjobsLongRobustnessTest, EveryTruncationOfEverySampleIsRead) {
  for (const std::string& file : SampleFiles()) {
    const std::string text = ReadTestdata(file);
    std::size_t with_records = 0;
    for (std::size_t n = 0; n <= text.size(); ++n) {
      Result<std::vector<JobLongRecord>> jobs;
      ASSERT_NO_THROW(jobs = ParseBjobsLong(std::string_view(text).substr(0, n))) << file << n;
      ASSERT_TRUE(SoundLongRecords(jobs)) << file << " cut at " << n;
      if (jobs && !jobs->empty()) ++with_records;
    }
    // Once the first line is whole ("Job <18>"), every cut has a record.
    EXPECT_GT(with_records, text.size() / 2) << file;
  }
}

TEST(BjobsLongRobustnessTest, RandomBytesNeverCrash) {
  std::mt19937 rng(kBjobsLongSeed);
  std::string input;
  for (int i = 0; i < kRandomInputs; ++i) {
    input.clear();
    for (std::size_t n = rng() % 400; n > 0; --n) input.push_back(static_cast<char>(rng() % 256));
    Result<std::vector<JobLongRecord>> jobs;
    ASSERT_NO_THROW(jobs = ParseBjobsLong(input)) << i;
    ASSERT_TRUE(SoundLongRecords(jobs)) << i;
  }
}

TEST(BjobsLongRobustnessTest, MutatedSamplesNeverCrash) {
  const std::vector<std::string> tokens = {"\n",
                                           "\r\n",
                                           " ",
                                           std::string(21, ' '),
                                           std::string(26, ' '),
                                           "<",
                                           ">",
                                           ">, ",
                                           ",",
                                           "Job <",
                                           "Job <1234[7]>, ",
                                           "Job Description <",
                                           "Status <",
                                           "Exited with exit code ",
                                           "99999999999",
                                           "Exited by signal ",
                                           "Done successfully.",
                                           " PENDING REASONS:\n",
                                           "Tue Dec  1 11:00:59: ",
                                           "Tue Dec  1 11:00:59 2026: ",
                                           "[3] started on ",
                                           "No job found",
                                           std::string(78, '-'),
                                           "\xff",
                                           std::string(1, '\0')};
  std::vector<std::string> samples;
  for (const std::string& file : SampleFiles()) samples.push_back(ReadTestdata(file));
  std::mt19937 rng(kBjobsLongSeed + 1);
  auto below = [&rng](std::size_t n) { return n == 0 ? 0 : rng() % n; };
  int with_records = 0;
  std::string input;
  for (int i = 0; i < kRandomInputs; ++i) {
    input = samples[below(samples.size())];
    for (std::size_t rounds = 1 + below(4); rounds > 0; --rounds) {
      switch (below(4)) {
        case 0:
          if (!input.empty()) input[below(input.size())] = static_cast<char>(below(256));
          break;
        case 1:
          if (!input.empty()) input.erase(below(input.size()), 1 + below(40));
          break;
        default:
          input.insert(below(input.size() + 1), tokens[below(tokens.size())]);
          break;
      }
    }
    Result<std::vector<JobLongRecord>> jobs;
    ASSERT_NO_THROW(jobs = ParseBjobsLong(input)) << i;
    ASSERT_TRUE(SoundLongRecords(jobs)) << i;
    with_records += jobs && !jobs->empty() ? 1 : 0;
  }
  // Mutations that all failed early would test nothing past the first line.
  EXPECT_GT(with_records, kRandomInputs / 2);
}

}  // namespace
}  // namespace bplace::lsf
