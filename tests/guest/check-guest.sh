#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check-guest.sh [--upgrade | --arch arm64]
#
# Install and run guacrng the way users do, in a Debian 12 guest (the image
# of scripts/guest/make-image.sh, booted by scripts/guest/run-guest.sh), from
# the .debs of `make deb` in build/deb/. Each boot runs stages of
# tests/guest/stages.sh and powers off; the next boot is a new QEMU on the
# same disk (a qcow2 overlay in build/guest/, the cached image stays as it
# was), from the kernel and initramfs the guest left in /boot.
#
#   make check-guest:          6.1: install | 6.1: loaded, purge | 6.1: purged
#   --upgrade (check-guest-upgrade):
#     6.1: install | 6.1: loaded, kernel-upgrade (Debian's 6.12) |
#     6.12: loaded, purge | 6.12: purged, source (make dkms-install from the tree)
#   --arch arm64 (check-guest-arm64): the arm64 image (make-image.sh arm64)
#     in qemu-system-aarch64, the .debs of build-deb.sh --arch arm64 in
#     build/deb-arm64/: 6.1: install, modprobe, purge (one boot)
#
# A boot that fails stops the run (the next ones build on it) and counts the
# boots it left out as failures. Ends with one result line.
set -eu
. "$(dirname "$0")/../../scripts/vm/lib.sh"

upgrade=0 arch=amd64
case "${1:-}" in
--upgrade) upgrade=1 ;;
--arch)
	arch=${2:-}
	[ "$arch" = arm64 ] || guac_die "--arch: arm64 only (amd64 is the default)"
	;;
'') ;;
*) guac_die "usage: check-guest.sh [--upgrade | --arch arm64]" ;;
esac
name=check-guest
[ "$upgrade" = 0 ] || name=check-guest-upgrade
debdir=$GUAC_TOP/build/deb
if [ "$arch" != amd64 ]; then
	name=check-guest-$arch
	debdir=$GUAC_TOP/build/deb-$arch
fi
export GUEST_ARCH=$arch
work=$GUAC_TOP/build/guest/$name
start=$(date +%s)

dkms_deb=$(ls "$debdir"/guacrng-dkms_*_"$arch".deb 2>/dev/null | head -n 1)
tools_deb=$(ls "$debdir"/guacrng-tools_*_"$arch".deb 2>/dev/null | head -n 1)
[ -n "$dkms_deb" ] && [ -n "$tools_deb" ] ||
	guac_die "no $arch .debs in $debdir (run make deb${arch#amd64}; arm64: make deb-arm64)"

t=$(date +%s)
image=$("$GUAC_TOP/scripts/guest/make-image.sh" "$arch")
image_s=$(($(date +%s) - t))
kver61=$(cat "$image/kver")
boots="1-install:$kver61:install 2-loaded:$kver61:loaded,purge 3-purged:$kver61:purged"
[ "$arch" = amd64 ] || boots="1-install:$kver61:install,modprobe,purge"
if [ "$upgrade" = 1 ]; then
	kver612=$("$GUAC_TOP/scripts/vm/fetch-kernel.sh" 6.12)
	boots="1-install:$kver61:install 2-loaded:$kver61:loaded,kernel-upgrade"
	boots="$boots 3-upgraded:$kver612:loaded,purge 4-purged:$kver612:purged,source"
fi

rm -rf "$work"
mkdir -p "$work/payload/build/deb" "$work/payload/out"
qemu-img create -q -f qcow2 -F raw -b "$image/root.img" "$work/disk.qcow2"
cp "$GUAC_TOP"/tests/guest/guest-run.sh "$GUAC_TOP"/tests/guest/lib.sh "$GUAC_TOP"/tests/guest/stages.sh \
	"$work/payload/"
# As in the tree: the guest runs apt install ./build/deb/*.deb.
cp "$dkms_deb" "$tools_deb" "$work/payload/build/deb/"
size=512M
if [ "$upgrade" = 1 ]; then
	mkdir -p "$work/payload/kernel"
	# The image and headers of 6.12 and the packages its headers need
	# (fetch-kernel.sh downloaded exactly those).
	cp "$GUAC_VM_CACHE/debs/$kver612"/*.deb "$work/payload/kernel/"
	size=1536M
	# A copy of the source tree, as a user's clone has it, for make dkms-install.
	mkdir -p "$work/payload/src"
	git -C "$GUAC_TOP" ls-files -z --cached --others --exclude-standard |
		(cd "$GUAC_TOP" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		(cd "$GUAC_TOP" && xargs -0 cp -P --parents -t "$work/payload/src")
fi
mke2fs -q -t ext4 -L GUACPAYLOAD -d "$work/payload" "$work/payload.img" "$size" ||
	guac_die "mke2fs of the payload disk failed"
# The first boot's kernel comes from the image; the next ones from what the
# guest left in its /boot (guest-run.sh copies it to the payload's out/boot).
mkdir -p "$work/out/boot"
cp "$image/boot/vmlinuz-$kver61" "$image/boot/initrd.img-$kver61" "$work/out/boot/"

passed=0 failed=0 ran=0 lines=
for b in $boots; do
	boot=${b%%:*} rest=${b#*:}
	kver=${rest%%:*} stages=${rest#*:}
	if [ "$failed" != 0 ]; then
		lines="$lines
guest $boot: NOT RUN (an earlier boot failed)"
		failed=$((failed + 1))
		continue
	fi
	ran=$((ran + 1))
	status=0
	line=$("$GUAC_TOP/scripts/guest/run-guest.sh" "$work/disk.qcow2" "$work/payload.img" \
		"$work/out/boot/vmlinuz-$kver" "$work/out/boot/initrd.img-$kver" \
		"$boot" "$stages" "$work/$boot") || status=$?
	echo "$line"
	lines="$lines
$line"
	set -- $(cat "$work/$boot/result" 2>/dev/null || echo "0 1 0")
	passed=$((passed + $1))
	failed=$((failed + $2))
	[ "$status" = 0 ] || [ "$2" != 0 ] || failed=$((failed + 1))
	# What the guest wrote: its TAP copy, logs, journal, the kernels in /boot.
	rm -rf "$work/out.new"
	mkdir -p "$work/out.new"
	debugfs -R "rdump /out $work/out.new" "$work/payload.img" >/dev/null 2>&1 ||
		guac_die "debugfs could not read out/ from the payload disk"
	rm -rf "$work/out"
	mv "$work/out.new/out" "$work/out"
	rm -rf "$work/out.new"
done

total=$(($(date +%s) - start))
echo "$lines" | sed '/^$/d' >"$work/summary"
if [ "$failed" = 0 ]; then
	echo "$name: PASS, $passed test points in $ran boots ($total s: image $image_s s)"
else
	echo "$name: FAIL, $passed passed, $failed failed; logs in $work"
	exit 1
fi
