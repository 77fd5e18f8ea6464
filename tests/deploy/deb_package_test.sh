#!/usr/bin/env bash
# The .deb built by the ctest fixture package_deb (tools/build-packages.sh deb
# --prebuilt), installed into a throw-away root with dpkg --root and its
# maintainer scripts run against that root (--force-script-chrootless, which
# sets DPKG_ROOT): files, units, the bplace user, the state directory, that
# no unit is enabled, that bplaced --version runs from the installed tree,
# and that a purge removes the state but keeps the user. The host is left
# alone (checked). As root, or under fakeroot otherwise.
# Usage: deb_package_test.sh DEB BUILD_DIR VERSION
set -euo pipefail
deb=$1 build=$2
export BPLACE_VERSION=$3
. "$(dirname "$0")/package_lib.sh"

if [ "$(id -u)" -ne 0 ] && [ -z "${FAKEROOTKEY:-}" ]; then
  exec fakeroot -- "$0" "$@"
fi

root=$(mktemp -d /tmp/bplace-deb-root-XXXXXX)
trap 'rm -rf "$root" "$root.log"' EXIT
host_passwd=$(sha256sum /etc/passwd /etc/group)
host_state=$([ -e /var/lib/bplace ] && echo present || echo absent)

# An empty dpkg database, and the root's own users (systemd-sysusers adds
# bplace to these, never to the host's).
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/etc"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

# dpkg checks that ldconfig and start-stop-daemon are on PATH, and an
# ordinary user's PATH on Debian has no sbin directories.
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
dpkg_root=(dpkg --root="$root" --force-script-chrootless --force-depends --log=/dev/null)
[ "$(id -u)" -eq 0 ] || dpkg_root+=(--force-not-root)
# dpkg's own output (the dependencies it was told to ignore) only on failure.
"${dpkg_root[@]}" -i "$deb" >"$root.log" 2>&1 || fail "dpkg -i into $root failed: $(cat "$root.log")"
dpkg-query --root="$root" -W -f='${Status}\n' bplace | grep -qx 'install ok installed' ||
  fail "dpkg does not list bplace as installed"

# Everything cmake installs is in the package (Debian moves the units to
# /lib/systemd/system and the snippet to /etc/profile.d).
dpkg-query --root="$root" -L bplace >"$root/listing"
check_ships_cmake_install "$build" "$root/listing" \
  's,^/usr/lib/systemd/,/lib/systemd/,; s,^/usr/share/bplace/profile.d/,/etc/profile.d/,'
check_installed_tree "$root" /lib/systemd/system

for conffile in /etc/bplace/bplaced.toml /etc/bplace/front-door.conf /etc/profile.d/bplace-lsf.sh; do
  dpkg-query --root="$root" -W -f='${Conffiles}\n' bplace | grep -q " $conffile " ||
    fail "$conffile is not a conffile"
done

# The user (postinst: systemd-sysusers) and the state dir (tmpfiles).
entry=$(grep '^bplace:' "$root/etc/passwd") || fail "postinst made no bplace user"
IFS=: read -r _ _ uid gid _ home shell <<<"$entry"
[ "$uid" -lt 1000 ] || fail "bplace is not a system user (uid $uid)"
[ "$home" = /var/lib/bplace ] || fail "bplace's home is $home"
case "$shell" in */nologin) ;; *) fail "bplace's shell is $shell" ;; esac
grep -q "^bplace:x:$gid:" "$root/etc/group" || fail "no group bplace with gid $gid"
[ -d "$root/var/lib/bplace" ] || fail "postinst made no /var/lib/bplace"
owner=$(stat -c '%u:%g %a' "$root/var/lib/bplace")
[ "$owner" = "$uid:$gid 700" ] || fail "/var/lib/bplace is $owner, not $uid:$gid 700"
echo "ok: user bplace (uid $uid, home $home, $shell), /var/lib/bplace $owner"

# Installed, not enabled, not started (the admin picks a mode).
if find "$root/etc/systemd/system" -name 'bplaced*' 2>/dev/null | grep -q .; then
  fail "a unit was enabled: $(find "$root/etc/systemd/system" -name 'bplaced*')"
fi

"${dpkg_root[@]}" --purge bplace >"$root.log" 2>&1 || fail "dpkg --purge failed: $(cat "$root.log")"
[ ! -e "$root/var/lib/bplace" ] || fail "the purge left /var/lib/bplace"
[ ! -e "$root/etc/bplace/bplaced.toml" ] || fail "the purge left /etc/bplace/bplaced.toml"
[ ! -e "$root/usr/sbin/bplaced" ] || fail "the purge left /usr/sbin/bplaced"
grep -q '^bplace:' "$root/etc/passwd" || fail "the purge removed the bplace user"
echo "ok: purge removed the files and the state, kept the user"

[ "$(sha256sum /etc/passwd /etc/group)" = "$host_passwd" ] || fail "the host's /etc/passwd or /etc/group changed"
[ "$([ -e /var/lib/bplace ] && echo present || echo absent)" = "$host_state" ] ||
  fail "the host's /var/lib/bplace changed"
echo "ok: the host's users and /var/lib/bplace untouched"
