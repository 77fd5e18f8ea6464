#!/usr/bin/env bash
# Tries the README's two set-up commands (tools/test.sh, tools/run-demo.sh)
# the way a newcomer meets them: on a fresh Debian 12 minbase root made with
# debootstrap, as root from a checkout under /root (mode 700), and as an
# ordinary user without sudo (first before the packages are in, which must
# say what to do, then after). Run by hand as root, not in CI: it downloads
# Debian (from the mirror this machine's apt uses) and builds bplace twice.
#
# Usage: tools/fresh-check.sh [WORKDIR]
#   WORKDIR  where the root is made (default /var/tmp/bplace-fresh-check);
#            removed on exit, whatever happens. FRESH_CHECK_KEEP=1 keeps it.
#   FRESH_CHECK_MIRROR=URL overrides the mirror.
# The checkout (working tree, without build/) is copied in: the repo needs
# nothing beside it. Compiles go through ccache (installed in the root; it changes
# how fast, not what is built or tested). By default the cache is inside the
# root and starts empty: root's builds are a newcomer's cold first build (the
# timings docs/hacking.md records), and the ordinary user's reuse them.
# FRESH_CHECK_CCACHE=DIR bind-mounts another cache (read-only for the
# ordinary user); it hits only if written with compiler_check=content, since
# the root's compiler has other mtimes than this machine's.
# FRESH_CHECK_CCACHE_SIZE sets its size (default 20G). Run it on an idle
# machine, as the README orders them: tools/run-demo.sh then tools/test.sh,
# as root, then as the ordinary user; each step's minutes are recorded.
# The summary goes to stdout and to build/fresh-check/result.txt; the full
# log to build/fresh-check/log.txt.
# Exit status: 0 when every check passed, 1 otherwise, 2 on bad usage.
set -euo pipefail
# Everything in one block: bash parses it whole before running any of it, so
# editing this file during a run (it takes an hour) cannot derail that run.
{
cd "$(dirname "$0")/.."
repo=$(pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh-check: run as root (debootstrap, chroot, mount)" >&2; exit 2; }
[ $# -le 1 ] || { echo "usage: tools/fresh-check.sh [WORKDIR]" >&2; exit 2; }
work=${1:-/var/tmp/bplace-fresh-check}
target="$work/root"
out="$repo/build/fresh-check"
mkdir -p "$out"
result="$out/result.txt"
log="$out/log.txt"
: >"$result"
: >"$log"
user=newcomer
failures=0

say() { echo "fresh-check: $*" | tee -a "$log" >&2; }
record() { # record PASS|FAIL TEXT
  echo "$1: $2" | tee -a "$result" "$log"
  [ "$1" = PASS ] || failures=$((failures + 1))
}

# The Debian mirror apt uses here (deb822 sources or a one-line sources.list).
mirror() {
  if [ -n "${FRESH_CHECK_MIRROR:-}" ]; then
    echo "$FRESH_CHECK_MIRROR"
    return
  fi
  local file
  for file in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    awk '/^URIs:/ && $2 ~ /\/debian\/?$/ {print $2; exit}
         /^deb / && $0 ~ / bookworm / {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' \
      "$file" | head -n1 | grep . && return
  done
  echo "http://deb.debian.org/debian"
}

# Stops what runs inside the root and unmounts what is mounted into it;
# also run first, for what an interrupted earlier run left behind.
unmount_root() {
  local proc mount
  # Whatever still runs inside the root (a demo daemon, a volclava daemon).
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$target" ] && kill -KILL "${proc#/proc/}" 2>/dev/null
  done
  sleep 1
  for mount in var/cache/fresh-ccache dev/pts dev sys proc; do
    mountpoint -q "$target/$mount" && umount -R -l "$target/$mount"
  done
  return 0
}

cleanup() {
  set +e
  unmount_root
  # Never remove through a mount left behind (the bind-mounted cache is on
  # the same file system, which --one-file-system would not stop).
  if grep -qF " $work/" /proc/mounts; then
    echo "fresh-check: mounts remain under $work; not removing it" >&2
  elif [ "${FRESH_CHECK_KEEP:-0}" != 1 ] && [ -d "$work" ]; then
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT
# A signal ends the script through the EXIT trap, which kills what runs
# inside the root. The long commands run in the background under `wait`,
# which a signal interrupts (a foreground command would be waited for).
trap 'exit 130' INT TERM HUP
waited() { # waited OUTFILE COMMAND...: runs it, output to OUTFILE; its status
  "${@:2}" >"$1" 2>&1 &
  wait $!
}

in_root() { chroot "$target" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  TERM=dumb "$@"; }
as_user() { in_root runuser -l "$user" -c "$1"; }

# --- a Debian 12 minbase root -----------------------------------------------
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
unmount_root
if grep -qF " $work/" /proc/mounts; then
  echo "fresh-check: mounts remain under $work from an earlier run; unmount them first" >&2
  exit 1
fi
rm -rf --one-file-system "$work"
mkdir -p "$work"
url=$(mirror)
say "debootstrap --variant=minbase bookworm from $url (a few minutes)"
# One retry: a mirror's answer can fail once (seen here), and debootstrap's own
# log (in the root, removed with it) says why.
bootstrap() {
  debootstrap --variant=minbase bookworm "$target" "$url" >>"$log" 2>&1 && return 0
  [ -f "$target/debootstrap/debootstrap.log" ] && tail -n 20 "$target/debootstrap/debootstrap.log" >>"$log"
  return 1
}
if ! bootstrap && ! { say "debootstrap failed; once more"; rm -rf --one-file-system "$target"; bootstrap; }; then
  record FAIL "debootstrap from $url (no mirror reachable?); see $log"
  exit 1
fi
record PASS "debootstrap --variant=minbase bookworm from $url"
# This machine's network settings, which a machine on its network has and
# the root cannot guess: the resolver, the local CA certificates (a proxy's
# CA; the root's ca-certificates package adds them when apt installs it)
# and npm's global config (its cafile). Nothing of bplace's.
cp /etc/resolv.conf "$target/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$target/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$target/usr/local/share/ca-certificates/"
fi
[ -f /etc/npmrc ] && cp /etc/npmrc "$target/etc/npmrc"
mount -t proc proc "$target/proc"
mount -t sysfs sys "$target/sys"
mount --rbind /dev "$target/dev"
mount --make-rslave "$target/dev"

# The checkout as a newcomer has it: the working tree (uncommitted changes
# included), not build/.
copy_checkout() { # copy_checkout DIR (inside the root), OWNER
  mkdir -p "$target$1"
  tar -C "$repo" --exclude=./build -cf - . | tar -C "$target$1" -xf - --no-same-owner
  chown -R "$2" "$(dirname "$target$1")"
}
copy_checkout /root/x/bplace root
chmod 700 "$target/root" "$target/root/x"
in_root useradd --create-home --shell /bin/bash "$user"
copy_checkout "/home/$user/src/bplace" "$(in_root id -u "$user"):$(in_root id -g "$user")"

# --- an ordinary user, before the packages are in ----------------------------
for command in tools/test.sh tools/run-demo.sh; do
  set +e
  text=$(as_user "cd ~/src/bplace && $command" 2>&1)
  rc=$?
  set -e
  printf '%s\n' "$text" >>"$log"
  if [ $rc -ne 0 ] && grep -q "su -c" <<<"$text" && ! grep -q "sudo: command not found" <<<"$text"; then
    record PASS "as $user without sudo, before the packages: $command exits $rc and says: $(grep -m1 'su -c' <<<"$text" | sed 's/^ *//')"
  else
    record FAIL "as $user without sudo, before the packages: $command exit $rc: $(tail -n2 <<<"$text" | tr '\n' ' ')"
  fi
done

# The compiler cache (see the header). base_dir is the directory above each
# checkout, so that paths inside it are relative, as on this machine.
in_root apt-get update -qq >>"$log" 2>&1
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends ccache >>"$log" 2>&1
mkdir -p "$target/var/cache/fresh-ccache"
chmod 1777 "$target/var/cache/fresh-ccache"
# The root's ccache has its own config: without a size it keeps 5 GB and
# evicts what a full build and this machine's builds share.
cache_env="CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_DIR=/var/cache/fresh-ccache CCACHE_NOHASHDIR=1"
cache_env="$cache_env CCACHE_MAXSIZE=${FRESH_CHECK_CCACHE_SIZE:-20G}"
host_cache=${FRESH_CHECK_CCACHE:-none}
if [ "$host_cache" != none ] && [ -d "$host_cache" ]; then
  mount --bind "$host_cache" "$target/var/cache/fresh-ccache"
  say "compiler cache: $host_cache (bind-mounted; read-only for $user)"
  cache_env="$cache_env CCACHE_COMPILERCHECK=content"
  user_cache_env="CCACHE_READONLY=1"
else
  say "compiler cache: inside the root, empty (a cold first build)"
  # Root's entries readable and its directories writable by the user.
  cache_env="$cache_env CCACHE_UMASK=000"
  user_cache_env=""
fi

minutes() { # minutes START-SECONDS: the time since, as "12.3 min"
  awk -v s=$((SECONDS - $1)) 'BEGIN { printf "%.1f min", s / 60 }'
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The suite's summary line and what it skipped.
suite_summary() { # suite_summary OUTPUT
  local line skipped
  line=$(grep -E 'tests passed, [0-9]+ tests failed out of' <<<"$1" | tail -n1)
  skipped=$(grep -c '\*\*\*Skipped\| Skipped ' <<<"$1" || true)
  echo "${line:-no ctest summary} ($skipped skipped)"
}

run_as() { # run_as root|user WHO-LABEL
  local who=$1 dir text rc
  if [ "$who" = root ]; then
    dir=/root/x/bplace
    run() { in_root bash -c "cd $dir && $cache_env CCACHE_BASEDIR=/root/x $1"; }
  else
    dir="/home/$user/src/bplace"
    run() { as_user "cd $dir && $cache_env CCACHE_BASEDIR=/home/$user/src $user_cache_env $1"; }
  fi
  say "$who: tools/run-demo.sh (builds what the demo needs) and its hints"
  # The newest checker from this checkout (it checks; it is not checked).
  install -m 755 "$repo/tools/demo-check.sh" "$target$dir/tools/demo-check.sh"
  started=$SECONDS
  set +e
  waited "$work/out" run "nice tools/demo-check.sh $(free_port)"
  set -e
  text=$(grep -E '^(PASS|FAIL):' "$work/out")
  grep -vE '^(PASS|FAIL):' "$work/out" >>"$log"
  while IFS= read -r line; do
    case "$line" in
      PASS:*) record PASS "as $who: ${line#PASS: }" ;;
      FAIL:*) record FAIL "as $who: ${line#FAIL: }" ;;
    esac
  done <<<"$text"
  echo "  as $who: tools/run-demo.sh and its checks took $(minutes $started)" | tee -a "$result" "$log"
  say "$who: tools/test.sh (builds everything, runs every test; long)"
  started=$SECONDS
  set +e
  waited "$work/out" run "nice tools/test.sh"
  rc=$?
  set -e
  text=$(cat "$work/out")
  printf '%s\n' "$text" >>"$log"
  grep -E '\*\*\*Skipped| Skipped |\[  SKIPPED \]' <<<"$text" | sed "s/^/  $who skipped: /" >>"$result" || true
  if [ $rc -eq 0 ]; then
    record PASS "as $who: tools/test.sh in $(minutes $started): $(suite_summary "$text")"
  else
    record FAIL "as $who: tools/test.sh exit $rc after $(minutes $started): $(suite_summary "$text"); $(grep -m3 -E 'Failed|\(Failed\)' <<<"$text" | tr '\n' ' ')"
  fi
}

run_as root
run_as "$user"

{
  echo "fresh-check $(date -u +%Y-%m-%d) on $(uname -m), Debian $(cat "$target/etc/debian_version") minbase:" \
    "$failures failure(s), $(minutes 0) in all"
} | tee -a "$result"
[ "$failures" -eq 0 ]
exit
}
