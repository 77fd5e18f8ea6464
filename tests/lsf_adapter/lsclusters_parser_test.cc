#include "lsf_adapter/lsclusters_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using ::testing::ElementsAre;
using testing::WithCrlf;

// The layout of OpenLava's lsclusters.c (volclava 2.2 is of that family):
// the table row, then the long lines; IBM LSF 10.1 prints "LSF
// administrators:". Constructed: no capture of `lsclusters -l` exists yet.
constexpr char kLsf10[] =
    "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
    "cluster1       ok       lsfmaster01            lsfadmin        6        6\n"
    "LSF administrators: lsfadmin hpcadm\n"
    "Available resources: cs bigmem ib_ok\n"
    "Available host types: X86_64\n"
    "Available host models: Intel_EM64T\n";

TEST(ParseLsclustersTest, ReadsEveryAdministratorPrimaryFirst) {
  for (const std::string& text : {std::string(kLsf10), WithCrlf(kLsf10)}) {
    const auto clusters = ParseLsclusters(text);
    ASSERT_TRUE(clusters) << clusters.error().message;
    ASSERT_EQ(clusters->size(), 1u);
    EXPECT_EQ(clusters->front().cluster_name, "cluster1");
    EXPECT_THAT(clusters->front().administrators, ElementsAre("lsfadmin", "hpcadm"));
  }
}

TEST(ParseLsclustersTest, ReadsOpenLavaWordingAndSeveralClusters) {
  const auto clusters = ParseLsclusters(
      "LSF is down. Please wait...\n"
      "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
      "olcluster      ok       vm                     lsfadmin        1        1\n"
      "OpenLava administrators: lsfadmin root\n"
      "Available resources: cs bigmem\n"
      "remote1        ok       rhost                     radm        4        4\n"
      "OpenLava administrators: radm\n");
  ASSERT_TRUE(clusters) << clusters.error().message;
  ASSERT_EQ(clusters->size(), 2u);
  EXPECT_THAT((*clusters)[0].administrators, ElementsAre("lsfadmin", "root"));
  EXPECT_EQ((*clusters)[1].cluster_name, "remote1");
  EXPECT_THAT((*clusters)[1].administrators, ElementsAre("radm"));
}

TEST(ParseLsclustersTest, PlainTableGivesThePrimaryAdministrator) {
  const auto clusters = ParseLsclusters(
      "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
      "test_cluster    ok      hostb                     lsf      6      6\n");
  ASSERT_TRUE(clusters) << clusters.error().message;
  EXPECT_THAT(clusters->front().administrators, ElementsAre("lsf"));
}

TEST(ParseLsclustersTest, ReadsABlockLayout) {
  const auto clusters = ParseLsclusters(
      "CLUSTER_NAME: cluster1\n"
      "Status   Master_host   Admin     Hosts   Servers\n"
      "ok       hostA         lsfadmin      6         6\n"
      "LSF administrators: lsfadmin user7\n");
  ASSERT_TRUE(clusters) << clusters.error().message;
  EXPECT_EQ(clusters->front().cluster_name, "cluster1");
  EXPECT_THAT(clusters->front().administrators, ElementsAre("lsfadmin", "user7"));
}

TEST(ParseLsclustersTest, NoClusterIsAParseError) {
  const auto clusters = ParseLsclusters("ls_getclustername(): LIM is down; try later\n");
  ASSERT_FALSE(clusters);
  EXPECT_EQ(clusters.error().code, ErrorCode::kParseError);
  EXPECT_EQ(clusters.error().message, "lsclusters -l: no cluster listed");
  EXPECT_FALSE(ParseLsclusters(""));
}

}  // namespace
}  // namespace bplace::lsf
