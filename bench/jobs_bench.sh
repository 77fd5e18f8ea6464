#!/usr/bin/env bash
# Reproduces every figure of bench/README.md "Jobs: one bjobs for everyone, and
# exactly once under kill -9" in one run (about 15 minutes on 2 cores): the
# machine and its load, then jobs_bench polling (mbatchd's bjobs per minute with
# 1 and 200 clients, GET latency), cpu (bplaced's CPU per jobs refresh at 1,000
# and 10,000 followed jobs), storm (GET latency during 200 keyed submissions)
# and crash (kill -9 loop: jobs in LSF vs keys), each with its defaults.
# Usage: bench/jobs_bench.sh [BUILD_DIR] (default build/test, tools/test.sh's);
# build it first: cmake --build BUILD_DIR --target jobs_bench. Needs wrk.
set -uo pipefail
cd "$(dirname "$0")/.."
bench="${1:-build/test}/bench/jobs_bench"
if [ ! -x "$bench" ]; then
  echo "jobs_bench.sh: no $bench (cmake --build ${1:-build/test} --target jobs_bench)" >&2
  exit 2
fi
command -v wrk >/dev/null || { echo "jobs_bench.sh: wrk is not on PATH (apt-get install wrk)" >&2; exit 2; }

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "$(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sr), commit $(git rev-parse --short HEAD 2>/dev/null)"
status=0
for mode in polling storm cpu crash; do
  echo "== $(date '+%F %T') uptime:$(uptime | sed 's/.*up/ up/')"
  echo "== $bench $mode"
  "$bench" "$mode" || status=1
done
echo "== $(date '+%F %T') uptime:$(uptime | sed 's/.*up/ up/')"
exit $status
