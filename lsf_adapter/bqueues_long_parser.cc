#include "lsf_adapter/bqueues_long_parser.h"

#include <cstddef>
#include <optional>
#include <string>

#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kBqueuesLongCommand = "bqueues -l";
constexpr std::string_view kQueueKey = "QUEUE:";
constexpr std::string_view kParameters = "PARAMETERS/STATISTICS";
constexpr std::string_view kDefaultSentence = "This is the default queue.";

bool IsQueueLine(std::string_view text) { return Trim(text).starts_with(kQueueKey); }

// "USERS:", "SCHEDULING POLICIES:", "RERUNNABLE :", "DEFAULT LIMITS:": an
// upper-case label then a colon. Such a line ends a continuation.
bool IsKeyLine(std::string_view trimmed) {
  if (trimmed.empty() || trimmed.front() < 'A' || trimmed.front() > 'Z') return false;
  for (char c : trimmed) {
    if (c == ':') return true;
    const bool label_char = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                            c == ' ' || c == '/' || c == '-';
    if (!label_char) return false;
  }
  return false;
}

// The value after "KEY:" when `trimmed` is that key line, else nullopt.
std::optional<std::string_view> KeyValue(std::string_view trimmed, std::string_view key) {
  if (!trimmed.starts_with(key) || trimmed.size() <= key.size() || trimmed[key.size()] != ':') {
    return std::nullopt;
  }
  return Trim(trimmed.substr(key.size() + 1));
}

// Words of a USERS or HOSTS list; OpenLava's "all ..." sentences become "all".
std::vector<std::string> ListTokens(const std::string& value) {
  const std::vector<std::string_view> fields = SplitFields(value);
  if (IsAllSentence(fields)) return {"all"};
  return std::vector<std::string>(fields.begin(), fields.end());
}

// Reads the PARAMETERS/STATISTICS header row and value row into `queue`,
// finding each value by its column name.
Result<void> ReadParameters(const Line& header_line, const Line& value_line,
                            QueueDefinition& queue) {
  const TableHeader header{0, header_line.number, SplitFields(header_line.text)};
  static constexpr std::string_view kRequired[] = {"PRIO",  "NICE",  "STATUS", "MAX",  "JL/U",
                                                   "JL/P",  "JL/H",  "NJOBS",  "PEND", "RUN",
                                                   "SSUSP", "USUSP", "RSV"};
  for (std::string_view column : kRequired) {
    if (!header.Find(column)) {
      return Fail(ErrorCode::kParseError,
                  Where(kBqueuesLongCommand, header_line.number) + ": queue " + queue.name +
                      ": PARAMETERS/STATISTICS has no " + std::string(column) + " column");
    }
  }
  const std::vector<std::string_view> values = SplitFields(value_line.text);
  const Place where{kBqueuesLongCommand, value_line.number};
  if (values.size() != header.columns.size()) {
    return Fail(ErrorCode::kParseError, where.Text() + ": queue " + queue.name + ": expected " +
                                            std::to_string(header.columns.size()) +
                                            " columns, got " + std::to_string(values.size()));
  }
  auto value = [&](std::string_view column) { return values[*header.Find(column)]; };

  auto prio = ParseSmallInt(where, "PRIO", value("PRIO"));
  if (!prio) return tl::unexpected(prio.error());
  auto nice = ParseSmallInt(where, "NICE", value("NICE"));
  if (!nice) return tl::unexpected(nice.error());
  auto status = ParseQueueStatus(value("STATUS"));
  if (!status) return Fail(ErrorCode::kParseError, where.Text() + ": " + status.error().message);
  queue.prio = *prio;
  queue.nice = *nice;
  queue.status = std::move(*status);

  struct LimitField {
    std::string_view column;
    std::optional<std::int64_t>* field;
  };
  for (const LimitField& limit :
       {LimitField{"MAX", &queue.max}, LimitField{"JL/U", &queue.jl_u},
        LimitField{"JL/P", &queue.jl_p}, LimitField{"JL/H", &queue.jl_h}}) {
    auto parsed = ParseLimit(where, limit.column, value(limit.column));
    if (!parsed) return tl::unexpected(parsed.error());
    *limit.field = *parsed;
  }
  struct CountField {
    std::string_view column;
    std::int64_t* field;
  };
  for (const CountField& count :
       {CountField{"NJOBS", &queue.njobs}, CountField{"PEND", &queue.pend},
        CountField{"RUN", &queue.run}, CountField{"SSUSP", &queue.ssusp},
        CountField{"USUSP", &queue.ususp}, CountField{"RSV", &queue.rsv}}) {
    auto parsed = ParseCount(where, count.column, value(count.column));
    if (!parsed) return tl::unexpected(parsed.error());
    *count.field = *parsed;
  }
  return {};
}

// Parses one block: lines[begin] is its "QUEUE:" line, `end` the next block's.
Result<QueueDefinition> ParseBlock(const std::vector<Line>& lines, std::size_t begin,
                                   std::size_t end) {
  QueueDefinition queue;
  queue.name = std::string(Trim(Trim(lines[begin].text).substr(kQueueKey.size())));
  if (queue.name.empty()) {
    return Fail(ErrorCode::kParseError,
                Where(kBqueuesLongCommand, lines[begin].number) + ": QUEUE: line without a name");
  }
  bool have_parameters = false;
  std::optional<std::string> users, hosts, administrators, res_req;

  for (std::size_t i = begin + 1; i < end; ++i) {
    const std::string_view trimmed = Trim(lines[i].text);
    if (trimmed.empty()) continue;

    if (!have_parameters && trimmed.starts_with("--")) {
      const std::string_view part = Trim(trimmed.substr(2));
      if (!part.empty()) {
        if (!queue.description.empty()) queue.description += ' ';
        queue.description += part;
      }
      continue;
    }

    if (trimmed == kParameters) {
      if (have_parameters) continue;  // only the first table counts
      std::size_t header_at = i + 1;
      while (header_at < end && Trim(lines[header_at].text).empty()) ++header_at;
      std::size_t values_at = header_at + 1;
      while (values_at < end && Trim(lines[values_at].text).empty()) ++values_at;
      if (values_at >= end) {
        return Fail(ErrorCode::kParseError, Where(kBqueuesLongCommand, lines[i].number) +
                                                ": queue " + queue.name +
                                                ": PARAMETERS/STATISTICS without its two rows");
      }
      auto read = ReadParameters(lines[header_at], lines[values_at], queue);
      if (!read) return tl::unexpected(read.error());
      have_parameters = true;
      i = values_at;
      continue;
    }

    struct ListKey {
      std::string_view key;
      std::optional<std::string>* value;
    };
    for (const ListKey& list :
         {ListKey{"USERS", &users}, ListKey{"HOSTS", &hosts},
          ListKey{"ADMINISTRATORS", &administrators}, ListKey{"RES_REQ", &res_req}}) {
      const std::optional<std::string_view> first = KeyValue(trimmed, list.key);
      if (!first) continue;
      std::string value(*first);
      // No sample shows a wrapped list, but lsb.queues allows long ones:
      // join indented lines that follow, up to a blank or another KEY: line.
      while (i + 1 < end) {
        const std::string_view next = lines[i + 1].text;
        const std::string_view next_trimmed = Trim(next);
        if (next_trimmed.empty() || !IsBlank(next.front()) || IsKeyLine(next_trimmed)) break;
        if (!value.empty()) value += ' ';
        value += next_trimmed;
        ++i;
      }
      *list.value = std::move(value);
      break;
    }
  }

  if (!have_parameters) {
    return Fail(ErrorCode::kParseError, Where(kBqueuesLongCommand, lines[begin].number) +
                                            ": queue " + queue.name +
                                            " has no PARAMETERS/STATISTICS rows");
  }
  queue.is_default = queue.description.find(kDefaultSentence) != std::string::npos;
  queue.users = users ? ListTokens(*users) : std::vector<std::string>{"all"};
  queue.hosts = hosts ? ListTokens(*hosts) : std::vector<std::string>{"all"};
  if (administrators) {
    const std::vector<std::string_view> fields = SplitFields(*administrators);
    queue.administrators.assign(fields.begin(), fields.end());
  }
  if (res_req) queue.res_req = *res_req;
  return queue;
}

}  // namespace

Result<std::vector<QueueDefinition>> ParseBqueuesLong(std::string_view text) {
  const std::vector<Line> lines = SplitLines(text);
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (IsQueueLine(lines[i].text)) starts.push_back(i);
  }
  if (starts.empty()) {
    return Fail(ErrorCode::kParseError,
                std::string(kBqueuesLongCommand) + ": no header (no QUEUE: line)");
  }
  std::vector<QueueDefinition> queues;
  for (std::size_t b = 0; b < starts.size(); ++b) {
    const std::size_t end = b + 1 < starts.size() ? starts[b + 1] : lines.size();
    auto queue = ParseBlock(lines, starts[b], end);
    if (!queue) return tl::unexpected(queue.error());
    queues.push_back(std::move(*queue));
  }
  return queues;
}

}  // namespace bplace::lsf
