#include "daemon/submit/caller_jobs.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/submit/submitter.h"

namespace bplace {
namespace {

constexpr char kTag[] = "kf63e2f5f6803ba8a32c7b800332611b1";

lsf::JobRecord Job(const std::string& id, const std::string& name, const std::string& description) {
  lsf::JobRecord job;
  job.job_id = id;
  job.job_name = name;
  job.job_description = description;
  return job;
}

TEST(TaggedJobNameTest, AddsTheTagToTheCallersNameOrStandsAlone) {
  EXPECT_EQ(TaggedJobName("align", kTag), std::string("align.bplace-") + kTag);
  EXPECT_EQ(TaggedJobName("", kTag), std::string("bplace-") + kTag);
}

TEST(CarriesTagTest, FindsTheTagInTheDescriptionOrTheName) {
  EXPECT_TRUE(CarriesTag(Job("1", "align", DescriptionTag(kTag)), kTag));
  // A site esub replaced the description: the name still says it.
  EXPECT_TRUE(CarriesTag(Job("2", TaggedJobName("align", kTag), "site: project x"), kTag));
  EXPECT_TRUE(CarriesTag(Job("3", TaggedJobName("", kTag), ""), kTag));
  // An array, and one of its elements.
  EXPECT_TRUE(CarriesTag(Job("4", TaggedJobName("sweep", kTag) + "[1-10]", ""), kTag));
  EXPECT_TRUE(CarriesTag(Job("4", TaggedJobName("sweep", kTag) + "[7]", ""), kTag));
}

TEST(CarriesTagTest, NeverMatchesAPartOfAnotherTag) {
  const std::string other = std::string(kTag) + "0";
  EXPECT_FALSE(CarriesTag(Job("1", "align", DescriptionTag(other)), kTag));
  EXPECT_FALSE(CarriesTag(Job("1", TaggedJobName("align", other), ""), kTag));
  EXPECT_FALSE(CarriesTag(Job("1", std::string("xbplace-") + kTag, ""), kTag)) << "not after a '.'";
  EXPECT_FALSE(CarriesTag(Job("1", "align", std::string("bplace:") + kTag + " "), kTag));
  EXPECT_FALSE(CarriesTag(Job("1", "", ""), kTag));
}

TEST(FindTaggedTest, SkipsIdsLsfDoesNotKnow) {
  std::vector<lsf::JobRecord> jobs = {Job("5", TaggedJobName("a", kTag), "")};
  jobs[0].not_found = true;
  jobs.push_back(Job("6", "b", DescriptionTag(kTag)));
  const lsf::JobRecord* found = FindTagged(jobs, kTag);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->job_id, "6");
}

}  // namespace
}  // namespace bplace
