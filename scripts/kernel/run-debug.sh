#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: run-debug.sh [--variant debug|kcsan|arm64] kunit|check
#
# Boot a test kernel (scripts/kernel/build-kernel.sh; built once and cached)
# in QEMU through the VM harness in scripts/vm/:
#
#   debug   (the default) gcc; KASAN, lockdep, UBSAN, kmemleak, debug_pagealloc
#           on and panic_on_warn=1
#   kcsan   clang (LLVM=1, the module too); KCSAN and lockdep
#   arm64   gcc, cross-built (ARCH=arm64, the module too); lockdep and
#           might-sleep; booted in qemu-system-aarch64 -M virt -cpu max
#           (GUAC_ARCH=arm64 in scripts/vm/; VM_CPU=cortex-a57 for a CPU
#           without RNDR, its logs in build/vm/LABEL/cpu-cortex-a57/).
#           kunit only: Debian's arm64 kernels have no KUnit, and their VM
#           scenarios are make vm-check-arm64's.
#
# and mode:
#
#   kunit   guacrng.ko built with its KUnit suites; loading it runs them.
#           Every case is reported, then "N passed, N failed".
#   check   debug: the VM scenarios of tests/vm/ plus the debug ones in
#           tests/debug/ (fail_usercopy, stress), with the production module.
#           kcsan: the stress scenarios of tests/debug/stress/.
#           DEBUG_SCENARIOS="DIR..." runs those directories instead (the
#           checkers' own still run): e.g. DEBUG_SCENARIOS=$PWD/tests/debug/stress.
#
# A kunit run ends with one line: VARIANT-kunit: PASS|FAIL and the counts.
#
# Debug runs end with a kmemleak scan that must find nothing. Every run fails
# on any KASAN, KCSAN, lockdep, UBSAN, might-sleep, FPU or other kernel
# report in the console log. Needs `make vm-tools` first (make kunit,
# check-debug and check-kcsan do that).
set -euo pipefail

usage() {
	echo "usage: run-debug.sh [--variant debug|kcsan|arm64] kunit|check" >&2
	exit 2
}

# shellcheck source=scripts/kernel/lib.sh
. "$(dirname "$0")/lib.sh"
guac_variant_option "$@"
shift "$variant_args"
[ $# = 1 ] || usage
mode=$1
case $mode in
kunit | check) ;;
*) usage ;;
esac
case $variant in
debug | kcsan) ;;
arm64) [ "$mode" = kunit ] || usage ;;
*) usage ;;
esac

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/scripts/vm
dbg=$top/tests/debug
export GUAC_VM_BUILD=${GUAC_VM_BUILD:-$top/build/vm}

log() { echo "run-debug: $*" >&2; }

kdir=$("$top/scripts/kernel/build-kernel.sh" --variant "$variant")
krel=$(make -s --no-print-directory -C "$kdir" kernelrelease)

# Each variant and mode has its own module build and initramfs under
# build/vm/LABEL/ (both kernels have the same release string).
label=$variant-$mode-$krel
export GUAC_KDIR=$kdir
# Scenario directories, packed flat into the initramfs and run in name order:
#   common/     debugfs (every run)
#   kmemleak/   clear at the start, scan at the end (debug only)
#   kcsan/      KCSAN on at the start, no report at the end (kcsan only)
#   scenarios/  fail_usercopy (debug check only: needs FAULT_INJECTION_USERCOPY)
#   stress/     16 readers, rmmod attempts, /dev/hwrng readers, unload races
case $variant in
debug)
	# KASAN's stack redzones inflate the frames of the SIMD step functions
	# past the kernel's 2048-byte warning (two AVX-512 groups: 5 KB with
	# GCC 12), on a kernel whose stacks KASAN doubles to 32 KiB
	# (KASAN_STACK_ORDER); Debian's kernels keep the real limit.
	export GUAC_MODULE_MAKEFLAGS=KCFLAGS=-Wframe-larger-than=8192
	checkers="$dbg/common $dbg/kmemleak"
	check_scenarios="$top/tests/vm/scenarios $dbg/scenarios $dbg/stress"
	# loglevel=7 puts every report on the console, where the scan below
	# finds it by its timestamp (printk.time=1) among the guest's output.
	append="panic_on_warn=1 debug_pagealloc=on kmemleak=on loglevel=7 printk.time=1 guacvm.bench=0"
	what="KASAN, lockdep, UBSAN, might-sleep, FPU, WARN or BUG report"
	;;
kcsan)
	# The kernel was built with clang: the module must be too (Kbuild
	# would otherwise see another compiler and reconfigure the cached
	# kernel tree), which also proves it and its suites build with clang.
	export GUAC_MODULE_MAKEFLAGS=LLVM=1
	checkers="$dbg/common $dbg/kcsan"
	check_scenarios="$dbg/stress"
	# No panic_on_warn: KCSAN honours it and would stop the run at its
	# first report; without it every report of the run reaches the log,
	# and the scan below fails the run on any of them (WARNs included).
	append="loglevel=7 printk.time=1 guacvm.bench=0"
	what="KCSAN, lockdep, might-sleep, FPU, WARN or BUG report"
	;;
arm64)
	# scripts/vm/ for arm64: the module cross-built (guac_kbuild_flags),
	# the guest's programs aarch64, qemu-system-aarch64 -M virt.
	export GUAC_ARCH=arm64
	export GUAC_MODULE_MAKEFLAGS=
	checkers="$dbg/common"
	check_scenarios=
	append="panic_on_warn=1 loglevel=7 printk.time=1 guacvm.bench=0"
	what="lockdep, might-sleep, WARN, BUG or Oops report"
	;;
esac
if [ "$mode" = kunit ]; then
	GUAC_MODULE_MAKEFLAGS="$GUAC_MODULE_MAKEFLAGS GUAC_KUNIT=y"
	export GUAC_VM_SCENARIOS="$checkers $top/tests/kunit/scenarios"
else
	# DEBUG_SCENARIOS (directories, for one scenario set: e.g.
	# tests/debug/stress) replaces the variant's check scenarios; the
	# checkers still run around them.
	export GUAC_VM_SCENARIOS="$checkers ${DEBUG_SCENARIOS:-$check_scenarios}"
fi
"$vm/build-module.sh" "$label" >/dev/null
"$vm/make-initramfs.sh" "$label" >/dev/null

if [ "$variant" = arm64 ]; then
	export GUAC_VM_KERNEL=$kdir/arch/arm64/boot/Image
else
	export GUAC_VM_KERNEL=$kdir/arch/x86/boot/bzImage
fi
export GUAC_VM_APPEND=$append
# The checkers under TCG are slow: allow for it.
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
out=$GUAC_VM_BUILD/$label
# Another CPU (VM_CPU) boots the same module and initramfs; its logs go
# apart, so that the two runs' logs never mix.
if [ -n "${VM_CPU:-}" ]; then
	out=$out/cpu-$(echo "$VM_CPU" | tr -c 'A-Za-z0-9.\n-' _)
	export GUAC_VM_LOGDIR=$out
fi
console=$out/console.log
# run-kernel.sh boots once more, and says so, when the kernel died before
# guacrng was loaded (scripts/vm/boot-fault.sh); the checkers below read the
# console of the boot that counted.
status=0
"$vm/run-kernel.sh" "$label" || status=1

# The checkers' reports, wherever in the run they happened: kernel lines,
# found by their printk timestamp (the guest's own output, test names
# included, has none). A kernel line can land mid-line, after guest output
# that had no newline yet, so the timestamp may be anywhere in the line. (A
# bare "KCSAN" is no report: KCSAN's boot notice names CONFIG_KCSAN_STRICT.)
# KCSAN reports are triaged first (kcsan-triage.awk): one with a guacrng
# frame fails the run wherever it is printed; one wholly inside the kernel
# under test is kept whole for the reader and said, but is not guacrng's.
reports='BUG:|WARNING:|KASAN|UBSAN|possible (circular|recursive) locking|inconsistent lock state|lock held when returning|suspicious RCU usage|sleeping function called from invalid context|kernel_fpu|x86/fpu.*(WARN|fail)|unreferenced object|kmemleak: [0-9]+ new suspected|Oops|general protection fault|Call Trace:|Kernel panic'
triage=$top/scripts/kernel/kcsan-triage.awk
[ -s "$console" ] || { log "no console log: $console"; exit 1; }
awk -v show=ours -f "$triage" "$console" >"$out/kcsan-reports.txt"
awk -v show=others -f "$triage" "$console" >"$out/kcsan-kernel-races.txt"
{
	grep 'BUG: KCSAN: ' "$out/kcsan-reports.txt"
	awk -v show=rest -f "$triage" "$console" | grep -E "\[ *[0-9]+\.[0-9]+\] .*($reports)"
} >"$out/reports.txt" || true
if [ -s "$out/reports.txt" ]; then
	log "kernel reports in $console:"
	head -n 40 "$out/reports.txt" >&2
	echo "$variant-$mode: FAIL ($(wc -l <"$out/reports.txt") report lines)"
	status=1
else
	echo "$variant-$mode: kernel log clean (no $what)"
fi
[ -s "$out/kcsan-reports.txt" ] && log "KCSAN reports with a guacrng frame, whole: $out/kcsan-reports.txt"
if [ -s "$out/kcsan-kernel-races.txt" ]; then
	log "$(grep -c 'BUG: KCSAN: ' "$out/kcsan-kernel-races.txt") KCSAN report(s) with no guacrng frame, races in the kernel under test, not counted against guacrng: $out/kcsan-kernel-races.txt"
	grep 'BUG: KCSAN: ' "$out/kcsan-kernel-races.txt" | sed 's/^/run-debug:   /' >&2
fi

if [ "$mode" = kunit ]; then
	suites=$(sed -n 's/^\t\.name = "\(guacrng-[a-z0-9-]*\)",$/\1/p' "$top"/tests/kunit/*_kunit.c)
	# shellcheck disable=SC2086
	python3 "$top/scripts/kernel/ktap-report.py" "$console" $suites >"$out/kunit.txt" || status=1
	cat "$out/kunit.txt"
	verdict=PASS
	[ "$status" = 0 ] || verdict=FAIL
	echo "$variant-kunit${VM_CPU:+ (-cpu $VM_CPU)}: $verdict, $(sed -n 's/^kunit: \([0-9]* passed, .*\)/\1/p' "$out/kunit.txt" | tail -n 1)$([ -s "$out/reports.txt" ] && echo ", $(wc -l <"$out/reports.txt") kernel report lines" || echo ", kernel log clean")"
fi
exit "$status"
