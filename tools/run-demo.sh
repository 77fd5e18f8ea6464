#!/usr/bin/env bash
# Builds bplaced and runs it in the foreground on 127.0.0.1:8080 (override
# with BPLACE_LISTEN=HOST:PORT).
#  - With LSF installed (LSF_ENVDIR set and bqueues on PATH or in
#    $LSF_BINDIR), it serves that cluster. BPLACE_CONFIG=FILE uses your own
#    config instead of the defaults.
#  - Without LSF, it starts the bundled LSF simulator on the demo cluster
#    (config/demo/cluster.toml), state in build/demo/lsf.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

tools/install-deps.sh

build_dir=build/release
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBPLACE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target bplaced lsfsim

listen=${BPLACE_LISTEN:-127.0.0.1:8080}
bplaced="$build_dir/bplaced/bplaced"

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

sim_bin="$root/$build_dir/lsfsim/bin"
state="$root/build/demo/lsf"
mkdir -p "$root/build/demo"
if [ ! -f "$state/lsf.conf" ]; then
  "$sim_bin/lsfsim" init --cluster config/demo/cluster.toml --state "$state" >/dev/null
fi
# bplaced never runs as root in service-account mode: as root, the demo runs
# it as `nobody` (which then owns the demo's jobs); otherwise as you.
run_as=()
service_user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  service_user=nobody
  run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
  # (not the state directory: its files must stay private to the daemon)
  find "$root/build/demo" -path "$root/build/demo/state" -prune -o -exec chmod a+rwX {} +
  if ! "${run_as[@]}" test -x "$root/$build_dir/bplaced/bplaced"; then
    echo "run-demo: user nobody cannot reach $root/$build_dir; make the directories above it" \
         "searchable (chmod o+x) or run as an ordinary user" >&2
    exit 1
  fi
fi

# A bearer token for TCP callers (tools/bplace-token); reads need none.
tokens="$root/build/demo/tokens"
rm -f "$tokens"
token=$(tools/bplace-token --append "$tokens" "$service_user" read,submit,admin 2>/dev/null)
if [ "$(id -u)" -eq 0 ]; then
  chown nobody "$tokens"
fi
socket="$root/build/demo/bplace.sock"
# The durable state (submissions promised, jobs followed): kept across runs.
state_dir="$root/build/demo/state"
mkdir -p "$state_dir"
chmod 700 "$state_dir"
if [ "$(id -u)" -eq 0 ]; then
  chown nobody "$state_dir"
fi

config="$root/build/demo/bplaced.toml"
cat >"$config" <<TOML
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
cat >&2 <<MSG
run-demo: no LSF here; using the LSF simulator (demo cluster), bplaced as $service_user.
  Simulator commands:  LSF_ENVDIR=$state $sim_bin/bjobs -u all -w
  Try:                 curl 'http://$listen/v1/placement?host=node007'
  Submit over TCP:     export TOKEN=$token
                       curl -X POST http://$listen/v1/jobs -H "Authorization: Bearer \$TOKEN" \\
                            -H 'Content-Type: application/json' -d '{"command":"sleep 60"}'
  Unix socket:         curl --unix-socket $socket http://localhost/v1/queues
MSG
exec "${run_as[@]}" "$bplaced" --config "$config"
