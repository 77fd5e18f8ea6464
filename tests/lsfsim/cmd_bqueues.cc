// bqueues: default, -w, -l, -u, -m and -o ... -json output (LSF 10.1; see
// docs/lsf-formats.md "bqueues" and "bqueues -l").

#include <algorithm>
#include <numeric>

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {
namespace {

constexpr const char* kBqueuesUsage =
    "Usage: bqueues [-h] [-V] [-w | -l | -o \"field_name ...\" [-json]]\n"
    "               [-m host_name | -m host_group | -m all] [-u user_name | -u all]\n"
    "               [queue_name ...]\n";

constexpr const char* kDashes =
    "-------------------------------------------------------------------------------\n";

std::string Limit(const std::optional<int>& value) { return value ? std::to_string(*value) : "-"; }

std::string Limit(const std::optional<double>& value) {
  return value ? StrPrintf("%.1f", *value) : "-";
}

std::string ShortRow(const ClusterView& view, size_t q, bool wide) {
  const QueueDef& def = view.cluster().queues[q];
  QueueCounters c = view.Counters(q);
  std::string row = StrPrintf(wide ? "%-15s " : "%-15.15s ", def.name.c_str());
  row += StrPrintf("%3d  %-14.14s ", def.priority, view.QueueShortStatus(q).c_str());
  row += StrPrintf("%4s %4s %4s %4s ", Limit(def.max_slots).c_str(), Limit(def.jl_u).c_str(),
                   Limit(def.jl_p).c_str(), Limit(def.jl_h).c_str());
  row += StrPrintf("%5d %5d %5d %5d\n", c.njobs, c.pend, c.run, c.susp());
  return row;
}

std::string TokenLine(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& token : tokens) out += token + " ";
  return out;
}

std::string LongBlock(const ClusterView& view, Resolver& resolver, size_t q) {
  const QueueDef& def = view.cluster().queues[q];
  QueueCounters c = view.Counters(q);
  std::string out = "\nQUEUE: " + def.name + "\n";
  out += "  -- " +
         (def.description.empty() ? std::string("No description provided.") : def.description);
  if (def.is_default) out += "  This is the default queue.";
  out += "\n\nPARAMETERS/STATISTICS\n";
  out += "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV \n";
  out += StrPrintf("%3d  %3d  %-14.14s %4s %4s %4s %4s %5d %5d %5d %5d %5d %4d\n", def.priority,
                   def.nice, view.QueueLongStatus(q).c_str(), Limit(def.max_slots).c_str(),
                   Limit(def.jl_u).c_str(), Limit(def.jl_p).c_str(), Limit(def.jl_h).c_str(),
                   c.njobs, c.pend, c.run, c.ssusp, c.ususp, c.rsv);
  out += "Interval for a host to accept two jobs is 0 seconds\n\n";
  if (def.runlimit_min) {
    out += StrPrintf(" RUNLIMIT\n %.1f min\n\n", static_cast<double>(*def.runlimit_min));
  }
  out +=
      "SCHEDULING PARAMETERS\n"
      "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
      " loadSched   -     -     -     -       -     -    -     -     -      -      -\n"
      " loadStop    -     -     -     -       -     -    -     -     -      -      -\n\n";
  if (!def.administrators.empty()) {
    out += "ADMINISTRATORS:  " + TokenLine(resolver.UserTokensDisplay(def.administrators)) + "\n";
  }
  out += "USERS: " + TokenLine(resolver.UserTokensDisplay(def.users)) + "\n";
  out += "HOSTS:  " + TokenLine(resolver.QueueHostsDisplay(q)) + "\n";
  if (!def.res_req.empty()) out += "RES_REQ:  " + def.res_req + "\n";
  out += "\n";
  return out;
}

// Field names of `bqueues -o` and the JSON keys LSF uses for them.
std::optional<std::string> FieldKey(const std::string& field) {
  static const std::pair<const char*, const char*> kFields[] = {{"queue_name", "QUEUE_NAME"},
                                                                {"description", "DESCRIPTION"},
                                                                {"priority", "PRIO"},
                                                                {"prio", "PRIO"},
                                                                {"status", "STATUS"},
                                                                {"max", "MAX"},
                                                                {"jl_u", "JL/U"},
                                                                {"jl_p", "JL/P"},
                                                                {"jl_h", "JL/H"},
                                                                {"njobs", "NJOBS"},
                                                                {"pend", "PEND"},
                                                                {"run", "RUN"},
                                                                {"susp", "SUSP"},
                                                                {"ssusp", "SSUSP"},
                                                                {"ususp", "USUSP"},
                                                                {"rsv", "RSV"},
                                                                {"nice", "NICE"}};
  for (auto& [name, key] : kFields) {
    if (field == name) return std::string(key);
  }
  return std::nullopt;
}

std::string FieldValue(const ClusterView& view, size_t q, const std::string& key) {
  const QueueDef& def = view.cluster().queues[q];
  QueueCounters c = view.Counters(q);
  if (key == "QUEUE_NAME") return def.name;
  if (key == "DESCRIPTION") return def.description;
  if (key == "PRIO") return std::to_string(def.priority);
  if (key == "NICE") return std::to_string(def.nice);
  if (key == "STATUS") return view.QueueShortStatus(q);
  if (key == "MAX") return Limit(def.max_slots);
  if (key == "JL/U") return Limit(def.jl_u);
  if (key == "JL/P") return Limit(def.jl_p);
  if (key == "JL/H") return Limit(def.jl_h);
  if (key == "NJOBS") return std::to_string(c.njobs);
  if (key == "PEND") return std::to_string(c.pend);
  if (key == "RUN") return std::to_string(c.run);
  if (key == "SUSP") return std::to_string(c.susp());
  if (key == "SSUSP") return std::to_string(c.ssusp);
  if (key == "USUSP") return std::to_string(c.ususp);
  if (key == "RSV") return std::to_string(c.rsv);
  return "";
}

}  // namespace

CommandResult RunBqueues(const Context& ctx, const std::vector<std::string>& args) {
  bool wide = false;
  bool long_format = false;
  bool json = false;
  std::optional<std::string> user;
  std::optional<std::string> host;
  std::optional<std::string> format;
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    bool missing = false;
    const std::string& arg = args[i];
    if (arg == "-w") {
      wide = true;
    } else if (arg == "-l") {
      long_format = true;
    } else if (arg == "-json") {
      json = true;
    } else if (auto v = TakeOptionValue(args, &i, "-u", &missing)) {
      if (missing) return Fail(kBqueuesUsage);
      user = *v;
    } else if (auto v = TakeOptionValue(args, &i, "-m", &missing)) {
      if (missing) return Fail(kBqueuesUsage);
      host = *v;
    } else if (auto v = TakeOptionValue(args, &i, "-o", &missing)) {
      if (missing) return Fail(kBqueuesUsage);
      format = *v;
    } else if (!arg.empty() && arg[0] == '-') {
      return CommandResult{.exit_code = 255, .out = "", .err = kBqueuesUsage};
    } else {
      names.push_back(arg);
    }
  }
  if (json && !format) {
    return Fail("bqueues: The -json option must be used with the -o option.");
  }
  std::vector<std::string> field_keys;
  if (format) {
    for (const std::string& field : SplitWs(*format)) {
      std::optional<std::string> key = FieldKey(field);
      if (!key) return Fail(field + ": Illegal field name. Specify a valid field name.");
      field_keys.push_back(*key);
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
  if (!names.empty()) {
    for (const std::string& name : names) {
      std::optional<size_t> q = cluster.FindQueue(name);
      if (!q) return Fail(name + ": No such queue");
      selected.push_back(*q);
    }
  } else {
    selected.resize(cluster.queues.size());
    std::iota(selected.begin(), selected.end(), 0);
    // mbatchd lists queues by priority, highest first; ties keep file order.
    std::stable_sort(selected.begin(), selected.end(), [&](size_t a, size_t b) {
      return cluster.queues[a].priority > cluster.queues[b].priority;
    });
  }
  if (host && *host != "all") {
    std::optional<HostSet> hosts = resolver.HostsOfName(*host);
    if (!hosts) return Fail(*host + ": Bad host name, host group name or cluster name");
    std::erase_if(selected, [&](size_t q) {
      const HostSet& admitted = resolver.QueueHosts(q);
      for (size_t h = 0; h < admitted.size(); ++h) {
        if (admitted[h] && (*hosts)[h]) return false;
      }
      return true;
    });
    if (selected.empty()) return Fail(*host + ": Host or host group is not used by the queue");
  }
  if (user && *user != "all") {
    std::erase_if(selected, [&](size_t q) { return !resolver.UserCanUseQueue(q, *user); });
    if (selected.empty()) return Fail(*user + ": User cannot use the queue");
  }

  CommandResult result;
  if (format) {
    std::vector<std::vector<std::pair<std::string, std::string>>> records;
    for (size_t q : selected) {
      std::vector<std::pair<std::string, std::string>> record;
      for (const std::string& key : field_keys) record.emplace_back(key, FieldValue(view, q, key));
      records.push_back(std::move(record));
    }
    if (json) {
      result.out = FormatLsfJson("bqueues", "QUEUES", records);
    } else {
      // Plain -o output: one column per field, as wide as its widest value.
      std::vector<size_t> widths;
      for (const std::string& key : field_keys) widths.push_back(key.size());
      for (const auto& record : records) {
        for (size_t f = 0; f < record.size(); ++f) {
          widths[f] = std::max(widths[f], record[f].second.size());
        }
      }
      for (size_t f = 0; f < field_keys.size(); ++f) {
        result.out += StrPrintf("%-*s ", static_cast<int>(widths[f]), field_keys[f].c_str());
      }
      result.out += "\n";
      for (const auto& record : records) {
        for (size_t f = 0; f < record.size(); ++f) {
          result.out += StrPrintf("%-*s ", static_cast<int>(widths[f]), record[f].second.c_str());
        }
        result.out += "\n";
      }
    }
    return result;
  }
  if (long_format) {
    for (size_t i = 0; i < selected.size(); ++i) {
      if (i > 0) result.out += kDashes;
      result.out += LongBlock(view, resolver, selected[i]);
    }
    return result;
  }
  result.out = "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n";
  for (size_t q : selected) result.out += ShortRow(view, q, wide);
  return result;
}

}  // namespace bplace::lsfsim
