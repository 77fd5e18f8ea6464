#!/usr/bin/env bash
# Installs a built bplaced as a systemd service in service-account mode.
# Usage (as root): deploy/install.sh BUILD_DIR
set -euo pipefail
build_dir=${1:?usage: deploy/install.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)

install -m 0755 "$build_dir/bplaced/bplaced" /usr/local/bin/bplaced
install -d -m 0755 /etc/bplace /usr/local/share/doc/bplace
if [ ! -f /etc/bplace/bplaced.toml ]; then
  install -m 0644 "$here/../config/bplaced.example.toml" /etc/bplace/bplaced.toml
fi
install -m 0644 "$here/../README.md" /usr/local/share/doc/bplace/README.md
install -d -m 0755 /usr/local/share/doc/bplace/docs
install -m 0644 "$here"/../docs/*.md "$here"/../docs/*.png /usr/local/share/doc/bplace/docs/
if ! id bplace >/dev/null 2>&1; then
  useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin bplace
fi
install -m 0644 "$here/bplaced.service" /etc/systemd/system/bplaced.service
# The multi-user variant and socket activation, for sites that choose them.
install -m 0644 "$here/bplaced-multiuser.service" /etc/systemd/system/bplaced-multiuser.service
install -m 0644 "$here/bplaced.socket" /etc/systemd/system/bplaced.socket
if [ -x "$build_dir/rdma_probe/rdma_probe" ]; then
  install -m 0755 "$build_dir/rdma_probe/rdma_probe" /usr/local/bin/rdma_probe
fi
install -m 0755 "$here/../tools/bplace-token" /usr/local/bin/bplace-token
# The bplace command and its bash completion (bash-completion loads it on demand).
install -m 0755 "$build_dir/cli/bplace" /usr/local/bin/bplace
install -d -m 0755 /usr/local/share/bash-completion/completions
install -m 0644 "$here/../cli/bplace.bash" /usr/local/share/bash-completion/completions/bplace
systemctl daemon-reload
echo "installed; edit /etc/bplace/bplaced.toml ([lsf] bin_dir, env_dir), then: systemctl enable --now bplaced"
