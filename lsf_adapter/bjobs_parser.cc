#include "lsf_adapter/bjobs_parser.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include "common/text.h"
#include "lsf_adapter/json_reader.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {
namespace {

constexpr std::string_view kBjobsJsonCommand = "bjobs -json";
constexpr std::string_view kBjobsTableCommand = "bjobs -w";
constexpr std::size_t kMaxSlotDigits = 9;

// How the value of one bjobs field is read into a JobRecord.
enum class FieldKind {
  kText,        // trimmed, "-" is empty
  kVerbatim,    // JOB_NAME, JOB_DESCRIPTION: as printed ("-" may be a name)
  kJobId,       // ParseJobId
  kIndex,       // JOBINDEX: a count, 0 for no array
  kExitCode,    // optional int
  kFinishTime,  // text with an estimate marker
  kExecHost,    // ParseExecHosts
  kSlots,       // a count
};

// The -o fields the daemon asks for, with the key LSF prints for each (the
// JSON key and the table header are the same word). BjobsOutputFields,
// ParseBjobsJson and ParseBjobsTable all read this one list.
struct BjobsFieldSpec {
  std::string_view field;
  std::string_view key;
  FieldKind kind;
  std::string JobRecord::*text;  // for the text kinds
};
constexpr BjobsFieldSpec kBjobsFieldSpecs[] = {
    {"jobid", "JOBID", FieldKind::kJobId, nullptr},
    {"jobindex", "JOBINDEX", FieldKind::kIndex, nullptr},
    {"user", "USER", FieldKind::kText, &JobRecord::user},
    {"stat", "STAT", FieldKind::kText, &JobRecord::status},
    {"queue", "QUEUE", FieldKind::kText, &JobRecord::queue},
    {"exit_code", "EXIT_CODE", FieldKind::kExitCode, nullptr},
    {"exit_reason", "EXIT_REASON", FieldKind::kText, &JobRecord::exit_reason},
    {"pend_reason", "PEND_REASON", FieldKind::kText, &JobRecord::pend_reason},
    {"submit_time", "SUBMIT_TIME", FieldKind::kText, &JobRecord::submit_time},
    {"start_time", "START_TIME", FieldKind::kText, &JobRecord::start_time},
    {"finish_time", "FINISH_TIME", FieldKind::kFinishTime, &JobRecord::finish_time},
    {"exec_host", "EXEC_HOST", FieldKind::kExecHost, nullptr},
    {"slots", "SLOTS", FieldKind::kSlots, nullptr},
    {"job_name", "JOB_NAME", FieldKind::kVerbatim, &JobRecord::job_name},
    {"job_description", "JOB_DESCRIPTION", FieldKind::kVerbatim, &JobRecord::job_description},
    {"from_host", "FROM_HOST", FieldKind::kText, &JobRecord::from_host},
    {"proj_name", "PROJ_NAME", FieldKind::kText, &JobRecord::project},
};

const BjobsFieldSpec* FindSpec(std::string_view key) {
  for (const BjobsFieldSpec& spec : kBjobsFieldSpecs) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

// The index in the "[7]" that ends an array element's JOB_NAME, else 0.
std::int64_t IndexFromJobName(std::string_view name) {
  const std::size_t open = name.rfind('[');
  if (open == std::string_view::npos || name.back() != ']') return 0;
  const std::optional<JobId> id = ParseJobId("1" + std::string(name.substr(open)));
  return id ? id->array_index : 0;
}

// FINISH_TIME "Nov 30 13:10 L": the time, and whether it carried the marker
// of an estimate (bjobs -WF: L run limit, E estimated run time, X estimate
// exceeded).
std::pair<std::string_view, bool> SplitEstimateMarker(std::string_view value) {
  for (std::string_view marker : {" L", " E", " X"}) {
    if (value.size() > marker.size() && value.substr(value.size() - marker.size()) == marker) {
      return {Trim(value.substr(0, value.size() - marker.size())), true};
    }
  }
  return {value, false};
}

// Up to this many hosts a job's hosts are searched in turn; beyond, through
// an index (a job may span thousands of hosts; most have one).
constexpr std::size_t kHostsSearchedInTurn = 16;

// `hosts` by name, built only once a job has more than kHostsSearchedInTurn.
using HostIndex = std::unordered_map<std::string, std::size_t>;

void AddHost(std::vector<ExecHost>& hosts, HostIndex& index, std::string_view name,
             std::int64_t slots) {
  std::size_t at = hosts.size();
  if (hosts.size() <= kHostsSearchedInTurn) {
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      if (hosts[i].name == name) {
        at = i;
        break;
      }
    }
  } else {
    if (index.empty()) {
      for (std::size_t i = 0; i < hosts.size(); ++i) index.emplace(hosts[i].name, i);
    }
    if (const auto it = index.find(std::string(name)); it != index.end()) at = it->second;
  }
  if (at < hosts.size()) {
    hosts[at].slots += slots;
    return;
  }
  hosts.push_back(ExecHost{std::string(name), slots});
  if (!index.empty()) index.emplace(hosts.back().name, at);
}

// One "N*host" or "host" item of EXEC_HOST into `hosts`.
Result<void> AddExecItem(std::string_view item, std::vector<ExecHost>& hosts, HostIndex& index) {
  std::int64_t slots = 1;
  const std::size_t star = item.find('*');
  if (star != std::string_view::npos) {
    const std::string_view count = item.substr(0, star);
    if (count.size() > kMaxSlotDigits || !AllDigits(count)) {
      return Fail(ErrorCode::kParseError, "bad slot count in " + QuoteForMessage(item));
    }
    slots = 0;
    for (char c : count) slots = slots * 10 + (c - '0');
    if (slots == 0) return Fail(ErrorCode::kParseError, "zero slots in " + QuoteForMessage(item));
    item.remove_prefix(star + 1);
  }
  if (item.empty() || item.find('*') != std::string_view::npos) {
    return Fail(ErrorCode::kParseError, "bad host name in " + QuoteForMessage(item));
  }
  AddHost(hosts, index, item, slots);
  return {};
}

// Adds the hosts of `more` to `into`, summing the slots of a host named in
// both (a continuation line of the table).
void MergeHosts(std::vector<ExecHost>& into, std::vector<ExecHost> more) {
  for (ExecHost& host : more) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const ExecHost& known) { return known.name == host.name; });
    if (it == into.end()) {
      into.push_back(std::move(host));
    } else {
      it->slots += host.slots;
    }
  }
}

std::int64_t SumSlots(const std::vector<ExecHost>& hosts) {
  std::int64_t slots = 0;
  for (const ExecHost& host : hosts) slots += host.slots;
  return slots;
}

// Sets the field `spec` describes from its printed value.
Result<void> SetField(JobRecord& record, const BjobsFieldSpec& spec, std::string_view printed,
                      const Place& where) {
  if (spec.kind == FieldKind::kVerbatim) {
    record.*spec.text = std::string(printed);
    return {};
  }
  std::string_view value = Trim(printed);
  if (value == "-") value = {};
  const std::string_view column = spec.key;
  switch (spec.kind) {
    case FieldKind::kText:
    case FieldKind::kVerbatim:
      record.*spec.text = std::string(value);
      return {};
    case FieldKind::kFinishTime: {
      const auto [time, estimated] = SplitEstimateMarker(value);
      record.finish_time = std::string(time);
      record.finish_time_estimated = estimated;
      return {};
    }
    case FieldKind::kJobId: {
      const std::optional<JobId> id = ParseJobId(value);
      if (!id)
        return Fail(ErrorCode::kParseError, where.Text() + ": JOBID is " + QuoteForMessage(value));
      record.job_id = id->job_id;
      if (id->array_index != 0) record.array_index = id->array_index;
      return {};
    }
    case FieldKind::kIndex:
    case FieldKind::kSlots: {
      auto count = ParseCount(where, column, value.empty() ? "0" : value);
      if (!count) return tl::unexpected(count.error());
      if (*count < 0) {
        return Fail(ErrorCode::kParseError, where.Text() + ": " + std::string(column) + " < 0");
      }
      (spec.kind == FieldKind::kIndex ? record.array_index : record.slots) = *count;
      return {};
    }
    case FieldKind::kExitCode: {
      if (value.empty()) return {};
      auto code = ParseSmallInt(where, column, value);
      if (!code) return tl::unexpected(code.error());
      record.exit_code = *code;
      return {};
    }
    case FieldKind::kExecHost: {
      auto hosts = ParseExecHosts(value);
      if (!hosts) {
        return Fail(ErrorCode::kParseError, where.Text() + ": EXEC_HOST: " + hosts.error().message);
      }
      record.exec_hosts = std::move(*hosts);
      return {};
    }
  }
  return {};
}

}  // namespace

std::string BjobsOutputFields() {
  std::string fields;
  for (const BjobsFieldSpec& spec : kBjobsFieldSpecs) {
    if (!fields.empty()) fields += ' ';
    fields += spec.field;
  }
  return fields;
}

Result<std::vector<ExecHost>> ParseExecHosts(std::string_view text) {
  std::vector<ExecHost> hosts;
  HostIndex index;
  const std::string_view trimmed = Trim(text);
  if (trimmed == "-") return hosts;
  for (std::string_view word : SplitFields(trimmed)) {
    while (true) {
      const std::size_t colon = word.find(':');
      auto added = AddExecItem(word.substr(0, colon), hosts, index);
      if (!added) return tl::unexpected(added.error());
      if (colon == std::string_view::npos) break;
      word.remove_prefix(colon + 1);
    }
  }
  return hosts;
}

// ---- bjobs -o ... -json ------------------------------------------------

namespace {

constexpr std::size_t kFieldCount = std::size(kBjobsFieldSpecs);

// The text of one JSON value: LSF prints strings; integers are accepted and
// null reads as "". An error for any other type. A string without escapes
// is a view into the answer; others are decoded into `scratch`.
Result<std::string_view> JsonText(const JsonValue& value, std::string_view key, const Place& where,
                                  std::string& scratch) {
  switch (value.kind()) {
    case JsonValue::Kind::kString:
      if (const auto plain = value.Unescaped()) return *plain;
      scratch = value.String();
      return std::string_view(scratch);
    case JsonValue::Kind::kNull:
      return std::string_view();
    case JsonValue::Kind::kInteger:
      scratch =
          value.Unsigned() ? std::to_string(*value.Unsigned()) : std::to_string(*value.Signed());
      return std::string_view(scratch);
    default:
      return Fail(ErrorCode::kParseError,
                  where.Text() + ": " + std::string(key) + " is neither a string nor an integer");
  }
}

// "Job <2[7]> is not found": the id between the angle brackets, if any.
std::optional<JobId> IdInMessage(std::string_view message) {
  const std::size_t open = message.find("Job <");
  if (open == std::string_view::npos) return std::nullopt;
  const std::string_view rest = message.substr(open + 5);
  return ParseJobId(rest.substr(0, rest.find('>')));
}

// The members of one record that this code reads: the last value of each
// (a key given twice counts once, as a JSON object holds it).
struct RecordMembers {
  std::optional<JsonValue> fields[kFieldCount];  // in the order of kBjobsFieldSpecs
  std::optional<JsonValue> error;
  bool has_index = false;  // JOBINDEX is present
};

RecordMembers MembersOf(const JsonValue& record) {
  RecordMembers members;
  std::size_t next = 0;  // LSF prints the fields in the order asked: try that one first
  record.ForEachMember([&](std::string_view key, const JsonValue& value) {
    if (key == "ERROR") {
      members.error = value;
      return;
    }
    for (std::size_t n = 0; n < kFieldCount; ++n) {
      const std::size_t i = (next + n) % kFieldCount;
      if (kBjobsFieldSpecs[i].key == key) {
        members.fields[i] = value;
        members.has_index = members.has_index || key == "JOBINDEX";
        next = i + 1;
        return;
      }
    }
  });
  return members;
}

// An ERROR record: an id LSF does not know.
Result<JobRecord> ReadErrorRecord(const RecordMembers& members, const Place& where) {
  JobRecord job;
  job.not_found = true;
  std::string scratch;
  auto error = JsonText(*members.error, "ERROR", where, scratch);
  if (!error) return tl::unexpected(error.error());
  job.error = std::string(Trim(*error));
  const BjobsFieldSpec& jobid_spec = *FindSpec("JOBID");
  if (const auto& jobid = members.fields[&jobid_spec - kBjobsFieldSpecs]) {
    auto id = JsonText(*jobid, "JOBID", where, scratch);
    if (!id) return tl::unexpected(id.error());
    if (!Trim(*id).empty()) {
      auto set = SetField(job, jobid_spec, *id, where);
      if (!set) return tl::unexpected(set.error());
    }
  }
  // LSF names the element only in the sentence: JOBID of "Job <2[7]> is not
  // found" is "2".
  if (const std::optional<JobId> named = IdInMessage(job.error)) {
    if (job.job_id.empty() || job.job_id == named->job_id) {
      job.job_id = named->job_id;
      job.array_index = named->array_index;
    }
  }
  return job;
}

Result<JobRecord> ReadJsonRecord(const JsonValue& record, const Place& where) {
  if (!record.is_object()) return Fail(ErrorCode::kParseError, where.Text() + ": not an object");
  const RecordMembers members = MembersOf(record);
  if (members.error) return ReadErrorRecord(members, where);
  JobRecord job;
  std::string scratch;
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    if (!members.fields[i]) continue;
    const BjobsFieldSpec& spec = kBjobsFieldSpecs[i];
    auto text = JsonText(*members.fields[i], spec.key, where, scratch);
    if (!text) return tl::unexpected(text.error());
    auto set = SetField(job, spec, *text, where);
    if (!set) return tl::unexpected(set.error());
  }
  if (job.job_id.empty()) return Fail(ErrorCode::kParseError, where.Text() + ": no JOBID");
  if (!members.has_index && job.array_index == 0) {
    job.array_index = IndexFromJobName(job.job_name);
  }
  return job;
}

// The JOBS count of the document: LSF prints an integer.
Result<std::size_t> JobsCount(const std::optional<JsonValue>& jobs) {
  if (jobs && jobs->kind() == JsonValue::Kind::kInteger && jobs->Unsigned()) {
    return static_cast<std::size_t>(*jobs->Unsigned());
  }
  if (jobs && jobs->is_string()) {
    auto count = ParseCount(Place{kBjobsJsonCommand, 0, "record"}, "JOBS", jobs->String());
    if (count && *count >= 0) return static_cast<std::size_t>(*count);
  }
  return Fail(ErrorCode::kParseError, std::string(kBjobsJsonCommand) + ": no JOBS count");
}

}  // namespace

Result<std::vector<JobRecord>> ParseBjobsJson(std::string_view text) {
  const std::string command(kBjobsJsonCommand);
  const std::size_t start = text.find('{');
  if (start == std::string_view::npos) {
    return Fail(ErrorCode::kParseError, command + ": no JSON object in output");
  }
  const std::optional<JsonDocument> doc = JsonDocument::Parse(text.substr(start));
  if (!doc) {
    return Fail(ErrorCode::kParseError, command + ": output is not valid JSON (cut short?)");
  }
  // The last value of each key, as a JSON object holds it.
  std::optional<JsonValue> records;
  std::optional<JsonValue> jobs_count;
  doc->Root().ForEachMember([&](std::string_view key, const JsonValue& value) {
    if (key == "RECORDS") records = value;
    if (key == "JOBS") jobs_count = value;
  });
  if (!records || !records->is_array()) {
    return Fail(ErrorCode::kParseError, command + ": no RECORDS array");
  }
  auto count = JobsCount(jobs_count);
  if (!count) return tl::unexpected(count.error());
  std::size_t size = 0;
  records->ForEachElement([&](const JsonValue&) { ++size; });
  if (*count != size) {
    return Fail(ErrorCode::kParseError, command + ": JOBS says " + std::to_string(*count) +
                                            " but RECORDS holds " + std::to_string(size) +
                                            " (output cut short)");
  }
  std::vector<JobRecord> jobs;
  jobs.reserve(size);
  std::optional<Error> failed;
  records->ForEachElement([&](const JsonValue& record) {
    if (failed) return;
    auto job = ReadJsonRecord(record, Place{kBjobsJsonCommand, jobs.size(), "record"});
    if (!job) {
      failed = job.error();
      return;
    }
    jobs.push_back(std::move(*job));
  });
  if (failed) return tl::unexpected(std::move(*failed));
  return jobs;
}

// ---- bjobs -w table -------------------------------------------------------

namespace {

// Where the columns of a bjobs table are, from its header.
struct TableLayout {
  std::vector<const BjobsFieldSpec*> leading;  // one word each; nullptr: a column we ignore
  std::size_t last_leading_at = 0;             // header position of the last leading column
  std::size_t exec_at = 0;                     // header position of EXEC_HOST
  std::size_t name_at = 0;                     // header position of JOB_NAME
};

std::size_t Offset(std::string_view part, std::string_view line) {
  return static_cast<std::size_t>(part.data() - line.data());
}

Result<TableLayout> ReadLayout(const TableHeader& header, std::string_view line) {
  const std::vector<std::string_view>& columns = header.columns;
  const std::size_t n = columns.size();
  if (n < 4 || columns[n - 3] != "EXEC_HOST" || columns[n - 2] != "JOB_NAME" ||
      columns[n - 1] != "SUBMIT_TIME") {
    return Fail(ErrorCode::kParseError,
                Where(kBjobsTableCommand, header.line_number) +
                    ": header does not end with EXEC_HOST JOB_NAME SUBMIT_TIME");
  }
  TableLayout layout;
  for (std::size_t i = 0; i + 3 < n; ++i) layout.leading.push_back(FindSpec(columns[i]));
  layout.last_leading_at = Offset(columns[n - 4], line);
  layout.exec_at = Offset(columns[n - 3], line);
  layout.name_at = Offset(columns[n - 2], line);
  return layout;
}

// True when `text` is `min` (at least 1) to `max` decimal digits.
bool DigitsOfLength(std::string_view text, std::size_t min, std::size_t max) {
  return text.size() >= min && text.size() <= max && AllDigits(text);
}

// How many words at the end of a row make SUBMIT_TIME: 3 ("Nov 30 11:40"), 4
// with a year ("Nov 30 11:40 2026"), 0 when the row does not end in a time.
std::size_t TimeWords(const std::vector<std::string_view>& words) {
  auto looks_like_time = [&](std::size_t end) {
    if (end < 3) return false;
    const std::string_view month = words[end - 3];
    const std::string_view clock = words[end - 1];
    const bool alpha = std::all_of(month.begin(), month.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    });
    return month.size() == 3 && alpha && DigitsOfLength(words[end - 2], 1, 2) &&
           clock.find(':') != std::string_view::npos;
  };
  if (!words.empty() && DigitsOfLength(words.back(), 4, 4) && looks_like_time(words.size() - 1)) {
    return 4;
  }
  return looks_like_time(words.size()) ? 3 : 0;
}

// The row's EXEC_HOST and JOB_NAME, between its leading words and its time.
Result<void> ReadMiddle(JobRecord& job, const TableLayout& layout,
                        const std::vector<std::string_view>& words, std::size_t time_first,
                        std::string_view line, const Place& where) {
  const std::size_t lead = layout.leading.size();
  const std::string_view last_lead = words[lead - 1];
  // A long value pushes the rest of the row right; the last leading word
  // shows by how much (every column is left-aligned).
  const std::size_t at = Offset(last_lead, line);
  const std::size_t shift = at > layout.last_leading_at ? at - layout.last_leading_at : 0;
  const std::size_t exec_start = std::max(layout.exec_at + shift, at + last_lead.size() + 1);
  const std::size_t name_start = exec_start + (layout.name_at - layout.exec_at);
  std::size_t first_name_word = lead;
  if (time_first - lead >= 2 && Offset(words[lead], line) < name_start) {
    auto set = SetField(job, *FindSpec("EXEC_HOST"), words[lead], where);
    if (!set) return set;
    first_name_word = lead + 1;
  }
  const std::size_t from = Offset(words[first_name_word], line);
  job.job_name = std::string(Trim(line.substr(from, Offset(words[time_first], line) - from)));
  return {};
}

Result<JobRecord> ReadRow(const TableLayout& layout, const Line& line) {
  const Place where{kBjobsTableCommand, line.number};
  const std::vector<std::string_view> words = SplitFields(line.text);
  const std::size_t time_words = TimeWords(words);
  if (time_words == 0) {
    return Fail(ErrorCode::kParseError, where.Text() + ": no SUBMIT_TIME at the end of the row");
  }
  const std::size_t lead = layout.leading.size();
  if (words.size() < lead + 1 + time_words) {
    return Fail(ErrorCode::kParseError, where.Text() + ": expected at least " +
                                            std::to_string(lead + 1 + time_words) + " words, got " +
                                            std::to_string(words.size()));
  }
  JobRecord job;
  for (std::size_t i = 0; i < lead; ++i) {
    if (layout.leading[i] == nullptr) continue;
    auto set = SetField(job, *layout.leading[i], words[i], where);
    if (!set) return tl::unexpected(set.error());
  }
  if (job.job_id.empty()) return Fail(ErrorCode::kParseError, where.Text() + ": no JOBID");
  const std::size_t time_first = words.size() - time_words;
  auto middle = ReadMiddle(job, layout, words, time_first, line.text, where);
  if (!middle) return tl::unexpected(middle.error());
  job.submit_time = std::string(line.text.substr(Offset(words[time_first], line.text)));
  if (job.array_index == 0) job.array_index = IndexFromJobName(job.job_name);
  return job;
}

// An indented line holding one host: LSF's further execution hosts of the
// job above (plain bjobs prints one per line).
Result<void> ReadContinuation(std::vector<JobRecord>& jobs, const Line& line) {
  const Place where{kBjobsTableCommand, line.number};
  const std::vector<std::string_view> words = SplitFields(line.text);
  if (jobs.empty() || words.size() != 1) {
    return Fail(ErrorCode::kParseError,
                where.Text() + ": indented line is not a host of the job above");
  }
  auto hosts = ParseExecHosts(words.front());
  if (!hosts) {
    return Fail(ErrorCode::kParseError, where.Text() + ": EXEC_HOST: " + hosts.error().message);
  }
  MergeHosts(jobs.back().exec_hosts, std::move(*hosts));
  return {};
}

}  // namespace

Result<std::vector<JobRecord>> ParseBjobsTable(std::string_view text) {
  const std::vector<Line> lines = SplitLines(text);
  auto header = FindTableHeader(
      kBjobsTableCommand, lines, "JOBID",
      {"JOBID", "USER", "STAT", "QUEUE", "FROM_HOST", "EXEC_HOST", "JOB_NAME", "SUBMIT_TIME"});
  if (!header) return tl::unexpected(header.error());
  auto layout = ReadLayout(*header, lines[header->position].text);
  if (!layout) return tl::unexpected(layout.error());

  std::vector<JobRecord> jobs;
  for (std::size_t i = header->position + 1; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (Trim(line.text).empty()) continue;
    if (IsBlank(line.text.front())) {
      auto added = ReadContinuation(jobs, line);
      if (!added) return tl::unexpected(added.error());
      continue;
    }
    auto job = ReadRow(*layout, line);
    if (!job) return tl::unexpected(job.error());
    jobs.push_back(std::move(*job));
  }
  for (JobRecord& job : jobs) job.slots = SumSlots(job.exec_hosts);
  return jobs;
}

}  // namespace bplace::lsf
