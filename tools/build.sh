#!/usr/bin/env bash
# Configures and builds the one build tree the demo and the tests share, so
# that what tools/run-demo.sh compiled, tools/test.sh does not compile again.
# Usage: tools/build.sh [TARGET...]     (no TARGET: everything)
#        tools/build.sh --dir            prints the tree's path, builds nothing
# The tree: build/test, RelWithDebInfo with line tables only (-g1: backtraces
# and sanitizer reports keep file:line, a debugger sees no local variables; a
# quarter less compile time, bench/README.md "Build time (issue 24)"),
# warnings as errors; with BPLACE_SANITIZE=1, build/asan under
# AddressSanitizer and UBSan instead. For a debugger, configure a tree of your
# own with -g. A tree configured before keeps its other settings (a compiler
# launcher such as ccache, given once with
# -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build/test
sanitize=OFF
if [ "${BPLACE_SANITIZE:-0}" = "1" ]; then
  build_dir=build/asan
  sanitize=ON
fi
if [ "${1:-}" = --dir ]; then
  echo "$build_dir"
  exit 0
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DBPLACE_WERROR=ON -DBPLACE_SANITIZE="$sanitize" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"
