#pragma once

// Mutations of captured LSF output for the robustness tests
// (parser_robustness_test.cc, bjobs_robustness_test.cc): byte flips,
// inserts, cuts, truncation, duplicated, shuffled and swapped lines, tokens
// that matter to a grammar, glued columns, CRLF or CR line ends, random
// bytes. Deterministic for a seed, so a failure reproduces.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bplace::lsf::testing {

// Mutates text in place. Reuses its buffers: under ASan every fresh
// allocation is filled and quarantined, and the mutator would otherwise cost
// more than the parsers it feeds.
class TextMutator {
 public:
  // `tokens`: text that steers mutated input into the readers' interesting
  // branches (kept by reference: it must outlive the mutator).
  TextMutator(std::uint32_t seed, const std::vector<std::string>& tokens)
      : rng_(seed), tokens_(tokens) {}

  // A number in [0, n); 0 when n is 0.
  std::size_t Below(std::size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }

  // Replaces `text` with one to four mutations of `sample`.
  void Mutate(std::string_view sample, std::string& text) {
    text.assign(sample);
    for (std::size_t rounds = 1 + Below(4); rounds > 0; --rounds) MutateOnce(text);
  }

 private:
  void AppendRandomBytes(std::string& text, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) text.push_back(static_cast<char>(Below(256)));
  }

  // Splits `text` into lines_, each with its '\n' (the last may lack it).
  void SplitLines(std::string_view text) {
    lines_.clear();
    while (!text.empty()) {
      const std::size_t end = text.find('\n');
      const std::size_t length = end == std::string_view::npos ? text.size() : end + 1;
      lines_.push_back(text.substr(0, length));
      text.remove_prefix(length);
    }
    if (lines_.empty()) lines_.push_back(text);
  }

  // Writes lines_ (views into `text`) back into `text`.
  void JoinLinesInto(std::string& text) {
    scratch_.clear();
    for (std::string_view line : lines_) scratch_.append(line);
    text.swap(scratch_);
  }

  void MutateOnce(std::string& text) {
    switch (Below(12)) {
      case 0:  // flip bytes
        for (std::size_t n = 1 + Below(4); n > 0 && !text.empty(); --n) {
          text[Below(text.size())] = static_cast<char>(Below(256));
        }
        return;
      case 1:  // insert random bytes
        scratch_.clear();
        AppendRandomBytes(scratch_, 1 + Below(8));
        text.insert(Below(text.size() + 1), scratch_);
        return;
      case 2:  // delete a range
        if (!text.empty()) text.erase(Below(text.size()), 1 + Below(40));
        return;
      case 3:  // truncate
        text.resize(Below(text.size() + 1));
        return;
      case 4: {  // duplicate a line
        SplitLines(text);
        const std::string_view line = lines_[Below(lines_.size())];
        lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(Below(lines_.size() + 1)), line);
        JoinLinesInto(text);
        return;
      }
      case 5:  // shuffle lines
        SplitLines(text);
        std::shuffle(lines_.begin(), lines_.end(), rng_);
        JoinLinesInto(text);
        return;
      case 6:  // swap two lines
        SplitLines(text);
        std::swap(lines_[Below(lines_.size())], lines_[Below(lines_.size())]);
        JoinLinesInto(text);
        return;
      case 7:
      case 8:  // insert a token that matters to some grammar
        if (!tokens_.empty()) text.insert(Below(text.size() + 1), tokens_[Below(tokens_.size())]);
        return;
      case 9: {  // glue two columns together
        const std::size_t at = text.find("  ", Below(text.size() + 1));
        if (at != std::string::npos) text.erase(at, 2);
        return;
      }
      case 10: {  // CRLF or CR line ends
        const bool crlf = Below(2) == 0;
        scratch_.clear();
        for (char c : text) {
          if (c == '\n' && crlf) scratch_.push_back('\r');
          scratch_.push_back(c == '\n' && !crlf ? '\r' : c);
        }
        text.swap(scratch_);
        return;
      }
      default:  // random bytes only
        text.clear();
        AppendRandomBytes(text, Below(256));
        return;
    }
  }

  std::mt19937 rng_;
  const std::vector<std::string>& tokens_;
  std::vector<std::string_view> lines_;
  std::string scratch_;
};

}  // namespace bplace::lsf::testing
