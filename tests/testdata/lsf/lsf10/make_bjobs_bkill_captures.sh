#!/usr/bin/env bash
# Regenerates the bjobs/bkill captures of this folder from the LSF simulator
# (tests/lsfsim), as tests/testdata/README.md describes. Run as root from the
# repository root after `cmake --build build/b --target lsfsim`:
#   tests/testdata/lsf/lsf10/make_bjobs_bkill_captures.sh build/b/lsfsim/bin
# Times are fixed (LSFSIM_NOW, TZ=UTC) so the output is the same every run.
# The permission case runs bkill as `nobody` through setpriv.
set -euo pipefail

bin=$(cd "${1:?usage: $0 LSFSIM_BIN_DIR}" && pwd)
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

export TZ=UTC LSFSIM_FROM_HOST=login01
fields="jobid jobindex user stat queue exit_code exit_reason pend_reason submit_time start_time finish_time exec_host slots job_name job_description from_host proj_name"
t0=1796038800  # Mon Nov 30 2026 11:40:00 UTC

start_cluster() {  # start_cluster STATE_DIR TOML
  eval "$("$bin/lsfsim" init --state "$1" --cluster "$2")"
}

# one_case FILE NAME SOURCE OUTCOME COMMAND...: appends one case in the layout
# of bsub_replies.txt (tests/testdata/README.md).
one_case() {
  local file=$1 name=$2 source=$3 outcome=$4
  shift 4
  local rc=0
  "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
  {
    printf '=== %s\nsource: %s\nexit: %d\noutcome: %s\n--- stdout\n' "$name" "$source" "$rc" "$outcome"
    cat "$work/stdout"
    printf -- '--- stderr\n'
    cat "$work/stderr"
  } >>"$file"
}

as_nobody() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups \
    env PATH="$PATH" LSF_ENVDIR="$LSF_ENVDIR" LSFSIM_NOW="$LSFSIM_NOW" TZ=UTC "$@"
}

# The job history every capture below looks at.
start_cluster "$work/envdir" config/demo/cluster.toml
export LSFSIM_NOW=$t0
bsub -q short -n 4 -Jd bplace:demo1 sleep 60 >/dev/null
bsub -q normal -J "arr[1-3]" sleep 30 >/dev/null
bsub -q long -W 90 -P proj1 -J "my job name" sleep 300 >/dev/null
bsub -q night sleep 10 >/dev/null
export LSFSIM_NOW=$((t0 + 60))
lsfsim schedule >/dev/null
export LSFSIM_NOW=$((t0 + 600))
lsfsim finish 1 --exit 3 --reason "TERM_RUNLIMIT: job killed after reaching LSF run time limit"
lsfsim finish "2[1]"

bjobs -a -o "$fields" -json 1 2 3 4 999 "2[7]" >"$out/bjobs_json_lifecycle.txt" || true
bjobs -a -o "$fields" -json 999 "2[7]" >"$out/bjobs_json_not_found.txt" || true
bjobs -a -w -u all >"$out/bjobs_a_w.txt"
bjobs -a -u all >"$out/bjobs_a.txt"

replies="$out/bjobs_replies.txt"
: >"$replies"
one_case "$replies" json_without_o "bjobs -a -json 1" refused_format bjobs -a -json 1
one_case "$replies" illegal_field "bjobs -a -o \"jobid nosuchfield\" -json 1" command_error \
  bjobs -a -o "jobid nosuchfield" -json 1
one_case "$replies" table_not_found "bjobs -a -w 999" not_found bjobs -a -w 999
one_case "$replies" json_partly_found "bjobs -a -o \"jobid stat\" -json 3 999" records \
  bjobs -a -o "jobid stat" -json 3 999
lsfsim fault --command bjobs --down fail
one_case "$replies" down_fail "bjobs -a -o FIELDS -json 3 (lsfsim fault --down fail)" unavailable \
  bjobs -a -o "$fields" -json 3
lsfsim fault --clear

kills="$out/bkill_replies.txt"
: >"$kills"
one_case "$kills" terminating "bkill 3" "3=terminating" bkill 3
one_case "$kills" array_element "bkill \"2[2]\"" "2[2]=terminating" bkill "2[2]"
one_case "$kills" already_finished "bkill 1" "1=already_finished" bkill 1
one_case "$kills" no_matching_job "bkill 999" "999=not_found" bkill 999
one_case "$kills" permission_denied "bkill 4, run as nobody (job of root)" "4=permission_denied" \
  as_nobody bkill 4
one_case "$kills" several_ids "bkill 4 \"2[3]\" 998 1" \
  "4=terminating 2[3]=terminating 998=not_found 1=already_finished" bkill 4 "2[3]" 998 1
one_case "$kills" illegal_job_id "bkill 12x" "unknown" bkill 12x
lsfsim fault --command bkill --down fail
one_case "$kills" down_fail "bkill 3 (lsfsim fault --down fail)" "3=unavailable" bkill 3
lsfsim fault --clear

# An LSF older than 9.1 (cluster.toml bjobs_o = false): no -o at all.
sed 's/^\[cluster\]$/[cluster]\nbjobs_o = false/' config/demo/cluster.toml >"$work/old.toml"
start_cluster "$work/old_envdir" "$work/old.toml"
bsub -q short sleep 60 >/dev/null
one_case "$replies" no_o_option "bjobs -a -o FIELDS -json 1 (cluster.toml bjobs_o = false)" \
  refused_format bjobs -a -o "$fields" -json 1
start_cluster "$work/empty_envdir" config/demo/cluster.toml
one_case "$replies" no_job_found "bjobs -a -w -u all (empty cluster)" no_jobs bjobs -a -w -u all
