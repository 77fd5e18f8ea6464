#include "api/job_request_decoder.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/request_text.h"
#include "common/text.h"
#include "lsf_adapter/bsub_command.h"
#include "lsf_adapter/bsub_script.h"
#include "lsf_adapter/bsub_values.h"

namespace bplace::api {
namespace {

using nlohmann::json;

// Readers of one field each: check `value` and store it in `job`.
using Reader = Result<void> (*)(const json& value, std::string_view key,
                                const JobRequestLimits& limits, JobRequest& job);

Result<void> Store(Result<std::string> read, std::optional<std::string>& out) {
  if (!read) return tl::unexpected(read.error());
  out = std::move(*read);
  return {};
}

Result<void> ReadHost(const json& v, std::string_view key, const JobRequestLimits& l,
                      JobRequest& job) {
  return Store(GetString(v, key, l.max_name_bytes, Text::kName), job.host);
}

Result<void> ReadQueues(const json& v, std::string_view key, const JobRequestLimits& l,
                        JobRequest& job) {
  auto list = GetStringList(v, key, l.max_list_items, l.max_name_bytes, Text::kName);
  if (!list) return tl::unexpected(list.error());
  if (list->empty()) {
    return tl::unexpected(FieldError(key, "must not be empty (leave it out to allow any queue)"));
  }
  job.queues = std::move(*list);
  return {};
}

bool AllBlank(std::string_view s) {
  for (char c : s) {
    if (!IsBlank(c)) return false;
  }
  return true;
}

// `read`, unless it is only blanks: bsub would get no command at all ("Empty
// job", or a job that runs nothing), so the caller hears it before any bsub.
Result<std::string> NotBlank(Result<std::string> read, std::string_view field) {
  if (read && AllBlank(*read)) {
    return tl::unexpected(FieldError(field, "must not be blank (it holds only whitespace)"));
  }
  return read;
}

Result<void> ReadCommand(const json& v, std::string_view key, const JobRequestLimits& l,
                         JobRequest& job) {
  // bsub takes its first non-option argument as the command.
  return Store(NotBlank(GetString(v, key, l.max_command_bytes, Text::kOptionValue), key),
               job.command);
}

Result<void> ReadArgv(const json& v, std::string_view key, const JobRequestLimits& l,
                      JobRequest& job) {
  auto list = GetStringList(v, key, l.max_list_items, l.max_command_bytes, Text::kLine);
  if (!list) return tl::unexpected(list.error());
  if (list->empty()) return tl::unexpected(FieldError(key, "must not be empty"));
  if (AllBlank(list->front())) {
    return tl::unexpected(
        FieldError(std::string(key) + "[0]", "must not be blank (it holds only whitespace)"));
  }
  if (list->front().front() == '-') {
    return tl::unexpected(
        FieldError(key, "first word starts with '-' (bsub would read it as an option)"));
  }
  // The words reach bsub as one argument: bound it as a command string.
  const std::size_t quoted = lsf::JoinShellQuoted(*list).size();
  if (quoted > l.max_command_bytes) {
    return tl::unexpected(FieldError(key, "longer than " + std::to_string(l.max_command_bytes) +
                                              " bytes once quoted into one command string (" +
                                              std::to_string(quoted) + ")"));
  }
  job.argv = std::move(*list);
  return {};
}

Result<void> ReadScript(const json& v, std::string_view key, const JobRequestLimits& l,
                        JobRequest& job) {
  return Store(NotBlank(GetString(v, key, l.max_command_bytes, Text::kMultiLine), key), job.script);
}

// One -R string, or a list of them (bsub -R may repeat; LSF merges them).
Result<void> ReadResources(const json& v, std::string_view key, const JobRequestLimits& l,
                           JobRequest& job) {
  std::vector<std::string> items;
  if (v.is_array()) {
    auto list = GetStringList(v, key, l.max_list_items, l.max_string_bytes, Text::kOptionValue);
    if (!list) return tl::unexpected(list.error());
    if (list->empty()) return tl::unexpected(FieldError(key, "must not be empty"));
    items = std::move(*list);
  } else {
    auto text = GetString(v, key, l.max_string_bytes, Text::kOptionValue);
    if (!text) return tl::unexpected(text.error());
    items.push_back(std::move(*text));
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (auto problem = lsf::ResReqBracketProblem(items[i])) {
      const std::string name =
          v.is_array() ? std::string(key) + "[" + std::to_string(i) + "]" : std::string(key);
      return tl::unexpected(FieldError(name, "unbalanced brackets: " + *problem));
    }
  }
  job.resources = std::move(items);
  return {};
}

// The directory bsub runs in: an absolute path, one line.
Result<void> ReadWorkdir(const json& v, std::string_view key, const JobRequestLimits& l,
                         JobRequest& job) {
  auto text = GetString(v, key, l.max_string_bytes, Text::kLine);
  if (!text) return tl::unexpected(text.error());
  if (text->front() != '/') return tl::unexpected(FieldError(key, "must be an absolute path"));
  job.workdir = std::move(*text);
  return {};
}

// The job's environment: an object of strings, names without '=' or NUL,
// values without NUL (a value may span lines: bash exports functions so).
Result<void> ReadEnvironment(const json& v, std::string_view key, const JobRequestLimits& l,
                             JobRequest& job) {
  if (!v.is_object()) {
    return tl::unexpected(
        FieldError(key, std::string("expected an object of strings, got ") + v.type_name()));
  }
  std::vector<std::string> entries;
  std::size_t bytes = 0;
  for (const auto& item : v.items()) {
    const std::string& name = item.key();
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      return tl::unexpected(FieldError(key, "`" + name + "` is not a variable name"));
    }
    if (!item.value().is_string()) {
      return tl::unexpected(FieldError(std::string(key) + "." + name, "expected a string"));
    }
    const std::string& value = item.value().get_ref<const std::string&>();
    if (value.find('\0') != std::string::npos) {
      return tl::unexpected(FieldError(std::string(key) + "." + name, "contains a NUL byte"));
    }
    bytes += name.size() + value.size() + 2;
    entries.push_back(name + "=" + value);
  }
  if (bytes > l.max_environment_bytes) {
    return tl::unexpected(FieldError(key, "more than " + std::to_string(l.max_environment_bytes) +
                                              " bytes (" + std::to_string(bytes) + ")"));
  }
  job.environment = std::move(entries);
  return {};
}

// The file creation mask as octal digits: "022", "0077".
Result<void> ReadUmask(const json& v, std::string_view key, const JobRequestLimits&,
                       JobRequest& job) {
  if (!v.is_string()) {
    return tl::unexpected(FieldError(key, std::string("expected a string, got ") + v.type_name()));
  }
  const std::string& text = v.get_ref<const std::string&>();
  mode_t mask = 0;
  bool ok = !text.empty() && text.size() <= 4;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '7';
    mask = static_cast<mode_t>(mask * 8 + static_cast<mode_t>(c - '0'));
  }
  if (!ok || mask > 0777) {
    return tl::unexpected(
        FieldError(key, "expected 1 to 4 octal digits up to 0777, got \"" + text + "\""));
  }
  job.umask = mask;
  return {};
}

// The fields that are one-line option values of a given bound.
template <std::optional<std::string> JobRequest::*kField>
Result<void> ReadOptionValue(const json& v, std::string_view key, const JobRequestLimits& l,
                             JobRequest& job) {
  return Store(GetString(v, key, l.max_string_bytes, Text::kOptionValue), job.*kField);
}

template <std::optional<std::string> JobRequest::*kField>
Result<void> ReadName(const json& v, std::string_view key, const JobRequestLimits& l,
                      JobRequest& job) {
  return Store(GetString(v, key, l.max_name_bytes, Text::kName), job.*kField);
}

Result<void> ReadJobName(const json& v, std::string_view key, const JobRequestLimits& l,
                         JobRequest& job) {
  auto name = GetString(v, key, l.max_string_bytes, Text::kOptionValue);
  if (!name) return tl::unexpected(name.error());
  if (name->find_first_of("[]") != std::string::npos) {
    // LSF reads "name[1-1000000]" as a job array: only `array` makes one.
    return tl::unexpected(
        FieldError(key, "holds [ or ] (LSF would make a job array of it; use the `array` field)"));
  }
  job.job_name = std::move(*name);
  return {};
}

// `array`: an LSF index list (bsub -J "name[LIST]", LSF 10.1): items
// separated by commas, each start[-end[:step]], indices from 1. Elements
// are counted per item (an index in two items counts twice: the count is
// never below what LSF makes).
Result<void> ReadArray(const json& v, std::string_view key, const JobRequestLimits& l,
                       JobRequest& job) {
  auto text = GetString(v, key, l.max_name_bytes, Text::kName);
  if (!text) return tl::unexpected(text.error());
  std::int64_t elements = 0;
  std::string_view rest = *text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto parsed = lsf::ParseArrayIndexItem(item);
    if (!parsed) {
      return tl::unexpected(FieldError(
          key, "`" + std::string(item) + "` is not start[-end[:step]] with indices from 1 to " +
                   std::to_string(lsf::kMaxArrayIndex) +
                   " and start <= end (e.g. \"1-100\", \"1-9:2,20\")"));
    }
    elements += parsed->count();
    if (elements > l.max_array_elements) {
      return tl::unexpected(FieldError(key, "more than submit.max_array_elements (" +
                                                std::to_string(l.max_array_elements) +
                                                ") elements"));
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  job.array = std::move(*text);
  job.array_elements = elements;
  return {};
}

Result<void> ReadSlots(const json& v, std::string_view key, const JobRequestLimits& l,
                       JobRequest& job) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > l.max_slots) {
    return tl::unexpected(FieldError(
        key,
        "expected an integer from 1 to " + std::to_string(l.max_slots) + ", got " + Describe(v)));
  }
  job.slots = v.get<std::int64_t>();
  return {};
}

Result<void> ReadWalltime(const json& v, std::string_view key, const JobRequestLimits&,
                          JobRequest& job) {
  if (v.is_number_integer() && v.get<std::int64_t>() > 0 && v.get<std::int64_t>() <= 999999999) {
    job.walltime = std::to_string(v.get<std::int64_t>());
  } else if (v.is_string() && v.get_ref<const std::string&>().size() <= 16 &&
             lsf::IsRunLimit(v.get_ref<const std::string&>())) {
    job.walltime = v.get<std::string>();
  } else {
    return tl::unexpected(FieldError(
        key, "expected minutes (a positive integer) or \"[hours:]minutes\", got " + Describe(v)));
  }
  return {};
}

Result<void> ReadMemory(const json& v, std::string_view key, const JobRequestLimits&,
                        JobRequest& job) {
  if (v.is_number_integer() && v.get<std::int64_t>() > 0) {
    job.memory = std::to_string(v.get<std::int64_t>());
  } else if (v.is_string() && v.get_ref<const std::string&>().size() <= 32 &&
             lsf::IsMemoryLimit(v.get_ref<const std::string&>())) {
    job.memory = v.get<std::string>();
  } else {
    return tl::unexpected(FieldError(key,
                                     "expected an amount as bsub -M takes it (e.g. 4096, \"8GB\"), "
                                     "got " +
                                         Describe(v)));
  }
  return {};
}

Result<void> ReadExtraArgs(const json& v, std::string_view key, const JobRequestLimits& l,
                           JobRequest& job) {
  auto list = GetStringList(v, key, l.max_list_items, l.max_string_bytes, Text::kLine);
  if (!list) return tl::unexpected(list.error());
  if (auto checked = lsf::CheckExtraArgs(*list); !checked) return tl::unexpected(checked.error());
  job.extra_args = std::move(*list);
  return {};
}

Result<void> ReadRequireIb(const json& v, std::string_view key, const JobRequestLimits&,
                           JobRequest& job) {
  if (!v.is_boolean()) {
    return tl::unexpected(
        FieldError(key, std::string("expected true or false, got ") + Describe(v)));
  }
  job.require_ib = v.get<bool>();
  return {};
}

bool IsLabelKey(std::string_view key) {
  if (key.empty() || key.size() > 63) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<void> ReadLabels(const json& v, std::string_view key, const JobRequestLimits& l,
                        JobRequest& job) {
  if (!v.is_object()) {
    return tl::unexpected(
        FieldError(key, std::string("expected an object of strings, got ") + v.type_name()));
  }
  if (v.size() > l.max_labels) {
    return tl::unexpected(FieldError(key, "more than " + std::to_string(l.max_labels) + " labels"));
  }
  for (const auto& item : v.items()) {
    const std::string name = std::string(key) + "." + ShownKey(item.key());
    if (!IsLabelKey(item.key())) {
      return tl::unexpected(FieldError(name, "a label name is 1 to 63 of A-Z a-z 0-9 _ . -"));
    }
    auto value = GetString(item.value(), name, l.max_label_value_bytes, Text::kLine);
    if (!value) return tl::unexpected(value.error());
    job.labels[item.key()] = std::move(*value);
  }
  return {};
}

Result<void> RefuseUser(const json&, std::string_view key, const JobRequestLimits&, JobRequest&) {
  return tl::unexpected(
      FieldError(key,
                 "not accepted: the job is submitted as the caller, never as a user "
                 "named in the request"));
}

// Schemas of one field each, with the bounds of `limits` (JobRequestField::schema).
using SchemaOf = json (*)(const JobRequestLimits& limits);

json NameSchema(const JobRequestLimits& l) { return StringSchema(Text::kName, l.max_name_bytes); }

json QueuesSchema(const JobRequestLimits& l) {
  return StringListSchema(l.max_list_items, l.max_name_bytes, Text::kName);
}

json CommandSchema(const JobRequestLimits& l) {
  return StringSchema(Text::kOptionValue, l.max_command_bytes);
}

json ArgvSchema(const JobRequestLimits& l) {
  json schema = StringListSchema(l.max_list_items, l.max_command_bytes, Text::kLine);
  // The first word is the command: it must not look like an option.
  schema["prefixItems"] = {StringSchema(Text::kOptionValue, l.max_command_bytes)};
  return schema;
}

json ScriptSchema(const JobRequestLimits& l) {
  return StringSchema(Text::kMultiLine, l.max_command_bytes);
}

json OptionValueSchema(const JobRequestLimits& l) {
  return StringSchema(Text::kOptionValue, l.max_string_bytes);
}

// As ReadJobName takes it: an option value without [ or ].
json JobNameSchema(const JobRequestLimits& l) {
  json schema = StringSchema(Text::kOptionValue, l.max_string_bytes);
  schema["pattern"] =
      R"(^[^\u0000-\u0008\u000a-\u001f\u007f\[\]-][^\u0000-\u0008\u000a-\u001f\u007f\[\]]*$)";
  return schema;
}

// As ReadArray takes it; the element bound is in the description (a
// pattern cannot count).
json ArraySchema(const JobRequestLimits& l) {
  return {{"type", "string"},
          {"minLength", 1},
          {"maxLength", l.max_name_bytes},
          {"pattern", R"(^[0-9]+(-[0-9]+(:[0-9]+)?)?(,[0-9]+(-[0-9]+(:[0-9]+)?)?)*$)"},
          {"description", "at most " + std::to_string(l.max_array_elements) +
                              " elements (submit.max_array_elements)"}};
}

json SlotsSchema(const JobRequestLimits& l) {
  return {{"type", "integer"}, {"minimum", 1}, {"maximum", l.max_slots}};
}

// As ReadWalltime and lsf::IsRunLimit take it.
json WalltimeSchema(const JobRequestLimits&) {
  return {{"oneOf",
           {{{"type", "integer"}, {"minimum", 1}, {"maximum", 999999999}},
            {{"type", "string"}, {"maxLength", 16}, {"pattern", lsf::kRunLimitPattern}}}}};
}

// As ReadMemory and lsf::IsMemoryLimit take it.
json MemorySchema(const JobRequestLimits&) {
  return {{"oneOf",
           {{{"type", "integer"}, {"minimum", 1}},
            {{"type", "string"}, {"maxLength", 32}, {"pattern", lsf::kMemoryLimitPattern}}}}};
}

json ExtraArgsSchema(const JobRequestLimits& l) {
  json schema = StringListSchema(l.max_list_items, l.max_string_bytes, Text::kLine);
  schema["minItems"] = 0;
  return schema;
}

// As ReadLabels and IsLabelKey take them.
json LabelsSchema(const JobRequestLimits& l) {
  return {{"type", "object"},
          {"maxProperties", l.max_labels},
          {"propertyNames", {{"pattern", "^[A-Za-z0-9_.-]{1,63}$"}}},
          {"additionalProperties", StringSchema(Text::kLine, l.max_label_value_bytes)}};
}

json BooleanSchema(const JobRequestLimits&) { return {{"type", "boolean"}}; }

// As ReadResources takes it: one -R or a list of them.
json ResourcesSchema(const JobRequestLimits& l) {
  return {{"oneOf",
           {OptionValueSchema(l),
            StringListSchema(l.max_list_items, l.max_string_bytes, Text::kOptionValue)}}};
}

json WorkdirSchema(const JobRequestLimits& l) {
  json schema = StringSchema(Text::kLine, l.max_string_bytes);
  schema["pattern"] = R"(^/[^\u0000-\u0008\u000a-\u001f\u007f]*$)";
  return schema;
}

json EnvironmentSchema(const JobRequestLimits& l) {
  return {{"type", "object"},
          {"propertyNames", {{"pattern", R"(^[^=\u0000]+$)"}}},
          {"additionalProperties", {{"type", "string"}, {"pattern", R"(^[^\u0000]*$)"}}},
          {"description",
           "at most " + std::to_string(l.max_environment_bytes) + " bytes of NAME=value in all"}};
}

json UmaskSchema(const JobRequestLimits&) {
  return {{"type", "string"}, {"pattern", "^[0-7]{1,4}$"}};
}

// A row of kFields: JobRequestField without its schema, which is made from
// the limits (JobRequestFields).
struct FieldDoc {
  std::string_view name;
  std::string_view bsub;
  std::string_view type;
  std::string_view notes;
};

struct Field {
  FieldDoc doc;
  Reader read;
  SchemaOf schema;
};

// THE list of request fields: the decoder reads through it, docs/api.md's
// field table and the OpenAPI document are checked against it.
const Field kFields[] = {
    {{"host", "-m", "string", "optional; without it no -m"}, ReadHost, NameSchema},
    {{"queues", "", "array of strings", "optional candidate list"}, ReadQueues, QueuesSchema},
    {{"command", "command string", "string",
      "run by your shell on the execution host, as with a typed bsub"},
     ReadCommand,
     CommandSchema},
    {{"argv", "command string", "array of strings", "each word shell-quoted by bplace"},
     ReadArgv,
     ArgvSchema},
    {{"script", "stdin", "string", "job script fed to bsub on stdin"}, ReadScript, ScriptSchema},
    {{"job_name", "-J", "string", "no [ ]: arrays come from `array`"}, ReadJobName, JobNameSchema},
    {{"array", "-J \"NAME[LIST]\"", "string",
      "LSF index list, e.g. \"1-100\"; at most submit.max_array_elements elements"},
     ReadArray,
     ArraySchema},
    {{"slots", "-n", "integer", "1..submit.max_slots"}, ReadSlots, SlotsSchema},
    {{"resources", "-R", "string or array of strings",
      "one -R each; brackets [ ] ( ) { } and quotes must balance"},
     ReadResources,
     ResourcesSchema},
    {{"output", "-o", "string", "path on the execution host"},
     ReadOptionValue<&JobRequest::output>,
     OptionValueSchema},
    {{"error", "-e", "string", "path on the execution host"},
     ReadOptionValue<&JobRequest::error>,
     OptionValueSchema},
    {{"cwd", "-cwd", "string", ""}, ReadOptionValue<&JobRequest::cwd>, OptionValueSchema},
    {{"walltime", "-W", "integer or string", "minutes, or \"[hours:]minutes\""},
     ReadWalltime,
     WalltimeSchema},
    {{"memory", "-M", "integer or string", "\"8GB\"-style, in LSF_UNIT_FOR_LIMITS"},
     ReadMemory,
     MemorySchema},
    {{"project", "-P", "string", ""}, ReadName<&JobRequest::project>, NameSchema},
    {{"app", "-app", "string", ""}, ReadName<&JobRequest::app>, NameSchema},
    {{"extra_args", "other options", "array of strings", "allowed bsub options, see below"},
     ReadExtraArgs,
     ExtraArgsSchema},
    {{"workdir", "bsub's working directory", "string",
      "absolute; the job's submission directory, as where you typed bsub"},
     ReadWorkdir,
     WorkdirSchema},
    {{"environment", "bsub's environment", "object of strings",
      "the job's environment, as bsub hands yours on; LSF_ENVDIR stays the daemon's"},
     ReadEnvironment,
     EnvironmentSchema},
    {{"umask", "bsub's umask", "string", "octal, e.g. \"022\""}, ReadUmask, UmaskSchema},
    {{"labels", "", "object of strings",
      "optional tags of the job (GET /v1/jobs?label=, POST /v1/jobs:cancel)"},
     ReadLabels,
     LabelsSchema},
    {{"require_ib", "-R \"select[ib_ok==1]\" (lsload source)", "boolean",
      "default [ib] require_ib"},
     ReadRequireIb,
     BooleanSchema},
};

// Whether the field named `field` (a JobRequestFields() name with a bsub
// option: job_name, slots, resources, ...) is set in `job`.
bool FieldIsSet(const JobRequest& job, std::string_view field) {
  if (field == "job_name") return job.job_name.has_value();
  if (field == "slots") return job.slots.has_value();
  if (field == "resources") return !job.resources.empty();
  if (field == "output") return job.output.has_value();
  if (field == "error") return job.error.has_value();
  if (field == "cwd") return job.cwd.has_value();
  if (field == "walltime") return job.walltime.has_value();
  if (field == "memory") return job.memory.has_value();
  if (field == "project") return job.project.has_value();
  if (field == "app") return job.app.has_value();
  return false;
}

// The #BSUB lines of `job.script` (bsub applies them; lsf::ParseEmbeddedOptions),
// checked as extra_args and the fields are; the script's -n is counted.
Result<void> CheckScript(const JobRequestLimits& limits, JobRequest& job) {
  auto lines = lsf::ParseEmbeddedOptions(*job.script);
  if (!lines) return tl::unexpected(FieldError("script", lines.error().message));
  auto found = lsf::CheckEmbeddedOptions(*lines, limits.max_slots);
  if (!found) return tl::unexpected(FieldError("script", found.error().message));
  if (found->job_name_line != 0 && job.array) {
    return tl::unexpected(FieldError("script", "line " + std::to_string(found->job_name_line) +
                                                   ": #BSUB -J with the `array` field; give the "
                                                   "array's name in `job_name`"));
  }
  for (const auto& option : found->field_options) {
    if (FieldIsSet(job, option.field)) {
      // bsub would take the command line's value and drop the line's.
      return tl::unexpected(FieldError("script", "line " + std::to_string(option.line) +
                                                     ": #BSUB " + option.flag + " and the `" +
                                                     std::string(option.field) +
                                                     "` field both set it; give one"));
    }
    if (option.flag == "-R") job.script_resources.push_back(option.value);
    if (option.flag == "-J") job.script_job_name = option.value;
  }
  job.script_slots = found->slots;
  return {};
}

const Field* FindField(std::string_view key) {
  for (const Field& field : kFields) {
    if (field.doc.name == key) return &field;
  }
  return nullptr;
}

}  // namespace

std::vector<JobRequestField> JobRequestFields(const JobRequestLimits& limits) {
  std::vector<JobRequestField> fields;
  for (const Field& field : kFields) {
    JobRequestField doc{field.doc.name, field.doc.bsub, field.doc.type, field.doc.notes,
                        // A row without a schema shows as a field with none
                        // (tests/api/openapi_document_test.cc names it).
                        field.schema ? field.schema(limits) : json()};
    std::string description(doc.notes);
    if (!doc.bsub.empty()) {
      description += (description.empty() ? "bsub " : " (bsub ") + std::string(doc.bsub) +
                     (description.empty() ? "" : ")");
    }
    if (!description.empty()) doc.schema["description"] = description;
    fields.push_back(std::move(doc));
  }
  return fields;
}

Result<JobRequest> DecodeJobRequest(std::string_view body, const JobRequestLimits& limits) {
  // Duplicate top-level keys would silently keep the last value; refuse them.
  std::set<std::string> seen;
  std::string duplicate;
  const json::parser_callback_t check_keys = [&](int depth, json::parse_event_t event,
                                                 json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 && parsed.is_string() &&
        !seen.insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  const json document = json::parse(body, check_keys, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return Fail(ErrorCode::kInvalidArgument, "body: not valid JSON");
  }
  if (!document.is_object()) {
    return Fail(ErrorCode::kInvalidArgument,
                std::string("body: expected a JSON object, got ") + document.type_name());
  }
  if (!duplicate.empty()) {
    return Fail(ErrorCode::kInvalidArgument, ShownKey(duplicate) + ": given more than once");
  }
  JobRequest job;
  for (const auto& item : document.items()) {
    const std::string& key = item.key();
    Reader read = key == "user" ? RefuseUser : nullptr;
    if (const Field* field = FindField(key)) read = field->read;
    if (read == nullptr) return tl::unexpected(FieldError(ShownKey(key), "unknown field"));
    if (auto ok = read(item.value(), key, limits, job); !ok) return tl::unexpected(ok.error());
  }
  const int bodies =
      int(job.command.has_value()) + int(job.argv.has_value()) + int(job.script.has_value());
  if (bodies != 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "command: give exactly one of `command` (a command string), `argv` (an array) "
                "or `script` (fed to bsub on stdin)");
  }
  if (job.script) {
    if (auto checked = CheckScript(limits, job); !checked) return tl::unexpected(checked.error());
  }
  return job;
}

}  // namespace bplace::api
