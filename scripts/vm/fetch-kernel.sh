#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: fetch-kernel.sh SERIES      (SERIES: 6.1 or 6.12)
#
# Resolve Debian's current kernel for SERIES through its meta-packages (no ABI
# number is pinned here), download the image .deb into the cache, extract its
# vmlinuz and file list, and install the matching headers package so the
# module can be built against it. Prints the kernel release on stdout.
# Everything already present is reused.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: fetch-kernel.sh SERIES (6.1 or 6.12)"
series=$1
set -- $(guac_series_metas "$series")
image_meta=$1 headers_meta=$2

# The one package a meta-package depends on, without its prefix.
meta_target() {
	apt-cache depends --important "$1" 2>/dev/null |
		sed -n "s/^ *Depends: $2//p" | head -n 1
}

candidate() {
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p'
}

kver=$(meta_target "$image_meta" linux-image-)
if [ -z "$kver" ]; then
	guac_log "$image_meta unknown to apt: updating the package lists"
	guac_as_root apt-get update -q >&2
	kver=$(meta_target "$image_meta" linux-image-)
	[ -n "$kver" ] || guac_die "apt cannot resolve $image_meta (is this Debian 12 with bookworm-security?)"
fi
headers_kver=$(meta_target "$headers_meta" linux-headers-)
[ "$kver" = "$headers_kver" ] ||
	guac_die "$image_meta wants $kver but $headers_meta wants '$headers_kver': package lists out of step"

image_pkg=linux-image-$kver
version=$(candidate "$image_pkg")
[ -n "$version" ] && [ "$version" != "(none)" ] || guac_die "no installable version of $image_pkg"

# Headers: what `make module KDIR=` builds against.
kdir=/usr/src/linux-headers-$kver
if ! dpkg-query -W -f='${Status}' "linux-headers-$kver" 2>/dev/null | grep -q "install ok installed"; then
	guac_log "installing linux-headers-$kver"
	guac_as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "linux-headers-$kver" >&2
fi
[ -f "$kdir/Makefile" ] || guac_die "headers for $kver missing: $kdir/Makefile"

# The image .deb, downloaded once per package version.
debs=$GUAC_VM_CACHE/debs
mkdir -p "$debs"
deb=
for f in "$debs/${image_pkg}_"*.deb; do
	[ -f "$f" ] && [ "$(dpkg-deb -f "$f" Version)" = "$version" ] && deb=$f
done
if [ -z "$deb" ]; then
	guac_log "downloading $image_pkg $version"
	# apt's sandbox user may not write to our cache; the download is verified either way.
	(cd "$debs" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$image_pkg=$version" >&2)
	for f in "$debs/${image_pkg}_"*.deb; do
		[ -f "$f" ] && [ "$(dpkg-deb -f "$f" Version)" = "$version" ] && deb=$f
	done
	[ -n "$deb" ] || guac_die "apt-get download of $image_pkg=$version left no .deb in $debs"
fi

# vmlinuz and the file list (to find modules the initramfs needs) per version.
kcache=$GUAC_VM_CACHE/$kver
if [ "$(cat "$kcache/deb" 2>/dev/null)" != "$deb" ] || [ ! -f "$kcache/vmlinuz" ]; then
	guac_log "extracting vmlinuz from ${deb##*/}"
	rm -rf "$kcache"
	mkdir -p "$kcache/x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$kcache/x" --wildcards './boot/vmlinuz-*'
	mv "$kcache/x/boot/vmlinuz-$kver" "$kcache/vmlinuz"
	rm -rf "$kcache/x"
	dpkg-deb -c "$deb" | awk '{ print $NF }' | grep '\.ko\(\.xz\|\.zst\|\.gz\)\?$' >"$kcache/modules.list"
	echo "$deb" >"$kcache/deb"
fi

echo "$kver" >"$GUAC_VM_CACHE/series-$series"
echo "$kver"
