#!/usr/bin/env bash
# debian/changelog's version and the spec's Version are the project's
# (CMakeLists.txt project(VERSION)): a release changes all three.
# Usage: package_versions_test.sh SOURCE_DIR VERSION
set -euo pipefail
src=$1 version=$2
. "$(dirname "$0")/package_lib.sh"
deb=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
spec=$(sed -n 's/^Version:[[:space:]]*//p' "$src/deploy/rpm/bplace.spec")
[ "$deb" = "$version" ] || fail "debian/changelog says $deb, CMakeLists.txt $version"
[ "$spec" = "$version" ] || fail "deploy/rpm/bplace.spec says $spec, CMakeLists.txt $version"
echo "ok: $version everywhere"
