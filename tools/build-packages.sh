#!/usr/bin/env bash
# Builds bplace's packages: the Debian package (debian/, debhelper) or the RPM
# (deploy/rpm/bplace.spec, for RHEL/Rocky 8 and 9).
#
# Usage: tools/build-packages.sh deb|rpm [--prebuilt BUILD_DIR] [--out DIR]
#   deb    dpkg-buildpackage -b: OUT/bplace_<version>_<arch>.deb
#   rpm    rpmbuild -bb: OUT/rpmbuild/RPMS/<arch>/bplace-<version>-1.<arch>.rpm
#   --prebuilt BUILD_DIR  package the binaries of that built CMake tree (e.g.
#          build/test) instead of compiling: `cmake --install BUILD_DIR`. The
#          ctest package checks use it. The RPM is then built with --nodeps
#          (its build dependencies are RHEL's names; on Debian, where CI runs,
#          no RPM database has them).
#   --out DIR  where packages and scratch go (default build/packages/deb|rpm);
#          emptied first.
# Without --prebuilt it builds from the committed tree (git archive HEAD), as
# a distribution would: the .deb with Debian's build dependencies installed
# (debian/control), the RPM on RHEL/Rocky with EPEL (rpmbuild checks them).
# Needs dpkg-dev and debhelper (deb) or rpm (rpm): tools/install-deps.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
kind=$1
shift
prebuilt=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) [ $# -ge 2 ] || usage; prebuilt=$(cd "$2" && pwd); shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    *) usage ;;
  esac
done
case "$kind" in
  deb|rpm) ;;
  *) usage ;;
esac
out=${out:-$root/build/packages/$kind}
if [ -n "$prebuilt" ] && [ ! -x "$prebuilt/bplaced/bplaced" ]; then
  echo "build-packages: $prebuilt has no built bplaced (build it first)" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The tree the package is made from: with --prebuilt, what the package steps
# read besides the build tree (debian/ is copied, as dpkg-buildpackage writes
# into it; the rest is linked); otherwise the committed tree.
src="$out/src"
mkdir -p "$src"
if [ -n "$prebuilt" ]; then
  cp -r "$root/debian" "$src/debian"
  for part in CMakeLists.txt config deploy; do ln -s "$root/$part" "$src/$part"; done
else
  git -C "$root" archive --format=tar HEAD | tar -x -C "$src"
fi

build_deb() {
  # dpkg-buildpackage writes the .deb next to the source tree: into $out.
  # -d: with --prebuilt nothing is compiled, so no build dependency is needed.
  local flags=(-b -us -uc)
  if [ -n "$prebuilt" ]; then
    flags+=(-d)
    export BPLACE_PREBUILT=$prebuilt
    # No debug-symbol package, no test run: the check needs neither.
    export DEB_BUILD_OPTIONS="noautodbgsym nocheck"
  fi
  (cd "$src" && dpkg-buildpackage "${flags[@]}")
  ls "$out"/bplace_*.deb
}

build_rpm() {
  local top="$out/rpmbuild"
  local version
  version=$(sed -n 's/^Version:[[:space:]]*//p' "$root/deploy/rpm/bplace.spec")
  mkdir -p "$top/SOURCES"
  cp "$root/deploy/sysusers.d/bplace.conf" "$top/SOURCES/bplace.sysusers"
  local flags=(-bb --define "_topdir $top")
  # Debian's rpm has no systemd macros (RHEL's systemd-rpm-macros).
  if [ -z "$(rpm --eval '%{?_unitdir}')" ]; then
    flags+=(--load "$root/deploy/rpm/macros.systemd")
  fi
  if [ -n "$prebuilt" ]; then
    flags+=(--nodeps --define "bplace_prebuilt $prebuilt" --define "bplace_source $root")
  else
    tar -C "$out" --transform "s,^src,bplace-$version," -czf "$top/SOURCES/bplace-$version.tar.gz" src
  fi
  rpmbuild "${flags[@]}" "$root/deploy/rpm/bplace.spec"
  find "$top/RPMS" -name 'bplace-*.rpm'
}

"build_$kind"
