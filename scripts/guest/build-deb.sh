#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: build-deb.sh [--arch arm64] [OUTDIR]   (default build/deb, build/deb-arm64)
#
# The Debian packages guacrng-dkms and guacrng-tools, and the source package,
# built by dpkg-buildpackage (debhelper, dh-dkms; debian/) in a clean copy of
# the tree: the files git tracks plus the new ones it does not ignore, so
# nothing of build/ or of an earlier build gets in and the work tree is left
# as it was. OUTDIR ends up with exactly this build's .deb, .dsc, .tar.xz,
# .buildinfo and .changes. Unsigned (-us -uc); no -dbgsym package.
#
# --arch arm64: the arm64 packages, cross-built (dpkg-buildpackage -aarm64
# -Pcross,nocheck --build=any: the binary packages, no source package) in
# the bookworm chroot of scripts/vm/chroot.sh, where arm64 is a foreign
# architecture (dpkg --add-architecture) with crossbuild-essential-arm64 and
# the build dependencies for arm64 (libssl-dev:arm64, libblkid-dev:arm64,
# liburing-dev:arm64): the host gets neither
# the architecture nor the packages. nocheck: the build machine cannot run
# the arm64 guac (make check-guest-arm64 runs it, in an arm64 guest).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
arch=
if [ "${1:-}" = --arch ]; then
	arch=${2:?--arch needs an architecture}
	shift 2
	[ "$arch" = arm64 ] || { echo "build-deb: error: --arch: arm64 only (amd64 is the native build)" >&2; exit 1; }
fi
out=${1:-$top/build/deb${arch:+-$arch}}
work=$top/build/deb-src${arch:+-$arch}
src=$work/guacrng

log() { echo "build-deb: $*" >&2; }

rm -rf "$work"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	# Files deleted in the work tree but not in the index are skipped.
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh) |
		(cd "$top" && xargs -0 cp -P --parents -t "$src")
else
	(cd "$top" && tar -c --exclude=./build --exclude=./.git .) | tar -x -C "$src"
fi

start=$(date +%s)
if [ -z "$arch" ]; then
	log "dpkg-buildpackage in $src"
	(cd "$src" && DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}" \
		nice dpkg-buildpackage -us -uc --build=full) >"$work/build.log" 2>&1 || {
		tail -n 30 "$work/build.log" >&2
		log "error: dpkg-buildpackage failed (log: $work/build.log)"
		exit 1
	}
else
	chroot=$top/scripts/vm/chroot.sh
	"$chroot" ensure bookworm >&2
	"$chroot" run bookworm -- dpkg --add-architecture "$arch"
	# The cross toolchain, and debian/control's Build-Depends for arm64.
	"$chroot" ensure bookworm build-essential crossbuild-essential-"$arch" dpkg-dev debhelper \
		dh-dkms libssl-dev:"$arch" libblkid-dev:"$arch" liburing-dev:"$arch" >&2
	log "dpkg-buildpackage -a$arch -Pcross,nocheck in $src (bookworm chroot)"
	# shellcheck disable=SC2016
	"$chroot" run bookworm --bind "$work" -- sh -c '
		cd "$1" && DEB_BUILD_OPTIONS="noautodbgsym nocheck $2" \
		nice dpkg-buildpackage -us -uc -a"$3" -Pcross,nocheck --build=any' \
		sh "$src" "${DEB_BUILD_OPTIONS:-}" "$arch" >"$work/build.log" 2>&1 || {
		tail -n 30 "$work/build.log" >&2
		log "error: dpkg-buildpackage -a$arch failed (log: $work/build.log)"
		exit 1
	}
fi

rm -rf "$out"
mkdir -p "$out"
changes=$(ls "$work"/guacrng_*.changes)
# Everything the .changes lists, and the .changes itself.
sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes" |
	while read -r f; do mv "$work/$f" "$out/"; done
mv "$changes" "$out/"
cp "$work/build.log" "$out/"
log "built in $(($(date +%s) - start)) s:"
(cd "$out" && ls -l -- *.deb $(ls *.dsc 2>/dev/null) *.changes) >&2
