#include "lsf_adapter/bsub_command.h"

#include <algorithm>
#include <iterator>

namespace bplace::lsf {
namespace {

void Add(std::vector<std::string>& argv, const char* flag,
         const std::optional<std::string>& value) {
  if (!value) return;
  argv.emplace_back(flag);
  argv.push_back(*value);
}

bool IsPlainShellChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
}

// bsub options (LSF 10.1) a caller may add, and whether each takes a value.
struct AllowedOption {
  std::string_view flag;
  bool takes_value;
};
constexpr AllowedOption kAllowed[] = {
    {"-a", true},        {"-alloc_flags", true},
    {"-b", true},        {"-B", false},
    {"-C", true},        {"-c", true},
    {"-clusters", true}, {"-cn_cu", true},
    {"-cn_mem", true},   {"-core_isolation", true},
    {"-csm", true},      {"-D", true},
    {"-data", true},     {"-datagrp", true},
    {"-E", true},        {"-Ep", true},
    {"-eo", true},       {"-env", true},
    {"-eptl", true},     {"-ext", true},
    {"-F", true},        {"-f", true},
    {"-freq", true},     {"-G", true},
    {"-g", true},        {"-gpu", true},
    {"-H", false},       {"-hl", false},
    {"-i", true},        {"-is", true},
    {"-jsm", true},      {"-k", true},
    {"-L", true},        {"-Lp", true},
    {"-N", false},       {"-Ne", false},
    {"-network", true},  {"-oo", true},
    {"-outdir", true},   {"-p", true},
    {"-ptl", true},      {"-Q", true},
    {"-r", false},       {"-rn", false},
    {"-S", true},        {"-sla", true},
    {"-sp", true},       {"-T", true},
    {"-t", true},        {"-U", true},
    {"-u", true},        {"-ul", false},
    {"-x", false},       {"-v", true},
    {"-We", true},       {"-w", true},
    {"-wa", true},       {"-wt", true},
    {"-s", true},
};
// Options the daemon sets on every command line (or from the placement),
// with the request field that chooses them.
constexpr BsubOptionRule kDaemonSet[] = {
    {"-q", BsubOptionUse::kDaemon, true, "use the queues field"},
    {"-m", BsubOptionUse::kDaemon, true, "use the host field"},
    {"-Jd", BsubOptionUse::kDaemon, true, "it tags every job bplace:<tag>"},
};
// Options that have a request field: refused in extra_args (the field says
// it), accepted in a script's #BSUB lines with the checks of their field.
constexpr BsubOptionRule kHasField[] = {
    {"-J", BsubOptionUse::kField, true, "job_name"},  {"-n", BsubOptionUse::kField, true, "slots"},
    {"-R", BsubOptionUse::kField, true, "resources"}, {"-o", BsubOptionUse::kField, true, "output"},
    {"-e", BsubOptionUse::kField, true, "error"},     {"-cwd", BsubOptionUse::kField, true, "cwd"},
    {"-W", BsubOptionUse::kField, true, "walltime"},  {"-M", BsubOptionUse::kField, true, "memory"},
    {"-P", BsubOptionUse::kField, true, "project"},   {"-app", BsubOptionUse::kField, true, "app"},
};
// Options that make bsub wait or take a terminal (-I*, -K, -tty, -XF), or
// replace the submission (-pack, -h, -V, -Zs).
constexpr std::string_view kBlocking[] = {"-I", "-Ip",  "-Is", "-IS",   "-ISp", "-ISs", "-IX",
                                          "-K", "-tty", "-XF", "-pack", "-h",   "-V",   "-Zs"};

// Words a POSIX shell (or bash, LSF's usual job shell) reads as syntax when
// they stand bare in command position: "if x" is a syntax error, "time x"
// runs bash's keyword rather than the program.
constexpr std::string_view kShellReservedWords[] = {
    "case",     "coproc", "do", "done",   "elif", "else", "esac",  "fi",   "for",
    "function", "if",     "in", "select", "then", "time", "until", "while"};

template <std::size_t N>
bool IsListed(const std::string_view (&list)[N], std::string_view flag) {
  return std::find(std::begin(list), std::end(list), flag) != std::end(list);
}

}  // namespace

BsubOptionRule FindBsubOption(std::string_view flag) {
  for (const BsubOptionRule& rule : kDaemonSet) {
    if (rule.flag == flag) return rule;
  }
  for (const BsubOptionRule& rule : kHasField) {
    if (rule.flag == flag) return rule;
  }
  if (IsListed(kBlocking, flag)) return {flag, BsubOptionUse::kBlocking, false, ""};
  for (const AllowedOption& option : kAllowed) {
    if (option.flag == flag) return {flag, BsubOptionUse::kPassed, option.takes_value, ""};
  }
  return {flag, BsubOptionUse::kUnknown, false, ""};
}

std::vector<std::string> BuildBsubArgv(const std::string& bsub_path, const BsubOptions& options) {
  std::vector<std::string> argv{bsub_path, "-q", options.queue};
  Add(argv, "-m", options.host);
  argv.emplace_back("-Jd");
  argv.push_back(options.description);
  if (options.array) {
    // LSF 10.1 job array: -J "name[index_list]".
    argv.emplace_back("-J");
    argv.push_back(options.job_name.value_or(kDefaultArrayName) + "[" + *options.array + "]");
  } else {
    Add(argv, "-J", options.job_name);
  }
  if (options.slots) Add(argv, "-n", std::to_string(*options.slots));
  for (const std::string& resources : options.resources) Add(argv, "-R", resources);
  Add(argv, "-R", options.daemon_resources);
  Add(argv, "-o", options.output);
  Add(argv, "-e", options.error);
  Add(argv, "-cwd", options.cwd);
  Add(argv, "-W", options.walltime);
  Add(argv, "-M", options.memory);
  Add(argv, "-P", options.project);
  Add(argv, "-app", options.app);
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  if (options.command && !options.script_on_stdin) argv.push_back(*options.command);
  return argv;
}

std::string ShellQuote(std::string_view word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), IsPlainShellChar)) {
    return std::string(word);
  }
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string JoinShellQuoted(const std::vector<std::string>& argv) {
  std::string joined;
  for (const std::string& word : argv) {
    if (joined.empty() && ((word.find('=') != std::string::npos && word.front() != '\'') ||
                           IsListed(kShellReservedWords, word))) {
      // A bare "A=b" in command position is a variable assignment, and a bare
      // "if" a keyword, not a program: quote it so the shell runs it as the
      // command it was meant to be.
      const std::string quoted = ShellQuote(word);
      joined = quoted.front() == '\'' ? quoted : "'" + quoted + "'";
      continue;
    }
    if (!joined.empty()) joined += ' ';
    joined += ShellQuote(word);
  }
  return joined;
}

Result<void> CheckExtraArgs(const std::vector<std::string>& extra_args) {
  for (std::size_t i = 0; i < extra_args.size(); ++i) {
    const std::string& arg = extra_args[i];
    const std::string where = "extra_args[" + std::to_string(i) + "] " + ShellQuote(arg);
    if (arg.empty() || arg.front() != '-') {
      return Fail(ErrorCode::kInvalidArgument,
                  where +
                      ": not a bsub option (bsub would take it as the job command; put the "
                      "command in `command`, `argv` or `script`)");
    }
    const BsubOptionRule rule = FindBsubOption(arg);
    if (rule.use == BsubOptionUse::kDaemon || rule.use == BsubOptionUse::kField) {
      return Fail(ErrorCode::kInvalidArgument,
                  where +
                      ": set by bplace itself or by a request field (queue/host placement, "
                      "job_name, slots, resources, output, error, cwd, walltime, memory, "
                      "project, app)");
    }
    if (rule.use == BsubOptionUse::kBlocking) {
      return Fail(ErrorCode::kInvalidArgument,
                  where +
                      ": makes bsub wait, take a terminal or not submit; not allowed "
                      "through the daemon");
    }
    if (rule.use == BsubOptionUse::kUnknown) {
      return Fail(ErrorCode::kInvalidArgument,
                  where + ": not a bsub option bplace passes on (see docs/api.md, extra_args)");
    }
    if (rule.takes_value) {
      if (i + 1 >= extra_args.size()) {
        return Fail(ErrorCode::kInvalidArgument, where + ": needs a value after it");
      }
      ++i;
      // The rule of every field's value (README): bsub would read a value
      // starting with '-' as an option, and ["-G", "-q"] smuggles one past
      // the check that refuses -q.
      if (!extra_args[i].empty() && extra_args[i].front() == '-') {
        return Fail(ErrorCode::kInvalidArgument, "extra_args[" + std::to_string(i) + "] " +
                                                     ShellQuote(extra_args[i]) + ": the value of " +
                                                     arg +
                                                     " starts with '-' (bsub would read it as an "
                                                     "option)");
      }
    }
  }
  return {};
}

std::optional<bool> ExtraArgTakesValue(std::string_view flag) {
  const BsubOptionRule rule = FindBsubOption(flag);
  if (rule.use != BsubOptionUse::kPassed) return std::nullopt;
  return rule.takes_value;
}

}  // namespace bplace::lsf
