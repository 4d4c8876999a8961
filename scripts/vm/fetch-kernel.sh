#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: fetch-kernel.sh SERIES      (SERIES: 6.1 or 6.12)
#
# Resolve Debian's current kernel for SERIES through its meta-packages (no ABI
# number is pinned here), with the private apt of scripts/vm/apt.sh; download
# the image and headers .debs into the cache and extract them there: vmlinuz,
# the list of modules, and a headers tree to build against (guac_kdir KVER).
# Nothing is installed into the host. Prints the kernel release on stdout.
# Everything already present is reused.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: fetch-kernel.sh SERIES ($GUAC_SERIES)"
series=$1
set -- $(guac_series_metas "$series")
release=$1 image_meta=$2 headers_meta=$3

guac_apt_fresh "$release"

# The one package a meta-package depends on, without its prefix.
meta_target() {
	guac_apt "$release" apt-cache depends --important "$1" 2>/dev/null |
		sed -n "s/^ *Depends: $2//p" | head -n 1
}

kver=$(meta_target "$image_meta" linux-image-)
if [ -z "$kver" ]; then
	guac_apt_update "$release"
	kver=$(meta_target "$image_meta" linux-image-)
	[ -n "$kver" ] || guac_die "apt cannot resolve $image_meta in $release"
fi
headers_kver=$(meta_target "$headers_meta" linux-headers-)
[ "$kver" = "$headers_kver" ] ||
	guac_die "$image_meta wants $kver but $headers_meta wants '$headers_kver': package lists out of step"

kcache=$GUAC_VM_CACHE/$kver
debs=$GUAC_VM_CACHE/debs/$kver
if [ ! -f "$kcache/.fetched" ]; then
	rm -rf "$kcache" "$debs"
	guac_log "downloading linux-image-$kver and linux-headers-$kver ($release)"
	guac_apt_download "$release" "$debs" "linux-image-$kver" "linux-headers-$kver"

	# What the headers need besides themselves: the common headers and
	# kbuild (scripts, fixdep, modpost). The compiler is checked, not fetched.
	hdeb=$(ls "$debs"/linux-headers-"$kver"_*.deb)
	extra=
	for dep in $(dpkg-deb -f "$hdeb" Depends | tr ',' '\n' | sed 's/ *(.*//; s/^ *//'); do
		case "$dep" in
		linux-headers-* | linux-kbuild-*) extra="$extra $dep" ;;
		linux-compiler-gcc-*-x86)
			cc=gcc-$(echo "$dep" | sed 's/linux-compiler-gcc-\([0-9]*\)-x86/\1/')
			command -v "$cc" >/dev/null ||
				guac_die "$kver is built with $cc, which this machine lacks"
			;;
		esac
	done
	# shellcheck disable=SC2086
	[ -z "$extra" ] || guac_apt_download "$release" "$debs" $extra

	mkdir -p "$kcache/root"
	for deb in "$debs"/linux-headers-*.deb "$debs"/linux-kbuild-*.deb; do
		dpkg-deb -x "$deb" "$kcache/root"
	done
	# The flavour's Makefile includes the common tree by its absolute path.
	kdir=$(guac_kdir "$kver")
	common=$(sed -n 's|^include /usr/src/\(linux-headers-[^/]*\)/Makefile$|\1|p' "$kdir/Makefile")
	[ -n "$common" ] || guac_die "unexpected $kdir/Makefile: no include of the common headers"
	sed -i "s|^include /usr/src/$common/Makefile$|include $kcache/root/usr/src/$common/Makefile|" \
		"$kdir/Makefile"

	ideb=$(ls "$debs"/linux-image-"$kver"_*.deb)
	dpkg-deb --fsys-tarfile "$ideb" | tar -x -C "$kcache" --wildcards './boot/vmlinuz-*'
	mv "$kcache/boot/vmlinuz-$kver" "$kcache/vmlinuz"
	rmdir "$kcache/boot"
	dpkg-deb -c "$ideb" | awk '{ print $NF }' | grep '\.ko\(\.xz\|\.zst\|\.gz\)\?$' >"$kcache/modules.list"
	echo "$ideb" >"$kcache/deb"
	touch "$kcache/.fetched"
fi

echo "$kver" >"$GUAC_VM_CACHE/series-$series"
echo "$kver"
