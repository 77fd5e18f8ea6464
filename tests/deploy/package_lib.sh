# Shared by tests/deploy/*_package_test.sh (sourced): what a package must hold.

# fail MESSAGE: prints it and exits 1.
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# cmake_installed BUILD_DIR: the files and symlinks `cmake --install BUILD_DIR
# --prefix /usr` installs, one absolute path a line, sorted: what every
# package must ship (the LSF front door's folder included, whatever it holds).
cmake_installed() {
  local stage
  stage=$(mktemp -d)
  DESTDIR="$stage" cmake --install "$1" --prefix /usr >/dev/null
  (cd "$stage" && find . \( -type f -o -type l \) | sed 's,^\.,,' | sort)
  rm -rf "$stage"
}

# check_ships_cmake_install BUILD_DIR LISTING: every path cmake installs is in
# LISTING (the package's paths, one a line), after the package's own moves
# (MOVES: sed expressions, e.g. Debian's /usr/lib/systemd -> /lib/systemd;
# documentation compressed by the packaging counts as shipped).
check_ships_cmake_install() {
  local build=$1 listing=$2 moves=$3 installed missing
  installed=$(cmake_installed "$build" | sed -e "$moves" | sort)
  missing=$(comm -23 <(echo "$installed") \
    <(sed 's,^\(/usr/share/doc/.*\)\.gz$,\1,' "$listing" | sort -u))
  [ -z "$missing" ] || fail "installed by cmake but not in the package:
$missing"
  echo "ok: the package ships all $(echo "$installed" | wc -l) files cmake installs"
}

# check_installed_tree ROOT UNITDIR: the files a package installed under ROOT
# (an extracted or dpkg --root tree) are complete and name the right paths.
check_installed_tree() {
  local root=$1 unitdir=$2 path
  for path in /usr/sbin/bplaced /usr/bin/bplace /usr/bin/bplace-token /usr/bin/rdma_probe \
              /usr/libexec/bplace/elim.ib; do
    [ -x "$root$path" ] || fail "$path is missing or not executable"
  done
  [ -d "$root/usr/libexec/bplace/lsf" ] || fail "the front door's folder /usr/libexec/bplace/lsf is missing"
  for path in "$unitdir/bplaced.service" "$unitdir/bplaced-multiuser.service" \
              "$unitdir/bplaced.socket" /usr/lib/sysusers.d/bplace.conf \
              /usr/lib/tmpfiles.d/bplace.conf /usr/share/modulefiles/bplace-lsf \
              /etc/bplace/bplaced.toml /etc/bplace/front-door.conf /etc/profile.d/bplace-lsf.sh \
              /usr/share/bash-completion/completions/bplace /usr/share/doc/bplace/README.md \
              /usr/share/bplace/examples/bplaced.example.toml; do
    [ -f "$root$path" ] || fail "$path is missing"
  done
  grep -qx 'ExecStart=/usr/sbin/bplaced --config /etc/bplace/bplaced.toml' \
    "$root$unitdir/bplaced.service" || fail "bplaced.service does not start /usr/sbin/bplaced"
  grep -qx 'ExecStart=/usr/sbin/bplaced --config /etc/bplace/bplaced.toml' \
    "$root$unitdir/bplaced-multiuser.service" || fail "bplaced-multiuser.service does not start /usr/sbin/bplaced"
  grep -qx 'User=bplace' "$root$unitdir/bplaced.service" || fail "bplaced.service does not run as bplace"
  grep -q 'RDMA_PROBE:-/usr/bin/rdma_probe}' "$root/usr/libexec/bplace/elim.ib" ||
    fail "the elim does not run /usr/bin/rdma_probe"
  grep -qx 'set lsf_dir {/usr/libexec/bplace/lsf}' "$root/usr/share/modulefiles/bplace-lsf" ||
    fail "the module does not name /usr/libexec/bplace/lsf"
  grep -qx "_bplace_lsf_dir='/usr/libexec/bplace/lsf'" "$root/etc/profile.d/bplace-lsf.sh" ||
    fail "the login-shell snippet does not name /usr/libexec/bplace/lsf"
  if grep -rlI '@BPLACE_[A-Z_]*@' "$root" >/dev/null; then
    fail "placeholders left in: $(grep -rlI '@BPLACE_[A-Z_]*@' "$root" | tr '\n' ' ')"
  fi
  local version
  version=$("$root/usr/sbin/bplaced" --version) || fail "bplaced --version failed"
  [ "$version" = "bplaced $BPLACE_VERSION" ] || fail "bplaced --version says '$version', not 'bplaced $BPLACE_VERSION'"
  "$root/usr/bin/bplace" --version >/dev/null || fail "bplace --version failed"
  echo "ok: files, units, elim, module and snippet in place; $version"
}
