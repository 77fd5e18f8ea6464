// bplace-lsf: the front door's one binary, installed as bsub, bjobs and
// bkill (links to it in <prefix>/libexec/bplace/lsf, first on PATH); it
// acts as the command it is called as (docs/lsf-front-door.md).

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "client/caller_context.h"
#include "frontdoor/front_door.h"

namespace {

bool IsFrontDoorCommand(const std::string& name) {
  return name == "bsub" || name == "bjobs" || name == "bkill";
}

}  // namespace

int main(int argc, char** argv) {
  const char* slash = std::strrchr(argv[0], '/');
  std::string command = slash != nullptr ? slash + 1 : argv[0];
  int first = 1;
  if (!IsFrontDoorCommand(command) && argc > 1) {
    command = argv[1];  // bplace-lsf bsub ...
    first = 2;
  }
  if (!IsFrontDoorCommand(command)) {
    std::fprintf(stderr,
                 "usage: bplace-lsf bsub|bjobs|bkill [ARGS...] (or run it as bsub, bjobs, "
                 "bkill)\n");
    return 2;
  }
  const std::vector<std::string> args(argv + first, argv + argc);
  return bplace::frontdoor::RunCommand(
      command, args, bplace::frontdoor::SettingsFrom(bplace::client::EnvironmentMap()));
}
