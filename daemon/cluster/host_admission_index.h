#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_map.h"

namespace bplace {

class Topology;

// Which hosts each queue's HOSTS line admits, decided once per topology
// (docs/design.md "Site scale"): a bitset per queue over the topology's host
// ids. A load or InfiniBand publish then recombines admission with host status
// by AND and popcount (CountQueueHosts) instead of evaluating HOSTS per queue x
// host.
//
// Host ids: every name the topology mentions (a member of some host group,
// with any "~" or "/" stripped, or a name token of some HOSTS line, excluded
// ones too) has an id 0..listed()-1; every other host shares unlisted_id().
// That is exact, not an approximation: Topology::AdmitHost compares a host
// only by equality with those names (direct tokens, group members, group
// exclusions), so for a host it never mentions the answer depends on the
// tokens alone ("all", "others", groups defined as all hosts) and is the
// same for all such hosts. Build evaluates it once, for a name it makes up,
// so a host that joins bhosts between topology refreshes is counted exactly
// as AdmitHost would count it.
//
// Only the yes/no is kept: the explanation ("via host group a/ -> b/")
// stays with Topology::AdmitHost, which the paths that show it (placement
// for one host, GET /v1/hosts/{host}) call for one host at a time.
// Immutable after Build; safe to share between threads.
class HostAdmissionIndex {
 public:
  HostAdmissionIndex() = default;

  // Decides every queue of `topology` for every name it mentions, plus one
  // made-up unlisted name, with Topology::AdmitHost's rules applied to
  // bitsets: each host group's bitset is made once from its resolved
  // members (an `all` group by GroupIndex::Contains per name), then each
  // queue's HOSTS tokens are ORed and its exclusions masked out (queues x
  // tokens x names / 64 words).
  static HostAdmissionIndex Build(const Topology& topology);

  // The id of `host`: its position in names() when the topology mentions it,
  // else unlisted_id(). One hash look-up.
  std::int32_t HostId(std::string_view host) const;

  // Whether queue number `queue` (its position in Topology::queues()) admits
  // the host of id `id` (0..unlisted_id()). Out-of-range arguments: false.
  bool Admits(std::size_t queue, std::int32_t id) const;

  // How many queues admit the host of id `id`; 0 when out of range.
  std::int32_t QueuesAdmitting(std::int32_t id) const;

  // The names with an id, in id order.
  const std::vector<std::string>& names() const { return names_; }
  // The id every host the topology does not mention shares.
  std::int32_t unlisted_id() const { return static_cast<std::int32_t>(names_.size()); }
  std::size_t queues() const { return queue_count_; }

  // The 64-bit words of queue `queue`'s bitset (bit `id % 64` of word
  // `id / 64`), words() of them; the unlisted id is the last bit. For
  // recombining with a bitset of the same layout.
  const std::uint64_t* QueueWords(std::size_t queue) const { return bits_.data() + queue * words_; }
  std::size_t words() const { return words_; }

 private:
  std::vector<std::string> names_;
  StringMap<std::int32_t> id_by_name_;
  std::size_t queue_count_ = 0;
  std::size_t words_ = 0;                       // per queue: (names_.size() + 1 + 63) / 64
  std::vector<std::uint64_t> bits_;             // queue_count_ x words_
  std::vector<std::int32_t> queues_admitting_;  // by id, unlisted last
};

}  // namespace bplace
