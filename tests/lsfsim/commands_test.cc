// Output of the table commands, byte for byte. The FormatsMd* tests rebuild
// the LSF 10.1 samples (real output; docs/lsf-formats.md "Sources") from a
// definition and compare them verbatim, so the layout is checked against LSF,
// not against the simulator itself.

#include <gtest/gtest.h>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

class CommandsTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    Init(kTestCluster);
  }

  // Runs an LSF command that must succeed and returns its stdout.
  std::string Out(const std::string& command, const std::vector<std::string>& args) {
    ProcessResult r = Lsf(command, args);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }
};

TEST_F(CommandsTest, BqueuesCutsNamesWithoutW) {
  EXPECT_EQ(Out("bqueues", {}),
            "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
            "short            40  Open:Active      10    4    -    -     0     0     0     0\n"
            "chem             35  Open:Active       -    -    -    -     0     0     0     0\n"
            "normal           30  Open:Active       -    -    -    -     4     3     1     0\n"
            "gpu              25  Open:Active       -    -    -    -     0     0     0     0\n"
            "general-interac  20  Open:Active       -    -    -    -     0     0     0     0\n"
            "closedq          10  Closed:Active     -    -    -    -     0     0     0     0\n"
            "inactq           10  Open:Inact        -    -    -    -     0     0     0     0\n"
            "rewrite           5  Open:Active       -    -    -    -     0     0     0     0\n"
            "esubq             5  Open:Active       -    -    -    -     0     0     0     0\n");
}

TEST_F(CommandsTest, BqueuesWidePrintsWholeNames) {
  EXPECT_EQ(Out("bqueues", {"-w", "general-interactive", "normal"}),
            "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
            "general-interactive  20  Open:Active       -    -    -    -     0     0     0     0\n"
            "normal           30  Open:Active       -    -    -    -     4     3     1     0\n");
}

TEST_F(CommandsTest, BqueuesLongPrintsBlocksWithTokens) {
  EXPECT_EQ(Out("bqueues", {"-l", "chem", "normal"}),
            "\n"
            "QUEUE: chem\n"
            "  -- Chemistry.\n"
            "\n"
            "PARAMETERS/STATISTICS\n"
            "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV \n"
            " 35    0  Open:Active       -    -    -    -     0     0     0     0     0    0\n"
            "Interval for a host to accept two jobs is 0 seconds\n"
            "\n"
            "SCHEDULING PARAMETERS\n"
            "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
            " loadSched   -     -     -     -       -     -    -     -     -      -      -\n"
            " loadStop    -     -     -     -       -     -    -     -     -      -      -\n"
            "\n"
            "ADMINISTRATORS:  hpcadm \n"
            "USERS: ug_all/ \n"
            "HOSTS:  hg_all_nested_long/+2 others+1 \n"
            "\n"
            "-------------------------------------------------------------------------------\n"
            "\n"
            "QUEUE: normal\n"
            "  -- For normal low priority jobs.  This is the default queue.\n"
            "\n"
            "PARAMETERS/STATISTICS\n"
            "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV \n"
            " 30   20  Open:Active       -    -    -    -     4     3     1     0     0    0\n"
            "Interval for a host to accept two jobs is 0 seconds\n"
            "\n"
            "SCHEDULING PARAMETERS\n"
            "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
            " loadSched   -     -     -     -       -     -    -     -     -      -      -\n"
            " loadStop    -     -     -     -       -     -    -     -     -      -      -\n"
            "\n"
            "USERS: all \n"
            "HOSTS:  hg_small/ \n"
            "\n");
}

TEST_F(CommandsTest, BqueuesLongShowsLongStatusForms) {
  ASSERT_EQ(Sim({"set-queue", "closedq", "inact_win"}).exit_code, 0);
  std::string closed = Out("bqueues", {"-l", "closedq"});
  EXPECT_NE(closed.find("\n 10    0  Closed:Inact_W    -"), std::string::npos) << closed;
  std::string inactive = Out("bqueues", {"-l", "inactq"});
  EXPECT_NE(inactive.find("\n 10    0  Open:Inact_Adm    -"), std::string::npos) << inactive;
}

TEST_F(CommandsTest, BqueuesUnknownQueueFails) {
  ProcessResult r = Lsf("bqueues", {"-l", "nosuchq"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "nosuchq: No such queue\n");
}

TEST_F(CommandsTest, BqueuesUserFilterFollowsNestedUserGroupsAndAdmins) {
  auto names = [&](const std::vector<std::string>& args) {
    std::string out = Out("bqueues", args);
    std::string names;
    size_t line = out.find('\n') + 1;
    while (line < out.size()) {
      names += out.substr(line, out.find(' ', line) - line) + " ";
      line = out.find('\n', line) + 1;
    }
    return names;
  };
  // alice is in ug_chem, nested in ug_all: she may use chem.
  EXPECT_EQ(names({"-w", "-u", "alice"}),
            "short chem normal gpu general-interactive closedq inactq rewrite esubq ");
  // dave is in no group; hpcadm administers chem; lsfadmin is an LSF admin.
  EXPECT_EQ(names({"-w", "-u", "dave"}),
            "short normal gpu general-interactive closedq inactq rewrite esubq ");
  EXPECT_EQ(names({"-w", "-u", "hpcadm"}),
            "short chem normal gpu general-interactive closedq inactq rewrite esubq ");
  EXPECT_EQ(names({"-w", "-u", "lsfadmin"}),
            "short chem normal gpu general-interactive closedq inactq rewrite esubq ");
}

TEST_F(CommandsTest, BqueuesHostFilterMatchesWholeNamesOnly) {
  auto names = [&](const std::string& host) {
    std::string out = Out("bqueues", {"-w", "-m", host});
    std::string names;
    size_t line = out.find('\n') + 1;
    while (line < out.size()) {
      names += out.substr(line, out.find(' ', line) - line) + " ";
      line = out.find('\n', line) + 1;
    }
    return names;
  };
  // gpu01 is reached through hg_all_nested_long -> hg_gpu, and is excluded
  // from short by ~hg_gpu/; general-interactive names gpu010, not gpu01.
  EXPECT_EQ(names("gpu01"), "chem gpu closedq inactq rewrite esubq ");
  EXPECT_EQ(names("gpu010"), "chem gpu general-interactive closedq inactq rewrite esubq ");
  // node04 is excluded from short by ~node04; chem admits it through others+1.
  EXPECT_EQ(names("node04"), "chem closedq inactq rewrite esubq ");
  EXPECT_EQ(names("node01"), "short chem normal general-interactive closedq inactq rewrite esubq ");
}

TEST_F(CommandsTest, BqueuesUnknownHostFails) {
  ProcessResult r = Lsf("bqueues", {"-m", "node0"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "node0: Bad host name, host group name or cluster name\n");
}

TEST_F(CommandsTest, BqueuesJsonHasStringValues) {
  EXPECT_EQ(Out("bqueues", {"-o", "queue_name status max pend run", "-json", "short", "normal"}),
            "{\n"
            "  \"COMMAND\":\"bqueues\",\n"
            "  \"QUEUES\":2,\n"
            "  \"RECORDS\":[\n"
            "    {\n"
            "      \"QUEUE_NAME\":\"short\",\n"
            "      \"STATUS\":\"Open:Active\",\n"
            "      \"MAX\":\"10\",\n"
            "      \"PEND\":\"0\",\n"
            "      \"RUN\":\"0\"\n"
            "    },\n"
            "    {\n"
            "      \"QUEUE_NAME\":\"normal\",\n"
            "      \"STATUS\":\"Open:Active\",\n"
            "      \"MAX\":\"-\",\n"
            "      \"PEND\":\"3\",\n"
            "      \"RUN\":\"1\"\n"
            "    }\n"
            "  ]\n"
            "}\n");
}

TEST_F(CommandsTest, BmgroupPrintsSubgroupsRangesAndAdmins) {
  EXPECT_EQ(Out("bmgroup", {}),
            "GROUP_NAME    HOSTS\n"
            "hg_small     node[01-02] \n"
            "hg_gpu       gpu01 gpu010 \n"
            "hg_all_neste hg_small/ hg_gpu/ node03 (hpcadm) \n");
  EXPECT_EQ(Out("bmgroup", {"-w", "hg_all_nested_long"}),
            "GROUP_NAME    HOSTS\n"
            "hg_all_nested_long hg_small/ hg_gpu/ node03 (hpcadm) \n");
  EXPECT_EQ(Out("bmgroup", {"-r", "-w", "hg_all_nested_long"}),
            "GROUP_NAME    HOSTS\n"
            "hg_all_nested_long node[01-02] gpu01 gpu010 node03 (hpcadm) \n");
}

TEST_F(CommandsTest, BmgroupUnknownGroupFails) {
  ProcessResult r = Lsf("bmgroup", {"nosuchgroup"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "nosuchgroup: No such user/host group\n");
}

TEST_F(CommandsTest, BugroupExpandsRecursively) {
  EXPECT_EQ(Out("bugroup", {}),
            "GROUP_NAME    USERS\n"
            "ug_chem      alice bob \n"
            "ug_all       ug_chem/ carol \n");
  EXPECT_EQ(Out("bugroup", {"-r"}),
            "GROUP_NAME    USERS\n"
            "ug_chem      alice bob \n"
            "ug_all       alice bob carol \n");
}

TEST_F(CommandsTest, BhostsShortensStatusWithoutW) {
  EXPECT_EQ(Out("bhosts", {}),
            "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
            "node01             ok              -      8      0      0      0      0      0\n"
            "node02             ok              -      8      0      0      0      0      0\n"
            "node03             closed          -      8      0      0      0      0      0\n"
            "node04             unavail         -      8      0      0      0      0      0\n"
            "gpu01              ok              -      2      0      0      0      0      0\n"
            "gpu010             ok              -      2      0      0      0      0      0\n"
            "a_very_long_host_n ok              -      1      0      0      0      0      0\n");
  EXPECT_EQ(
      Out("bhosts", {"-w", "node03", "a_very_long_host_name_01"}),
      "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
      "node03             closed_Adm      -      8      0      0      0      0      0\n"
      "a_very_long_host_name_01 ok              -      1      0      0      0      0      0\n");
}

TEST_F(CommandsTest, LsloadShowsIbOkAndBlanksForUnavail) {
  ASSERT_EQ(Sim({"set-ib", "gpu01", "0"}).exit_code, 0);
  EXPECT_EQ(Out("lsload", {"-w", "-I", "ib_ok"}),
            "HOST_NAME               status  ib_ok\n"
            "node01                      ok    1.0\n"
            "node02                      ok    1.0\n"
            "node03                      ok    1.0\n"
            "node04                 unavail\n"
            "gpu01                       ok    0.0\n"
            "gpu010                      ok    1.0\n"
            "a_very_long_host_name_01     ok    1.0\n");
}

TEST_F(CommandsTest, LsidPrintsVersionClusterAndMaster) {
  EXPECT_EQ(Out("lsid", {}),
            "IBM Spectrum LSF Standard 10.1.0.13, Apr 15 2022\n"
            "Copyright International Business Machines Corp. 1992, 2016.\n"
            "US Government Users Restricted Rights - Use, duplication or disclosure restricted "
            "by GSA ADP Schedule Contract with IBM Corp.\n"
            "\n"
            "My cluster name is testc\n"
            "My master name is hostm\n");
}

TEST_F(CommandsTest, LsclustersNamesTheClusterAndItsLsfAdministrators) {
  EXPECT_EQ(Out("lsclusters", {"-l"}),
            "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
            "testc          ok       hostm                  lsfadmin        7        7\n"
            "LSF administrators: lsfadmin\n");
}

TEST_F(CommandsTest, EveryCommandFailsWithoutLsfConf) {
  for (const char* command : {"bqueues", "bmgroup", "bugroup", "bhosts", "bjobs", "bkill", "lsload",
                              "lsid", "lsclusters"}) {
    ProcessResult r = RunProcess(BinDir() + "/" + command, {}, {{"LSF_ENVDIR", std::nullopt}}, "",
                                 std::chrono::seconds(10));
    EXPECT_EQ(r.exit_code, 255) << command;
    EXPECT_EQ(r.err, "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf\n")
        << command;
  }
  ProcessResult r = RunProcess(BinDir() + "/bsub", {"sleep", "1"}, {{"LSF_ENVDIR", "/nonexistent"}},
                               "", std::chrono::seconds(10));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err,
            "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf. Job not "
            "submitted.\n");
}

// The LSF 10.1 samples (docs/lsf-formats.md "Sources"), rebuilt from a
// definition.
class FormatsMdTest : public SimFixture {};

TEST_F(FormatsMdTest, BqueuesSample) {
  Init(R"toml(
[cluster]
name = "c"
master = "m"
[[host]]
name = "m"
[[queue]]
name = "admin"
priority = 50
[[queue]]
name = "priority"
priority = 43
background = { pend = 75803, run = 32 }
[[queue]]
name = "night"
priority = 40
activity = "inact_win"
[[queue]]
name = "general-interactive"
priority = 10
background = { run = 5 }
[[queue]]
name = "workshop"
priority = 10
jl_u = 2
)toml");
  ProcessResult r = Lsf("bqueues", {});
  EXPECT_EQ(r.out,
            "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
            "admin            50  Open:Active       -    -    -    -     0     0     0     0\n"
            "priority         43  Open:Active       -    -    -    - 75835 75803    32     0\n"
            "night            40  Open:Inact        -    -    -    -     0     0     0     0\n"
            "general-interac  10  Open:Active       -    -    -    -     5     0     5     0\n"
            "workshop         10  Open:Active       -    2    -    -     0     0     0     0\n");
}

TEST_F(FormatsMdTest, BhostsWideSample) {
  Init(R"toml(
[cluster]
name = "c"
master = "login01"
[[host]]
name = "login01"
max = 0
status = "closed_Adm"
[[host]]
name = "node[001-003]"
max = 48
[[host]]
name = "node001"
busy = 12
[[host]]
name = "node002"
busy = 48
[[host]]
name = "node003"
status = "unavail"
)toml");
  ProcessResult r = Lsf("bhosts", {"-w"});
  // The sample shows the header without its trailing blank (LSF prints one).
  EXPECT_EQ(r.out,
            "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
            "login01            closed_Adm      -      0      0      0      0      0      0\n"
            "node001            ok              -     48     12     12      0      0      0\n"
            "node002            closed_Full     -     48     48     48      0      0      0\n"
            "node003            unavail         -     48      0      0      0      0      0\n");
}

TEST_F(FormatsMdTest, GroupSamples) {
  Init(R"toml(
[cluster]
name = "c"
master = "login01"
[[host]]
name = "node[001-004]"
[[host]]
name = "login01"
[[host]]
name = "gpu[01-02]"
[[host_group]]
name = "hg_small"
members = "node001 node002 node003 node004"
[[host_group]]
name = "hg_all"
members = "hg_small/ hg_gpu/ login01"
[[host_group]]
name = "hg_gpu"
members = "gpu01 gpu02"
[[user_group]]
name = "grp_chem"
members = "alice bob carol"
[[user_group]]
name = "grp_all"
members = "grp_chem/ dave"
)toml");
  EXPECT_EQ(Lsf("bmgroup", {}).out,
            "GROUP_NAME    HOSTS\n"
            "hg_small     node001 node002 node003 node004 \n"
            "hg_all       hg_small/ hg_gpu/ login01 \n"
            "hg_gpu       gpu01 gpu02 \n");
  EXPECT_EQ(Lsf("bugroup", {}).out,
            "GROUP_NAME    USERS\n"
            "grp_chem     alice bob carol \n"
            "grp_all      grp_chem/ dave \n");
}

TEST_F(FormatsMdTest, LsloadIbOkSample) {
  Init(R"toml(
[cluster]
name = "c"
master = "node001"
[[host]]
name = "node[001-003]"
[[host]]
name = "node002"
ib_ok = 0
[[host]]
name = "node003"
status = "unavail"
)toml");
  EXPECT_EQ(Lsf("lsload", {"-w", "-I", "ib_ok"}).out,
            "HOST_NAME               status  ib_ok\n"
            "node001                     ok    1.0\n"
            "node002                     ok    0.0\n"
            "node003                unavail\n");
}

TEST_F(FormatsMdTest, OpenlavaLsloadDefaultColumnsLineUp) {
  Init(R"toml(
[cluster]
name = "c"
master = "vm"
[[host]]
name = "vm"
)toml");
  // Header of `lsload` and `lsload -w` in
  // tests/testdata/lsf/openlava/lsload*.txt.
  std::string plain = Lsf("lsload", {}).out;
  EXPECT_EQ(plain.substr(0, plain.find('\n')),
            "HOST_NAME       status  r15s   r1m  r15m   ut    pg  ls    it   tmp   swp   mem");
  EXPECT_EQ(plain.substr(plain.find('\n') + 1, 22), "vm                  ok");
  std::string wide = Lsf("lsload", {"-w"}).out;
  EXPECT_EQ(wide.substr(0, wide.find('\n')),
            "HOST_NAME               status  r15s   r1m  r15m   ut    pg  ls    it   tmp   swp   "
            "mem");
}

}  // namespace
}  // namespace bplace::lsfsim::testing
