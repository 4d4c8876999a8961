#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM harness's retry (scripts/vm/boot-fault.sh) on a real kernel,
# Debian's 6.12 under TCG, with a ledger of its own so that make check's
# budget is untouched:
#   - a first boot made to die before guacrng loads (rdinit=/nonexistent:
#     the kernel panics with no init) is retried, counted, and the smoke set
#     then passes: "PASS ..., after 1 retry: panic: ... before guacrng loaded";
#   - a kernel crashed after guacrng loaded (tests/vm/crash/) fails at once,
#     booted once, never retried.
# Needs the 6.12 kernel fetched and its module built (make vm-check does
# both; otherwise they are done here). TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
. "$top/scripts/vm/lib.sh"
vm=$top/scripts/vm
# The guest's programs of make vm-tools; the kernel's build, initramfs and
# logs apart from vm-check's.
export GUAC_VM_GUAC=$GUAC_VM_BUILD/userspace/guac GUAC_VM_VMTEST=$GUAC_VM_BUILD/guac-vmtest
export GUAC_VM_BUILD=$top/build/vm-retry GUAC_RETRY_LEDGER=$top/build/vm-retry/ledger \
	GUAC_CHECK_SUITE=test_boot_retry GUAC_VM_APPEND=guacvm.bench=0
rm -f "$GUAC_RETRY_LEDGER"
mkdir -p "$GUAC_VM_BUILD"

tap_begin
kver=$("$vm/fetch-kernel.sh" 6.12) || { not_ok "fetch Debian's 6.12"; tap_end; exit; }
built=$(dirname "$GUAC_VM_VMTEST")/$kver
mkdir -p "$GUAC_VM_BUILD/$kver"
# vm-check's module for this kernel, built here as vm-check would if it has
# not run.
[ -f "$built/guacrng.ko" ] && [ -f "$built/guacrng-test.ko" ] ||
	GUAC_VM_BUILD=$(dirname "$built") "$vm/build-module.sh" "$kver" >/dev/null
cp "$built/guacrng.ko" "$built/guacrng-test.ko" "$GUAC_VM_BUILD/$kver/"
out=$GUAC_VM_BUILD/$kver

# boot SCENARIO-DIR FIRST-APPEND: pack and boot; the result line in
# $out/line, the status in $rc, the boots counted in $boots.
boot() {
	GUAC_VM_SCENARIOS=$1 "$vm/make-initramfs.sh" "$kver" >/dev/null
	rc=0
	GUAC_VM_FIRST_APPEND=$2 "$vm/run-kernel.sh" "$kver" >"$out/line" 2>"$out/err" || rc=$?
	boots=1
	[ ! -f "$out/console-retried.log" ] || boots=2
	sed 's/^/# /' "$out/line"
}

boot "$top/tests/vm/smoke" rdinit=/nonexistent
check "a boot that panics before the load is retried, then the smoke set passes" \
	'[ "$rc" = 0 ] && [ "$boots" = 2 ] && grep -q "^vm-check $kver: PASS" "$out/line"'
check "... the result line says so, with the panic's reason" \
	'grep -q ", after 1 retry: panic: .* before guacrng loaded" "$out/line"'
check "... the first boot did panic, with no guacrng in its console" \
	'grep -q "Kernel panic" "$out/console-retried.log" && ! grep -qi guacrng "$out/console-retried.log"'
check "... the ledger counts it" '[ "$(grep -c . "$GUAC_RETRY_LEDGER")" = 1 ]'

boot "$top/tests/vm/crash" ""
check "a kernel crashed after guacrng loaded: FAIL, booted once" \
	'[ "$rc" != 0 ] && [ "$boots" = 1 ] && grep -q "^vm-check $kver: FAIL" "$out/line" && ! grep -q "after 1 retry" "$out/line"'
check "... after the load passed, the kernel panicked" \
	'grep -q "^ok 1 - insmod guacrng.ko" "$out/tap.txt" && grep -q "sysrq triggered crash" "$out/console.log"'
check "... the ledger is unchanged" '[ "$(grep -c . "$GUAC_RETRY_LEDGER")" = 1 ]'
tap_end
