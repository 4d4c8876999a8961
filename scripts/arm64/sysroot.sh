#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# sysroot.sh [DIR]: Debian bookworm's arm64 libcrypto and cmocka, unpacked
# into DIR (default: arm64-sysroot in the harness's cache, /var/cache/guacrng
# as root), a sysroot for -I/-L and nothing else, for cross-building guac and
# its tests on an amd64 host; prints DIR (make guac-arm64 uses it). The .debs come from the project's private apt
# (scripts/vm/apt.sh, its arm64 tree): nothing is installed into the host and
# no architecture is added to its dpkg. bookworm is the host's release, so the
# headers and libraries match the cross compiler's glibc (2.36) and gcc-12.
#
# guac links libcrypto (manifest.c's SHA-256, doctor's PKCS#7 and X.509
# parsing, bench's EVP yardsticks) and libblkid (guac write's probe of its
# target, storage/target_probe.c) and liburing (guac write --iodepth,
# storage/io_uring.c), statically in build/arm64/ for the VM
# guest: libssl-dev has libcrypto.a, libblkid-dev libblkid.a. The arm64 cmocka suite links libcmocka
# (only a shared library in Debian), run under qemu-aarch64 with the sysroot
# on its library path.
#
# Idempotent: DIR/.done records the package versions unpacked; delete DIR to
# fetch them again (security updates). A DIR without one of $pkgs (made
# before it was added here) is made again.
set -eu
GUAC_TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUAC_ARCH=arm64
. "$GUAC_TOP/scripts/vm/lib.sh"

dest=${1:-$GUAC_VM_CACHE/arm64-sysroot}
pkgs="libssl-dev libssl3 libblkid-dev libblkid1 libcmocka-dev libcmocka0 liburing-dev liburing2"
release=bookworm

complete() {
	[ -f "$dest/.done" ] || return 1
	for p in $pkgs; do
		grep -q "^\./${p}_" "$dest/.done" || return 1
	done
}
if complete; then
	echo "$dest"
	exit 0
fi
command -v guac_apt_arch_opts >/dev/null ||
	guac_die "scripts/vm/apt.sh has no arm64 tree (GUAC_ARCH=arm64)"
guac_apt_fresh "$release"
debs="$GUAC_VM_CACHE/arm64-debs"
rm -rf "$debs"
# shellcheck disable=SC2086
guac_apt_download "$release" "$debs" $pkgs
rm -rf "$dest.new"
mkdir -p "$dest.new"
for deb in "$debs"/*_arm64.deb; do
	dpkg-deb -x "$deb" "$dest.new"
done
for a in libcrypto.a libblkid.a liburing.a; do
	[ -f "$dest.new/usr/lib/aarch64-linux-gnu/$a" ] || guac_die "no $a for arm64 in $debs"
done
(cd "$debs" && ls ./*.deb) >"$dest.new/.done"
rm -rf "$dest"
mv "$dest.new" "$dest"
guac_log "arm64 sysroot in $dest"
echo "$dest"
