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
bplaced="$build_dir/daemon/bplaced"

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
config="$root/build/demo/bplaced.toml"
cat >"$config" <<TOML
# Written by tools/run-demo.sh: bplaced against the bundled LSF simulator.
[server]
listen = "$listen"

[lsf]
bin_dir = "$sim_bin"
env_dir = "$state"
command_timeout_s = 10

[placement]
# The demo's interactive queue is for bsub -I work: keep batch placements out.
exclude_queues = ["interactive"]
TOML
cat >&2 <<MSG
run-demo: no LSF here; using the LSF simulator (demo cluster).
  Simulator commands:  LSF_ENVDIR=$state $sim_bin/bjobs -u all -w
  Try:                 curl 'http://$listen/v1/placement?host=node007'
MSG
exec "$bplaced" --config "$config"
