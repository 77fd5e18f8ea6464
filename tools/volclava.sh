#!/usr/bin/env bash
# Runs a one-host cluster of an installed volclava 2.2 (OpenLava's descendant,
# a real LSF-compatible scheduler), for the `realsched` test tier
# (tests/realsched/README.md). It builds nothing: volclava must already be
# installed in PREFIX (PREFIX/bin/bsub, PREFIX/sbin/lim, ...).
#
# Usage:
#   tools/volclava.sh start PREFIX STATE  write a one-host cluster config into
#                                         STATE/etc, start lim, res and sbatchd
#                                         (which starts mbatchd) as root, wait
#                                         until bhosts shows the host ok, then
#                                         print the environment to use (export
#                                         lines, also kept in STATE/env)
#   tools/volclava.sh stop STATE          stop the daemons started for STATE (and
#                                         the cluster's leftover jobs)
#   tools/volclava.sh status STATE        which daemons run; bhosts and bqueues
#   tools/volclava.sh env STATE           print STATE/env again
#
# Environment:
#   VOLCLAVA_PORT_BASE        first of the 4 ports (LIM, RES, MBD, SBD); default:
#                             the first free block of 6322, 16322, 26322, ...
#   VOLCLAVA_START_TIMEOUT    seconds to wait for the cluster (default 120)
#   VOLCLAVA_QUEUE_USER       the user of the USERS-restricted queue (default alice)
#   VOLCLAVA_CLEAN_PERIOD     lsb.params CLEAN_PERIOD in seconds (default 30)
#   VOLCLAVA_LOG_MASK         LSF_LOG_MASK of the daemons (default LOG_WARNING)
#   VOLCLAVA_HOSTS_FILE       the hosts file to check and fix (default /etc/hosts;
#                             for testing that step)
#
# Exit status: 0 ok, 1 failure, 2 usage, 77 cannot run here (not root).
# Every LSF command run here has a timeout and LSB_NTRIES set: without it,
# batch commands retry forever while mbatchd is down.
set -euo pipefail

readonly kClusterName=bplace
readonly kDaemons=(sbatchd mbatchd res lim pim)   # stop order

log() { echo "volclava.sh: $*" >&2; }
die() { log "$*"; exit 1; }
lsf_timeout() { timeout "${LSF_CMD_TIMEOUT:-30}" "$@"; }

# ---------------------------------------------------------------- host name

# volclava needs the host name to resolve to 127.0.0.1 with the name first on
# its /etc/hosts line (the official name must be the host name):
# `127.0.1.1 host` leaves the host `unreach`; `127.0.0.1 localhost host` makes
# LIM exit at start. Adds one line `127.0.0.1 <host>` at the top of /etc/hosts
# only when the first line naming the host is not already of that shape.
ensure_hosts_entry() {
  local host=$1 hosts=${VOLCLAVA_HOSTS_FILE:-/etc/hosts} first
  first=$(awk -v h="$host" '
      { sub(/#.*/, "") }
      NF >= 2 { for (i = 2; i <= NF; i++) if ($i == h) { print $1, $2; exit } }' "$hosts")
  if [ "$first" = "127.0.0.1 $host" ]; then
    return 0
  fi
  log "adding '127.0.0.1 $host' at the top of $hosts (volclava needs the host name" \
      "first on a 127.0.0.1 line; first line naming it was: '${first:-none}')"
  local tmp
  tmp=$(mktemp)
  { echo "127.0.0.1 $host"; cat "$hosts"; } >"$tmp"
  # Write in place: /etc/hosts is often a bind mount that rename cannot replace.
  cat "$tmp" >"$hosts"
  rm -f "$tmp"
}

# ---------------------------------------------------------------- ports

# A TCP port listened on, or a UDP port bound (LIM listens on both).
port_in_use() {
  local hex f
  local -a tables=()
  hex=$(printf '%04X' "$1")
  for f in /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6; do
    if [ -r "$f" ]; then tables+=("$f"); fi
  done
  awk -v p=":$hex" '
      FNR > 1 && substr($2, length($2) - 4) == p && (FILENAME ~ /udp/ || $4 == "0A") { found = 1 }
      END { exit !found }' "${tables[@]}"
}

pick_port_base() {
  if [ -n "${VOLCLAVA_PORT_BASE:-}" ]; then
    echo "$VOLCLAVA_PORT_BASE"
    return
  fi
  local base p free
  for base in 6322 16322 26322 36322 46322; do
    free=1
    for p in $base $((base + 1)) $((base + 2)) $((base + 3)); do
      if port_in_use "$p"; then free=0; fi
    done
    if [ $free -eq 1 ]; then
      echo "$base"
      return
    fi
  done
  die "no free block of 4 ports for the cluster; set VOLCLAVA_PORT_BASE"
}

# ---------------------------------------------------------------- config

write_config() {
  local prefix=$1 state=$2 host=$3 base=$4
  local etc="$state/etc" user=${VOLCLAVA_QUEUE_USER:-alice}
  mkdir -p "$etc" "$state/log" "$state/work/logdir" "$state/bin"
  # mbatchd wants its log directory owned by the LSF administrator (root here)
  # and not writable by others; users' commands must read etc.
  chmod 755 "$state" "$etc" "$state/log" "$state/work" "$state/work/logdir" "$state/bin"

  cat >"$state/bin/mailsink" <<EOF
#!/bin/sh
# LSB_MAILPROG: keep job mails in a file instead of sending them.
{ echo "From volclava \$(date)"; echo "X-Args: \$*"; cat; echo; } >>"$state/log/mail.mbox"
EOF
  chmod 755 "$state/bin/mailsink"

  cat >"$etc/lsf.conf" <<EOF
# Written by tools/volclava.sh for a one-host test cluster.
LSF_SERVERDIR=$prefix/sbin
LSF_BINDIR=$prefix/bin
LSF_LIBDIR=$prefix/lib
LSF_ENVDIR=$etc
LSF_CONFDIR=$etc
LSB_CONFDIR=$etc
LSB_SHAREDIR=$state/work
LSF_LOGDIR=$state/log
LSF_LOG_MASK=${VOLCLAVA_LOG_MASK:-LOG_WARNING}
LSF_LIM_PORT=$base
LSF_RES_PORT=$((base + 1))
LSB_MBD_PORT=$((base + 2))
LSB_SBD_PORT=$((base + 3))
LSF_AUTH=eauth
# Let root submit jobs (the test runs as root); without it mbatchd rejects
# root's bsub, sometimes as a silent SIGPIPE.
LSF_ROOT_REX=local
LSB_MAILTO=!U
LSB_MAILPROG=$state/bin/mailsink
# PIM (lim's process monitor) tells sbatchd when a job's processes are gone;
# at its default of 30 s a finished job can stay RUN for half a minute.
LSF_PIM_SLEEPTIME=2
LSF_PIM_SLEEPTIME_UPDATE=y
EOF

  cat >"$etc/lsf.shared" <<EOF
Begin Cluster
ClusterName
$kClusterName
End Cluster

Begin HostType
TYPENAME
linux
End HostType

Begin HostModel
MODELNAME  CPUFACTOR   ARCHITECTURE
IntelI5      100        (x86_64)
End HostModel

Begin Resource
RESOURCENAME  TYPE    INTERVAL INCREASING  DESCRIPTION
   fs         Boolean ()       ()          (File server)
   cs         Boolean ()       ()          (Compute server)
   bigmem     Boolean ()       ()          (Large memory host)
End Resource
EOF

  # No load thresholds: the machine is shared, and a busy host must still run
  # the test's jobs.
  cat >"$etc/lsf.cluster.$kClusterName" <<EOF
Begin   ClusterAdmins
Administrators = root
End    ClusterAdmins

Begin   Host
HOSTNAME   model    type   server  RESOURCES
$host      IntelI5  linux  1       (cs bigmem)
End     Host
EOF

  local clean=${VOLCLAVA_CLEAN_PERIOD:-30}
  cat >"$etc/lsb.params" <<EOF
# Fast turnaround for tests (production would use 60 / 30 / 3600).
Begin Parameters
DEFAULT_QUEUE = normal
MBD_SLEEP_TIME = 2
SBD_SLEEP_TIME = 1
JOB_ACCEPT_INTERVAL = 0
CLEAN_PERIOD = $clean
End Parameters
EOF

  cat >"$etc/lsb.hosts" <<EOF
Begin Host
HOST_NAME  MXJ  JL/U  r1m  pg  ls  tmp  DISPATCH_WINDOW
$host      4    ()    ()   ()  ()  ()   ()
End Host

Begin HostGroup
GROUP_NAME   GROUP_MEMBER
hg_compute   ($host)
End HostGroup
EOF

  cat >"$etc/lsb.users" <<EOF
Begin UserGroup
GROUP_NAME   GROUP_MEMBER
ug_dev       (alice bob)
End UserGroup
EOF

  cat >"$etc/lsb.queues" <<EOF
Begin Queue
QUEUE_NAME   = normal
PRIORITY     = 30
HOSTS        = hg_compute
DESCRIPTION  = Default queue.
End Queue

Begin Queue
QUEUE_NAME   = short
PRIORITY     = 40
RUNLIMIT     = 10
DESCRIPTION  = Short jobs, ten minutes at most.
End Queue

Begin Queue
QUEUE_NAME   = tiny
PRIORITY     = 35
QJOB_LIMIT   = 1
UJOB_LIMIT   = 1
DESCRIPTION  = One job at a time: a second one pends.
End Queue

Begin Queue
QUEUE_NAME   = userq
PRIORITY     = 35
USERS        = $user
DESCRIPTION  = Only user $user.
End Queue

Begin Queue
QUEUE_NAME   = closedq
PRIORITY     = 10
DESCRIPTION  = Closed with badmin qclose by volclava.sh start.
End Queue

Begin Queue
QUEUE_NAME   = inactq
PRIORITY     = 10
DESCRIPTION  = Inactivated with badmin qinact by volclava.sh start.
End Queue
EOF
}

write_env() {
  local prefix=$1 state=$2
  cat >"$state/env" <<EOF
export LSF_ENVDIR=$state/etc
export LSF_BINDIR=$prefix/bin
export LSF_SERVERDIR=$prefix/sbin
export PATH=$prefix/bin:${PATH:-/usr/bin:/bin}
export LSB_NTRIES=1
EOF
}

# ---------------------------------------------------------------- processes

# The daemons carry BPLACE_VOLCLAVA_STATE=<state> in their environment, so
# they are found by it (sbatchd restarts mbatchd; lim forks pim), and a
# recycled pid is never taken for one of them. Only shell builtins here
# (-ef, mapfile): a scan looks at every process on the machine.
environ_has() {   # pid, exact "NAME=value"
  local -a vars
  local var
  { mapfile -d '' -t vars <"/proc/$1/environ"; } 2>/dev/null || return 1
  for var in "${vars[@]}"; do
    [ "$var" != "$2" ] || return 0
  done
  return 1
}

environ_has_prefix() {   # pid, "NAME="
  local -a vars
  local var
  { mapfile -d '' -t vars <"/proc/$1/environ"; } 2>/dev/null || return 1
  for var in "${vars[@]}"; do
    [ "${var#"$2"}" = "$var" ] || return 0
  done
  return 1
}

is_daemon() {   # state, server dir, name, pid
  [ "/proc/$4/exe" -ef "$2/$3" ] && environ_has "$4" "BPLACE_VOLCLAVA_STATE=$1"
}

server_dir() {
  sed -n 's/^LSF_SERVERDIR=//p' "$1/etc/lsf.conf" 2>/dev/null
}

# Prints "name pid" for every daemon of the cluster in STATE: those in its pid
# files that still are, and those a scan of /proc finds.
daemons() {
  local state=$1 sbin dir pid name
  sbin=$(server_dir "$state")
  [ -n "$sbin" ] || return 0
  {
    for name in "${kDaemons[@]}"; do
      [ -f "$state/run/$name.pid" ] || continue
      while read -r pid; do
        if is_daemon "$state" "$sbin" "$name" "$pid"; then echo "$name $pid"; fi
      done <"$state/run/$name.pid"
    done
    for dir in /proc/[0-9]*; do
      pid=${dir#/proc/}
      for name in "${kDaemons[@]}"; do
        if is_daemon "$state" "$sbin" "$name" "$pid"; then echo "$name $pid"; fi
      done
    done
  } | awk '!seen[$0]++'
}

daemon_pids() {   # state, name -> its pids
  daemons "$1" | awk -v n="$2" '$1 == n { print $2 }'
}

alive_pids() {   # state -> every daemon pid
  daemons "$1" | awk '{ print $2 }'
}

# Jobs of this cluster still running: their environment (the submitter's) has
# this cluster's LSF_ENVDIR and the LSB_JOBID that sbatchd set.
job_pids() {
  local state=$1 dir pid
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [ "$pid" != "$$" ] || continue
    environ_has "$pid" "LSF_ENVDIR=$state/etc" && environ_has_prefix "$pid" "LSB_JOBID=" && echo "$pid"
  done
  return 0
}

record_pids() {
  local state=$1 name all
  mkdir -p "$state/run"
  all=$(daemons "$state")
  for name in "${kDaemons[@]}"; do
    awk -v n="$name" '$1 == n { print $2 }' <<<"$all" >"$state/run/$name.pid"
  done
}

# ---------------------------------------------------------------- start, stop

lsf() {   # run an LSF client command of the cluster in STATE with a timeout
  local state=$1
  shift
  (
    # shellcheck disable=SC1091
    . "$state/env"
    LSB_NTRIES=1 lsf_timeout "$@"
  )
}

cmd_start() {
  [ $# -eq 2 ] || usage
  local prefix state host base
  prefix=$(absolute "$1")
  state=$(absolute "$2")
  if [ "$(id -u)" -ne 0 ]; then
    log "start needs root (lim, res and sbatchd run as root)"
    exit 77
  fi
  if [ ! -x "$prefix/sbin/lim" ] || [ ! -x "$prefix/bin/bsub" ]; then
    die "no volclava installed in $prefix (no sbin/lim or bin/bsub); install volclava 2.2 there first"
  fi
  case "$prefix$state" in *[[:space:]\'\"\$]*) die "paths must not hold blanks, quotes or \$";; esac
  mkdir -p "$state"
  if [ -n "$(alive_pids "$state")" ]; then
    log "a cluster already runs for $state"
    cat "$state/env"
    return 0
  fi
  host=$(hostname)
  ensure_hosts_entry "$host"
  base=$(pick_port_base)
  write_config "$prefix" "$state" "$host" "$base"
  write_env "$prefix" "$state"

  local daemon_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C
                    LSF_ENVDIR="$state/etc" BPLACE_VOLCLAVA_STATE="$state")
  local d
  for d in lim res sbatchd; do
    # They daemonize; their own output (before they open their logs) goes to
    # STATE/log/<name>.out, never to our caller's pipes.
    "${daemon_env[@]}" timeout 30 "$prefix/sbin/$d" </dev/null >>"$state/log/$d.out" 2>&1 \
      || { stop_cluster "$state"; die "$d failed to start; see $state/log"; }
  done

  local deadline=$((SECONDS + ${VOLCLAVA_START_TIMEOUT:-120})) ok=0 started=$SECONDS
  while [ $SECONDS -lt $deadline ]; do
    if lsf "$state" bhosts -w 2>/dev/null | awk -v h="$host" '$1 == h && $2 == "ok" { f = 1 } END { exit !f }' \
       && lsf "$state" bqueues -w >/dev/null 2>&1; then
      ok=1
      break
    fi
    sleep 1
  done
  if [ $ok -ne 1 ]; then
    log "cluster not up after ${VOLCLAVA_START_TIMEOUT:-120} s; last bhosts -w:"
    lsf "$state" bhosts -w >&2 || true
    tail -n 20 "$state"/log/*.log.* "$state"/log/*.out >&2 2>/dev/null || true
    stop_cluster "$state"
    exit 1
  fi
  lsf "$state" badmin qclose closedq >/dev/null 2>&1 || log "badmin qclose closedq failed"
  lsf "$state" badmin qinact inactq >/dev/null 2>&1 || log "badmin qinact inactq failed"
  record_pids "$state"
  log "cluster up in $((SECONDS - started)) s on host $host, ports $base-$((base + 3))"
  cat "$state/env"
}

stop_cluster() {
  local state=$1 name
  local -a pids
  # sbatchd first, so that it does not restart mbatchd.
  for name in "${kDaemons[@]}"; do
    mapfile -t pids < <(daemon_pids "$state" "$name")
    [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true
  done
  local deadline=$((SECONDS + 10))
  while [ $SECONDS -lt $deadline ] && [ -n "$(alive_pids "$state")" ]; do
    sleep 0.2
  done
  mapfile -t pids < <(alive_pids "$state")
  if [ ${#pids[@]} -gt 0 ]; then
    log "killing daemons that ignored SIGTERM: ${pids[*]}"
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  mapfile -t pids < <(job_pids "$state")
  if [ ${#pids[@]} -gt 0 ]; then
    log "killing leftover jobs of the cluster: ${pids[*]}"
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  rm -f "$state"/run/*.pid
}

cmd_stop() {
  [ $# -eq 1 ] || usage
  local state
  state=$(absolute "$1")
  if [ -z "$(alive_pids "$state")" ]; then
    log "no cluster runs for $state"
  fi
  stop_cluster "$state"
}

cmd_status() {
  [ $# -eq 1 ] || usage
  local state name pids all=0
  state=$(absolute "$1")
  for name in lim res sbatchd mbatchd; do
    pids=$(daemon_pids "$state" "$name" | tr '\n' ' ')
    if [ -n "$pids" ]; then
      echo "$name: running ($pids)"
    else
      echo "$name: not running"
      all=3
    fi
  done
  if [ -f "$state/env" ] && [ -n "$(daemon_pids "$state" lim)" ]; then
    lsf "$state" bhosts -w || all=3
    lsf "$state" bqueues -w || all=3
  fi
  return $all
}

cmd_env() {
  [ $# -eq 1 ] || usage
  cat "$(absolute "$1")/env"
}

absolute() {
  case "$1" in
    /*) echo "$1" ;;
    *) echo "$(pwd)/$1" ;;
  esac
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
sub=$1
shift
case "$sub" in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  status) cmd_status "$@" ;;
  env) cmd_env "$@" ;;
  *) usage ;;
esac
