#!/usr/bin/env bash
# Creates the local users that the run-as and multi-user simulator tests
# need, so that they run for real instead of skipping (CI runs it as root in
# its container; a developer machine rarely needs it):
#   alice, bob   uid >= 1000, home in /home, own group each, both also in the
#                shared supplementary group bplace-test
#   bplace-sys   a system account (uid < 1000) for the caller-policy tests
# Idempotent: what exists is left as it is. Not root: prints why and exits 0
# without changing anything (the tests then skip).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "test-users.sh: not root; no test users created (the tests that need them skip)"
  exit 0
fi

shared_group=bplace-test

ensure_group() {
  local name=$1
  shift
  if getent group "$name" >/dev/null; then
    echo "group $name: exists ($(getent group "$name"))"
  else
    groupadd "$@" "$name"
    echo "group $name: created ($(getent group "$name"))"
  fi
}

# ensure_user NAME [useradd options...]: creates NAME with its own group.
ensure_user() {
  local name=$1
  shift
  if id "$name" >/dev/null 2>&1; then
    echo "user $name: exists ($(id "$name"))"
  else
    useradd --user-group "$@" "$name"
    echo "user $name: created ($(id "$name"))"
  fi
}

# ensure_member USER GROUP: adds USER to supplementary GROUP.
ensure_member() {
  local user=$1 group=$2
  if id -nG "$user" | tr ' ' '\n' | grep -qx "$group"; then
    echo "user $user: already in $group"
  else
    usermod --append --groups "$group" "$user"
    echo "user $user: added to $group"
  fi
}

ensure_group "$shared_group"
for user in alice bob; do
  ensure_user "$user" --create-home --shell /bin/bash
  ensure_member "$user" "$shared_group"
  # The home must be a directory the user can enter (RunAsFor uses it as the
  # working directory); useradd made it, unless the user predates us.
  home=$(getent passwd "$user" | cut -d: -f6)
  if [ ! -d "$home" ]; then
    install -d -o "$user" -g "$(id -gn "$user")" -m 0755 "$home"
    echo "user $user: created home $home"
  fi
done
ensure_user bplace-sys --system --no-create-home --home-dir /nonexistent \
  --shell /usr/sbin/nologin
