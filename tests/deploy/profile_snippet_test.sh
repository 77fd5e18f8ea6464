#!/usr/bin/env bash
# The login-shell snippet profile.d/bplace-lsf.sh as `cmake --install` writes
# it, sourced by dash and bash under `set -eu` (as a strict /etc/profile
# would): it changes nothing unless the site's front-door.conf says
# LOGIN_SHELLS=yes or BPLACE_LSF_FRONT_DOOR=1 is set; BPLACE_LSF_FRONT_DOOR=0
# wins over the site; it adds the folder once however often it is read,
# exports the site's BPLACE_URL, and leaves no variable of its own behind.
# Usage: profile_snippet_test.sh BUILD_DIR
set -euo pipefail
build=$1
. "$(dirname "$0")/package_lib.sh"

work=$(mktemp -d /tmp/bplace-profile-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" --component shell >/dev/null
snippet=$prefix/share/bplace/profile.d/bplace-lsf.sh
front=$prefix/libexec/bplace/lsf
base=/usr/bin:/bin

# check SHELL CONF_TEXT ENV WANT_PATH WANT_URL: sources the snippet twice with
# that site file (none when CONF_TEXT is "-") and environment.
check() {
  local shell=$1 conf_text=$2 env_setting=$3 want_path=$4 want_url=$5 got
  local conf=$work/front-door.conf
  rm -f "$conf"
  [ "$conf_text" = - ] || printf '%b' "$conf_text" >"$conf"
  got=$(env -i PATH="$base" BPLACE_FRONT_DOOR_CONF="$conf" $env_setting "$shell" -c '
    set -eu
    . "$1"
    . "$1"
    echo "$PATH|${BPLACE_URL-unset}|$(set | grep -c "^_bplace" || true)"' sh "$snippet") ||
    fail "$shell: the snippet failed under set -eu (conf '$conf_text', env '$env_setting')"
  [ "$got" = "$want_path|$want_url|0" ] ||
    fail "$shell, conf '$conf_text', env '$env_setting': got '$got', want '$want_path|$want_url|0'"
}

for shell in /bin/dash /bin/bash; do
  [ -x "$shell" ] || continue
  check "$shell" - "" "$base" unset
  check "$shell" '# all commented out\n#LOGIN_SHELLS=yes\n' "" "$base" unset
  check "$shell" 'BPLACE_URL=unix:/srv/b.sock\n' "" "$base" unset
  check "$shell" 'LOGIN_SHELLS=yes\n' "" "$front:$base" unset
  check "$shell" '  LOGIN_SHELLS = yes \nBPLACE_URL =\tunix:/srv/b.sock' "" "$front:$base" unix:/srv/b.sock
  check "$shell" 'LOGIN_SHELLS=yes\nLOGIN_SHELLS=no\n' "" "$base" unset
  check "$shell" 'LOGIN_SHELLS=yes\nBPLACE_URL=unix:/a b\n' "" "$front:$base" unset
  check "$shell" 'LOGIN_SHELLS=yes\n' BPLACE_LSF_FRONT_DOOR=0 "$base" unset
  check "$shell" - BPLACE_LSF_FRONT_DOOR=1 "$front:$base" unset
  echo "ok: $shell"
done
