#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: make-initramfs.sh KVER
#
# Pack build/vm/KVER/initramfs.cpio.gz (newc, gzip): static busybox, the
# static guac and guac-vmtest, guacrng.ko, its test variant guacrng-test.ko
# and the modules they depend on (taken from the kernel's image .debs), the
# host programs listed in tests/vm/host-programs (with their shared
# libraries), and tests/vm/ as /init, /tests/runner.sh (with lib.sh and storage.sh) and /tests/scenarios/. GUAC_VM_SCENARIOS: the directories
# whose *.sh become /tests/scenarios/ (default tests/vm/scenarios).
# The distro modules listed in tests/vm/modules go, with their dependencies,
# into /lib/modules/extra/ (extra.order): scenarios load those themselves.
# GUAC_VM_MODULES: another such list (tests/vm/twohosts/modules).
# GUAC_VM_HOST_PROGRAMS: more lists of host programs, after host-programs
# (default none; tests/vm/fio/host-programs: fio, for tests/vm/bench-fio.sh).
#
# GUAC_ARCH=arm64: busybox and the host programs come from Debian's arm64
# .debs instead (userland.sh), their shared libraries found through their
# ELF NEEDED entries; guac and guac-vmtest are the static aarch64 builds
# (make guac-arm64: build/arm64/; GUAC_VM_GUAC, GUAC_VM_VMTEST); and /init loads virtio_mmio and
# virtio_console first where they are modules: the TAP leaves through a
# virtio serial port.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: make-initramfs.sh KVER"
kver=$1
out=$GUAC_VM_BUILD/$kver
kcache=$GUAC_VM_CACHE/$kver
root=$out/initramfs
tests=$GUAC_TOP/tests/vm

# Where the guest's programs come from: the host (amd64), or for arm64 the
# root userland.sh extracts from Debian's arm64 .debs, and the aarch64 builds
# of guac and guac-vmtest.
if [ "$GUAC_ARCH" = arm64 ]; then
	progroot=$("$(dirname "$0")/userland.sh")
	guac=${GUAC_VM_GUAC:-$GUAC_TOP/build/arm64/guac}
	vmtest=${GUAC_VM_VMTEST:-$GUAC_TOP/build/arm64/guac-vmtest}
	strip=aarch64-linux-gnu-strip
else
	progroot=
	guac=${GUAC_VM_GUAC:-$GUAC_VM_BUILD/userspace/guac}
	vmtest=${GUAC_VM_VMTEST:-$GUAC_VM_BUILD/guac-vmtest}
	strip=strip
fi

for f in "$out/guacrng.ko" "$out/guacrng-test.ko" "$guac" "$vmtest" "$progroot/bin/busybox"; do
	[ -f "$f" ] || guac_die "missing $f (run make vm-tools${progroot:+ or make guac-arm64} and scripts/vm/build-module.sh $kver)"
done

rm -rf "$root"
mkdir -p "$root/bin" "$root/lib/modules/deps" "$root/tests"
cp "$progroot/bin/busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"	# for /init's #!; init.sh installs the other applets
$strip -o "$root/bin/guac" "$guac"
$strip -o "$root/bin/guac-vmtest" "$vmtest"
cp "$out/guacrng.ko" "$root/lib/modules/guacrng.ko"
cp "$out/guacrng-test.ko" "$root/lib/modules/guacrng-test.ko"
cp "$tests/init.sh" "$root/init"
cp "$tests/lib.sh" "$tests/storage.sh" "$tests/runner.sh" "$tests/bench.sh" "$tests/demo.sh" "$root/tests/"
# The statistical test scripts users run, to run them on the devices themselves.
cp "$GUAC_TOP/scripts/dieharder.sh" "$GUAC_TOP/scripts/rngtest.sh" "$root/tests/"
# The KCSAN run's report triage, the same program the host runs.
cp "$GUAC_TOP/scripts/kernel/kcsan-triage.awk" "$root/tests/"
mkdir -p "$root/tests/scenarios"
for dir in ${GUAC_VM_SCENARIOS:-$tests/scenarios}; do
	cp "$dir"/*.sh "$root/tests/scenarios/"
done
chmod 755 "$root/init"

# A host program and the shared libraries (and loader) it needs, at their own paths.
add_program() {
	[ -x "$1" ] || guac_die "host program $1 (tests/vm/host-programs) not found"
	for f in "$1" $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$root${f%/*}"
		cp -L "$f" "$root$f"
	done
}

# The same from the foreign root: ldd cannot run an aarch64 program, so the
# libraries are its ELF interpreter and NEEDED entries, recursively, looked
# up where Debian's multiarch loader looks.
foreign_copy() {
	local path=$1 p
	# merged /usr: the host path may be the other of the two names.
	for p in "$path" "/usr$path" "${path#/usr}"; do
		if [ -e "$progroot$p" ]; then
			[ -e "$root$path" ] && return 0
			mkdir -p "$root${path%/*}"
			cp -L "$progroot$p" "$root$path"
			foreign_libs "$root$path"
			return 0
		fi
	done
	guac_die "$path (tests/vm/host-programs) is not in the $GUAC_ARCH userland $progroot"
}
foreign_libs() {
	local interp lib d
	interp=$(readelf -l "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	[ -z "$interp" ] || foreign_copy "$interp"
	for lib in $(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib /usr/lib; do
			if [ -e "$progroot$d/$lib" ]; then
				foreign_copy "$d/$lib"
				continue 2
			fi
		done
		guac_die "$lib, needed by ${1#"$root"}, is not in the $GUAC_ARCH userland $progroot"
	done
}
[ -z "$progroot" ] || add_program() {
	foreign_copy "$1"
}
cat "$tests/host-programs" ${GUAC_VM_HOST_PROGRAMS:-} | grep -v '^\s*\(#\|$\)' |
	while read -r prog; do
		add_program "$prog"
	done

# The distro modules guacrng.ko needs (rng-core on kernels whose hw_random
# core is a module), dependencies first, decompressed (busybox insmod reads
# plain .ko files only). fetch-kernel.sh lists every module of the image with
# the .deb that holds it (modules.map): linux-image-KVER up to 6.x,
# linux-modules-KVER on 7.x.
# set: deps (loaded by /init) or extra (loaded by the scenarios that need
# them, with their own parameters).
set=deps
add_module() {
	local name=$1 line path deb file ko dep
	[ -f "$kcache/modules.map" ] || guac_die "no modules.map for $kver: cannot add module $name"
	grep -qx "$name.ko" "$root/lib/modules/deps.order" "$root/lib/modules/$set.order" \
		2>/dev/null && return
	line=$(grep -m 1 "/$(echo "$name" | sed 's/[-_]/[-_]/g')\.ko\(\.[a-z]*\)\? " \
		"$kcache/modules.map") || guac_die "module $name is not in the image of $kver"
	path=${line%% *}
	deb=${line#* }
	file=$kcache/modules/${path##*/}
	if [ ! -f "$file" ]; then
		mkdir -p "$kcache/modules"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$path" >"$file.tmp"
		mv "$file.tmp" "$file"
	fi
	mkdir -p "$root/lib/modules/$set"
	ko=$root/lib/modules/$set/$name.ko
	case "$file" in
	*.xz) xz -dc "$file" >"$ko" ;;
	*.zst) zstd -qdc "$file" >"$ko" ;;
	*.gz) gzip -dc "$file" >"$ko" ;;
	*) cp "$file" "$ko" ;;
	esac
	for dep in $(modinfo -F depends "$ko" | tr , ' '); do
		add_module "$dep"
	done
	echo "$name.ko" >>"$root/lib/modules/$set.order"
}
# arm64: the virtio-serial port the TAP leaves through (run-kernel.sh), where
# its drivers are modules (virtio_console is built in from 6.12 on).
if [ "$GUAC_ARCH" = arm64 ]; then
	for mod in virtio_mmio virtio_console; do
		! grep -qs "/$mod\.ko\(\.[a-z]*\)\? " "$kcache/modules.map" || add_module "$mod"
	done
fi
for dep in $(modinfo -F depends "$out/guacrng.ko" | tr , ' '); do
	add_module "$dep"
done
# The kernel's own fault injectors and what they need (scsi_debug, sd_mod,
# dm-flakey): not loaded at boot, since their parameters are the scenario's.
# One the image lacks (or a kernel without a modules.map: the debug kernels)
# is named in extra.missing, for the scenarios to skip what needs it.
set=extra
for mod in $(grep -v '^\s*\(#\|$\)' "${GUAC_VM_MODULES:-$tests/modules}"); do
	if grep -q "/$(echo "$mod" | sed 's/[-_]/[-_]/g')\.ko\(\.[a-z]*\)\? " "$kcache/modules.map" 2>/dev/null; then
		add_module "$mod"
	else
		echo "$mod" >>"$root/lib/modules/extra.missing"
	fi
done

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out/initramfs.cpio.gz"
echo "$out/initramfs.cpio.gz"
