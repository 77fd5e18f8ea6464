#!/usr/bin/env bash
# Installs the Debian 12 packages bplace builds and tests with. Skips apt when
# everything is already there, so an ordinary user needs no privileges once
# the packages are in. Otherwise it needs root: as root it runs apt-get; as
# an ordinary user it uses sudo when sudo is installed, and without sudo (a
# minimal Debian has none) it prints the command to run as root and exits 1.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git curl
  libboost-dev libboost-system-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  libtomlplusplus-dev libcli11-dev libsystemd-dev libexpected-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libibverbs-dev libssl-dev libsqlite3-dev
  python3  # tools/check-layering and its test
  systemd  # systemd-socket-activate for the socket-activation test
  wrk      # HTTP load of bench/jobs_bench (its smoke test skips without it)
  prometheus  # prometheus and promtool for the GET /metrics integration test
  # volclava, the real scheduler of the realsched tier (tools/volclava.sh)
  autoconf automake libtool bison flex tcl-dev libncurses-dev libtirpc-dev
  libnsl-dev rpcsvc-proto
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    self=$(printf '%q' "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")")
    cat >&2 <<MSG
install-deps: missing Debian packages: ${missing[*]}
install-deps: installing them needs root, and there is no sudo here. As root, run
    su -c $self
  (it asks for the root password), or have an administrator run
    apt-get install --no-install-recommends ${missing[*]}
  then run your command again as yourself.
MSG
    exit 1
  fi
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
