#include "bench/bench_util.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "common/text.h"

namespace bplace::bench {
namespace {

// `text` as a count: decimal digits only, within int.
int Count(const std::string& flag, const std::string& text) {
  int value = -1;
  if (AllDigits(text)) {
    try {
      value = std::stoi(text);
    } catch (const std::out_of_range&) {
      value = -1;
    }
  }
  if (value < 0) throw std::invalid_argument("--" + flag + ": not a count: " + text);
  return value;
}

}  // namespace

Flags::Flags(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); i += 2) {
    if (args[i].rfind("--", 0) != 0 || i + 1 >= args.size()) {
      throw std::invalid_argument("expected --name value, got " + args[i]);
    }
    values_[args[i].substr(2)] = args[i + 1];
  }
}

int Flags::Int(const std::string& name, int fallback) {
  used_.insert(name);
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : Count(name, it->second);
}

std::string Flags::String(const std::string& name, const std::string& fallback) {
  used_.insert(name);
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::vector<int> Flags::Ints(const std::string& name, const std::string& fallback) {
  used_.insert(name);
  const auto it = values_.find(name);
  std::stringstream in(it == values_.end() ? fallback : it->second);
  std::vector<int> out;
  for (std::string item; std::getline(in, item, ',');) out.push_back(Count(name, item));
  return out;
}

std::pair<int, int> Flags::Range(const std::string& name, std::pair<int, int> fallback) {
  used_.insert(name);
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  const std::size_t dash = text.find('-');
  if (dash == std::string::npos) {
    throw std::invalid_argument("--" + name + ": not a range MIN-MAX: " + text);
  }
  const int low = Count(name, text.substr(0, dash));
  const int high = Count(name, text.substr(dash + 1));
  if (high < low) throw std::invalid_argument("--" + name + ": MAX below MIN: " + text);
  return {low, high};
}

void Flags::CheckAllKnown() const {
  for (const auto& [name, value] : values_) {
    if (!used_.contains(name)) throw std::invalid_argument("unknown flag --" + name);
  }
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

std::string Timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

int RunMain(int argc, char** argv, const char* name,
            const std::function<int(const std::vector<std::string>&)>& main_function) {
  try {
    return main_function(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& error) {
    std::cerr << name << ": " << error.what() << "\n";
    return 1;
  }
}

}  // namespace bplace::bench
