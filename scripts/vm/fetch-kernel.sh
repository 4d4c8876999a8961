#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: fetch-kernel.sh SERIES      (SERIES: see GUAC_SERIES in lib.sh)
#
# Resolve Debian's current kernel for SERIES through its meta-packages (no ABI
# number is pinned here), with the private apt of scripts/vm/apt.sh; download
# the image and headers .debs into the cache and extract them there: vmlinuz,
# the list of modules, and a headers tree to build against (guac_kdir KVER).
# Nothing is installed into the host. Prints the kernel release on stdout.
# Everything already present is reused.
#
# The image is one package up to 6.x; on 7.x linux-image-KVER is a stub that
# depends on linux-binary-KVER (vmlinuz in /usr/lib/modules/KVER/) and
# linux-modules-KVER; both shapes end up the same in the cache.
#
# GUAC_ARCH=arm64: Debian's arm64 kernel of SERIES, with the amd64
# linux-kbuild (Multi-Arch: foreign: its fixdep and modpost run on the host).
# Its vmlinuz is a gzip'd Image, which qemu-system-aarch64 takes as it is.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: fetch-kernel.sh SERIES ($GUAC_SERIES)"
series=$1
set -- $(guac_series_metas "$series")
release=$1 image_meta=$2 headers_meta=$3 toolchain=$4

# One fetch of a series at a time: a second caller (make check's prefetch,
# another make) waits and then finds everything in the cache.
mkdir -p "$GUAC_VM_CACHE"
exec 9>"$(guac_series_file "$series").lock"
flock 9

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

# The package names in a .deb's Depends field, without versions or alternatives.
deb_depends() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/|.*//; s/ *(.*//; s/^ *//; s/ *$//'
}

# try_download KVER: the image and headers .debs of KVER, or fail.
try_download() {
	rm -rf "$GUAC_VM_CACHE/$1" "$GUAC_VM_CACHE/debs/$1"
	guac_log "downloading linux-image-$1 and linux-headers-$1 ($release)"
	(guac_apt_download "$release" "$GUAC_VM_CACHE/debs/$1" "linux-image-$1" "linux-headers-$1")
}

if [ ! -f "$GUAC_VM_CACHE/$kver/.fetched" ] && ! try_download "$kver"; then
	# A mirror may lack the newest (security) update of one architecture
	# while its lists name it (seen: bullseye-security's arm64 5.10): then
	# the newest older version of the meta-package whose .debs it serves,
	# said on stderr.
	wanted=$kver
	kver=
	for v in $(guac_apt "$release" apt-cache madison "$image_meta" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | uniq); do
		k=$(meta_target "$image_meta=$v" linux-image-)
		[ -n "$k" ] && [ "$k" != "$wanted" ] || continue
		[ "$(meta_target "$headers_meta=$v" linux-headers-)" = "$k" ] || continue
		if [ -f "$GUAC_VM_CACHE/$k/.fetched" ] || try_download "$k"; then
			kver=$k
			break
		fi
	done
	[ -n "$kver" ] || guac_die "the mirror serves no version of $image_meta's kernel ($release)"
	guac_log "the mirror lacks linux-image-$wanted: using $kver ($image_meta $v) instead"
fi

kcache=$GUAC_VM_CACHE/$kver
debs=$GUAC_VM_CACHE/debs/$kver
if [ ! -f "$kcache/.fetched" ]; then

	# What the headers need besides themselves: the common headers and
	# kbuild (scripts, fixdep, modpost). On 7.x the image is a stub whose
	# kernel and modules are packages of their own.
	extra=
	for dep in $(deb_depends "$(ls "$debs"/linux-headers-"$kver"_*.deb)"); do
		case "$dep" in
		linux-headers-*) extra="$extra $dep" ;;
		# The host's kbuild, whatever the kernel's architecture.
		linux-kbuild-*) extra="$extra $dep:amd64" ;;
		esac
	done
	for dep in $(deb_depends "$(ls "$debs"/linux-image-"$kver"_*.deb)"); do
		case "$dep" in
		linux-binary-"$kver" | linux-modules-"$kver") extra="$extra $dep" ;;
		esac
	done
	# shellcheck disable=SC2086
	[ -z "$extra" ] || guac_apt_download "$release" "$debs" $extra

	mkdir -p "$kcache/root"
	for deb in "$debs"/linux-headers-*.deb "$debs"/linux-kbuild-*.deb; do
		dpkg-deb -x "$deb" "$kcache/root"
	done
	# The flavour's Makefile includes the common tree by its absolute path
	# (and on 7.x names itself as KBUILD_OUTPUT, absolute too).
	kdir=$(guac_kdir "$kver")
	grep -q '^include /usr/src/linux-headers-[^/]*/Makefile$' "$kdir/Makefile" ||
		guac_die "unexpected $kdir/Makefile: no include of the common headers"
	sed -i "s#^\\(include \\|KBUILD_OUTPUT=\\)/usr/src/#\\1$kcache/root/usr/src/#" "$kdir/Makefile"

	# vmlinuz, from whichever of the image's .debs holds it.
	for deb in "$debs"/linux-image-"$kver"_*.deb "$debs"/linux-binary-"$kver"_*.deb; do
		[ -f "$deb" ] || continue
		for path in "./boot/vmlinuz-$kver" "./usr/lib/modules/$kver/vmlinuz"; do
			if dpkg-deb -c "$deb" | awk '{ print $NF }' | grep -xF "$path" >/dev/null; then
				dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$path" >"$kcache/vmlinuz.tmp"
				mv "$kcache/vmlinuz.tmp" "$kcache/vmlinuz"
			fi
		done
	done
	[ -s "$kcache/vmlinuz" ] || guac_die "no vmlinuz in the image .debs of $kver"
	touch "$kcache/.fetched"
fi

# What make-initramfs.sh and build-module.sh read, from the .debs (also for
# kernels fetched before these files existed):
#   image-debs    the image's .debs, one path a line
#   modules.map   "PATH DEB" for every module .ko in them
#   toolchain     "host GCC" or "RELEASE GCC": the compiler the headers were
#                 built with (their Depends), the host's or a chroot's
if [ ! -f "$kcache/toolchain" ]; then
	ls "$debs"/linux-image-"$kver"_*.deb "$debs"/linux-binary-"$kver"_*.deb \
		"$debs"/linux-modules-"$kver"_*.deb 2>/dev/null >"$kcache/image-debs.tmp" || true
	: >"$kcache/modules.map.tmp"
	while read -r deb; do
		dpkg-deb -c "$deb" | awk -v deb="$deb" \
			'$NF ~ /\.ko(\.xz|\.zst|\.gz)?$/ { print $NF, deb }' >>"$kcache/modules.map.tmp"
	done <"$kcache/image-debs.tmp"
	[ -s "$kcache/modules.map.tmp" ] || guac_die "no modules in the image .debs of $kver"

	cc=
	for dep in $(deb_depends "$(ls "$debs"/linux-headers-"$kver"_*.deb)"); do
		case "$dep" in
		linux-compiler-gcc-*-x86 | linux-compiler-gcc-*-arm)
			cc=$(echo "$dep" | sed 's/^linux-compiler-\(gcc-[0-9]*\)-[a-z0-9]*$/\1/') ;;
		gcc-*-for-host) cc=${dep%-for-host} ;;
		gcc-[0-9]*) cc=$dep ;;
		esac
	done
	[ -n "$cc" ] || guac_die "linux-headers-$kver names no compiler in its Depends"
	host_cc=$cc
	[ "$GUAC_ARCH" != arm64 ] || host_cc=aarch64-linux-gnu-$cc
	[ "$toolchain" != host ] || command -v "$host_cc" >/dev/null ||
		guac_die "$kver is built with $host_cc, which this machine lacks"
	mv "$kcache/image-debs.tmp" "$kcache/image-debs"
	mv "$kcache/modules.map.tmp" "$kcache/modules.map"
	echo "$toolchain $cc" >"$kcache/toolchain"
fi

echo "$kver" >"$(guac_series_file "$series")"
echo "$kver"
