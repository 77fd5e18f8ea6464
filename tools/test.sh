#!/usr/bin/env bash
# Builds bplace with warnings as errors and runs every test (unit, integration
# against the bundled LSF simulator; `hw` tests skip without hardware).
# Usage: tools/test.sh [extra ctest arguments]
# BPLACE_SANITIZE=1 builds and tests under AddressSanitizer + UBSan instead.
set -euo pipefail
cd "$(dirname "$0")/.."

# The build's packages now (or, when they cannot be installed, the command
# that installs them all); the tests' (a browser, Prometheus, the workflow
# engines, the packaging tools: minutes on a fresh machine) install beside
# the build, which needs none of them (its configure step looks for no
# program). Their output goes to build/install-deps.log.
tools/install-deps.sh --build-first
mkdir -p build
deps_log=build/install-deps.log
tools/install-deps.sh >"$deps_log" 2>&1 &
deps=$!
# The tree tools/run-demo.sh builds its part of (tools/build.sh): what the
# demo compiled is not compiled again.
if ! tools/build.sh; then
  wait "$deps" || true
  exit 1
fi
if ! wait "$deps"; then
  cat "$deps_log" >&2
  echo "test: installing the tests' packages failed (above; $deps_log)" >&2
  exit 1
fi
# Include layering between the units (tools/check-layering), and its own tests.
python3 tests/tools/check_layering_test.py
tools/check-layering
# Every document a comment cites is in the repo, and the docs' links resolve
# (its own tests run as the ctest check_doc_refs_test).
tools/check-doc-refs
# Every source's test is found by its name, or in tests/README.md "Sources
# tested elsewhere" (its own tests run as the ctest check_test_mirror_test).
tools/check-test-mirror
# Local users alice and bob for the multi-user tests (only as root; those
# tests skip otherwise).
tools/test-users.sh
# As root, the integration tests run bplaced as bplace-sys and LSF commands as
# alice and bob: they must reach the build tree (a checkout in /root, mode
# 700, would stop them).
tools/make-reachable.sh . "the test users"

ctest --test-dir "$(tools/build.sh --dir)" --output-on-failure -j"$(nproc)" --timeout 300 "$@"
