#include "tests/lsfsim/bsub_options.h"

#include <cctype>
#include <set>

namespace bplace::lsfsim {
namespace {

// Options that take a value, from the LSF 10.1 bsub man page ("bsub -h
// all"). Multi-letter names are whole options: `-env`, `-eo`, `-Ep`, `-cwd`,
// `-Jd` are not `-e`, `-E` or `-J` with a glued value.
const std::set<std::string>& ValueOptions() {
  static const std::set<std::string> kOptions = {
      "-a",      "-alloc_flags", "-app",      "-b",           "-C",
      "-c",      "-clusters",    "-cn_cu",    "-cn_mem",      "-core_isolation",
      "-csm",    "-cwd",         "-D",        "-data",        "-datagrp",
      "-E",      "-Ep",          "-e",        "-env",         "-eo",
      "-eptl",   "-ext",         "-extsched", "-F",           "-f",
      "-freq",   "-G",           "-g",        "-gpu",         "-hostfile",
      "-i",      "-is",          "-J",        "-Jd",          "-jobaff",
      "-jsdl",   "-jsdl_strict", "-jsm",      "-k",           "-L",
      "-Lp",     "-ln_mem",      "-ln_slots", "-M",           "-m",
      "-mig",    "-n",           "-network",  "-nnodes",      "-notify",
      "-o",      "-oo",          "-outdir",   "-P",           "-p",
      "-pack",   "-ptl",         "-Q",        "-q",           "-R",
      "-rcacct", "-rnc",         "-S",        "-s",           "-sla",
      "-smt",    "-sp",          "-stage",    "-step_cgroup", "-T",
      "-t",      "-U",           "-u",        "-v",           "-W",
      "-We",     "-w",           "-wa",       "-wt"};
  return kOptions;
}

// Options that take no value (same source).
const std::set<std::string>& FlagOptions() {
  static const std::set<std::string> kOptions = {
      "-ar", "-B", "-datachk", "-H", "-hl", "-I",  "-Ip",  "-IS", "-ISp", "-ISs", "-Is", "-IX",
      "-K",  "-N", "-Ne",      "-r", "-rn", "-ti", "-tty", "-ul", "-x",   "-XF",  "-Zs"};
  return kOptions;
}

BsubRequest BadUsage(std::string message) {
  BsubRequest request;
  request.bad_usage = true;
  request.usage_error = std::move(message);
  return request;
}

void SetOption(BsubRequest* request, const std::string& option, const std::string& value) {
  request->options[option] = value;
  if (option == "-R") request->res_reqs.push_back(value);
}

}  // namespace

bool BsubOptionTakesValue(const std::string& option) { return ValueOptions().contains(option); }

bool BsubOptionIsFlag(const std::string& option) { return FlagOptions().contains(option); }

BsubRequest ParseBsub(const std::vector<std::string>& args) {
  BsubRequest request;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') break;
    if (BsubOptionIsFlag(arg)) {
      request.options[arg] = "";
      continue;
    }
    if (BsubOptionTakesValue(arg)) {
      if (i + 1 >= args.size()) {
        return BadUsage("bsub: option requires an argument -- " + arg.substr(1) + "\n");
      }
      SetOption(&request, arg, args[++i]);
      continue;
    }
    // Only a one-letter option may carry its value glued on: -n4, -qnormal.
    std::string flag = arg.substr(0, 2);
    if (BsubOptionTakesValue(flag)) {
      SetOption(&request, flag, arg.substr(2));
      continue;
    }
    return BadUsage("bsub: illegal option -- " + arg.substr(1) + "\n");
  }
  for (; i < args.size(); ++i) request.command_words.push_back(args[i]);
  return request;
}

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The words of one (joined) script line when it is a #BSUB line.
void AddDirectiveWords(const std::string& line, std::vector<std::string>* words) {
  size_t i = 0;
  const auto skip = [&] {
    while (i < line.size() && IsSpace(line[i])) ++i;
  };
  skip();
  if (i >= line.size() || line[i] != '#') return;
  ++i;
  skip();
  if (line.compare(i, 4, "BSUB") != 0) return;
  i += 4;
  skip();
  if (i >= line.size() || line[i] != '-') return;
  while (true) {
    skip();
    if (i >= line.size() || line[i] == '#') return;
    if (line[i] == '\'' || line[i] == '"') {
      const size_t close = line.find(line[i], i + 1);
      if (close == std::string::npos) return;
      words->push_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    const size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) ++i;
    words->push_back(line.substr(start, i - start));
  }
}

}  // namespace

std::vector<std::string> EmbeddedBsubArgs(const std::string& script) {
  std::vector<std::string> words;
  std::string line;
  size_t start = 0;
  while (start < script.size()) {
    const size_t end = script.find('\n', start);
    line += script.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? script.size() : end + 1;
    const bool continued = !line.empty() && line[0] == '#' &&
                           line.find("BSUB") != std::string::npos && line.back() == '\\';
    if (continued && end != std::string::npos) {
      line.pop_back();
      continue;
    }
    AddDirectiveWords(line, &words);
    line.clear();
  }
  return words;
}

void ApplyEmbedded(BsubRequest* request, const BsubRequest& embedded) {
  for (const auto& [option, value] : embedded.options) {
    if (option == "-R") continue;
    request->options.emplace(option, value);
  }
  if (request->res_reqs.empty() && !embedded.res_reqs.empty()) {
    request->res_reqs = embedded.res_reqs;
    request->options["-R"] = embedded.res_reqs.back();
  }
}

std::string BsubCommandLine(const std::vector<std::string>& words) {
  if (words.empty()) return "";
  std::string line = words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    line += ' ';
    if (word.find(' ') != std::string::npos) {
      bool single = word.find('"') != std::string::npos || word.find('$') != std::string::npos;
      line += (single ? "'" : "\"") + word + (single ? "'" : "\"");
      continue;
    }
    bool dollar = !word.empty() && word[0] == '$';
    if (dollar) line += '\'';
    for (char c : word) {
      if (c == '"' || c == '\'' || c == '\\' || c == '(' || c == ')') line += '\\';
      line += c;
    }
    if (dollar) line += '\'';
  }
  return line;
}

}  // namespace bplace::lsfsim
