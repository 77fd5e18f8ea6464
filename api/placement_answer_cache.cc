#include "api/placement_answer_cache.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "api/http/problem.h"
#include "api/json_mapping.h"

namespace bplace::api {
namespace {

using nlohmann::json;

// Numbers no age takes (ages are seconds, at most ~1e10), whose texts
// ("-8.125e+307", ...) are not part of one another: a sentinel's text found
// once in the serialisation is its field's value.
constexpr std::array<double, BodyTemplate::kMaxAges> kSentinels = {-8.125e307, -8.375e307,
                                                                   -8.625e307, -8.875e307};

// Allowance per entry for what EntryBytes cannot see exactly: the list and
// index nodes, the shared_ptr control block, the counted candidate's strings.
constexpr std::size_t kEntryOverheadBytes = 256;

// Appends `field` with its length in front, so fields cannot run together.
void AppendField(std::string& key, std::string_view field) {
  key += std::to_string(field.size());
  key += ':';
  key += field;
}

}  // namespace

std::optional<BodyTemplate> BodyTemplate::Make(json& body, const std::vector<AgeField>& ages) {
  if (ages.size() > kMaxAges) return std::nullopt;
  std::vector<json> saved;
  saved.reserve(ages.size());
  const auto restore = [&] {
    for (std::size_t i = 0; i < saved.size(); ++i) body[ages[i].pointer] = std::move(saved[i]);
  };
  for (std::size_t i = 0; i < ages.size(); ++i) {
    if (!body.contains(ages[i].pointer) || !body[ages[i].pointer].is_number()) {
      restore();
      return std::nullopt;
    }
    json& field = body[ages[i].pointer];
    saved.push_back(std::move(field));
    field = kSentinels[i];
  }
  const std::string text = DumpJson(body);
  restore();

  struct Found {
    std::size_t offset = 0;
    std::size_t length = 0;
    SystemTime as_of{};
  };
  std::vector<Found> found;
  for (std::size_t i = 0; i < ages.size(); ++i) {
    const std::string sentinel = json(kSentinels[i]).dump();
    const std::size_t at = text.find(sentinel);
    if (at == std::string::npos || text.find(sentinel, at + 1) != std::string::npos) {
      return std::nullopt;
    }
    found.push_back({at, sentinel.size(), ages[i].as_of});
  }
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.offset < b.offset; });
  BodyTemplate result;
  result.text_.reserve(text.size());
  std::size_t from = 0;
  for (const Found& hole : found) {
    result.text_.append(text, from, hole.offset - from);
    result.holes_.push_back({result.text_.size(), hole.as_of});
    from = hole.offset + hole.length;
  }
  result.text_.append(text, from);
  result.text_.shrink_to_fit();
  return result;
}

std::string BodyTemplate::Render(SystemTime now) const {
  // An age prints as at most ~24 characters ("-1.2345678901234567e+300").
  std::string out;
  out.reserve(text_.size() + holes_.size() * 24);
  std::size_t from = 0;
  for (const Hole& hole : holes_) {
    out.append(text_, from, hole.offset - from);
    // The very formatting of the uncached body (nlohmann's shortest
    // round-trip form, "12.0" for whole seconds), so both agree byte for byte.
    out += json(AgeSeconds(hole.as_of, now)).dump();
    from = hole.offset;
  }
  out.append(text_, from);
  return out;
}

PlacementAnswerCache::PlacementAnswerCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

std::string PlacementAnswerCache::Key(const PlacementRequest& request) {
  std::string key;
  AppendField(key, request.user);
  if (request.host) {
    key += 'h';
    AppendField(key, *request.host);
  } else {
    key += '-';
  }
  key += std::to_string(request.queues.size());
  key += 'q';
  for (const std::string& queue : request.queues) AppendField(key, queue);
  key += std::to_string(request.slots);
  key += request.require_ib ? 'i' : 'n';
  return key;
}

std::size_t PlacementAnswerCache::EntryBytes(const std::string& key,
                                             const PlacementAnswer& answer) {
  return key.size() + answer.body.HeapBytes() + sizeof(PlacementAnswer) + kEntryOverheadBytes;
}

PlacementAnswerCache::Versions PlacementAnswerCache::GlobalVersions(const PlacementStamp& stamp) {
  return {stamp.snapshot_generation, stamp.policy_generation, stamp.ledger_version,
          stamp.refusal_version, stamp.wait_generation};
}

std::shared_ptr<const PlacementAnswer> PlacementAnswerCache::Find(const std::string& key,
                                                                  const PlacementStamp& current,
                                                                  SystemTime now) {
  std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  const auto node = it->second;
  const PlacementAnswer& answer = *node->answer;
  // now < placed_at: the wall clock stepped back, and a refusal that had
  // ended by time might count again.
  const bool fresh = answer.stamp == current && answer.placed_at <= now &&
                     (!answer.valid_until || now < *answer.valid_until);
  if (!fresh) {
    EraseLocked(node);
    ++stats_.misses;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, node);
  ++stats_.hits;
  return node->answer;
}

void PlacementAnswerCache::Insert(std::string key, std::shared_ptr<const PlacementAnswer> answer) {
  const std::size_t bytes = EntryBytes(key, *answer);
  const Versions versions = GlobalVersions(answer->stamp);
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < versions.size(); ++i) {
    // An input already moved on: this answer can never be served.
    if (versions[i] < newest_[i]) return;
  }
  if (bytes > max_bytes_) return;
  if (versions != newest_) {
    // Some input is newer than every stored answer's: those are all dead
    // (the versions only grow), so free them now rather than by LRU.
    newest_ = versions;
    for (auto node = lru_.begin(); node != lru_.end();) {
      const auto next = std::next(node);
      if (GlobalVersions(node->answer->stamp) != newest_) EraseLocked(node);
      node = next;
    }
  }
  if (const auto it = index_.find(key); it != index_.end()) EraseLocked(it->second);
  lru_.push_front(Node{std::move(key), std::move(answer), bytes});
  index_.emplace(lru_.front().key, lru_.begin());
  stats_.bytes += bytes;
  ++stats_.insertions;
  while (stats_.bytes > max_bytes_) {
    EraseLocked(std::prev(lru_.end()));
    ++stats_.evictions;
  }
}

void PlacementAnswerCache::EraseLocked(std::list<Node>::iterator node) {
  stats_.bytes -= node->bytes;
  index_.erase(std::string_view(node->key));
  lru_.erase(node);
}

PlacementAnswerCache::Stats PlacementAnswerCache::stats() const {
  std::lock_guard lock(mutex_);
  Stats stats = stats_;
  stats.entries = lru_.size();
  return stats;
}

}  // namespace bplace::api
