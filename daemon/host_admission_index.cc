#include "daemon/host_admission_index.h"

#include "daemon/topology.h"

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
  index.bits_.assign(index.queue_count_ * index.words_, 0);
  index.queues_admitting_.assign(ids, 0);
  for (std::size_t q = 0; q < index.queue_count_; ++q) {
    const QueueTopology& queue = topology.queues()[q];
    std::uint64_t* words = index.bits_.data() + q * index.words_;
    for (std::size_t id = 0; id < ids; ++id) {
      const std::string& name = id < index.names_.size() ? index.names_[id] : unlisted;
      if (!topology.AdmitHost(queue, name).admitted()) continue;
      words[id / 64] |= std::uint64_t{1} << (id % 64);
      ++index.queues_admitting_[id];
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
