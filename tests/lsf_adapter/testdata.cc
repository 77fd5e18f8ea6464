#include "tests/lsf_adapter/testdata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace bplace::lsf::testing {

std::string ReadTestdata(std::string_view relative_path) {
  const std::string path = std::string(BPLACE_TESTDATA_DIR) + "/" + std::string(relative_path);
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

std::vector<std::string> ReadTestdataFiles(std::initializer_list<const char*> relative_paths) {
  std::vector<std::string> texts;
  for (const char* path : relative_paths) texts.push_back(ReadTestdata(path));
  return texts;
}

std::vector<BsubCase> ReadBsubCases(std::string_view relative_path) {
  std::istringstream text(ReadTestdata(relative_path));
  std::vector<BsubCase> cases;
  enum class Section { kKeys, kOut, kErr } section = Section::kKeys;
  std::string line;
  while (std::getline(text, line)) {
    if (line.rfind("=== ", 0) == 0) {
      cases.push_back(BsubCase{});
      cases.back().name = line.substr(4);
      section = Section::kKeys;
      continue;
    }
    if (cases.empty()) continue;  // file comment
    BsubCase& c = cases.back();
    if (line == "--- stdout") {
      section = Section::kOut;
    } else if (line == "--- stderr") {
      section = Section::kErr;
    } else if (section == Section::kOut) {
      c.out += line + "\n";
    } else if (section == Section::kErr) {
      c.err += line + "\n";
    } else {
      const std::size_t colon = line.find(": ");
      const std::string key = line.substr(0, colon == std::string::npos ? line.size() : colon);
      const std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
      if (key == "source") c.source = value;
      if (key == "exit") c.exit_code = std::stoi(value);
      if (key == "outcome") c.outcome = value;
      if (key == "job_id") c.job_id = value;
      if (key == "queue") c.queue = value;
      if (key == "message") c.message = value;
      if (key == "prefix" || key == "prefix:") {
        c.prefix = value;
        c.has_prefix = true;
      }
    }
  }
  return cases;
}

std::string WithCrlf(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace bplace::lsf::testing
