#!/usr/bin/env bash
# Checks tools/run-demo.sh (simulator mode) the way a newcomer uses it, from
# the outside: starts it in the background on 127.0.0.1:PORT, waits for
# /readyz (the first run builds the release tree: minutes), runs it a second
# time, then runs the hints it printed, as printed, as the calling user:
# the bplace command's (queues, submit, jobs: as root too, where the demo's
# daemon runs as nobody), submit a job over TCP with the token, `lsfsim
# schedule`, bjobs, list the job; the front door's bsub and bjobs. Stops the
# daemon at the end. tools/fresh-check.sh runs it as root and
# as an ordinary user; it also works by hand in any checkout.
# Usage: tools/demo-check.sh PORT
# Prints one PASS:/FAIL: line per check on stdout, the demo's output on
# stderr. Exit status: the number of failed checks (0: all passed).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -eq 1 ] || { echo "usage: tools/demo-check.sh PORT" >&2; exit 2; }
port=$1
export BPLACE_LISTEN=127.0.0.1:$port
first=$(mktemp)
second=$(mktemp)
trap 'rm -f "$first" "$second"' EXIT
failed=0

check() { # check TEXT SHELL-CONDITION
  if eval "$2" >/dev/null 2>&1; then
    echo "PASS: $1"
  else
    echo "FAIL: $1"
    failed=$((failed + 1))
  fi
}

started=$SECONDS
tools/run-demo.sh >"$first" 2>&1 &
demo=$!
for _ in $(seq 3600); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
  kill -0 "$demo" 2>/dev/null || break
  sleep 1
done
check "run-demo.sh starts bplaced and it answers /readyz after $((SECONDS - started)) s" \
  "curl -sf http://127.0.0.1:$port/readyz"
cat "$first" >&2
pid=$(sed -n 's/.*(pid \([0-9]*\))\..*/\1/p' "$first" | head -n1)
check "the config it writes is not world-writable" \
  '[ $((0$(stat -c %a build/demo/bplaced.toml) & 2)) -eq 0 ]'

tools/run-demo.sh >"$second" 2>&1
rc=$?
cat "$second" >&2
check "a second run exits 0 and says it reuses the running daemon" \
  "[ $rc -eq 0 ] && grep -q 'already running (pid $pid)' '$second'"
check "the daemon survives the second run" "[ -n '$pid' ] && [ -d /proc/$pid ]"
token1=$(sed -n 's/.*export TOKEN=//p' "$first")
token2=$(sed -n 's/.*export TOKEN=//p' "$second")
check "the second run prints the same token" "[ -n '$token1' ] && [ '$token1' = '$token2' ]"

# The hints, run as printed (the first run's output).
# The bplace command's: its export line, then each command line.
bplace_export=$(grep -m1 'export BPLACE_URL=' "$first" | sed 's/^ *//')
check "the bplace hints say where and with which token" \
  "[ -n \"\$bplace_export\" ] && grep -q 'BPLACE_TOKEN=$token1' <<<\"\$bplace_export\""
eval "$bplace_export"
bplace_hint() { grep -m1 "/cli/bplace $1" "$first" | sed 's/^ *//'; }
check "the bplace queues hint lists the queues" "$(bplace_hint queues) | grep -q short"
submitted=$(eval "$(bplace_hint submit)" 2>&1)
bplace_job=$(sed -n 's/^Job <\([0-9]*\)> is submitted to queue <[^>]*>\.$/\1/p' <<<"$submitted")
check "the bplace submit hint submits a job as printed (as root too): $submitted" "[ -n '$bplace_job' ]"
check "the bplace jobs hint lists it" "$(bplace_hint jobs) | grep -q '^$bplace_job '"
unset BPLACE_URL BPLACE_TOKEN

export TOKEN=$token1
submit=$(grep -A2 'Submit over TCP' "$first" | sed -n '2,3p' | sed 's/^ *//; s/\\$//' | tr '\n' ' ')
check "the submit hint submits a job" "$submit -sf | grep -q '\"job_id\"'"
schedule=$(grep -m1 'lsfsim schedule ' "$first" | sed 's/^ *//; s/#.*//')
check "the schedule hint runs" "$schedule"
bjobs=$(grep -m1 'bjobs -u all' "$first" | sed 's/^.*view: *//')
check "the bjobs hint shows the job running" "$bjobs | grep -q ' RUN '"
# The jobs tier reads bjobs every [jobs] refresh_s (5 s in the demo).
list=$(grep -m1 'List those jobs' "$first" | sed 's/^.*jobs: *//')
for _ in $(seq 30); do
  eval "$list -sf" 2>/dev/null | grep -q '"RUN"' && break
  sleep 1
done
check "the list hint shows the job running" "$list -sf | grep -q '\"RUN\"'"

# The front door's: both export lines, then bsub and bjobs as printed, in a
# subshell (PATH changes).
door_exports=$(grep -e 'export BPLACE_URL=' -e 'export PATH=.*frontdoor' "$first" | sed 's/^ *//' |
  sort -u)
door_bsub=$(grep -m1 ' bsub -m node007' "$first" | sed 's/^ *//; s/#.*//')
door_explain=$(grep -m1 'BPLACE_EXPLAIN=1 bsub' "$first" | sed 's/^ *//; s/#.*//')
door_out=$(
  eval "$door_exports"
  export BPLACE_EXPLAIN=1
  eval "$door_bsub" 2>&1
  bjobs 2>&1
)
explained=$(eval "$door_exports"; eval "$door_explain" 2>&1)
echo "$explained" >&2
echo "$door_out" >&2
door_job=$(sed -n 's/^Job <\([0-9]*\)> is submitted to queue <[^>]*>\.$/\1/p' <<<"$door_out" | head -n1)
check "the front door's bsub hint submits through bplaced: $door_bsub" \
  "[ -n '$door_job' ] && ! grep -q \"LSF's own\" <<<\"\$door_out\""
check "the front door's bjobs lists it" "grep -q '^$door_job ' <<<\"\$door_out\""
check "the front door's BPLACE_EXPLAIN hint says why LSF's own bsub runs: $door_explain" \
  "grep -q \"running LSF's own bsub: .*-Jd\" <<<\"\$explained\" && grep -q '^Job <' <<<\"\$explained\""

[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
wait
exit "$failed"
