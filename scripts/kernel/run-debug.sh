#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: run-debug.sh kunit|check
#
# Boot the debug test kernel (scripts/kernel/build-kernel.sh; built once and
# cached) in QEMU through the VM harness in scripts/vm/, with panic_on_warn=1,
# KASAN, kmemleak and debug_pagealloc on:
#
#   kunit   guacrng.ko built with its KUnit suites; loading it runs them.
#           Every case is reported, then "N passed, N failed".
#   check   the VM scenarios of tests/vm/ plus the debug ones in tests/debug/
#           (fail_usercopy, stress), with the production module.
#
# Both end with a kmemleak scan that must find nothing, and both fail on any
# KASAN, lockdep, UBSAN, might-sleep, FPU or other kernel report in the
# console log. Needs `make vm-tools` first (make kunit / check-debug do that).
set -euo pipefail

mode=${1:-}
case $mode in
kunit | check) ;;
*)
	echo "usage: run-debug.sh kunit|check" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/scripts/vm
export GUAC_VM_BUILD=${GUAC_VM_BUILD:-$top/build/vm}

log() { echo "run-debug: $*" >&2; }

kdir=$("$top/scripts/kernel/build-kernel.sh")
krel=$(make -s -C "$kdir" kernelrelease)

# Each mode has its own module build and initramfs under build/vm/LABEL/.
label=debug-$mode-$krel
export GUAC_KDIR=$kdir
# KASAN's stack redzones inflate the frames of the SIMD step functions past
# the kernel's 2048-byte warning; Debian's kernels keep the real limit.
export GUAC_MODULE_MAKEFLAGS=KCFLAGS=-Wframe-larger-than=4096
if [ "$mode" = kunit ]; then
	GUAC_MODULE_MAKEFLAGS="$GUAC_MODULE_MAKEFLAGS GUAC_KUNIT=y"
	export GUAC_VM_SCENARIOS="$top/tests/debug/common $top/tests/kunit/scenarios"
else
	export GUAC_VM_SCENARIOS="$top/tests/vm/scenarios $top/tests/debug/common $top/tests/debug/scenarios"
fi
"$vm/build-module.sh" "$label" >/dev/null
"$vm/make-initramfs.sh" "$label" >/dev/null

export GUAC_VM_KERNEL=$kdir/arch/x86/boot/bzImage
# loglevel=7 puts every report on the console, where the scan below finds
# it by its timestamp (printk.time=1) among the guest's own output.
export GUAC_VM_APPEND="panic_on_warn=1 debug_pagealloc=on kmemleak=on loglevel=7 printk.time=1 guacvm.bench=0"
# KASAN and friends under TCG are slow: allow for it.
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
status=0
"$vm/run-kernel.sh" "$label" || status=1

out=$GUAC_VM_BUILD/$label
console=$out/console.log

# The checkers' reports, wherever in the run they happened.
reports='BUG:|WARNING:|KASAN|UBSAN|possible (circular|recursive) locking|inconsistent lock state|lock held when returning|suspicious RCU usage|sleeping function called from invalid context|kernel_fpu|x86/fpu.*(WARN|fail)|unreferenced object|kmemleak: [0-9]+ new suspected|Oops|general protection fault|Call Trace:|Kernel panic'
if tr -d '\r' <"$console" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' | grep -E "$reports" \
	>"$out/reports.txt"; then
	log "kernel reports in $console:"
	head -n 40 "$out/reports.txt" >&2
	echo "debug-$mode: FAIL ($(wc -l <"$out/reports.txt") report lines)"
	status=1
else
	echo "debug-$mode: kernel log clean (no KASAN, lockdep, UBSAN, might-sleep, FPU, WARN or BUG report)"
fi

if [ "$mode" = kunit ]; then
	suites=$(sed -n 's/^\t\.name = "\(guacrng-[a-z0-9-]*\)",$/\1/p' "$top"/tests/kunit/*_kunit.c)
	# shellcheck disable=SC2086
	python3 "$top/scripts/kernel/ktap-report.py" "$console" $suites || status=1
fi
exit "$status"
