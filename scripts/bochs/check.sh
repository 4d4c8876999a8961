#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check.sh [kunit] [module]          (default: both; make check-avx512)
#
# AVX-512 and RDSEED executed inside a running kernel. QEMU's TCG has neither
# and the host's CPU varies, so these parts boot in Bochs (Debian 12's bochs
# 2.7, cpu model corei7_skylake_x; scripts/bochs/lib.sh), from an isolinux
# ISO, with the console on com1 and the TAP of tests/vm/runner.sh on com2:
#
#   kunit   the KUnit suites (tests/kunit/) in the kcsan test kernel
#           (scripts/kernel/build-kernel.sh --variant kcsan, the one make
#           kunit and check-kcsan use, KCSAN on), guacrng.ko built with
#           GUAC_KUNIT=y and loaded with impl=avx512; scenario tests/bochs/kunit/
#   module  the module users install, built for Debian's 6.12 kernel
#           (scripts/vm/build-module.sh), on that kernel: impl=auto (avx2 on
#           Skylake-X, and why), every impl= against `guac gen` at odd
#           offsets, /dev/hwrng on RDSEED; scenarios tests/bochs/module/
#
# A part fails on any failed, skipped (nothing may be skipped on this CPU) or
# missing test point or KUnit case, a missing or short plan, a kernel panic,
# Bochs ending before the guest powered off, the time limit, or a log that
# does not prove what the part is for: avx512 the active implementation (sysfs
# and GUAC_IOC_GET_INFO) and RDSEED the hwrng's source. One result line per
# part, then "N passed, N failed" over test points and KUnit cases.
#
# Everything is kept in build/bochs/PART/: console.log (com1), tap.txt (com2),
# bochs.log, bochs.out (Bochs' own output), bochsrc, and the module build and
# initramfs under build/bochs/KVER/. Needs `make vm-tools` first.
#
# Environment: BOCHS_TIMEOUT (seconds per part, default 900), BOCHS_MEGS
# (guest memory, default 512), BOCHS_NICE (default 0), BOCHS_KCSAN=0 (KUnit
# with KCSAN off, kcsan.early_enable=0: about a third less CPU time),
# BOCHS_APPEND (more kernel command line).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
export GUAC_TOP="$top"
export GUAC_VM_BUILD="$top/build/bochs"
. "$top/scripts/vm/lib.sh"
. "$top/scripts/bochs/lib.sh"
. "$top/scripts/vm/boot-fault.sh"

parts=${*:-kunit module}
for part in $parts; do
	case "$part" in
	kunit | module) ;;
	*) guac_die "unknown part '$part' (kunit, module)" ;;
	esac
done

limit=${BOCHS_TIMEOUT:-900}
# The command line of both kernels. clearcpuid: Bochs' Skylake-X reports an
# XSAVES/XSAVEC area size the kernel rejects, and then it disables AVX, AVX2
# and AVX-512 without a word; with the compacted formats off it takes the
# standard layout. panic=0: halt on a panic (the run watches for it), never
# reboot into a second run. mitigations=off: page-table isolation would
# flush the emulated TLB on every system call, and nothing here depends on it.
append_common="console=ttyS0 panic=0 oops=panic quiet clearcpuid=xsaves,xsavec mitigations=off rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 guacvm.run=check guacvm.bench=0 ${BOCHS_APPEND:-}"

# build-module.sh and make-initramfs.sh take the guest tools from the build
# directory: those make vm-tools built for the QEMU suites.
mkdir -p "$GUAC_VM_BUILD"
for f in userspace/guac guac-vmtest; do
	[ -x "$top/build/vm/$f" ] || guac_die "missing build/vm/$f (run make vm-tools)"
done
ln -sfn ../vm/userspace "$GUAC_VM_BUILD/userspace"
ln -sfn ../vm/guac-vmtest "$GUAC_VM_BUILD/guac-vmtest"

guac_bochs_fetch

total_passed=0
total_failed=0
results=

# must DIR DESCRIPTION: the TAP of DIR has "ok N - DESCRIPTION" (exactly,
# not skipped), or a line saying what is not proven is added to $missing.
must() {
	if ! sed -n 's/^ok [0-9]* - //p' "$1/tap.txt" | grep -qxF -- "$2"; then
		missing="$missing
	not proven: $2"
	fi
}

# finish PART DIR BOOT WALL KUNIT_PASSED KUNIT_FAILED EXTRA: the result line
# of a part from its TAP, its problem, its missing proofs and the KUnit counts
# (KUNIT_FAILED includes skipped cases); EXTRA goes into the line.
finish() {
	local part=$1 dir=$2 boot=$3 wall=$4 kpassed=$5 kfailed=$6 extra=$7
	local plan passed failed skipped problem line
	set -- $(guac_bochs_tap "$dir")
	plan=$1 passed=$2 failed=$3 skipped=$4
	problem=$(cat "$dir/problem" 2>/dev/null || true)
	if [ -z "$problem" ]; then
		if [ "$plan" = none ]; then
			problem="no TAP plan: the guest stopped before the end of the suite"
		elif [ "$plan" != $((passed + failed)) ]; then
			problem="plan 1..$plan but $((passed + failed)) test points"
		fi
	fi
	# On this CPU every test point can run: a skip is a failure here.
	passed=$((passed - skipped + kpassed))
	failed=$((failed + skipped + kfailed))
	[ -z "$problem" ] || failed=$((failed + 1))
	[ -z "$missing" ] || failed=$((failed + $(echo "$missing" | grep -c 'not proven')))
	if [ "$failed" != 0 ]; then
		awk '/^not ok |^ok .* # SKIP /{ p = 1; print; next } /^(ok |1\.\.)/{ p = 0 } p && /^#/' \
			"$dir/tap.txt" >&2
		[ -z "$missing" ] || echo "check-avx512 $part: the log does not prove what this part is for:$missing" >&2
		line="check-avx512 $part: FAIL, $passed passed, $failed failed${problem:+ ($problem)}$extra (Bochs $wall s wall)$retried; console: $dir/console.log, TAP: $dir/tap.txt"
	else
		line="check-avx512 $part: PASS, $passed passed$extra (boot $boot s, Bochs $wall s wall)$retried"
	fi
	echo "$line"
	results="$results$line
"
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
}

# fail PART REASON: a part that could not run counts one failure.
fail() {
	local line="check-avx512 $1: FAIL ($2)"
	echo "$line"
	results="$results$line
"
	total_failed=$((total_failed + 1))
}

# boot DIR KERNEL INITRD APPEND: ISO, bochsrc, run; sets boot, wall and
# retried. A boot that died before guacrng was loaded is booted once more, as
# in the QEMU harness (scripts/vm/boot-fault.sh; Bochs' own end, written to
# DIR/problem, stands for QEMU's exit status), its first console kept as
# DIR/console-retried.log.
boot() {
	local reason
	guac_bochs_iso "$1" "$2" "$3" "$4"
	guac_bochs_config "$1"
	rm -f "$1/console-retried.log"
	retried=
	boot_once "$1" "$2"
	if reason=$(bochs_boot_fault "$1") && guac_retry_claim "bochs $(basename "$1")" "$reason"; then
		mv "$1/console.log" "$1/console-retried.log"
		guac_log "the $(basename "$1") boot died before guacrng was loaded ($reason); booting once more"
		retried=", after 1 retry: $reason before guacrng loaded"
		boot_once "$1" "$2"
	fi
}

boot_once() {
	guac_log "booting $(basename "$2") in Bochs (Skylake-X), at most $limit s (log: $1/console.log)"
	set -- "$1" $(guac_bochs_run "$1" "$limit")
	boot=$2 wall=$3
	guac_bochs_tap "$1" >/dev/null
}

# bochs_boot_fault DIR: guac_boot_fault on the console and TAP, or Bochs
# ending with no word from the guest's runner and no guacrng in the console.
bochs_boot_fault() {
	guac_boot_fault "$1/console.log" "$1/tap.txt" && return
	[ -s "$1/problem" ] && [ ! -s "$1/tap.txt" ] && ! tr -d '\r' <"$1/console.log" | grep -qi guacrng &&
		sed 's/ (see .*//' "$1/problem"
}

part_kunit() {
	local dir=$GUAC_VM_BUILD/kunit kdir krel label kcsan kstate append ktap kline kpassed kfailed kskipped
	if ! kdir=$("$top/scripts/kernel/build-kernel.sh" --variant kcsan); then
		fail kunit "building the kcsan test kernel failed"
		return
	fi
	krel=$(make -s --no-print-directory -C "$kdir" kernelrelease)
	label=kunit-kcsan-$krel
	# The kcsan kernel was built with clang: the module must be too, with
	# its suites linked in.
	if ! GUAC_KDIR=$kdir GUAC_MODULE_MAKEFLAGS="LLVM=1 GUAC_KUNIT=y" \
		"$top/scripts/vm/build-module.sh" "$label" >/dev/null; then
		fail kunit "building guacrng.ko with its KUnit suites against $kdir failed"
		return
	fi
	GUAC_VM_SCENARIOS="$top/tests/bochs/kunit" "$top/scripts/vm/make-initramfs.sh" "$label" >/dev/null ||
		{ fail kunit "packing the initramfs failed"; return; }
	# KCSAN on costs about a third more CPU time here (its watchpoints
	# stall under emulation too) and watches the AVX-512 and RDSEED
	# paths no other suite runs; the scenario fails on any report.
	kcsan= kstate=on
	[ "${BOCHS_KCSAN:-1}" != 0 ] || kcsan=kcsan.early_enable=0 kstate=off
	append="$append_common $kcsan"
	mkdir -p "$dir"
	boot "$dir" "$kdir/arch/x86/boot/bzImage" "$GUAC_VM_BUILD/$label/initramfs.cpio.gz" "$append"

	missing=
	if [ -n "$kcsan" ]; then
		must "$dir" "KCSAN is off, as the command line asks (kcsan.early_enable=0)"
	else
		must "$dir" "KCSAN is on"
	fi
	must "$dir" "insmod guacrng.ko impl=avx512 runs the KUnit suites"
	must "$dir" "sysfs implementation is avx512"
	must "$dir" "GUAC_IOC_GET_INFO reports avx512"
	must "$dir" "the hwrng reads RDSEED: /sys/module/guacrng/hwrng/source is rdseed"
	must "$dir" "KUnit core_test_active_odd_offsets ran with avx512 active (impl=avx512)"
	must "$dir" "KUnit hw_test_cpu_insn read the real RDSEED: passed, not skipped"
	must "$dir" "KUnit hw_test_cpu_insn read the real RDRAND: passed, not skipped"

	# Every case of every suite, from the KTAP the guest copied to the
	# console; on this CPU a skipped case is a failure too.
	ktap=$dir/kunit.txt
	# shellcheck disable=SC2046
	python3 "$top/scripts/kernel/ktap-report.py" "$dir/console.log" \
		$(sed -n 's/^\t\.name = "\(guacrng-[a-z0-9-]*\)",$/\1/p' "$top"/tests/kunit/*_kunit.c) \
		>"$ktap" || true
	grep -E ': (FAIL|SKIP)|no results|planned cases' "$ktap" >&2 || true
	kline=$(tail -n 1 "$ktap")
	set -- $(echo "$kline" | sed -n 's/^kunit: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p')
	kpassed=${1:-0} kfailed=${2:-0} kskipped=${3:-0}
	# An incomplete suite or no KTAP at all is one more failure.
	case "$kline" in
	*incomplete* | "") kfailed=$((kfailed + 1)) ;;
	esac
	[ "$kpassed" -gt 0 ] || kfailed=$((kfailed + 1))
	finish kunit "$dir" "$boot" "$wall" "$kpassed" $((kfailed + kskipped)) \
		" [kcsan kernel $krel, KCSAN $kstate; KUnit $kpassed passed, $kfailed failed, $kskipped skipped]"
}

part_module() {
	local dir=$GUAC_VM_BUILD/module kver impl
	if ! kver=$("$top/scripts/vm/fetch-kernel.sh" 6.12); then
		fail module "fetching Debian's 6.12 kernel failed"
		return
	fi
	"$top/scripts/vm/build-module.sh" "$kver" >/dev/null ||
		{ fail module "building guacrng.ko for $kver failed"; return; }
	GUAC_VM_SCENARIOS="$top/tests/bochs/module" "$top/scripts/vm/make-initramfs.sh" "$kver" >/dev/null ||
		{ fail module "packing the initramfs failed"; return; }
	mkdir -p "$dir"
	boot "$dir" "$GUAC_VM_CACHE/$kver/vmlinuz" "$GUAC_VM_BUILD/$kver/initramfs.cpio.gz" "$append_common"

	missing=
	must "$dir" "auto: sysfs implementation is avx2, not avx512, on Skylake-X"
	must "$dir" "auto: implementation_reason says avx512 lowers the clock of this CPU (model 0x55)"
	for impl in generic sse2 avx2 avx512; do
		must "$dir" "impl=$impl: sysfs implementation is $impl"
		must "$dir" "impl=$impl: GUAC_IOC_GET_INFO reports $impl"
		must "$dir" "impl=$impl: dd iflag=skip_bytes,count_bytes skip=1000M+13 count=1M-3"
	done
	must "$dir" "the hwrng reads RDSEED: /sys/module/guacrng/hwrng/source is rdseed"
	must "$dir" "the RDSEED bytes counter rose by at least the 128 KiB read"
	finish module "$dir" "$boot" "$wall" 0 0 " [Debian $kver, guacrng.ko]"
}

for part in $parts; do
	start=$(date +%s)
	"part_$part"
	guac_log "$part took $(($(date +%s) - start)) s in all (build, pack, ISO, Bochs)"
done

echo
printf '%s' "$results"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
