#!/usr/bin/env bash
# Measures every row of the site-scale table in one run (bench/README.md "Site
# scale (issue 12): every row in one run"; about 7 minutes on 2 cores): the
# machine and its load, then `site_bench all` with its defaults (300 queues x
# 5,000 and 20,000 hosts, nginx for the static-file comparisons), which ends
# with a Markdown table to paste. Extra arguments go to site_bench
# (--window-s 30, --wrk-s 20, ...).
# Usage: bench/site_bench.sh [BUILD_DIR] [--flag value ...] (default build/test,
# tools/test.sh's); build it first: cmake --build BUILD_DIR --target site_bench.
# Needs wrk; without /usr/sbin/nginx (Debian package nginx-light) the nginx
# comparisons are skipped. Every server listens on 127.0.0.1 only.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build/test
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  build=$1
  shift
fi
bench="$build/bench/site_bench"
if [ ! -x "$bench" ]; then
  echo "site_bench.sh: no $bench (cmake --build $build --target site_bench)" >&2
  exit 2
fi
command -v wrk >/dev/null || { echo "site_bench.sh: wrk is not on PATH (apt-get install wrk)" >&2; exit 2; }

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "$(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sr), commit $(git rev-parse --short HEAD 2>/dev/null)," \
  "build $(grep -m1 '^CMAKE_BUILD_TYPE' "$build/CMakeCache.txt" 2>/dev/null | cut -d= -f2)," \
  "$(/usr/sbin/nginx -v 2>&1 || echo 'no nginx'), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "== $(date -u '+%F %T UTC') uptime:$(uptime | sed 's/.*up/ up/')"
"$bench" all "$@"
status=$?
echo "== $(date -u '+%F %T UTC') uptime:$(uptime | sed 's/.*up/ up/')"
exit $status
