#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: userland.sh          (GUAC_ARCH=arm64; prints the root on stdout)
#
# The guest's programs for an architecture other than the host's: what the
# amd64 initramfs copies from the host (busybox and tests/vm/host-programs,
# with their shared libraries), taken from Debian bookworm's .debs of
# GUAC_ARCH instead. The packages are those that hold the host's own copies
# (dpkg -S), so tests/vm/host-programs stays the one list; they and their
# dependencies are downloaded with the private apt (apt-get install
# --download-only into the cache: nothing is installed into the host) and
# extracted with dpkg-deb -x into $GUAC_VM_CACHE/userland-bookworm-ARCH/root,
# made once (again when host-programs changes).
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 0 ] || guac_die "usage: userland.sh (GUAC_ARCH=arm64)"
[ "$GUAC_ARCH" != amd64 ] || guac_die "userland.sh is for a foreign GUAC_ARCH (amd64 guests use the host's programs)"
release=bookworm
dir=$GUAC_VM_CACHE/userland-$release-$GUAC_ARCH
list=$GUAC_TOP/tests/vm/host-programs

mkdir -p "$dir"
exec 9>"$dir.lock"
flock 9

# The host package that holds PATH (merged /usr: dpkg knows one of the two names).
host_package() {
	local p
	for p in "$1" "/usr$1" "${1#/usr}"; do
		dpkg -S "$p" 2>/dev/null | sed -n 's/^\([^:,]*\)\(:[a-z0-9]*\)\?: .*/\1/p' | head -n 1 | grep . &&
			return 0
	done
	guac_die "no host package holds $1 (tests/vm/host-programs; run scripts/install-deps.sh)"
}

packages=busybox-static
for prog in $(grep -v '^\s*\(#\|$\)' "$list"); do
	packages="$packages $(host_package "$prog")"
done
packages=$(printf '%s\n' $packages | LC_ALL=C sort -u | xargs)

if [ "$(cat "$dir/packages" 2>/dev/null)" != "$packages" ] || [ ! -f "$dir/root/bin/busybox" ]; then
	guac_apt_fresh "$release"
	guac_log "downloading $packages and their dependencies ($release $GUAC_ARCH)"
	rm -rf "$dir/debs" "$dir/root"
	mkdir -p "$dir/debs/partial" "$dir/root"
	# shellcheck disable=SC2086
	guac_apt "$release" apt-get install --download-only -y --no-install-recommends \
		-o Dir::Cache::archives="$dir/debs" $packages >&2 ||
		guac_die "apt-get install --download-only $packages ($release $GUAC_ARCH) failed"
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	[ -f "$dir/root/bin/busybox" ] || guac_die "no /bin/busybox in busybox-static ($GUAC_ARCH)"
	echo "$packages" >"$dir/packages"
fi
echo "$dir/root"
