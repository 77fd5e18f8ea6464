#!/bin/sh
# The figures of bench/README.md "Wait prediction (issue 23)":
#   bench/wait_replay.sh [BUILD_DIR] [LOG.swf ...]
# replays four generated logs (100,000 jobs each: seeds 2, 3, 4 at offered
# load 0.7 -> 0.9, seed 5 at 0.8 -> 0.95) and every log given (a Parallel
# Workloads Archive log by path, or a workload model's output first given
# waits by `wait_replay schedule`). Deterministic: same build, same figures.
set -eu
build=${1:-build/test}
[ $# -gt 0 ] && shift
tool=$build/bench/wait_replay
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for spec in "2 0.7 0.9" "3 0.7 0.9" "4 0.7 0.9" "5 0.8 0.95"; do
  seed=${spec%% *}; rest=${spec#* }; load=${rest%% *}; after=${rest#* }
  "$tool" generate --jobs 100000 --seed "$seed" --load "$load" --load-after "$after" \
    > "$dir/gen-$seed.swf"
  echo "## generated: seed $seed, offered load $load -> $after"
  "$tool" replay "$dir/gen-$seed.swf"
  echo
done
for log in "$@"; do
  echo "## $log"
  "$tool" replay "$log"
  echo
done
