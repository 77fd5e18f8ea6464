#!/usr/bin/env bash
# Installs a built bplace under /usr/local (or PREFIX) without a package, the
# same files the packages install (CMake's install rules, deploy/CMakeLists.txt),
# then what a package's scripts would do: the admin's files under /etc (kept
# when they exist), the bplace user (systemd-sysusers) and its state directory
# (systemd-tmpfiles). Units are installed, not enabled.
# Usage (as root): deploy/install.sh BUILD_DIR [PREFIX]
set -euo pipefail
build_dir=${1:?usage: deploy/install.sh BUILD_DIR [PREFIX]}
prefix=${2:-/usr/local}
here=$(cd "$(dirname "$0")" && pwd)

cmake --install "$build_dir" --prefix "$prefix"

# The admin's files: never overwritten.
install -d -m 0755 /etc/bplace /etc/profile.d
if [ ! -f /etc/bplace/bplaced.toml ]; then
  install -m 0644 "$here/../config/bplaced.example.toml" /etc/bplace/bplaced.toml
fi
if [ ! -f /etc/bplace/front-door.conf ]; then
  install -m 0644 "$here/front-door.conf" /etc/bplace/front-door.conf
fi
# The login-shell snippet does nothing until front-door.conf says LOGIN_SHELLS=yes.
if [ ! -f /etc/profile.d/bplace-lsf.sh ]; then
  install -m 0644 "$prefix/share/bplace/profile.d/bplace-lsf.sh" /etc/profile.d/bplace-lsf.sh
fi

systemd-sysusers "$prefix/lib/sysusers.d/bplace.conf"
systemd-tmpfiles --create "$prefix/lib/tmpfiles.d/bplace.conf"
systemctl daemon-reload
echo "installed under $prefix; edit /etc/bplace/bplaced.toml ([lsf] bin_dir, env_dir), then:" \
     "systemctl enable --now bplaced (service account) or bplaced-multiuser (as each caller)"
