#pragma once

// Serialised GET /v1/placement answers kept between changes of their inputs
// (docs/design.md "Site scale"), so that a repeated dry run costs a look-up and
// a copy instead of Place, a JSON DOM and its serialisation.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/placement/placement.h"
#include "daemon/submit/submitter.h"

namespace bplace::api {

// A number field of a body that holds an age: AgeSeconds(as_of, now)
// (api/json_mapping.h), measured when the body is served.
struct AgeField {
  nlohmann::json::json_pointer pointer;  // e.g. "/host_ib/age_s"
  SystemTime as_of{};
};

// A JSON body serialised once with its ages left out, and filled in for
// each `now`: Render(now) is byte for byte DumpJson (api/http/problem.h) of the
// body with every age field set to AgeSeconds(as_of, now). Immutable after
// Make; any number of threads may Render at once.
class BodyTemplate {
 public:
  // The most age fields one template holds.
  static constexpr std::size_t kMaxAges = 4;

  // Serialises `body` with each field of `ages` set to a sentinel number
  // and records where each sentinel's text lies, then puts the fields'
  // previous values back (so `body` is unchanged on return). Returns
  // nullopt, and nothing can be cached, when `ages` has more than kMaxAges
  // fields, a pointer does not name an existing field, or a sentinel's text
  // does not occur exactly once in the serialisation (a string of the body
  // happens to contain it).
  static std::optional<BodyTemplate> Make(nlohmann::json& body, const std::vector<AgeField>& ages);

  // The body as served at `now`: each age formatted as
  // nlohmann::json(AgeSeconds(as_of, now)).dump() formats it. One
  // allocation of the body's size.
  std::string Render(SystemTime now) const;

  // Bytes this template holds on the heap (its text and holes).
  std::size_t HeapBytes() const { return text_.capacity() + holes_.capacity() * sizeof(Hole); }

 private:
  struct Hole {
    std::size_t offset = 0;  // in text_, where the age's text goes
    SystemTime as_of{};
  };
  std::string text_;         // the serialisation without the ages' texts
  std::vector<Hole> holes_;  // by ascending offset
};

// One cached answer: the body, what it was computed from, and the outcome
// DaemonMetrics::CountPlacement counts for each answer served from it.
struct PlacementAnswer {
  BodyTemplate body;
  PlacementStamp stamp;
  SystemTime placed_at{};
  std::optional<SystemTime> valid_until;
  // The placement reduced to what CountPlacement reads: no candidate ("no
  // queue") or only the chosen one.
  Result<Placement> counted;
};

// The placement answers of recent requests, by request, each valid while
// the submitter's stamp of its inputs (Submitter::Stamp) equals the one it
// was computed from and the wall clock is in [placed_at, valid_until).
// Only successful answers are stored; errors are computed every time.
// Bounded by bytes: the least recently used answers go first. Entries that
// can never match again (a global version of their stamp older than one
// already stored: a new snapshot, a ledger or refusal-memory change, a
// policy reload, a wait learned) are dropped as soon as a newer answer is stored, so the
// cache holds little more than the answers of the current inputs.
// Thread-safe: one mutex, held for the look-up or the insertion only (never
// while a placement is computed or a body rendered).
class PlacementAnswerCache {
 public:
  // The default bound. A 5,000-host, 300-queue cluster's answer is ~42 KB
  // (mostly the excluded queues' sentences, so it grows with queues, not
  // hosts), the demo's ~3 KB: 64 MiB holds ~1,500 of the large ones. Every
  // answer dies at the next load refresh (tens of seconds), so the bound
  // need only cover the distinct requests between two refreshes: hundreds
  // of users asking about their own few hosts fit; hundreds of users x
  // thousands of hosts never happen within one refresh interval, and if
  // they did the LRU order keeps the repeated ones, which are the only ones
  // a cache can help.
  static constexpr std::size_t kDefaultMaxBytes = std::size_t{64} << 20;

  // Counters since construction and the current size.
  struct Stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;      // no entry, or a stale one (then dropped)
    std::uint64_t insertions = 0;  // answers stored
    std::uint64_t evictions = 0;   // answers dropped to stay within the bound
    std::size_t entries = 0;
    std::size_t bytes = 0;  // as counted against the bound (EntryBytes)
  };

  // `max_bytes`: the bound on EntryBytes summed over the entries.
  explicit PlacementAnswerCache(std::size_t max_bytes = kDefaultMaxBytes);

  PlacementAnswerCache(const PlacementAnswerCache&) = delete;
  PlacementAnswerCache& operator=(const PlacementAnswerCache&) = delete;

  // The key of a request: user, host, queues in the order given (the
  // caller's preference, which placement keeps), slots and require_ib,
  // each length-prefixed so that no two requests share a key.
  static std::string Key(const PlacementRequest& request);

  // The answer stored for `key` when its stamp equals `current` and `now`
  // is in [placed_at, valid_until); else null, and a stale entry is dropped.
  std::shared_ptr<const PlacementAnswer> Find(const std::string& key, const PlacementStamp& current,
                                              SystemTime now);

  // Stores `answer` for `key` (replacing an older one), then drops least
  // recently used entries until the bytes are within the bound. An answer
  // whose stamp is already dead (see the class comment) or that alone
  // exceeds the bound is not stored.
  void Insert(std::string key, std::shared_ptr<const PlacementAnswer> answer);

  Stats stats() const;

  // What one entry counts against the bound: its key, body and a fixed
  // allowance for the bookkeeping around them.
  static std::size_t EntryBytes(const std::string& key, const PlacementAnswer& answer);

 private:
  struct Node {
    std::string key;
    std::shared_ptr<const PlacementAnswer> answer;
    std::size_t bytes = 0;
  };
  // The stamp's parts that only grow, cluster-wide (not per user).
  using Versions = std::array<std::uint64_t, 5>;
  static Versions GlobalVersions(const PlacementStamp& stamp);

  // Unlinks `node` and its index entry; mutex_ held.
  void EraseLocked(std::list<Node>::iterator node);

  const std::size_t max_bytes_;
  mutable std::mutex mutex_;  // guards everything below
  std::list<Node> lru_;       // most recently used first
  // Views the keys of lru_'s nodes, which list nodes never move.
  std::unordered_map<std::string_view, std::list<Node>::iterator> index_;
  Versions newest_{};  // the largest of each global version stored so far
  Stats stats_;
};

}  // namespace bplace::api
