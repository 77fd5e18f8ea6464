#!/usr/bin/env bash
# The RPM built by the ctest fixture package_rpm (tools/build-packages.sh rpm
# --prebuilt, Debian's rpmbuild): its file list holds everything cmake
# installs, its files (extracted with rpm2cpio) name the right paths and
# bplaced --version runs from them, its config files are %config, the state
# directory belongs to bplace with mode 0700, and its scriptlets create the
# user before anything else and leave the units disabled (preset).
# Usage: rpm_package_test.sh RPM BUILD_DIR VERSION
set -euo pipefail
rpm=$1 build=$2
export BPLACE_VERSION=$3
. "$(dirname "$0")/package_lib.sh"

work=$(mktemp -d /tmp/bplace-rpm-root-XXXXXX)
trap 'rm -rf "$work"' EXIT
# No RPM database on Debian: queries of a package file need none, but rpm
# wants a place for one.
query=(rpm --dbpath "$work/db" -qp)

"${query[@]}" -l "$rpm" >"$work/listing"
check_ships_cmake_install "$build" "$work/listing" 's,^/usr/share/bplace/profile.d/,/etc/profile.d/,'

mkdir "$work/root"
(cd "$work/root" && rpm2cpio "$rpm" | cpio -idm --quiet)
check_installed_tree "$work/root" /usr/lib/systemd/system

"${query[@]}" -c "$rpm" | sort >"$work/config"
for file in /etc/bplace/bplaced.toml /etc/bplace/front-door.conf /etc/profile.d/bplace-lsf.sh; do
  grep -qx "$file" "$work/config" || fail "$file is not %config"
done
state=$("${query[@]}" --qf '[%{FILENAMES} %{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME}\n]' "$rpm" |
  grep '^/var/lib/bplace ') || fail "the package does not own /var/lib/bplace"
[ "$state" = "/var/lib/bplace drwx------ bplace:bplace" ] || fail "state directory: $state"
echo "ok: config files are %config; $state"

"${query[@]}" --scripts "$rpm" >"$work/scripts"
awk '/^preinstall/,/^postinstall/' "$work/scripts" | grep -Eq 'useradd .*bplace|systemd-sysusers' ||
  fail "%pre does not create the bplace user: $(cat "$work/scripts")"
grep -q 'systemctl --no-reload preset bplaced.service bplaced-multiuser.service bplaced.socket' \
  "$work/scripts" || fail "%post does not preset the units"
grep -q 'systemd-tmpfiles --create bplace.conf' "$work/scripts" || fail "%post does not make the state dir"
grep -q 'systemctl try-restart bplaced.service' "$work/scripts" || fail "%postun does not restart on upgrade"
if grep -Eq 'systemctl( --[a-z-]+)* (enable|start|reenable) ' "$work/scripts"; then
  fail "a scriptlet enables or starts a unit"
fi
echo "ok: scriptlets: user in %pre, preset and tmpfiles in %post, restart on upgrade"
