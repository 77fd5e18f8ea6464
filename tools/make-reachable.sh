#!/usr/bin/env bash
# Lets other users reach a directory under a private one (a checkout in
# /root, mode 700): gives "others" search permission (x, never r or w) on DIR
# and on each directory above it where it is missing, and prints one line per
# change. The demo's service user (nobody) and the test users (alice, bob,
# bplace-sys) run binaries from the build tree, so every directory on the way
# must be searchable by them.
# Usage: tools/make-reachable.sh DIR WHO
#   WHO only goes into the messages ("the test users", "user nobody").
# Not root: changes nothing (an ordinary user's processes run as themselves).
# Exit status: 0, or 1 when a chmod fails.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: tools/make-reachable.sh DIR WHO" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || exit 0
dir=$(cd "$1" && pwd -P)
who=$2
while [ "$dir" != "/" ]; do
  if [ $((0$(stat -c '%a' "$dir") & 1)) -eq 0 ]; then
    echo "$(basename "$0"): chmod o+x $dir ($who must reach the build tree)" >&2
    chmod o+x "$dir"
  fi
  dir=$(dirname "$dir")
done
