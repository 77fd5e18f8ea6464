#!/usr/bin/env bash
# Installs the Debian 12 packages bplace builds and tests with. Skips apt when
# everything is already there, so an ordinary user needs no privileges once
# the packages are in. Otherwise it needs root: as root it runs apt-get; as
# an ordinary user it uses sudo when sudo is installed, and without sudo (a
# minimal Debian has none) it prints the command to run as root and exits 1.
# Usage: tools/install-deps.sh [--demo | --build-first]
#   --demo  only what tools/run-demo.sh needs: the compiler, CMake and the
#           libraries the build tree's configure step asks for (a first demo
#           is not kept waiting for the browser, Prometheus, lintian...)
#   --build-first  what the build needs now, after checking that every
#           package can be installed (else the message for them all, exit 1);
#           tools/test.sh then installs the rest beside the build
set -euo pipefail

# What configuring and building the tree needs (tools/build.sh): GoogleTest
# and Google Benchmark too, as the tree has the tests and benches.
packages=(
  build-essential cmake ninja-build pkg-config git curl
  libboost-dev libboost-system-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  libtomlplusplus-dev libcli11-dev libsystemd-dev libexpected-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libibverbs-dev libssl-dev libsqlite3-dev
)
demo_only=0
build_first=0
npm_now=1  # @redocly/cli too (a test tool: not with --demo or --build-first)
case "${1:-}" in
  --demo) demo_only=1 npm_now=0 ;;
  --build-first) build_first=1 npm_now=0 ;;
  "") ;;
  *) echo "usage: tools/install-deps.sh [--demo | --build-first]" >&2; exit 2 ;;
esac
build_packages=("${packages[@]}")

# What the tests need besides.
test_packages=(
  python3  # tools/check-layering and its test
  python3-jsonschema  # tools/validate-responses.py: answers against the OpenAPI document
  systemd  # systemd-socket-activate for the socket-activation test
  wrk      # HTTP load of bench/jobs_bench (its smoke test skips without it)
  chromium chromium-driver python3-selenium fonts-liberation  # the status page's browser test
  prometheus  # prometheus and promtool for the GET /metrics integration test
  toil snakemake  # real workflow engines through the LSF front door (tests/frontdoor)
  # The packages and their checks (tests/deploy, label package): the .deb
  # (debhelper, lintian, fakeroot when not root), the RPM with Debian's rpm
  # (rpmbuild, rpm2cpio, cpio) and rpmlint.
  debhelper lintian fakeroot rpm rpmlint cpio
)

# A module system for the module bplace-lsf's test (tests/deploy): Lmod, as
# most LSF sites run it; Environment Modules conflicts with it as a Debian
# package, so a machine that has that keeps it (the test uses either).
if ! dpkg-query -W -f='${Status}' environment-modules 2>/dev/null | grep -q "install ok installed"; then
  test_packages+=(lmod)
fi

# npm for @redocly/cli (install_redocly), unless a Node.js that brings its
# own npm (NodeSource's) is installed: Debian's npm package conflicts with it.
if ! command -v npm >/dev/null 2>&1; then
  test_packages+=(npm)
fi
if [ "$demo_only" = 0 ]; then
  packages+=("${test_packages[@]}")
fi

# @redocly/cli for the ctest openapi_lint (tools/lint-openapi.sh), under
# tools/node (kept out of git); this is the one place its version is named.
# Its engines ask for Node.js 20.19 or later (Debian 12's nodejs is 18.19).
install_redocly() {
  local version=2.77.0
  local dir
  dir="$(cd "$(dirname "$0")" && pwd)/node"
  if "$dir/node_modules/.bin/redocly" --version 2>/dev/null | grep -qx "$version"; then
    return 0
  fi
  echo "install-deps: installing @redocly/cli@$version under $dir" >&2
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@redocly/cli@$version"
}

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "$npm_now" = 0 ] || install_redocly
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    self=$(printf '%q' "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")")
    [ "$demo_only" = 0 ] || self="'$self --demo'"
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
if [ "$build_first" = 1 ]; then
  # Only the build's; the rest (tests only) come with a later plain run.
  build_missing=()
  for package in "${missing[@]}"; do
    if [[ " ${build_packages[*]} " == *" $package "* ]]; then build_missing+=("$package"); fi
  done
  # sudo asks for the password now, not in the later run beside the build.
  [ ${#sudo[@]} -eq 0 ] || sudo -v
  [ ${#build_missing[@]} -gt 0 ] || exit 0
  missing=("${build_missing[@]}")
fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
[ "$npm_now" = 0 ] || install_redocly
