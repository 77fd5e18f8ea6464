#include "lsf_adapter/bqueues_parser.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kBqueuesCommand = "bqueues -w";
constexpr std::string_view kBqueuesJsonCommand = "bqueues -json";

// Column indices of one bqueues header, found by name.
struct Columns {
  std::size_t name, prio, status;
};

// The limit columns ("-" = unlimited) and counter columns of a bqueues row,
// by header name, with the QueueLoad field each fills. Both the table and
// the -json reader go through FillNumbers.
struct LimitColumn {
  const char* name;
  std::optional<std::int64_t> QueueLoad::*field;
};
struct CountColumn {
  const char* name;
  std::int64_t QueueLoad::*field;
};
constexpr LimitColumn kLimitColumns[] = {{"MAX", &QueueLoad::max},
                                         {"JL/U", &QueueLoad::jl_u},
                                         {"JL/P", &QueueLoad::jl_p},
                                         {"JL/H", &QueueLoad::jl_h}};
constexpr CountColumn kCountColumns[] = {{"NJOBS", &QueueLoad::njobs},
                                         {"PEND", &QueueLoad::pend},
                                         {"RUN", &QueueLoad::run},
                                         {"SUSP", &QueueLoad::susp}};

// Fills the limits and counters of `queue` from `limit_of(name)` and
// `count_of(name)`; returns the first error either gives.
template <typename LimitOf, typename CountOf>
Result<void> FillNumbers(QueueLoad& queue, LimitOf limit_of, CountOf count_of) {
  for (const LimitColumn& column : kLimitColumns) {
    auto value = limit_of(column.name);
    if (!value) return tl::unexpected(value.error());
    queue.*column.field = *value;
  }
  for (const CountColumn& column : kCountColumns) {
    auto value = count_of(column.name);
    if (!value) return tl::unexpected(value.error());
    queue.*column.field = *value;
  }
  return {};
}

}  // namespace

Result<QueueStatus> ParseQueueStatus(std::string_view value) {
  QueueStatus status;
  status.text = std::string(value);
  const std::size_t colon = value.find(':');
  const std::string_view open_half = value.substr(0, colon);
  const std::string_view active_half =
      colon == std::string_view::npos ? std::string_view() : value.substr(colon + 1);
  if (open_half == "Open") {
    status.open = true;
  } else if (open_half == "Closed") {
    status.open = false;
  } else {
    return Fail(ErrorCode::kParseError,
                "STATUS " + QuoteForMessage(value) + " is neither Open:* nor Closed:*");
  }
  // The column is 14 characters wide: "Closed:Inact_Adm" prints cut, but the
  // part that tells active from inactive always survives.
  if (active_half.starts_with("Act")) {
    status.active = true;
  } else if (active_half.starts_with("Inact")) {
    status.active = false;
  } else {
    return Fail(ErrorCode::kParseError,
                "STATUS " + QuoteForMessage(value) + " is neither *:Active nor *:Inact*");
  }
  return status;
}

Result<std::vector<QueueLoad>> ParseBqueues(std::string_view text) {
  const std::vector<Line> lines = SplitLines(text);
  auto header = FindTableHeader(kBqueuesCommand, lines, "QUEUE_NAME",
                                {"QUEUE_NAME", "PRIO", "STATUS", "MAX", "JL/U", "JL/P", "JL/H",
                                 "NJOBS", "PEND", "RUN", "SUSP"});
  if (!header) return tl::unexpected(header.error());
  const Columns col{*header->Find("QUEUE_NAME"), *header->Find("PRIO"), *header->Find("STATUS")};

  std::vector<QueueLoad> queues;
  for (std::size_t i = header->position + 1; i < lines.size(); ++i) {
    auto cells = RowCells(kBqueuesCommand, *header, lines[i]);
    if (!cells) return tl::unexpected(cells.error());
    const std::vector<std::string_view>& fields = *cells;
    if (fields.empty()) continue;
    const Place where{kBqueuesCommand, lines[i].number};
    QueueLoad queue;
    queue.name = std::string(fields[col.name]);
    auto prio = ParseSmallInt(where, "PRIO", fields[col.prio]);
    if (!prio) return tl::unexpected(prio.error());
    queue.prio = *prio;
    auto status = ParseQueueStatus(fields[col.status]);
    if (!status) return Fail(ErrorCode::kParseError, where.Text() + ": " + status.error().message);
    queue.status = std::move(*status);

    // FindTableHeader required every one of these columns.
    auto filled = FillNumbers(
        queue,
        [&](const char* name) { return ParseLimit(where, name, fields[*header->Find(name)]); },
        [&](const char* name) { return ParseCount(where, name, fields[*header->Find(name)]); });
    if (!filled) return tl::unexpected(filled.error());
    queues.push_back(std::move(queue));
  }
  return queues;
}

namespace {

// The text of one record field: LSF prints strings, but accept a JSON number
// too. nullopt when absent; an error for any other JSON type.
Result<std::optional<std::string>> FieldText(const nlohmann::json& record, const char* key,
                                             const Place& where) {
  const auto it = record.find(key);
  if (it == record.end()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get_ref<const std::string&>());
  if (it->is_number_integer()) {
    return std::optional<std::string>(it->is_number_unsigned()
                                          ? std::to_string(it->get<std::uint64_t>())
                                          : std::to_string(it->get<std::int64_t>()));
  }
  return Fail(ErrorCode::kParseError,
              where.Text() + ": " + key + " is neither a string nor an integer");
}

Result<std::int64_t> JsonCount(const nlohmann::json& record, const char* key, const Place& where) {
  auto text = FieldText(record, key, where);
  if (!text) return tl::unexpected(text.error());
  if (!*text) return std::int64_t{0};
  return ParseCount(where, key, **text);
}

Result<std::optional<std::int64_t>> JsonLimit(const nlohmann::json& record, const char* key,
                                              const Place& where) {
  auto text = FieldText(record, key, where);
  if (!text) return tl::unexpected(text.error());
  if (!*text) return std::optional<std::int64_t>();
  return ParseLimit(where, key, **text);
}

}  // namespace

Result<std::vector<QueueLoad>> ParseBqueuesJson(std::string_view text) {
  // Retry chatter may precede the document on the same stream: start at the
  // first '{'.
  const std::size_t start = text.find('{');
  if (start == std::string_view::npos) {
    return Fail(ErrorCode::kParseError,
                std::string(kBqueuesJsonCommand) + ": no JSON object in output");
  }
  const nlohmann::json doc =
      nlohmann::json::parse(text.substr(start), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Fail(ErrorCode::kParseError,
                std::string(kBqueuesJsonCommand) + ": output is not valid JSON");
  }
  const auto records = doc.find("RECORDS");
  if (records == doc.end() || !records->is_array()) {
    return Fail(ErrorCode::kParseError, std::string(kBqueuesJsonCommand) + ": no RECORDS array");
  }

  std::vector<QueueLoad> queues;
  for (std::size_t i = 0; i < records->size(); ++i) {
    const nlohmann::json& record = (*records)[i];
    const Place where{kBqueuesJsonCommand, i, "record"};
    if (!record.is_object()) {
      return Fail(ErrorCode::kParseError, where.Text() + ": not an object");
    }
    QueueLoad queue;
    auto name = FieldText(record, "QUEUE_NAME", where);
    if (!name) return tl::unexpected(name.error());
    if (!*name || (*name)->empty()) {
      return Fail(ErrorCode::kParseError, where.Text() + ": no QUEUE_NAME");
    }
    queue.name = std::move(**name);
    auto status_text = FieldText(record, "STATUS", where);
    if (!status_text) return tl::unexpected(status_text.error());
    if (!*status_text) return Fail(ErrorCode::kParseError, where.Text() + ": no STATUS");
    auto status = ParseQueueStatus(Trim(**status_text));
    if (!status) return Fail(ErrorCode::kParseError, where.Text() + ": " + status.error().message);
    queue.status = std::move(*status);

    auto prio_text = FieldText(record, "PRIO", where);
    if (!prio_text) return tl::unexpected(prio_text.error());
    if (*prio_text) {
      auto prio = ParseSmallInt(where, "PRIO", **prio_text);
      if (!prio) return tl::unexpected(prio.error());
      queue.prio = *prio;
    }

    auto filled = FillNumbers(
        queue, [&](const char* name) { return JsonLimit(record, name, where); },
        [&](const char* name) { return JsonCount(record, name, where); });
    if (!filled) return tl::unexpected(filled.error());
    queues.push_back(std::move(queue));
  }
  return queues;
}

}  // namespace bplace::lsf
