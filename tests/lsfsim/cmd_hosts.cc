// bmgroup, bugroup, bhosts, lsload, lsid and lsclusters (LSF 10.1; see
// docs/lsf-formats.md).

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {
namespace {

enum class GroupKind { kHost, kUser };

CommandResult RunGroupCommand(const Context& ctx, const std::vector<std::string>& args,
                              GroupKind kind) {
  const char* usage = kind == GroupKind::kHost
                          ? "Usage: bmgroup [-h] [-V] [-r] [-l] [-w] [group_name ...]\n"
                          : "Usage: bugroup [-h] [-V] [-r] [-l] [-w] [user_group ...]\n";
  bool wide = false;
  bool recursive = false;
  std::vector<std::string> names;
  for (const std::string& arg : args) {
    if (arg == "-w") {
      wide = true;
    } else if (arg == "-r") {
      recursive = true;
    } else if (arg == "-rw" || arg == "-wr") {
      wide = recursive = true;
    } else if (arg == "-l") {
      // Long format adds nothing the simulator models.
    } else if (!arg.empty() && arg[0] == '-') {
      return CommandResult{.exit_code = 255, .out = "", .err = usage};
    } else {
      names.push_back(arg);
    }
  }
  // Group definitions are static: nothing under the lock to read.
  const ClusterDef& cluster = *ctx.cluster;
  const std::vector<GroupDef>& groups =
      kind == GroupKind::kHost ? cluster.host_groups : cluster.user_groups;
  Resolver resolver(cluster);
  CommandResult result;
  std::vector<size_t> selected;
  if (names.empty()) {
    for (size_t g = 0; g < groups.size(); ++g) selected.push_back(g);
    if (selected.empty()) {
      return Fail(kind == GroupKind::kHost ? "No host group defined in the system"
                                           : "No user group defined in the system");
    }
  } else {
    for (const std::string& name : names) {
      std::optional<size_t> g =
          kind == GroupKind::kHost ? cluster.FindHostGroup(name) : cluster.FindUserGroup(name);
      if (!g) {
        result.err += name + ": No such user/host group\n";
        result.exit_code = 255;
      } else {
        selected.push_back(*g);
      }
    }
    if (selected.empty()) return result;
  }
  result.out = kind == GroupKind::kHost ? "GROUP_NAME    HOSTS\n" : "GROUP_NAME    USERS\n";
  for (size_t g : selected) {
    const GroupDef& def = groups[g];
    std::string row = StrPrintf(wide ? "%-12s " : "%-12.12s ", def.name.c_str());
    std::vector<std::string> members = kind == GroupKind::kHost
                                           ? resolver.HostGroupMembersDisplay(g, recursive)
                                           : resolver.UserGroupMembersDisplay(g, recursive);
    for (const std::string& member : members) row += member + " ";
    // LSF 10 shows group administrators in parentheses after the members.
    if (!def.admins.empty()) row += "(" + Join(def.admins, " ") + ") ";
    result.out += row + "\n";
  }
  return result;
}

constexpr const char* kBhostsUsage =
    "Usage: bhosts [-h] [-V] [-w | -l] [host_name ... | host_group ...]\n";

}  // namespace

CommandResult RunBmgroup(const Context& ctx, const std::vector<std::string>& args) {
  return RunGroupCommand(ctx, args, GroupKind::kHost);
}

CommandResult RunBugroup(const Context& ctx, const std::vector<std::string>& args) {
  return RunGroupCommand(ctx, args, GroupKind::kUser);
}

CommandResult RunBhosts(const Context& ctx, const std::vector<std::string>& args) {
  bool wide = false;
  std::vector<std::string> names;
  for (const std::string& arg : args) {
    if (arg == "-w") {
      wide = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return CommandResult{.exit_code = 255, .out = "", .err = kBhostsUsage};
    } else {
      names.push_back(arg);
    }
  }
  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  lock.Release();
  const ClusterDef& cluster = *ctx.cluster;
  ClusterView view(cluster, loaded->overrides, loaded->jobs);
  Resolver resolver(cluster);

  std::vector<size_t> selected;
  if (names.empty()) {
    for (size_t h = 0; h < cluster.hosts.size(); ++h) selected.push_back(h);
  } else {
    for (const std::string& name : names) {
      std::optional<HostSet> hosts = resolver.HostsOfName(name);
      if (!hosts) return Fail(name + ": Bad host name, host group name or cluster name");
      for (size_t h = 0; h < hosts->size(); ++h) {
        if ((*hosts)[h]) selected.push_back(h);
      }
    }
  }
  CommandResult result;
  result.out = "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n";
  for (size_t h : selected) {
    const HostDef& def = cluster.hosts[h];
    std::string status = view.HostStatus(h);
    // Without -w every closed_* state prints as plain "closed".
    if (!wide && status.rfind("closed_", 0) == 0) status = "closed";
    HostCounters c = view.HostCountersOf(h);
    std::string max = def.max_slots ? std::to_string(*def.max_slots) : "-";
    std::string jl_u = def.jl_u ? std::to_string(*def.jl_u) : "-";
    result.out += StrPrintf(wide ? "%-18s %-12s %4s %6s %6d %6d %6d %6d %6d\n"
                                 : "%-18.18s %-12.12s %4s %6s %6d %6d %6d %6d %6d\n",
                            def.name.c_str(), status.c_str(), jl_u.c_str(), max.c_str(), c.njobs,
                            c.run, c.ssusp, c.ususp, 0);
  }
  return result;
}

CommandResult RunLsload(const Context& ctx, const std::vector<std::string>& args) {
  bool wide = false;
  std::vector<std::string> indices;
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    bool missing = false;
    const std::string& arg = args[i];
    if (arg == "-w") {
      wide = true;
    } else if (arg == "-l") {
      // -l adds the io column in real LSF; the simulator prints the default set.
    } else if (auto v = TakeOptionValue(args, &i, "-I", &missing)) {
      if (missing) return Fail("Usage: lsload [-h] [-V] [-l] [-w] [-I index_list] [host_name ...]");
      size_t start = 0;
      while (start <= v->size()) {
        size_t colon = v->find(':', start);
        std::string index = v->substr(start, colon == std::string::npos ? colon : colon - start);
        if (!index.empty()) indices.push_back(index);
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
    } else if (auto v = TakeOptionValue(args, &i, "-R", &missing)) {
      if (missing) return Fail("Usage: lsload [-h] [-V] [-l] [-w] [-R res_req] [host_name ...]");
    } else if (!arg.empty() && arg[0] == '-') {
      return Fail("Usage: lsload [-h] [-V] [-l] [-w] [-I index_list] [host_name ...]");
    } else {
      names.push_back(arg);
    }
  }
  // Static values for the built-in indices: the simulator models no load.
  static const std::pair<const char*, const char*> kBuiltin[] = {
      {"r15s", "0.0"}, {"r1m", "0.0"}, {"r15m", "0.1"}, {"ut", "5%"},  {"pg", "0.0"},
      {"ls", "0"},     {"it", "999"},  {"tmp", "80G"},  {"swp", "0M"}, {"mem", "180G"}};
  static const std::pair<const char*, int> kWidths[] = {
      {"r15s", 5}, {"r1m", 5}, {"r15m", 5}, {"ut", 4},  {"pg", 5}, {"ls", 3},
      {"it", 5},   {"tmp", 5}, {"swp", 5},  {"mem", 5}, {"io", 5}};
  if (indices.empty()) {
    for (auto& [name, value] : kBuiltin) indices.push_back(name);
  }
  auto width_of = [&](const std::string& index) {
    for (auto& [name, width] : kWidths) {
      if (index == name) return width;
    }
    return 6;
  };

  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  lock.Release();
  const ClusterDef& cluster = *ctx.cluster;
  ClusterView view(cluster, loaded->overrides, loaded->jobs);

  std::vector<size_t> selected;
  if (names.empty()) {
    for (size_t h = 0; h < cluster.hosts.size(); ++h) selected.push_back(h);
  } else {
    for (const std::string& name : names) {
      std::optional<size_t> h = cluster.FindHost(name);
      if (!h) return Fail("lsload: Host <" + name + "> is not used by the LSF system");
      selected.push_back(*h);
    }
  }
  CommandResult result;
  // Name and status share one field: the status is right-aligned to column
  // 30 (22 without -w), so `unavail` touches the padded name. A name that
  // fills the field still gets one blank before the status.
  auto name_and_status = [wide](const std::string& name, const std::string& status) {
    if (!wide) return StrPrintf("%-15.15s%7s", name.c_str(), status.c_str());
    if (name.size() >= 23) return StrPrintf("%s %6s", name.c_str(), status.c_str());
    return StrPrintf("%-23s%7s", name.c_str(), status.c_str());
  };
  result.out = name_and_status("HOST_NAME", "status");
  for (const std::string& index : indices) {
    result.out += StrPrintf(" %*s", width_of(index), index.c_str());
  }
  result.out += "\n";
  for (size_t h : selected) {
    const HostDef& def = cluster.hosts[h];
    std::string configured = view.ConfiguredHostStatus(h);
    // lsload shows LIM's view: batch-level closures are invisible to it.
    std::string status = "ok";
    if (configured == "unavail" || configured == "closed_LIM") status = "unavail";
    if (configured == "closed_Lock") status = "lockU";
    std::string row = name_and_status(def.name, status);
    if (status != "unavail") {
      for (const std::string& index : indices) {
        std::string value = "-";
        if (index == "ib_ok") {
          value = StrPrintf("%.1f", static_cast<double>(view.HostIbOk(h)));
        } else {
          for (auto& [name, v] : kBuiltin) {
            if (index == name) value = v;
          }
        }
        row += StrPrintf(" %*s", width_of(index), value.c_str());
      }
    }
    result.out += row + "\n";
  }
  return result;
}

CommandResult RunLsid(const Context& ctx, const std::vector<std::string>& args) {
  if (!args.empty()) return Fail("Usage: lsid [-h] [-V]");
  CommandResult result;
  result.out = VersionBanner(ctx.cluster->dialect) + "\nMy cluster name is " + ctx.cluster->name +
               "\nMy master name is " + ctx.cluster->master + "\n";
  return result;
}

// The layout of lsclusters.c in the OpenLava family (volclava 2.2), with
// LSF's "LSF administrators:" line for -l: one row for the local cluster
// (no MultiCluster). Without -w names are cut as the format cuts them.
CommandResult RunLsclusters(const Context& ctx, const std::vector<std::string>& args) {
  bool long_format = false;
  bool wide = false;
  for (const std::string& arg : args) {
    if (arg == "-l") {
      long_format = true;
    } else if (arg == "-w") {
      wide = true;
    } else if (arg != ctx.cluster->name) {
      return Fail(arg.empty() || arg.front() == '-'
                      ? "Usage: lsclusters [-h] [-V] [-l | -w] [cluster_name ...]"
                      : arg + ": Unknown cluster name");
    }
  }
  const ClusterDef& cluster = *ctx.cluster;
  const std::string admin = cluster.admins.empty() ? "-" : cluster.admins.front();
  const int hosts = static_cast<int>(cluster.hosts.size());
  CommandResult result;
  if (wide || long_format) {
    result.out = StrPrintf("%-14s %-8s %-15s %15s %8s %8s\n", "CLUSTER_NAME", "STATUS",
                           "MASTER_HOST", "ADMIN", "HOSTS", "SERVERS");
    result.out += StrPrintf("%-14s %-8s %-15s %15s %8d %8d\n", cluster.name.c_str(), "ok",
                            cluster.master.c_str(), admin.c_str(), hosts, hosts);
  } else {
    result.out = StrPrintf("%-14.14s %-8.8s %-15.15s %15.15s %8.8s %8.8s\n", "CLUSTER_NAME",
                           "STATUS", "MASTER_HOST", "ADMIN", "HOSTS", "SERVERS");
    result.out += StrPrintf("%-14.14s %-8.8s %-15.15s %15.15s %8d %8d\n", cluster.name.c_str(),
                            "ok", cluster.master.c_str(), admin.c_str(), hosts, hosts);
  }
  if (long_format) {
    result.out += "LSF administrators:";
    for (const std::string& name : cluster.admins) result.out += " " + name;
    result.out += "\n";
  }
  return result;
}

}  // namespace bplace::lsfsim
