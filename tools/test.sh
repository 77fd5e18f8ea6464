#!/usr/bin/env bash
# Builds bplace with warnings as errors and runs every test (unit, integration
# against the bundled LSF simulator; `hw` tests skip without hardware).
# Usage: tools/test.sh [extra ctest arguments]
# BPLACE_SANITIZE=1 builds and tests under AddressSanitizer + UBSan instead.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
# Include layering between the units (tools/check-layering), and its own tests.
python3 tests/tools/check_layering_test.py
tools/check-layering
# Local users alice and bob for the multi-user tests (only as root; those
# tests skip otherwise).
tools/test-users.sh
if [ "$(id -u)" -eq 0 ]; then
  # The integration tests run bplaced as bplace-sys and LSF commands as alice
  # and bob: they must be able to reach the build tree. Give "others" search
  # (x, not read) on the directories above the checkout where it is missing.
  dir=$(pwd)
  while [ "$dir" != "/" ]; do
    if [ "$(( $(stat -c '%a' "$dir" | sed 's/^/0/') & 1 ))" -eq 0 ]; then
      echo "test.sh: chmod o+x $dir (the test users must reach the build tree)" >&2
      chmod o+x "$dir"
    fi
    dir=$(dirname "$dir")
  done
fi

build_dir=build/test
sanitize=OFF
if [ "${BPLACE_SANITIZE:-0}" = "1" ]; then
  build_dir=build/asan
  sanitize=ON
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBPLACE_WERROR=ON -DBPLACE_SANITIZE="$sanitize"
cmake --build "$build_dir" -j"$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" --timeout 300 "$@"
