#!/usr/bin/env bash
# The module bplace-lsf as `cmake --install` writes it, loaded and unloaded
# with every module system installed here (Lmod, Environment Modules; they
# conflict as Debian packages, so usually one): `module load bplace-lsf` puts
# the front door's bsub, bjobs and bkill first on PATH, ahead of LSF's; the
# site's BPLACE_URL line (front-door.conf) is exported, and nothing without
# it; `module unload bplace-lsf` gives back PATH exactly. Exit 77 (skipped)
# when no module system is installed.
# Usage: modulefile_test.sh BUILD_DIR
set -euo pipefail
build=$1
. "$(dirname "$0")/package_lib.sh"

inits=()
for init in /usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do
  [ -r "$init" ] && inits+=("$init")
done
if [ ${#inits[@]} -eq 0 ]; then
  echo "SKIP: neither Lmod nor Environment Modules is installed (tools/install-deps.sh installs lmod)"
  exit 77
fi

work=$(mktemp -d /tmp/bplace-module-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" --component shell >/dev/null
front=$prefix/libexec/bplace/lsf
# The front door (bsub, bjobs, bkill) is not what this tests: stand-ins.
mkdir -p "$front"
for command in bsub bjobs bkill; do
  printf '#!/bin/sh\necho front door\n' >"$front/$command"
  chmod 755 "$front/$command"
done
# LSF's own commands, on PATH before the module is loaded.
mkdir "$work/lsf"
for command in bsub bjobs bkill; do
  printf '#!/bin/sh\necho lsf\n' >"$work/lsf/$command"
  chmod 755 "$work/lsf/$command"
done
echo 'BPLACE_URL = unix:/srv/bplace/bplace.sock' >"$work/site.conf"

# One shell per module system and case, with nothing from ours: a login
# node's user as the module system's init script sets them up.
run() {
  local init=$1 conf=$2
  env -i HOME="$work" USER=nobody PATH="$work/lsf:/usr/bin:/bin" \
      BPLACE_FRONT_DOOR_CONF="$conf" bash --noprofile --norc -c '
    set -u
    source "$1"
    front=$2 lsf=$3 want_url=$4
    module use "$(dirname "$front")/../../share/modulefiles"
    before=$PATH
    module load bplace-lsf || { echo "FAIL: module load failed"; exit 1; }
    for command in bsub bjobs bkill; do
      found=$(command -v "$command")
      [ "$found" = "$front/$command" ] || { echo "FAIL: after load, $command is $found"; exit 1; }
    done
    [ "${BPLACE_URL-unset}" = "$want_url" ] || { echo "FAIL: BPLACE_URL is ${BPLACE_URL-unset}"; exit 1; }
    module unload bplace-lsf || { echo "FAIL: module unload failed"; exit 1; }
    [ "$PATH" = "$before" ] || { echo "FAIL: PATH after unload: $PATH, before load: $before"; exit 1; }
    [ "$(command -v bsub)" = "$lsf/bsub" ] || { echo "FAIL: after unload, bsub is $(command -v bsub)"; exit 1; }
    [ "${BPLACE_URL-unset}" = unset ] || { echo "FAIL: BPLACE_URL left: $BPLACE_URL"; exit 1; }
  ' run "$init" "$front" "$work/lsf" "$3"
}

for init in "${inits[@]}"; do
  run "$init" "$work/none.conf" unset || fail "with $init, no site settings"
  run "$init" "$work/site.conf" unix:/srv/bplace/bplace.sock || fail "with $init, a site BPLACE_URL"
  echo "ok: $init: load puts $front first, sets BPLACE_URL only from the site's line; unload restores PATH"
done
