#!/usr/bin/env bash
# Runs the whole suite (tools/test.sh: packages, layering checks, build,
# ctest) several times in a row, to find tests that fail only sometimes, and
# prints which tests failed in which run.
#
# Usage: tools/test-loop.sh [-n RUNS] [--load[=HOGS]] [--logs DIR] [-- CTEST ARGS...]
#   -n RUNS       how many runs (default 5)
#   --load[=HOGS] run HOGS busy loops beside every run (default: one per core),
#                 as a loaded CI machine would; they stop with the run
#   --logs DIR    where each run's log goes (default build/test-loop/<date-time>)
#   CTEST ARGS    passed to every run's ctest, e.g. -- -L integration
# Only the first run builds anything; the later ones find the build up to date.
# Exits 0 when every run passed, 1 when any failed (the summary says which).
# Environment as for tools/test.sh (BPLACE_SANITIZE=1 loops the sanitized suite);
# TEST_LOOP_SUITE=COMMAND runs COMMAND instead of tools/test.sh (this script's
# own test, tests/tools/test_loop_test.py, gives it a fake suite).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

runs=5
hogs=0
logs=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    -n*) runs=${1#-n}; shift ;;
    --load) hogs=$(nproc); shift ;;
    --load=*) hogs=${1#--load=}; shift ;;
    --logs) [ $# -ge 2 ] || usage; logs=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "test-loop: unknown argument '$1'" >&2; usage ;;
  esac
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]] || ! [[ "$hogs" =~ ^[0-9]+$ ]]; then
  echo "test-loop: RUNS must be a positive number and HOGS a number (got '$runs', '$hogs')" >&2
  exit 2
fi
logs=${logs:-build/test-loop/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$logs"

# The busy loops of --load, by pid: started before each run, ended after it
# (and on any exit of this script).
hog_pids=()
stop_hogs() {
  local pid
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  hog_pids=()
}
trap stop_hogs EXIT
start_hogs() {
  local i
  for ((i = 0; i < hogs; i++)); do
    sh -c 'while :; do :; done' &
    hog_pids+=($!)
  done
}

# The tests a run's log names under ctest's "The following tests FAILED:",
# one "NAME (REASON)" a line, e.g. "openapi_responses_valid (Failed)".
failed_tests() {
  awk '/^The following tests FAILED:/ { listing = 1; next }
       listing && /^[[:space:]]+[0-9]+ - / {
         sub(/^[[:space:]]+[0-9]+ - /, ""); print; next }
       listing { listing = 0 }' "$1"
}

declare -A failures  # test name -> "run:reason ..." where it failed
failed_runs=0
summary="$logs/summary.txt"
: >"$summary"
for ((run = 1; run <= runs; run++)); do
  log="$logs/run-$run.log"
  beside=""
  [ "$hogs" -eq 0 ] || beside=" beside $hogs busy loops"
  echo "test-loop: run $run of $runs$beside; log $log" >&2
  start_hogs
  start=$(date +%s)
  set +e
  ${TEST_LOOP_SUITE:-tools/test.sh} "$@" >"$log" 2>&1
  status=$?
  set -e
  stop_hogs
  seconds=$(($(date +%s) - start))
  result=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1 || true)
  echo "run $run: exit $status in ${seconds}s: ${result:-no ctest summary (see $log)}" | tee -a "$summary" >&2
  if [ "$status" -ne 0 ]; then
    failed_runs=$((failed_runs + 1))
    listed=0
    while IFS= read -r line; do
      name=${line%% (*}
      reason=${line#"$name"}
      failures[$name]+="$run${reason// /} "
      listed=1
    done < <(failed_tests "$log")
    if [ "$listed" = 0 ]; then
      failures["(before or outside ctest: see run-$run.log)"]+="$run "
    fi
  fi
done

{
  echo
  if [ "$failed_runs" -eq 0 ]; then
    echo "test-loop: all $runs runs passed"
  else
    echo "test-loop: $failed_runs of $runs runs failed; failures by test (run(reason) ...):"
    for name in "${!failures[@]}"; do
      printf '  %-60s %s\n' "$name" "${failures[$name]}"
    done | sort
  fi
} | tee -a "$summary" >&2
echo "test-loop: logs and this summary in $logs" >&2
[ "$failed_runs" -eq 0 ]
