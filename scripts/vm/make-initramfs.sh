#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: make-initramfs.sh KVER
#
# Pack build/vm/KVER/initramfs.cpio.gz (newc, gzip): static busybox, the
# static guac and guac-vmtest, guacrng.ko, its test variant guacrng-test.ko
# and the modules they depend on (taken from the kernel's image .debs), the
# host programs listed in tests/vm/host-programs (with their shared
# libraries), and tests/vm/ as /init, /tests/runner.sh and /tests/scenarios/. GUAC_VM_SCENARIOS: the directories
# whose *.sh become /tests/scenarios/ (default tests/vm/scenarios).
# The distro modules listed in tests/vm/modules go, with their dependencies,
# into /lib/modules/extra/ (extra.order): scenarios load those themselves.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: make-initramfs.sh KVER"
kver=$1
out=$GUAC_VM_BUILD/$kver
kcache=$GUAC_VM_CACHE/$kver
root=$out/initramfs
tests=$GUAC_TOP/tests/vm

for f in "$out/guacrng.ko" "$out/guacrng-test.ko" "$GUAC_VM_BUILD/userspace/guac" "$GUAC_VM_BUILD/guac-vmtest" \
	/bin/busybox; do
	[ -f "$f" ] || guac_die "missing $f (run make vm-tools and scripts/vm/build-module.sh $kver)"
done

rm -rf "$root"
mkdir -p "$root/bin" "$root/lib/modules/deps" "$root/tests"
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"	# for /init's #!; init.sh installs the other applets
strip -o "$root/bin/guac" "$GUAC_VM_BUILD/userspace/guac"
strip -o "$root/bin/guac-vmtest" "$GUAC_VM_BUILD/guac-vmtest"
cp "$out/guacrng.ko" "$root/lib/modules/guacrng.ko"
cp "$out/guacrng-test.ko" "$root/lib/modules/guacrng-test.ko"
cp "$tests/init.sh" "$root/init"
cp "$tests/lib.sh" "$tests/runner.sh" "$tests/bench.sh" "$tests/demo.sh" "$root/tests/"
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
grep -v '^\s*\(#\|$\)' "$tests/host-programs" | while read -r prog; do
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
for dep in $(modinfo -F depends "$out/guacrng.ko" | tr , ' '); do
	add_module "$dep"
done
# The kernel's own fault injectors and what they need (scsi_debug, sd_mod,
# dm-flakey): not loaded at boot, since their parameters are the scenario's.
# One the image lacks (or a kernel without a modules.map: the debug kernels)
# is named in extra.missing, for the scenarios to skip what needs it.
set=extra
for mod in $(grep -v '^\s*\(#\|$\)' "$tests/modules"); do
	if grep -q "/$(echo "$mod" | sed 's/[-_]/[-_]/g')\.ko\(\.[a-z]*\)\? " "$kcache/modules.map" 2>/dev/null; then
		add_module "$mod"
	else
		echo "$mod" >>"$root/lib/modules/extra.missing"
	fi
done

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out/initramfs.cpio.gz"
echo "$out/initramfs.cpio.gz"
