#include "tests/lsfsim/openlava.h"

#include <cctype>
#include <ctime>

#include "tests/lsfsim/bjobs_fields.h"
#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

// bsub's getopt template in volclava's fillReq (lsbatch/cmd/cmd.sub.c),
// in its order: the name and whether it takes a value.
constexpr std::pair<const char*, bool> kBsubTemplate[] = {
    {"E", true},  {"T", true},  {"a", true},  {"w", true},  {"f", true},   {"k", true},
    {"R", true},  {"m", true},  {"Jd", true}, {"J", true},  {"L", true},   {"u", true},
    {"is", true}, {"i", true},  {"o", true},  {"e", true},  {"Zs", false}, {"n", true},
    {"q", true},  {"b", true},  {"t", true},  {"sp", true}, {"s", true},   {"c", true},
    {"v", true},  {"p", true},  {"W", true},  {"F", true},  {"D", true},   {"S", true},
    {"C", true},  {"M", true},  {"O", true},  {"P", true},  {"Ip", false}, {"Is", false},
    {"I", false}, {"r", false}, {"H", false}, {"x", false}, {"N", false},  {"B", false},
    {"h", false}, {"V", false}, {"X", true},  {"K", false}};

constexpr const char* kOpenLavaFields[] = {"JOBID",     "USER",       "STAT",       "QUEUE",
                                           "FROM_HOST", "EXEC_HOST",  "JOB_NAME",   "SUBMIT_TIME",
                                           "PROJ_NAME", "CPU_USED",   "MEM",        "SWAP",
                                           "PIDS",      "START_TIME", "FINISH_TIME"};

bool AllDigits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// setOption_'s check of -c: [hour:]minute[/host_spec], each a number.
bool CpuLimitValid(const std::string& value) {
  std::string limit = value.substr(0, value.find('/'));
  size_t colon = limit.find(':');
  if (colon == std::string::npos) return AllDigits(limit);
  return AllDigits(limit.substr(0, colon)) && AllDigits(limit.substr(colon + 1));
}

BsubRequest BsubUsageError(const std::string& line) {
  BsubRequest request;
  request.bad_usage = true;
  request.usage_error = line;
  return request;
}

// my_getopt on one option word (without its dash) at args[*i]: the
// template entry it matches and its value.
std::optional<BsubRequest> TakeOption(const std::vector<std::string>& args, size_t* i,
                                      BsubRequest* request) {
  std::string word = args[*i].substr(1);
  for (auto [name, takes_value] : kBsubTemplate) {
    std::string option = name;
    if (word == option) {
      if (!takes_value) {
        request->options["-" + option] = "";
        return std::nullopt;
      }
      if (*i + 1 >= args.size()) {
        return BsubUsageError("bsub: option requires an argument -- " + word + "\n");
      }
      request->options["-" + option] = args[++*i];
    } else if (word.compare(0, option.size(), option) == 0) {
      if (!takes_value)
        return BsubUsageError("bsub: option cannot have an argument -- " + option + "\n");
      request->options["-" + option] = word.substr(option.size());
    } else {
      continue;
    }
    if (option == "R") request->res_reqs.push_back(request->options["-R"]);
    const std::string& value = request->options["-" + option];
    if (option == "c" && !CpuLimitValid(value)) {
      request->refused = value + ": Bad CPULIMIT specification";
    } else if (option == "M" &&
               (!AllDigits(value) || value.find_first_not_of('0') == std::string::npos)) {
      request->refused = value + ": MEMLIMT value should be a positive integer";
    }
    return std::nullopt;
  }
  return BsubUsageError("bsub: illegal option -- " + word + "\n");
}

// "12/01-11:01:01" (volclava's Time2String), "-" for no time.
std::string MonthDayTime(long long epoch_seconds) {
  if (epoch_seconds == 0) return "-";
  time_t t = static_cast<time_t>(epoch_seconds);
  struct tm local {};
  localtime_r(&t, &local);
  return StrPrintf("%02d/%02d-%02d:%02d:%02d", local.tm_mon + 1, local.tm_mday, local.tm_hour,
                   local.tm_min, local.tm_sec);
}

// "000:00:00.01" (volclava's Timer2String).
std::string CpuText(double seconds) {
  int whole = static_cast<int>(seconds);
  int hundredths = static_cast<int>(seconds * 100.0) % 100;
  return StrPrintf("%03d:%02d:%02d.%02d", whole / 3600, whole % 3600 / 60, whole % 60, hundredths);
}

// cJSON's print_string_ptr.
std::string CJsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c < 32 ? StrPrintf("\\u%04x", c) : std::string(1, static_cast<char>(c));
    }
  }
  return out + "\"";
}

}  // namespace

std::string OpenlavaVersionBanner() { return "volclava project 2.2, Nov 30 2026\n"; }

BsubRequest ParseBsubOpenlava(const std::vector<std::string>& args) {
  BsubRequest request;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "-") return BsubUsageError("bsub: illegal option -- -\n");
    if (auto bad = TakeOption(args, &i, &request)) return *bad;
    if (!request.refused.empty()) return request;
  }
  for (; i < args.size(); ++i) request.command_words.push_back(args[i]);
  return request;
}

bool OpenlavaResReqHasUnit(const std::string& res_req) {
  for (size_t i = 1; i < res_req.size(); ++i) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(res_req[i])));
    if (std::isdigit(static_cast<unsigned char>(res_req[i - 1])) &&
        std::string("KMGTPE").find(unit) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::pair<std::vector<std::string>, std::string> ParseOpenlavaFormat(const std::string& spec,
                                                                     bool dedup) {
  std::vector<std::string> fields;
  for (std::string name : SplitWs(spec)) {
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    bool known = false;
    for (const char* field : kOpenLavaFields) known = known || name == field;
    if (!known) return {{}, "<" + name + "> in the format string is not a valid field name."};
    bool seen = false;
    for (const std::string& field : fields) seen = seen || field == name;
    if (!dedup || !seen) fields.push_back(name);
  }
  return {fields, ""};
}

std::string OpenlavaFieldValue(const std::string& field, const Job& job, bool json) {
  if (field == "EXEC_HOST") {
    if (IsPending(job)) return json ? "" : "-";
    return job.exec_host.empty() ? "   -   " : job.exec_host;
  }
  if (field == "CPU_USED") return CpuText(job.cpu_s);
  if (field == "MEM" || field == "SWAP") return "0";
  if (field == "PIDS") return job.pgid > 0 ? std::to_string(job.pgid) : "-";
  if (field == "START_TIME") return MonthDayTime(job.start_time);
  if (field == "FINISH_TIME") return MonthDayTime(job.end_time);
  return BjobsFieldValue(field, job);
}

std::string OpenlavaBjobsJson(
    const std::vector<std::vector<std::pair<std::string, std::string>>>& records) {
  std::string out = "{\n\t\"COMMAND\":\t\"bjobs\",\n";
  out += StrPrintf("\t\"JOBS\":\t%zu,\n\t\"RECORDS\":\t[", records.size());
  for (size_t r = 0; r < records.size(); ++r) {
    out += r == 0 ? "{\n" : ", {\n";
    for (size_t f = 0; f < records[r].size(); ++f) {
      out += "\t\t\t" + CJsonString(records[r][f].first) + ":\t" +
             CJsonString(records[r][f].second) + (f + 1 < records[r].size() ? ",\n" : "\n");
    }
    out += "\t\t}";
  }
  return out + "]\n}\n";
}

std::string OpenlavaBjobsUsage() {
  return "Usage: bjobs [-h] [-V] [-w |-l |-UF] [-a] [-d] [-p] [-s] [-r] [-o] [-json] [-A]\n"
         "             [-m host_name] [-q queue_name] [-u user_name | -u all]\n"
         "             [-P project_name] [-N host_spec]\n"
         "             [-J name_spec] [jobId | \"jobId[idxList]\" ...]\n";
}

}  // namespace bplace::lsfsim
