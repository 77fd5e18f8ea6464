#include "daemon/cluster/topology.h"

#include <utility>

#include "daemon/cluster/host_admission_index.h"
#include "lsf_adapter/group_parser.h"

namespace bplace {

const char* ViaName(HostAdmission::Via via) {
  switch (via) {
    case HostAdmission::Via::kNotListed:
      return "not_listed";
    case HostAdmission::Via::kExcluded:
      return "excluded";
    case HostAdmission::Via::kDirect:
      return "direct";
    case HostAdmission::Via::kGroup:
      return "group";
    case HostAdmission::Via::kAll:
      return "all";
    case HostAdmission::Via::kOthers:
      return "others";
  }
  return "unknown";
}

std::string DescribeAdmission(const HostAdmission& admission) {
  switch (admission.via) {
    case HostAdmission::Via::kNotListed:
      return "not in HOSTS";
    case HostAdmission::Via::kExcluded:
      return "excluded by " + admission.token + " in HOSTS";
    case HostAdmission::Via::kDirect:
      return "named in HOSTS (" + admission.token + ")";
    case HostAdmission::Via::kAll:
      return "via all (" + admission.token + ")";
    case HostAdmission::Via::kOthers:
      return "via others (" + admission.token + ")";
    case HostAdmission::Via::kGroup: {
      std::string text = "via host group ";
      for (std::size_t i = 0; i < admission.chain.size(); ++i) {
        if (i > 0) text += " -> ";
        text += admission.chain[i] == "all" ? std::string("all") : admission.chain[i] + "/";
      }
      return text + " (" + admission.token + ")";
    }
  }
  return "";
}

std::shared_ptr<const Topology> Topology::Build(std::vector<lsf::QueueDefinition> queues,
                                                const std::vector<lsf::Group>& host_groups,
                                                const std::vector<lsf::Group>& user_groups,
                                                LsfAdministrators lsf_administrators) {
  auto topology = std::make_shared<Topology>();
  topology->lsf_administrators_ = std::move(lsf_administrators.names);
  if (!lsf_administrators.unknown_reason.empty()) {
    topology->warnings_.push_back("LSF administrators unknown (" +
                                  lsf_administrators.unknown_reason +
                                  "): USERS lines are read without them");
  }
  topology->host_groups_ = GroupIndex::Build(host_groups);
  topology->user_groups_ = GroupIndex::Build(user_groups);
  for (const auto& warning : topology->host_groups_.warnings()) {
    topology->warnings_.push_back("host " + warning);
  }
  for (const auto& warning : topology->user_groups_.warnings()) {
    topology->warnings_.push_back("user " + warning);
  }
  for (const auto& group : host_groups) {
    for (const auto& member : group.members) {
      if (!member.empty() && member.front() != '~' && member.back() != '/' && member != "all") {
        topology->named_hosts_.insert(member);
      }
    }
  }
  topology->queues_.reserve(queues.size());
  for (auto& definition : queues) {
    QueueTopology queue;
    for (const std::string& text : definition.hosts) {
      // Condensed ranges ("node[001-004]") in HOSTS become one name token each.
      if (text.find('[') != std::string::npos) {
        auto expanded = lsf::ExpandHostRange(text.front() == '~' ? text.substr(1) : text);
        if (!expanded) {
          topology->warnings_.push_back("queue " + definition.name + ": HOSTS token " + text +
                                        ": " + expanded.error().message);
          continue;
        }
        for (const auto& name : *expanded) {
          queue.hosts.push_back(ParseMemberToken(text.front() == '~' ? "~" + name : name));
        }
        continue;
      }
      queue.hosts.push_back(ParseMemberToken(text));
    }
    for (const std::string& text : definition.users) queue.users.push_back(ParseMemberToken(text));
    for (const MemberToken& token : queue.hosts) {
      if (token.kind == MemberToken::Kind::kRemote) queue.has_remote_hosts = true;
      if (token.kind == MemberToken::Kind::kName && !token.exclude &&
          !topology->host_groups_.Has(token.name)) {
        topology->named_hosts_.insert(token.name);
      }
      if (token.kind == MemberToken::Kind::kGroup && !topology->host_groups_.Has(token.name)) {
        topology->warnings_.push_back("queue " + definition.name + ": HOSTS names unknown group " +
                                      token.text);
      }
    }
    for (const MemberToken& token : queue.hosts) {
      queue.hosts_text += (queue.hosts_text.empty() ? "" : " ") + token.text;
    }
    queue.definition = std::move(definition);
    topology->queue_by_name_.emplace(queue.definition.name, topology->queues_.size());
    topology->queues_.push_back(std::move(queue));
  }
  topology->admission_index_ =
      std::make_shared<const HostAdmissionIndex>(HostAdmissionIndex::Build(*topology));
  return topology;
}

const QueueTopology* Topology::FindQueue(std::string_view name) const {
  const auto it = queue_by_name_.find(name);
  return it == queue_by_name_.end() ? nullptr : &queues_[it->second];
}

bool Topology::NamesHost(std::string_view host) const { return named_hosts_.contains(host); }

bool Topology::TokenMatchesHost(const MemberToken& token, std::string_view host) const {
  switch (token.kind) {
    case MemberToken::Kind::kAll:
      return true;
    case MemberToken::Kind::kName:
      // lsb.queues lets a group be written without "/"; LSF prints it with
      // one, but accept both. A name is otherwise compared whole.
      if (host_groups_.Has(token.name)) return host_groups_.Contains(token.name, host);
      return token.name == host;
    case MemberToken::Kind::kGroup:
      return host_groups_.Contains(token.name, host);
    case MemberToken::Kind::kOthers:
    case MemberToken::Kind::kNone:
    case MemberToken::Kind::kRemote:
      return false;
  }
  return false;
}

HostAdmission Topology::AdmitHost(const QueueTopology& queue, std::string_view host) const {
  HostAdmission result;
  for (const MemberToken& token : queue.hosts) {
    if (!token.exclude) continue;
    if (token.kind == MemberToken::Kind::kAll || TokenMatchesHost(token, host)) {
      result.via = HostAdmission::Via::kExcluded;
      result.token = token.text;
      return result;
    }
  }
  // Rank of a match: direct 3, group 2, all 1. The strongest wins so the
  // explanation names the most specific reason.
  int best_rank = 0;
  const MemberToken* best = nullptr;
  const MemberToken* others = nullptr;
  for (const MemberToken& token : queue.hosts) {
    if (token.exclude) continue;
    if (token.kind == MemberToken::Kind::kOthers) {
      others = &token;
      continue;
    }
    if (!TokenMatchesHost(token, host)) continue;
    int rank = 1;
    HostAdmission::Via via = HostAdmission::Via::kAll;
    if (token.kind == MemberToken::Kind::kName && !host_groups_.Has(token.name)) {
      rank = 3;
      via = HostAdmission::Via::kDirect;
    } else if (token.kind != MemberToken::Kind::kAll) {
      rank = 2;
      via = HostAdmission::Via::kGroup;
    }
    if (rank > best_rank) {
      best_rank = rank;
      result.via = via;
      result.token = token.text;
      result.preference = token.preference;
      best = &token;
    }
  }
  // Only the deciding token's group chain is spelled out.
  if (best != nullptr && result.via == HostAdmission::Via::kGroup) {
    result.chain = host_groups_.Chain(best->name, host).value_or(std::vector<std::string>{});
  }
  if (best_rank == 0 && others != nullptr) {
    result.via = HostAdmission::Via::kOthers;
    result.token = others->text;
    result.preference = others->preference;
  }
  return result;
}

const std::string* Topology::FindUserIn(const std::vector<std::string>& names,
                                        std::string_view user) const {
  for (const std::string& name : names) {
    if (name == user || user_groups_.Contains(name, user)) return &name;
  }
  return nullptr;
}

UserAdmission Topology::AdmitUser(const QueueTopology& queue, std::string_view user) const {
  UserAdmission result;
  const std::string name(user);
  if (const std::string* admin = FindUserIn(lsf_administrators_, user)) {
    result.admitted = true;
    result.explanation = name + " is an LSF administrator (" + *admin + ", lsclusters -l)";
    return result;
  }
  if (const std::string* admin = FindUserIn(queue.definition.administrators, user)) {
    result.admitted = true;
    result.explanation = name + " is a queue administrator (" + *admin + ")";
    return result;
  }
  std::string listed;
  for (const MemberToken& token : queue.users) {
    if (!listed.empty()) listed += ' ';
    listed += token.text;
  }
  for (const MemberToken& token : queue.users) {
    if (!token.exclude) continue;
    const bool matches = token.name == name ||
                         (user_groups_.Has(token.name) && user_groups_.Contains(token.name, user));
    if (matches) {
      result.explanation = name + " is excluded by " + token.text + " in USERS: " + listed;
      return result;
    }
  }
  for (const MemberToken& token : queue.users) {
    if (token.exclude) continue;
    if (token.kind == MemberToken::Kind::kAll) {
      result.admitted = true;
      result.explanation = "USERS: all";
      return result;
    }
    if (user_groups_.Has(token.name)) {
      if (user_groups_.Contains(token.name, user)) {
        result.admitted = true;
        result.explanation = name + " is in user group " + token.name + "/";
        return result;
      }
    } else if (token.name == name) {
      result.admitted = true;
      result.explanation = name + " is named in USERS";
      return result;
    }
  }
  result.explanation = name + " is not in USERS: " + listed;
  return result;
}

}  // namespace bplace
