#include "daemon/submit/caller_jobs.h"

#include <string_view>
#include <utility>

#include "daemon/submit/submitter.h"
#include "lsf_adapter/bjobs_command.h"
#include "lsf_adapter/bjobs_long_parser.h"
#include "lsf_adapter/command_failure.h"
#include "lsf_adapter/lsf_messages.h"

namespace bplace {
namespace {

// Fields enough to recognise a job by its description or its name.
constexpr char kFields[] = "jobid stat queue user job_name job_description";

// A caller's jobs from `bjobs -a -l -u CALLER`, as the records Settle reads.
Result<std::vector<lsf::JobRecord>> LongRecords(Result<lsf::CommandResult> result) {
  if (result && result->exit_code != 0 && result->out.empty()) {
    // "No job found": a caller without jobs is an answer.
    if (lsf::ReasonLine(result->out, result->err).find("No ") != std::string_view::npos) {
      return std::vector<lsf::JobRecord>{};
    }
  }
  auto text = lsf::QueryOutput("bjobs -a -l", std::move(result));
  if (!text) return tl::unexpected(text.error());
  auto blocks = lsf::ParseBjobsLong(*text);
  if (!blocks) return tl::unexpected(blocks.error());
  std::vector<lsf::JobRecord> records;
  for (const lsf::JobLongRecord& block : *blocks) {
    lsf::JobRecord record;
    record.job_id = block.job_id;
    record.array_index = block.array_index;
    record.user = block.user;
    record.status = block.status;
    record.queue = block.queue;
    record.job_name = block.job_name;
    record.job_description = block.job_description;
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace

lsf::CommandSpec CallerJobsQuery(const lsf::LsfInvoker& lsf, const std::string& caller,
                                 bool long_form) {
  lsf::CommandSpec spec = lsf.Spec("bjobs", {"-a", "-u", caller, "-o", kFields, "-json"});
  if (long_form) spec.argv = lsf::BjobsLongArgv(lsf.Path("bjobs"), caller);
  // A name bjobs may not be given still gets a query: one that fails.
  if (spec.argv.empty()) spec.argv = {lsf.Path("bjobs"), "-u", "-"};
  return spec;
}

Result<std::vector<lsf::JobRecord>> ReadCallerJobs(Result<lsf::CommandResult> result,
                                                   bool long_form) {
  return long_form ? LongRecords(std::move(result)) : lsf::ReadBjobsReply(std::move(result), true);
}

bool CarriesTag(const lsf::JobRecord& job, const std::string& tag) {
  if (job.job_description == DescriptionTag(tag)) return true;
  std::string_view name = job.job_name;
  if (!name.empty() && name.back() == ']') {
    if (const std::size_t open = name.rfind('['); open != std::string_view::npos) {
      name = name.substr(0, open);
    }
  }
  const std::string alone = TaggedJobName("", tag);
  return name == alone || (name.size() > alone.size() && name.ends_with(alone) &&
                           name[name.size() - alone.size() - 1] == '.');
}

const lsf::JobRecord* FindTagged(const std::vector<lsf::JobRecord>& jobs, const std::string& tag) {
  for (const lsf::JobRecord& job : jobs) {
    if (!job.not_found && CarriesTag(job, tag)) return &job;
  }
  return nullptr;
}

}  // namespace bplace
