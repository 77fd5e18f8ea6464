#include "daemon/cluster/host_admission_index.h"

#include <utility>

#include "daemon/cluster/topology.h"

namespace bplace {
namespace {

// A group member as GroupIndex compares it: without "~" and without the "/"
// of a subgroup reference. Taking subgroup and "all" entries too only adds
// ids no host has, which is harmless.
std::string_view MemberName(std::string_view member) {
  if (!member.empty() && member.front() == '~') member.remove_prefix(1);
  if (member.size() > 1 && member.back() == '/') member.remove_suffix(1);
  return member;
}

using Bits = std::vector<std::uint64_t>;

void Or(Bits& into, const Bits& from) {
  for (std::size_t w = 0; w < into.size(); ++w) into[w] |= from[w];
}

void Set(Bits& bits, std::size_t id) { bits[id / 64] |= std::uint64_t{1} << (id % 64); }

// Builds a queue's bitset from its tokens with Topology::AdmitHost's rules
// (topology.h): any matching "~x" keeps a host out; otherwise a matching
// admitting token, or "others" (which admits exactly the hosts no other
// token matches, so with it every host not excluded is in). Which token
// matched only chooses AdmitHost's explanation, not the answer. A token
// matches as Topology::TokenMatchesHost says: "all" every host, a group
// (with or without "/") its members, a name itself; others, none and remote
// tokens no host.
class QueueBitsBuilder {
 public:
  QueueBitsBuilder(const Topology& topology, const std::vector<std::string>& names,
                   const StringMap<std::int32_t>& id_by_name, std::string unlisted)
      : topology_(topology),
        names_(names),
        id_by_name_(id_by_name),
        unlisted_(std::move(unlisted)),
        words_((names.size() + 1 + 63) / 64),
        all_(words_, 0) {
    for (std::size_t id = 0; id <= names_.size(); ++id) Set(all_, id);
  }

  Bits Build(const QueueTopology& queue) {
    Bits admitted(words_, 0);
    Bits excluded(words_, 0);
    bool others = false;
    for (const MemberToken& token : queue.hosts) {
      if (!token.exclude && token.kind == MemberToken::Kind::kOthers) {
        others = true;
        continue;
      }
      Match(token, token.exclude ? excluded : admitted);
    }
    if (others) admitted = all_;
    for (std::size_t w = 0; w < words_; ++w) admitted[w] &= ~excluded[w];
    return admitted;
  }

 private:
  void Match(const MemberToken& token, Bits& into) {
    switch (token.kind) {
      case MemberToken::Kind::kAll:
        into = all_;
        return;
      case MemberToken::Kind::kName:
        if (!topology_.host_groups().Has(token.name)) {
          const auto id = id_by_name_.find(token.name);
          if (id != id_by_name_.end()) Set(into, static_cast<std::size_t>(id->second));
          return;
        }
        Or(into, Group(token.name));
        return;
      case MemberToken::Kind::kGroup:
        Or(into, Group(token.name));
        return;
      case MemberToken::Kind::kOthers:  // an excluded "~others" takes nothing out
      case MemberToken::Kind::kNone:
      case MemberToken::Kind::kRemote:
        return;
    }
  }

  // The ids a host group contains (GroupIndex::Contains), made once per
  // group, since queues share groups. A group that is not `all` contains
  // exactly its resolved members (GroupIndex::Expand: nesting walked,
  // exclusions taken out), every one of them a mentioned name; an `all`
  // group contains every host but its exclusions, which GroupIndex keeps to
  // itself, so those few are asked name by name.
  const Bits& Group(const std::string& group) {
    const auto cached = groups_.find(group);
    if (cached != groups_.end()) return cached->second;
    Bits bits(words_, 0);
    const GroupIndex& index = topology_.host_groups();
    if (index.IsAll(group)) {
      for (std::size_t id = 0; id <= names_.size(); ++id) {
        const std::string& name = id < names_.size() ? names_[id] : unlisted_;
        if (index.Contains(group, name)) Set(bits, id);
      }
    } else {
      for (const std::string& member : index.Expand(group)) {
        const auto id = id_by_name_.find(member);
        if (id != id_by_name_.end()) Set(bits, static_cast<std::size_t>(id->second));
      }
    }
    return groups_.emplace(group, std::move(bits)).first->second;
  }

  const Topology& topology_;
  const std::vector<std::string>& names_;
  const StringMap<std::int32_t>& id_by_name_;
  const std::string unlisted_;
  const std::size_t words_;
  Bits all_;
  StringMap<Bits> groups_;
};

}  // namespace

HostAdmissionIndex HostAdmissionIndex::Build(const Topology& topology) {
  HostAdmissionIndex index;
  const auto add = [&index](std::string_view name) {
    if (name.empty() || index.id_by_name_.contains(name)) return;
    index.id_by_name_.emplace(std::string(name), static_cast<std::int32_t>(index.names_.size()));
    index.names_.emplace_back(name);
  };
  for (const std::string& group : topology.host_groups().Names()) {
    for (const std::string& member : topology.host_groups().Find(group)->members) {
      add(MemberName(member));
    }
  }
  for (const QueueTopology& queue : topology.queues()) {
    for (const MemberToken& token : queue.hosts) {
      if (token.kind == MemberToken::Kind::kName) add(token.name);
    }
  }
  // A name no LSF host has (control characters) and the topology does not
  // mention: it stands for every host without an id.
  std::string unlisted = "\x01unlisted";
  while (index.id_by_name_.contains(unlisted)) unlisted += '\x01';

  const std::size_t ids = index.names_.size() + 1;
  index.queue_count_ = topology.queues().size();
  index.words_ = (ids + 63) / 64;
  index.bits_.reserve(index.queue_count_ * index.words_);
  index.queues_admitting_.assign(ids, 0);
  QueueBitsBuilder builder(topology, index.names_, index.id_by_name_, unlisted);
  for (const QueueTopology& queue : topology.queues()) {
    const Bits bits = builder.Build(queue);
    index.bits_.insert(index.bits_.end(), bits.begin(), bits.end());
    for (std::size_t id = 0; id < ids; ++id) {
      index.queues_admitting_[id] += static_cast<std::int32_t>((bits[id / 64] >> (id % 64)) & 1U);
    }
  }
  return index;
}

std::int32_t HostAdmissionIndex::HostId(std::string_view host) const {
  const auto it = id_by_name_.find(host);
  return it == id_by_name_.end() ? unlisted_id() : it->second;
}

bool HostAdmissionIndex::Admits(std::size_t queue, std::int32_t id) const {
  if (queue >= queue_count_ || id < 0 || id > unlisted_id()) return false;
  const auto bit = static_cast<std::size_t>(id);
  return (bits_[queue * words_ + bit / 64] >> (bit % 64)) & 1U;
}

std::int32_t HostAdmissionIndex::QueuesAdmitting(std::int32_t id) const {
  if (id < 0 || id > unlisted_id()) return 0;
  return queues_admitting_[static_cast<std::size_t>(id)];
}

}  // namespace bplace
