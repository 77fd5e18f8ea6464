#!/usr/bin/env bash
# Captures raw volclava output into tests/realsched/captures/*.txt: starts a
# one-host cluster (tools/volclava.sh) in a temp dir, runs bsub, bjobs, bkill
# and bhist through the job states, and stops the cluster. As root; about a
# minute. The captures are what the daemon's parsers are written from (see
# README.md beside this script).
# Usage: tests/realsched/capture.sh PREFIX   (PREFIX: an installed volclava
#        2.2, e.g. /opt/volclava; nothing is built here)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out_dir="$here/captures"
[ $# -eq 1 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
prefix=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

state=$(mktemp -d /tmp/volclava-capture.XXXXXX)
chmod 755 "$state"
trap '"$repo/tools/volclava.sh" stop "$state"; [ -n "${CAPTURE_KEEP:-}" ] || rm -rf "$state"' EXIT
VOLCLAVA_CLEAN_PERIOD=15 "$repo/tools/volclava.sh" start "$prefix" "$state" >/dev/null
# shellcheck disable=SC1091
. "$state/env"
cd /tmp
host=$(hostname)
mkdir -p "$out_dir"

file=""
begin() {   # file name, what it shows
  file="$out_dir/$1"
  {
    echo "# $2"
    echo "# volclava 2.2 (b361f56), one-host cluster (host $host) from tools/volclava.sh;"
    echo "# queues and lsb.params as in tests/realsched/README.md; run as root in /tmp"
    echo "# with LSB_NTRIES=1. Captured $(date -u '+%Y-%m-%d') by tests/realsched/capture.sh."
  } >"$file"
}

# Runs a command line (through bash -c, for its quoting) and records it.
run() {
  local line=$1 rc started elapsed
  started=$(date +%s.%N)
  set +e
  timeout 30 bash -c "$line" >"$state/out" 2>"$state/err"
  rc=$?
  set -e
  elapsed=$(echo "$(date +%s.%N) - $started" | bc)
  {
    echo
    echo "\$ $line"
    printf 'exit status: %s, wall time: %.1fs\n' "$rc" "$elapsed"
    if [ -s "$state/out" ]; then echo "--- stdout"; cat "$state/out"; fi
    if [ -s "$state/err" ]; then echo "--- stderr"; cat "$state/err"; fi
    if [ ! -s "$state/out" ] && [ ! -s "$state/err" ]; then echo "(no output)"; fi
    echo "--- end"
  } >>"$file"
}

note() { printf '\n# %s\n' "$*" >>"$file"; }

job_of() { sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p' "$state/out"; }

wait_stat() {   # job id, stat
  for _ in $(seq 1 400); do
    if grep -q "\"STAT\":[[:space:]]*\"$2\"" <<<"$(bjobs -a -o 'stat' -json "$1" 2>/dev/null || true)"; then
      return 0
    fi
    sleep 0.3
  done
  echo "capture.sh: job $1 never reached $2" >&2
  return 1
}

all='jobid stat user queue from_host exec_host job_name submit_time proj_name cpu_used mem swap pids start_time finish_time'

begin bjobs-json-nojobs.txt "bjobs before any job was submitted"
run "bjobs -o 'jobid stat' -json"
run "bjobs -a -o 'jobid stat' -json"
run "bjobs -w"
run "bjobs -a -o 'jobid exit_code' -json"

begin bsub.txt "bsub replies: accepted, to the default queue, and rejected"
run "bsub -q short sleep 1"
run "bsub sleep 1"
run "bsub -q short -J bplace-named -Jd 'bplace:abc' sleep 1"
run "bsub -q closedq sleep 1"
run "bsub -q nosuchq sleep 1"
run "bsub -q inactq sleep 1"
run "bsub -q normal -m nosuchhost sleep 1"
run "bsub -q normal -n 99 sleep 1"
run "runuser -u bob -- env LSF_ENVDIR=$LSF_ENVDIR PATH=$LSF_BINDIR:/usr/bin:/bin LSB_NTRIES=1 bsub -q userq sleep 1"
run "bsub -q normal -R 'select[[[' sleep 1"
run "bsub -q normal -Jd 'description with blanks <and brackets>' sleep 1"
run "bsub -q normal -J 'a[1-3]' sleep 2"
run "bsub -q normal -J 'b[1-2' sleep 1"

begin bjobs-description.txt "finding a job by its -Jd description or its -J name: only the long forms show a description"
run "bjobs -a -l -u all | grep -E '^Job <'"
run "bjobs -a -J bplace-named -o 'jobid stat job_name' -json"
run "bjobs -a -J 'bplace-*' -o 'jobid stat job_name' -json"
run "bjobs -a -J 'nosuchname' -o 'jobid stat job_name' -json"
run "bjobs -a -J 'b[1-2' -o 'jobid stat job_name' -json"

begin bjobs-json-pend-run.txt "bjobs -o -json: a RUN job and a PEND one (queue tiny: MAX 1, JL/U 1)"
run "bsub -q tiny sleep 60"
running=$(job_of)
wait_stat "$running" RUN
run "bsub -q tiny -Jd bplace:pend sleep 60"
pending=$(job_of)
sleep 3
run "bjobs -a -o '$all' -json $running $pending"
note "The same as text (-o without -json): blank-separated, a header line."
run "bjobs -a -o '$all' $running $pending"
run "bjobs -a -o 'jobid stat queue' -json -u all"
note "Pending reasons of every pending job (-p), and the host's view of its load."
run "bjobs -p -u all"
run "bhosts -l"
run "bjobs -l $pending"
run "bjobs -l $running"

begin bkill.txt "bkill replies: pending, running, finished, unknown, several"
run "bkill $pending"
run "bkill $running"
wait_stat "$running" EXIT
run "bkill $running"
run "bkill 999999"
run "bsub -q normal sleep 60"
a=$(job_of)
run "bsub -q normal sleep 60"
b=$(job_of)
run "bkill $a $b 999999"
run "bkill -J nosuchname"
run "bkill"
wait_stat "$b" EXIT
note "Killed jobs afterwards: the running one exited on the signal (SIGINT first: 130)."
run "bjobs -a -o 'jobid stat exec_host start_time finish_time' -json $running $pending"
run "bjobs -l $running"
run "bjobs -l $pending"

begin bjobs-json-done-exit.txt "bjobs -o -json and -l of finished jobs: DONE, EXIT 3, EXIT by signal"
run "bsub -q short -Jd bplace:done sleep 1"
done_job=$(job_of)
run "bsub -q short -Jd bplace:exit3 sh -c 'exit 3'"
exit_job=$(job_of)
run "bsub -q short sh -c 'kill -9 \$\$'"
sig_job=$(job_of)
wait_stat "$done_job" DONE
wait_stat "$exit_job" EXIT
wait_stat "$sig_job" EXIT
run "bjobs -a -o '$all' -json $done_job $exit_job $sig_job"
run "bjobs -l $done_job"
run "bjobs -l $exit_job"
run "bjobs -l $sig_job"
run "bjobs -a -w $done_job $exit_job $sig_job"
run "bjobs -d -o 'jobid stat' -json"
run "bhist -l $exit_job"

begin bjobs-json-unknown.txt "bjobs for unknown job ids, alone and with a known one"
run "bjobs -a -o 'jobid stat' -json 999999"
run "bjobs -a -o 'jobid stat' -json 999999 $done_job"
run "bjobs -a -o 'jobid stat' -json 999998 999999"
run "bjobs 999999"
run "bjobs -a -o 'jobid stat' 999999"
run "bhist -l 999999"

begin bjobs-o-errors.txt "bjobs -o field names volclava lacks, and options it refuses together"
for field in exit_code exit_reason pend_reason jobindex slots job_description; do
  run "bjobs -a -o 'jobid $field' -json $done_job"
done
run "bjobs -a -o 'JOBID Stat' -json $done_job"
run "bjobs -a -o 'jobid stat jobid' -json $done_job"
run "bjobs -a -w -o 'jobid stat' -json $done_job"
run "bjobs -a -json $done_job"
run "bjobs -a -o 'jobid,stat' -json $done_job"

begin bjobs-array.txt "an array job -J 'a[1-3]'"
run "bsub -q normal -J 'arr[1-3]' sleep 2"
arr=$(job_of)
run "bjobs -a -o 'jobid stat job_name' -json $arr"
run "bjobs -a -o 'jobid stat job_name' -json '${arr}[2]'"
run "bjobs -A $arr"
run "bjobs -a -w $arr"
run "bkill '${arr}[3]'"
sleep 6
run "bjobs -a -o 'jobid stat job_name finish_time' -json $arr"
run "bjobs -l '${arr}[3]'"

begin bjobs-cleaned.txt "a finished job after CLEAN_PERIOD (15 s here): gone from bjobs, kept by bhist"
run "bsub -q short true"
gone=$(job_of)
wait_stat "$gone" DONE
run "bjobs -a -o 'jobid stat finish_time' -json $gone"
waited=0
# (bjobs exits 255 for a job it does not find: no pipe under pipefail here.)
while [ $waited -lt 100 ] && ! grep -q 'not found' <<<"$(bjobs -a -o 'jobid' -json "$gone" 2>/dev/null || true)"; do
  sleep 1
  waited=$((waited + 1))
done
note "About $waited s later:"
run "bjobs -a -o 'jobid stat' -json $gone"
run "bjobs -l $gone"
run "bhist -l $gone"

echo "capture.sh: wrote $out_dir/*.txt" >&2
