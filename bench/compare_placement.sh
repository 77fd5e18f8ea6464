#!/usr/bin/env bash
# Compares the placement latency of two placement_bench binaries (e.g. the
# build of an older commit and today's), alternating them so that both see
# the same machine noise, and prints each side's minimum and median CPU time
# per placement and the ratios.
# Usage: bench/compare_placement.sh OLD_BENCH NEW_BENCH [PAIRS]
set -euo pipefail
old=${1:?usage: $0 OLD_BENCH NEW_BENCH [PAIRS]}
new=${2:?usage: $0 OLD_BENCH NEW_BENCH [PAIRS]}
pairs=${3:-8}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq 1 "$pairs"); do
  for side in old new; do
    bin=$old
    [ "$side" = new ] && bin=$new
    "$bin" --benchmark_filter='BM_Place' --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true 2>/dev/null |
      awk -v side="$side" '/_median/ {print side, $1, $4}' >>"$out"
  done
done
python3 - "$out" <<'PY'
import collections, statistics, sys
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    side, name, cpu = line.split()
    times[(side, name.replace("_median", ""))].append(float(cpu))
for name in sorted({n for _, n in times}):
    old, new = times[("old", name)], times[("new", name)]
    print(f"{name}: old min {min(old):.1f} us, median {statistics.median(old):.1f} us; "
          f"new min {min(new):.1f} us, median {statistics.median(new):.1f} us; "
          f"new/old {min(new) / min(old):.3f} (min), "
          f"{statistics.median(new) / statistics.median(old):.3f} (median)")
PY
echo "machine after: load average $(cut -d' ' -f1-3 /proc/loadavg)"
