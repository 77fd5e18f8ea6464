#include "tests/lsfsim/cluster.h"

#include <algorithm>
#include <set>

#include <toml++/toml.h>

#include "tests/lsfsim/hostlist.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

// Reads the keys of one TOML table, remembering which were used so that an
// unknown key (a typo) is reported with its line instead of being ignored.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string source, std::string what)
      : table_(table), source_(std::move(source)), what_(std::move(what)) {}

  std::string Where(const toml::node& node) const {
    return StrPrintf("%s:%u: ", source_.c_str(), node.source().begin.line);
  }

  std::string Where() const { return Where(table_); }

  const toml::node* Get(std::string_view key) {
    used_.insert(std::string(key));
    return table_.get(key);
  }

  tl::expected<std::optional<std::string>, std::string> String(std::string_view key) {
    const toml::node* node = Get(key);
    if (node == nullptr) return std::optional<std::string>();
    if (!node->is_string())
      return Error(Where(*node) + what_ + ": " + std::string(key) + " must be a string");
    return std::optional<std::string>(node->as_string()->get());
  }

  tl::expected<std::optional<long long>, std::string> Int(std::string_view key) {
    const toml::node* node = Get(key);
    if (node == nullptr) return std::optional<long long>();
    if (!node->is_integer())
      return Error(Where(*node) + what_ + ": " + std::string(key) + " must be an integer");
    return std::optional<long long>(node->as_integer()->get());
  }

  tl::expected<std::optional<double>, std::string> Number(std::string_view key) {
    const toml::node* node = Get(key);
    if (node == nullptr) return std::optional<double>();
    if (node->is_integer()) return std::optional<double>(node->as_integer()->get());
    if (node->is_floating_point()) return std::optional<double>(node->as_floating_point()->get());
    return Error(Where(*node) + what_ + ": " + std::string(key) + " must be a number");
  }

  tl::expected<std::optional<bool>, std::string> Bool(std::string_view key) {
    const toml::node* node = Get(key);
    if (node == nullptr) return std::optional<bool>();
    if (!node->is_boolean())
      return Error(Where(*node) + what_ + ": " + std::string(key) + " must be true or false");
    return std::optional<bool>(node->as_boolean()->get());
  }

  // A token list: either one string of blank-separated tokens (as lsb.queues
  // writes them) or an array of strings, each possibly holding several.
  tl::expected<std::optional<std::vector<std::string>>, std::string> Tokens(std::string_view key) {
    const toml::node* node = Get(key);
    if (node == nullptr) return std::optional<std::vector<std::string>>();
    std::vector<std::string> out;
    if (node->is_string()) {
      out = SplitWs(node->as_string()->get());
    } else if (node->is_array()) {
      for (const toml::node& item : *node->as_array()) {
        if (!item.is_string()) {
          return Error(Where(item) + what_ + ": " + std::string(key) + " must hold strings only");
        }
        for (std::string& token : SplitWs(item.as_string()->get())) out.push_back(token);
      }
    } else {
      return Error(Where(*node) + what_ + ": " + std::string(key) +
                   " must be a string or an array of strings");
    }
    return std::optional<std::vector<std::string>>(std::move(out));
  }

  // Returns an error naming the first key that no Get() asked for.
  tl::expected<void, std::string> CheckNoUnknownKeys() const {
    for (auto&& [key, node] : table_) {
      if (!used_.contains(std::string(key.str()))) {
        return Error(Where(node) + what_ + ": unknown key '" + std::string(key.str()) + "'");
      }
    }
    return {};
  }

 private:
  const toml::table& table_;
  std::string source_;
  std::string what_;
  std::set<std::string> used_;
};

// Unwraps a tl::expected into `var` or returns its error from the enclosing
// function. Keeps the field-by-field reading below short.
#define LSFSIM_ASSIGN(var, expr)                         \
  auto var##_result = (expr);                            \
  if (!var##_result) return Error(var##_result.error()); \
  auto var = std::move(*var##_result)

tl::expected<const toml::array*, std::string> ArrayOfTables(const toml::table& root,
                                                            std::string_view key,
                                                            const std::string& source) {
  const toml::node* node = root.get(key);
  if (node == nullptr) return nullptr;
  const toml::array* array = node->as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    return Error(StrPrintf("%s:%u: '%s' must be an array of tables ([[%s]])", source.c_str(),
                           node->source().begin.line, std::string(key).c_str(),
                           std::string(key).c_str()));
  }
  return array;
}

// The [cluster] keys that stand for lsf.conf and lsb.params parameters the
// simulator's bparams, lsadmin and job runner read, and the dialect.
tl::expected<void, std::string> ReadClusterParams(TableReader& reader, ClusterDef* cluster) {
  LSFSIM_ASSIGN(dialect, reader.String("dialect"));
  LSFSIM_ASSIGN(unit, reader.String("lsf_unit_for_limits"));
  LSFSIM_ASSIGN(per_task, reader.Bool("resource_reserve_per_task"));
  LSFSIM_ASSIGN(terminate, reader.Int("job_terminate_interval_s"));
  LSFSIM_ASSIGN(esub_description, reader.String("esub_description"));
  if (dialect) {
    if (*dialect != "lsf" && *dialect != "openlava") {
      return Error(reader.Where() + "[cluster]: dialect must be \"lsf\" or \"openlava\"");
    }
    cluster->dialect = *dialect == "openlava" ? Dialect::kOpenlava : Dialect::kLsf;
  }
  if (unit) {
    static const std::set<std::string> kUnits = {"KB", "MB", "GB", "TB", "PB", "EB", "ZB"};
    if (!kUnits.contains(*unit)) {
      return Error(reader.Where() +
                   "[cluster]: lsf_unit_for_limits must be KB MB GB TB PB EB or ZB");
    }
    cluster->lsf_unit_for_limits = *unit;
  }
  if (per_task) cluster->resource_reserve_per_task = *per_task;
  if (esub_description) cluster->esub_description = *esub_description;
  if (terminate) {
    if (*terminate < 0 || *terminate > 3600) {
      return Error(reader.Where() + "[cluster]: job_terminate_interval_s must be 0-3600");
    }
    cluster->job_terminate_interval_s = static_cast<int>(*terminate);
  }
  return {};
}

tl::expected<void, std::string> ReadHosts(const toml::table& root, const std::string& source,
                                          ClusterDef* cluster) {
  LSFSIM_ASSIGN(array, ArrayOfTables(root, "host", source));
  if (array == nullptr) return {};
  for (const toml::node& item : *array) {
    TableReader reader(*item.as_table(), source, "[[host]]");
    LSFSIM_ASSIGN(name, reader.String("name"));
    if (!name || name->empty()) return Error(reader.Where() + "[[host]]: name is required");
    LSFSIM_ASSIGN(status, reader.String("status"));
    LSFSIM_ASSIGN(max, reader.Int("max"));
    LSFSIM_ASSIGN(ib_ok, reader.Int("ib_ok"));
    LSFSIM_ASSIGN(busy, reader.Int("busy"));
    LSFSIM_ASSIGN(jl_u, reader.Int("jl_u"));
    auto checked = reader.CheckNoUnknownKeys();
    if (!checked) return checked;
    if (status && !IsValidHostStatus(*status)) {
      return Error(reader.Where() + "[[host]] " + *name + ": unknown status '" + *status + "'");
    }
    std::optional<std::vector<std::string>> names = ExpandRange(*name);
    if (!names) return Error(reader.Where() + "[[host]]: bad host name range '" + *name + "'");
    for (const std::string& host_name : *names) {
      auto found = cluster->host_index.find(host_name);
      HostDef* host = nullptr;
      if (found == cluster->host_index.end()) {
        cluster->host_index.emplace(host_name, cluster->hosts.size());
        cluster->hosts.emplace_back();
        host = &cluster->hosts.back();
        host->name = host_name;
      } else {
        // A later entry for a known host changes only the fields it sets.
        host = &cluster->hosts[found->second];
      }
      if (status) host->status = *status;
      if (max) host->max_slots = static_cast<int>(*max);
      if (ib_ok) host->ib_ok = static_cast<int>(*ib_ok);
      if (busy) host->busy = static_cast<int>(*busy);
      if (jl_u) host->jl_u = static_cast<int>(*jl_u);
    }
  }
  return {};
}

tl::expected<void, std::string> ReadGroups(const toml::table& root, std::string_view key,
                                           const std::string& source, std::vector<GroupDef>* groups,
                                           std::unordered_map<std::string, size_t>* index) {
  LSFSIM_ASSIGN(array, ArrayOfTables(root, key, source));
  if (array == nullptr) return {};
  std::string what = "[[" + std::string(key) + "]]";
  for (const toml::node& item : *array) {
    TableReader reader(*item.as_table(), source, what);
    LSFSIM_ASSIGN(name, reader.String("name"));
    if (!name || name->empty()) return Error(reader.Where() + what + ": name is required");
    LSFSIM_ASSIGN(members, reader.Tokens("members"));
    LSFSIM_ASSIGN(admins, reader.Tokens("admins"));
    auto checked = reader.CheckNoUnknownKeys();
    if (!checked) return checked;
    if (!members || members->empty()) {
      return Error(reader.Where() + what + " " + *name + ": members is required");
    }
    if (index->contains(*name)) {
      return Error(reader.Where() + what + ": duplicate group name '" + *name + "'");
    }
    for (const std::string& member : *members) {
      MemberToken token = ParseMemberToken(member);
      if (IsRangePattern(token.name) && !ExpandRange(token.name)) {
        return Error(reader.Where() + what + " " + *name + ": bad range '" + member + "'");
      }
    }
    index->emplace(*name, groups->size());
    groups->push_back(GroupDef{
        .name = *name, .members = *members, .admins = admins.value_or(std::vector<std::string>{})});
  }
  return {};
}

tl::expected<void, std::string> ReadQueues(const toml::table& root, const std::string& source,
                                           ClusterDef* cluster) {
  LSFSIM_ASSIGN(array, ArrayOfTables(root, "queue", source));
  if (array == nullptr) return {};
  for (const toml::node& item : *array) {
    TableReader reader(*item.as_table(), source, "[[queue]]");
    QueueDef queue;
    LSFSIM_ASSIGN(name, reader.String("name"));
    if (!name || name->empty()) return Error(reader.Where() + "[[queue]]: name is required");
    queue.name = *name;
    std::string what = "[[queue]] " + queue.name;
    LSFSIM_ASSIGN(priority, reader.Int("priority"));
    LSFSIM_ASSIGN(nice, reader.Int("nice"));
    LSFSIM_ASSIGN(status, reader.String("status"));
    LSFSIM_ASSIGN(activity, reader.String("activity"));
    LSFSIM_ASSIGN(description, reader.String("description"));
    LSFSIM_ASSIGN(is_default, reader.Bool("default"));
    LSFSIM_ASSIGN(users, reader.Tokens("users"));
    LSFSIM_ASSIGN(hosts, reader.Tokens("hosts"));
    LSFSIM_ASSIGN(administrators, reader.Tokens("administrators"));
    LSFSIM_ASSIGN(max, reader.Int("max"));
    LSFSIM_ASSIGN(jl_u, reader.Int("jl_u"));
    LSFSIM_ASSIGN(jl_p, reader.Number("jl_p"));
    LSFSIM_ASSIGN(jl_h, reader.Int("jl_h"));
    LSFSIM_ASSIGN(job_limit, reader.Int("job_limit"));
    LSFSIM_ASSIGN(runlimit, reader.Int("runlimit_min"));
    LSFSIM_ASSIGN(res_req, reader.String("res_req"));
    LSFSIM_ASSIGN(rewrite_to, reader.String("rewrite_to"));
    LSFSIM_ASSIGN(esub_reject, reader.String("esub_reject"));
    LSFSIM_ASSIGN(esub_banner, reader.String("esub_banner"));
    const toml::node* background = reader.Get("background");
    auto checked = reader.CheckNoUnknownKeys();
    if (!checked) return checked;

    if (priority) queue.priority = static_cast<int>(*priority);
    if (nice) queue.nice = static_cast<int>(*nice);
    if (status) {
      if (*status != "open" && *status != "closed") {
        return Error(reader.Where() + what + ": status must be \"open\" or \"closed\"");
      }
      queue.open = *status == "open";
    }
    if (activity) {
      if (*activity == "active") {
        queue.activity = QueueActivity::kActive;
      } else if (*activity == "inact_adm") {
        queue.activity = QueueActivity::kInactAdm;
      } else if (*activity == "inact_win") {
        queue.activity = QueueActivity::kInactWin;
      } else {
        return Error(reader.Where() + what +
                     ": activity must be \"active\", \"inact_adm\" or \"inact_win\"");
      }
    }
    if (description) queue.description = *description;
    if (is_default) queue.is_default = *is_default;
    if (users) queue.users = *users;
    if (hosts) queue.hosts = *hosts;
    if (administrators) queue.administrators = *administrators;
    if (max) queue.max_slots = static_cast<int>(*max);
    if (jl_u) queue.jl_u = static_cast<int>(*jl_u);
    if (jl_p) queue.jl_p = *jl_p;
    if (jl_h) queue.jl_h = static_cast<int>(*jl_h);
    if (job_limit) queue.job_limit = static_cast<int>(*job_limit);
    if (runlimit) queue.runlimit_min = static_cast<int>(*runlimit);
    if (res_req) queue.res_req = *res_req;
    if (rewrite_to) queue.rewrite_to = *rewrite_to;
    if (esub_reject) queue.esub_reject = *esub_reject;
    if (esub_banner) queue.esub_banner = *esub_banner;
    if (background != nullptr) {
      if (!background->is_table()) {
        return Error(reader.Where(*background) + what + ": background must be a table");
      }
      TableReader bg(*background->as_table(), source, what + " background");
      LSFSIM_ASSIGN(pend, bg.Int("pend"));
      LSFSIM_ASSIGN(run, bg.Int("run"));
      LSFSIM_ASSIGN(ssusp, bg.Int("ssusp"));
      LSFSIM_ASSIGN(ususp, bg.Int("ususp"));
      LSFSIM_ASSIGN(rsv, bg.Int("rsv"));
      auto bg_checked = bg.CheckNoUnknownKeys();
      if (!bg_checked) return bg_checked;
      queue.background = Background{.pend = static_cast<int>(pend.value_or(0)),
                                    .run = static_cast<int>(run.value_or(0)),
                                    .ssusp = static_cast<int>(ssusp.value_or(0)),
                                    .ususp = static_cast<int>(ususp.value_or(0)),
                                    .rsv = static_cast<int>(rsv.value_or(0))};
    }
    if (cluster->queue_index.contains(queue.name)) {
      return Error(reader.Where() + "[[queue]]: duplicate queue name '" + queue.name + "'");
    }
    cluster->queue_index.emplace(queue.name, cluster->queues.size());
    cluster->queues.push_back(std::move(queue));
  }
  return {};
}

tl::expected<void, std::string> ReadUserLimits(const toml::table& root, const std::string& source,
                                               ClusterDef* cluster) {
  LSFSIM_ASSIGN(array, ArrayOfTables(root, "user", source));
  if (array == nullptr) return {};
  for (const toml::node& item : *array) {
    TableReader reader(*item.as_table(), source, "[[user]]");
    LSFSIM_ASSIGN(name, reader.String("name"));
    if (!name || name->empty()) return Error(reader.Where() + "[[user]]: name is required");
    LSFSIM_ASSIGN(max_pend_jobs, reader.Int("max_pend_jobs"));
    LSFSIM_ASSIGN(max_pend_slots, reader.Int("max_pend_slots"));
    auto checked = reader.CheckNoUnknownKeys();
    if (!checked) return checked;
    for (const UserLimitDef& other : cluster->user_limits) {
      if (other.name == *name) {
        return Error(reader.Where() + "[[user]]: duplicate user '" + *name + "'");
      }
    }
    UserLimitDef def;
    def.name = *name;
    if (max_pend_jobs) def.max_pend_jobs = static_cast<int>(*max_pend_jobs);
    if (max_pend_slots) def.max_pend_slots = static_cast<int>(*max_pend_slots);
    cluster->user_limits.push_back(std::move(def));
  }
  return {};
}

tl::expected<void, std::string> Validate(const ClusterDef& cluster, const std::string& source) {
  for (const GroupDef& group : cluster.host_groups) {
    if (cluster.host_index.contains(group.name)) {
      return Error(source + ": '" + group.name + "' is both a host and a host group");
    }
  }
  int defaults = 0;
  for (const QueueDef& queue : cluster.queues) {
    if (queue.is_default) ++defaults;
    if (!queue.rewrite_to.empty() && !cluster.queue_index.contains(queue.rewrite_to)) {
      return Error(source + ": queue " + queue.name + ": rewrite_to names no queue ('" +
                   queue.rewrite_to + "')");
    }
  }
  if (defaults > 1) return Error(source + ": more than one queue has default = true");
  if (cluster.hosts.empty()) return Error(source + ": no [[host]] defined");
  return {};
}

}  // namespace

bool IsValidHostStatus(std::string_view status) {
  return std::find(std::begin(kHostStatuses), std::end(kHostStatuses), status) !=
         std::end(kHostStatuses);
}

std::optional<size_t> ClusterDef::FindHost(std::string_view name) const {
  auto it = host_index.find(std::string(name));
  return it == host_index.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> ClusterDef::FindHostGroup(std::string_view name) const {
  auto it = host_group_index.find(std::string(name));
  return it == host_group_index.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> ClusterDef::FindUserGroup(std::string_view name) const {
  auto it = user_group_index.find(std::string(name));
  return it == user_group_index.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> ClusterDef::FindQueue(std::string_view name) const {
  auto it = queue_index.find(std::string(name));
  return it == queue_index.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> ClusterDef::DefaultQueue() const {
  for (size_t i = 0; i < queues.size(); ++i) {
    if (queues[i].is_default) return i;
  }
  return std::nullopt;
}

bool ClusterDef::IsLsfAdmin(std::string_view user) const {
  return std::find(admins.begin(), admins.end(), user) != admins.end();
}

tl::expected<ClusterDef, std::string> ParseClusterDef(std::string_view text,
                                                      std::string_view source) {
  std::string source_name(source);
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& error) {
    return Error(StrPrintf("%s:%u: %s", source_name.c_str(), error.source().begin.line,
                           std::string(error.description()).c_str()));
  }
  ClusterDef cluster;
  for (auto&& [key, node] : root) {
    std::string_view k = key.str();
    if (k != "cluster" && k != "host" && k != "host_group" && k != "user_group" && k != "queue" &&
        k != "user") {
      return Error(StrPrintf("%s:%u: unknown top-level key '%s'", source_name.c_str(),
                             node.source().begin.line, std::string(k).c_str()));
    }
  }
  const toml::table* head = root["cluster"].as_table();
  if (head == nullptr) return Error(source_name + ": a [cluster] table is required");
  TableReader reader(*head, source_name, "[cluster]");
  LSFSIM_ASSIGN(name, reader.String("name"));
  LSFSIM_ASSIGN(master, reader.String("master"));
  LSFSIM_ASSIGN(admins, reader.Tokens("admins"));
  LSFSIM_ASSIGN(clean_period, reader.Int("clean_period_s"));
  LSFSIM_ASSIGN(bjobs_o, reader.Bool("bjobs_o"));
  LSFSIM_ASSIGN(event_log, reader.String("event_log"));
  LSFSIM_ASSIGN(max_array, reader.Int("max_job_array_size"));
  LSFSIM_ASSIGN(max_pend_jobs, reader.Int("max_pend_jobs"));
  LSFSIM_ASSIGN(max_pend_slots, reader.Int("max_pend_slots"));
  LSFSIM_ASSIGN(sub_try_interval, reader.Int("sub_try_interval_s"));
  if (auto params = ReadClusterParams(reader, &cluster); !params) return Error(params.error());
  auto checked = reader.CheckNoUnknownKeys();
  if (!checked) return Error(checked.error());
  if (clean_period && *clean_period < 1) {
    return Error(reader.Where() + "[cluster]: clean_period_s must be at least 1");
  }
  if (max_array && (*max_array < 1 || *max_array > 2147483646)) {
    return Error(reader.Where() + "[cluster]: max_job_array_size must be 1-2147483646");
  }
  if (clean_period) cluster.clean_period_s = *clean_period;
  if (max_array) cluster.max_job_array_size = *max_array;
  if (max_pend_jobs) cluster.max_pend_jobs = static_cast<int>(*max_pend_jobs);
  if (max_pend_slots) cluster.max_pend_slots = static_cast<int>(*max_pend_slots);
  if (sub_try_interval && *sub_try_interval < 0) {
    return Error(reader.Where() + "[cluster]: sub_try_interval_s must not be negative");
  }
  if (sub_try_interval) cluster.sub_try_interval_s = static_cast<int>(*sub_try_interval);
  if (bjobs_o) cluster.bjobs_o = *bjobs_o;
  if (event_log) {
    if (*event_log != "lsf10" && *event_log != "openlava" && *event_log != "none") {
      return Error(reader.Where() + "[cluster]: event_log must be lsf10, openlava or none");
    }
    cluster.event_log = *event_log;
  }
  if (!name || name->empty()) return Error(reader.Where() + "[cluster]: name is required");
  if (!master || master->empty()) return Error(reader.Where() + "[cluster]: master is required");
  cluster.name = *name;
  cluster.master = *master;
  cluster.admins = admins.value_or(std::vector<std::string>{});

  if (auto step = ReadHosts(root, source_name, &cluster); !step) return Error(step.error());
  if (auto step = ReadGroups(root, "host_group", source_name, &cluster.host_groups,
                             &cluster.host_group_index);
      !step) {
    return Error(step.error());
  }
  if (auto step = ReadGroups(root, "user_group", source_name, &cluster.user_groups,
                             &cluster.user_group_index);
      !step) {
    return Error(step.error());
  }
  if (auto step = ReadQueues(root, source_name, &cluster); !step) return Error(step.error());
  if (auto step = ReadUserLimits(root, source_name, &cluster); !step) return Error(step.error());
  if (auto step = Validate(cluster, source_name); !step) return Error(step.error());
  return cluster;
}

#undef LSFSIM_ASSIGN

tl::expected<ClusterDef, std::string> LoadClusterDef(const std::string& path) {
  auto text = ReadFile(path);
  if (!text) return Error(text.error());
  return ParseClusterDef(*text, path);
}

}  // namespace bplace::lsfsim
