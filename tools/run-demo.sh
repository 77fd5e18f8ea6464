#!/usr/bin/env bash
# Builds bplaced and runs it in the foreground on 127.0.0.1:8080 (override
# with BPLACE_LISTEN=HOST:PORT).
#  - With LSF installed (LSF_ENVDIR set and bqueues on PATH or in
#    $LSF_BINDIR), it serves that cluster. BPLACE_CONFIG=FILE uses your own
#    config instead of the defaults.
#  - Without LSF, it starts the bundled LSF simulator on the demo cluster
#    (config/demo/cluster.toml), state in build/demo/lsf, and prints how to
#    use it: curl, a bearer token, the bplace command, the LSF front door
#    (built here too), how to make the simulator run the jobs.
#
# Run again while that demo daemon runs, it changes nothing and prints the
# same hints (the token stays valid); stop the daemon (Ctrl-C or kill) to
# restart it on a new build. The token is kept across restarts
# (build/demo/token, mode 600).
#
# As root, bplaced runs as `nobody` (it refuses root in service-account
# mode): the script gives "others" search permission on the directories above
# the checkout where it is missing (tools/make-reachable.sh, one line each),
# so that nobody can reach the build tree. Ordinary users need no root once
# the Debian packages are in (tools/install-deps.sh says how without sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The tree tools/test.sh builds and tests (tools/build.sh): the demo builds
# only its four targets there, and the tests later reuse them.
build_dir=$(BPLACE_SANITIZE=0 tools/build.sh --dir)
listen=${BPLACE_LISTEN:-127.0.0.1:8080}
bplaced="$build_dir/bplaced/bplaced"
sim_bin="$root/$build_dir/lsfsim/bin"
demo="$root/build/demo"
state="$demo/lsf"
config="$demo/bplaced.toml"
pidfile="$demo/bplaced.pid"
hints="$demo/hints"

# The pid of the demo daemon an earlier run started from this checkout, if
# it still runs: its command line names our config (the pid file alone could
# name a recycled pid).
running_demo_pid() {
  local pid
  pid=$(cat "$pidfile" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config $config " || return 1
  echo "$pid"
}

# Whether something accepts connections on $listen (HOST:PORT, [V6]:PORT).
listen_in_use() {
  local host=${listen%:*} port=${listen##*:}
  host=${host#[}
  host=${host%]}
  timeout 2 bash -c ": <>/dev/tcp/$host/$port" 2>/dev/null
}

if pid=$(running_demo_pid); then
  echo "run-demo: the demo daemon is already running (pid $pid); reusing it." >&2
  echo "  To restart it on a new build: kill $pid (or Ctrl-C in its terminal), then run tools/run-demo.sh again." >&2
  cat "$hints" >&2 2>/dev/null || echo "run-demo: ($hints is not readable by you)" >&2
  exit 0
fi
if listen_in_use; then
  echo "run-demo: $listen is in use by another program (not this checkout's demo);" \
       "pick another address: BPLACE_LISTEN=127.0.0.1:9090 tools/run-demo.sh" >&2
  exit 1
fi

tools/install-deps.sh --demo

BPLACE_SANITIZE=0 tools/build.sh bplaced bplace lsfsim bplace-lsf

have_lsf=0
if [ -n "${LSF_ENVDIR:-}" ] && [ -f "${LSF_ENVDIR}/lsf.conf" ]; then
  if command -v bqueues >/dev/null 2>&1 || [ -x "${LSF_BINDIR:-/nonexistent}/bqueues" ]; then
    have_lsf=1
  fi
fi

if [ -n "${BPLACE_CONFIG:-}" ]; then
  exec "$bplaced" --config "$BPLACE_CONFIG" --listen "$listen"
fi
if [ "$have_lsf" = 1 ]; then
  echo "run-demo: LSF found (LSF_ENVDIR=$LSF_ENVDIR); serving it on $listen" >&2
  exec "$bplaced" --listen "$listen"
fi

# bplaced never runs as root in service-account mode: as root, the demo runs
# it as `nobody` (which then owns the demo's jobs); otherwise as you.
run_as=()
service_user=$(id -un)
mkdir -p "$demo"
# Earlier versions of this script left build/demo world-writable.
chmod o-w "$demo"
if [ "$(id -u)" -eq 0 ]; then
  service_user=nobody
  service_group=$(id -gn nobody)
  run_as=(setpriv --reuid=nobody --regid="$service_group" --clear-groups --)
  tools/make-reachable.sh "$root/$build_dir" "user nobody"
  if ! "${run_as[@]}" test -x "$root/$bplaced"; then
    echo "run-demo: user nobody cannot reach $root/$build_dir even after chmod o+x on the" \
         "directories above it (a file system that ignores modes?); run as an ordinary user" >&2
    exit 1
  fi
  # nobody creates the Unix socket here; sticky, so it cannot replace the
  # files root writes (the config).
  chown "root:$service_group" "$demo"
  chmod 1775 "$demo"
fi

# The simulator's state: `init` makes it mode 0777 (every user, as one LSF
# cluster serves every user; see tests/lsfsim/README.md).
if [ ! -f "$state/lsf.conf" ]; then
  "$sim_bin/lsfsim" init --cluster config/demo/cluster.toml --state "$state" >/dev/null
fi

# A bearer token for TCP callers (tools/bplace-token); reads need none. The
# token (build/demo/token, yours, mode 600) and its hash line
# (build/demo/tokens, the daemon's, mode 600) are kept across runs.
tokens="$demo/tokens"
token_file="$demo/token"
token=$(cat "$token_file" 2>/dev/null || true)
if [ -z "$token" ] || ! grep -qxF "$(tools/bplace-token --hash <<<"$token") $service_user read,submit,admin" \
    "$tokens" 2>/dev/null; then
  rm -f "$tokens" "$token_file"
  token=$(tools/bplace-token --append "$tokens" "$service_user" read,submit,admin 2>/dev/null)
  (umask 077 && printf '%s\n' "$token" >"$token_file")
fi
socket="$demo/bplace.sock"
# The durable state (submissions promised, jobs followed): kept across runs.
state_dir="$demo/state"
mkdir -p "$state_dir"
chmod 700 "$state_dir"
if [ "$(id -u)" -eq 0 ]; then
  chown nobody "$tokens"
  chown -R nobody "$state_dir"
fi

rm -f "$config.new"
cat >"$config.new" <<TOML
# Written by tools/run-demo.sh: bplaced against the bundled LSF simulator.
[server]
listen = ["$listen", "unix:$socket"]

[lsf]
bin_dir = "$sim_bin"
env_dir = "$state"
command_timeout_s = 10

[placement]
# The demo's interactive queue is for bsub -I work: keep batch placements out.
exclude_queues = ["interactive"]

[ib]
# The simulator publishes the ib_ok load index (node017 and gpu02 are sick).
source = "lsload"

[auth]
mode = "service-account"
tokens_file = "$tokens"
anonymous_read = true

[jobs]
refresh_s = 5

[state]
dir = "$state_dir"
TOML
chmod 644 "$config.new"
mv -f "$config.new" "$config"

sim="LSF_ENVDIR=$state $sim_bin"
bplace="$root/$build_dir/cli/bplace"
front_door="$root/$build_dir/frontdoor"
rm -f "$hints"
# The bplace command goes over TCP with the token: on the Unix socket bplaced
# knows the caller by uid, and in service-account mode only the service user
# ($service_user) may submit; the token is that user's, from any account.
(umask 077 && cat >"$hints") <<MSG
  Status page:       http://$listen/ in a browser (queues, host map, jobs; refreshes itself)
  Try:               curl 'http://$listen/v1/placement?host=node007'
  Unix socket:       curl --unix-socket $socket http://localhost/v1/queues
  The bplace command (over TCP with the token: it submits as $service_user, the demo's service
  account, from your account too; on the Unix socket only $service_user may submit):
                     export BPLACE_URL=http://$listen BPLACE_TOKEN=$token
                     $bplace queues
                     $bplace submit node007 'sleep 60'
                     $bplace jobs
  Submit over TCP:   export TOKEN=$token
                     curl -X POST http://$listen/v1/jobs -H "Authorization: Bearer \$TOKEN" \\
                          -H 'Content-Type: application/json' -d '{"command":"sleep 60"}'
  List those jobs:   curl -H "Authorization: Bearer \$TOKEN" http://$listen/v1/jobs
  Run them:          the simulator dispatches only when told (LSF's mbatchd would by itself):
                     $sim/lsfsim schedule           # PEND -> RUN
                     $sim/lsfsim schedule --finish  # RUN -> DONE, then dispatch more
                     (bplaced sees the change within [jobs] refresh_s = 5 s)
  LSF's view:        $sim/bjobs -u all -w
  The LSF front door: bsub, bjobs and bkill as workflow engines run them, answered by bplaced
  (the simulator's own command when bplaced cannot; docs/lsf-front-door.md). In a shell:
                     export BPLACE_URL=http://$listen BPLACE_TOKEN=$token
                     export PATH=$front_door:\$PATH LSF_BINDIR=$sim_bin LSF_ENVDIR=$state
                     bsub -m node007 sleep 60       # placement picks the queue
                     bjobs                          # from bplaced's jobs tier, in LSF's format
                     BPLACE_EXPLAIN=1 bsub -Jd mine true   # says why LSF's own bsub runs
MSG
cat >&2 <<MSG
run-demo: no LSF here; using the LSF simulator (demo cluster), bplaced as $service_user (pid $$).
$(cat "$hints")
  Stop:              Ctrl-C; run tools/run-demo.sh again meanwhile and it reuses this daemon.
MSG
echo "$$" >"$pidfile"
exec "${run_as[@]}" "$bplaced" --config "$config"
