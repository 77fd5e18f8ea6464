// The passwd and group lookups and the caller policy of user_identity.h.
// They need no privilege: root is in every passwd database. The tests about
// the users of tools/test-users.sh (alice, bplace-sys) skip without them.

#include "identity/user_identity.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace bplace::identity {
namespace {

// A uid nobody has, found by asking.
uid_t UnusedUid() {
  uid_t uid = 4242;
  while (::getpwuid(uid) != nullptr) ++uid;
  return uid;
}

// A login name nobody has, found by asking: a fixed name could exist on
// some machine (a CI run once met a real `carol`).
std::string UnusedName() {
  std::mt19937 random(std::random_device{}());
  std::string name;
  do {
    name = "bplace-nouser-" + std::to_string(random() % 100000000);
  } while (::getpwnam(name.c_str()) != nullptr);
  return name;
}

TEST(UserIdentityTest, FindsRootByUidAndByName) {
  Result<UserIdentity> by_uid = LookupUserByUid(0);
  ASSERT_TRUE(by_uid) << by_uid.error().message;
  EXPECT_EQ(by_uid->name, "root");
  EXPECT_EQ(by_uid->uid, 0u);
  EXPECT_EQ(by_uid->gid, 0u);
  // Root's home is /root on most systems, not all: ask the database.
  const struct passwd* root = ::getpwuid(0);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(by_uid->home, root->pw_dir);
  EXPECT_NE(std::find(by_uid->groups.begin(), by_uid->groups.end(), 0u), by_uid->groups.end());

  Result<UserIdentity> by_name = LookupUserByName("root");
  ASSERT_TRUE(by_name) << by_name.error().message;
  EXPECT_EQ(by_name->uid, 0u);
  EXPECT_EQ(by_name->groups, by_uid->groups);
}

TEST(UserIdentityTest, RootIsFoundButRefused) {
  Result<UserIdentity> root = LookupUserByUid(0);
  ASSERT_TRUE(root) << root.error().message;
  for (uid_t min_uid : {uid_t{0}, uid_t{1000}}) {
    Result<void> verdict = CheckCaller(*root, min_uid);
    ASSERT_FALSE(verdict);
    EXPECT_EQ(verdict.error().code, ErrorCode::kRejected);
    EXPECT_EQ(verdict.error().message, "uid 0 (root) may not submit");
  }
}

TEST(UserIdentityTest, UnknownUidIsNotFound) {
  const uid_t uid = UnusedUid();
  Result<UserIdentity> user = LookupUserByUid(uid);
  ASSERT_FALSE(user);
  EXPECT_EQ(user.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(user.error().message, "uid " + std::to_string(uid) + ": not in the passwd database");
}

TEST(UserIdentityTest, UnknownNameIsNotFound) {
  const std::string unused = UnusedName();
  for (std::string_view name :
       {std::string_view(unused), std::string_view(""), std::string_view("ro\0ot", 5)}) {
    Result<UserIdentity> user = LookupUserByName(name);
    ASSERT_FALSE(user);
    EXPECT_EQ(user.error().code, ErrorCode::kNotFound) << user.error().message;
  }
  EXPECT_EQ(LookupUserByName(unused).error().message,
            "user " + unused + ": not in the passwd database");
}

TEST(UserIdentityTest, MinimumUidIsInclusive) {
  const UserIdentity sys{.name = "sys", .uid = 999, .gid = 999, .home = "/", .groups = {999}};
  Result<void> below = CheckCaller(sys, 1000);
  ASSERT_FALSE(below);
  EXPECT_EQ(below.error().code, ErrorCode::kRejected);
  EXPECT_EQ(below.error().message, "uid 999 (sys) is below the minimum uid 1000");

  UserIdentity first = sys;
  first.uid = 1000;
  EXPECT_TRUE(CheckCaller(first, 1000));
  EXPECT_TRUE(CheckCaller(sys, 999));
  EXPECT_TRUE(CheckCaller(sys, 0));
}

TEST(UserIdentityTest, SystemAccountOfTestUsersIsRefused) {
  Result<UserIdentity> sys = LookupUserByName("bplace-sys");
  if (!sys) GTEST_SKIP() << "needs user bplace-sys: run tools/test-users.sh as root";
  ASSERT_LT(sys->uid, 1000u);
  Result<void> verdict = CheckCaller(*sys, 1000);
  ASSERT_FALSE(verdict);
  EXPECT_EQ(verdict.error().message,
            "uid " + std::to_string(sys->uid) + " (bplace-sys) is below the minimum uid 1000");
}

TEST(UserIdentityTest, TestUserHasOwnAndSharedGroups) {
  Result<UserIdentity> alice = LookupUserByName("alice");
  if (!alice) GTEST_SKIP() << "needs user alice: run tools/test-users.sh as root";
  EXPECT_GE(alice->uid, 1000u);
  EXPECT_TRUE(CheckCaller(*alice, 1000));
  const struct group* shared = ::getgrnam("bplace-test");
  ASSERT_NE(shared, nullptr);
  EXPECT_NE(std::find(alice->groups.begin(), alice->groups.end(), shared->gr_gid),
            alice->groups.end());
  EXPECT_NE(std::find(alice->groups.begin(), alice->groups.end(), alice->gid), alice->groups.end());
  Result<UserIdentity> by_uid = LookupUserByUid(alice->uid);
  ASSERT_TRUE(by_uid) << by_uid.error().message;
  EXPECT_EQ(by_uid->name, "alice");
}

}  // namespace
}  // namespace bplace::identity
