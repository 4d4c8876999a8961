#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM harness's retry of a boot that died before guacrng was loaded
# (scripts/vm/boot-fault.sh, run-kernel.sh), on the host: the classifier on
# recorded consoles (tests/host/boot-faults/; rt-int3-oops.log is the 6.12-rt
# oops CI met, rebuilt from its reported lines), then run-kernel.sh itself
# against a stand-in qemu-system-x86_64 that plays one scripted boot per
# call. tests/vm/test_boot_retry.sh does the same with real kernels. TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
. "$top/scripts/vm/boot-fault.sh"
faults=$top/tests/host/boot-faults
tap_tmpdir

: >"$tmp/empty.tap"
echo '# guacrng VM suite on 6.12, 2 CPUs, at 3.0 s uptime' >"$tmp/started.tap"

# fault LOG [TAP]: the classifier's verdict and reason, as "yes: REASON" or "no".
fault() {
	if reason=$(guac_boot_fault "$faults/$1" "${2:-$tmp/empty.tap}"); then
		echo "yes: $reason"
	else
		echo no
	fi
}

# expect LOG VERDICT [TAP]
expect() {
	got=$(fault "$1" "${3:-}")
	if [ "$got" = "$2" ]; then
		ok "$1${3:+ with $(basename "$3")}: $2"
	else
		echo "$got" >"$tmp/got"
		not_ok "$1${3:+ with $(basename "$3")}: expected '$2'" "$tmp/got"
	fi
}

tap_begin
expect rt-int3-oops.log "yes: int3 oops in sched_clock_cpu"
expect kasan-early.log "yes: BUG: KASAN: slab-out-of-bounds in __irq_exit_rcu+0x5e/0x110"
expect arm64-early.log "yes: oops in of_platform_default_populate_init"
expect early-panic.log "yes: panic: Requested init /nonexistent failed (error -2)."
expect qemu-died.log "yes: qemu exited with status 139"
expect hang-before-init.log "yes: no word from the guest in 900 s: the boot never reached the suite"
# Never retried: a guacrng frame, guacrng among the loaded modules, a runner
# that had started (console or TAP), a failure with no sign of a fault.
expect guacrng-frame-oops.log no
expect guacrng-loaded-oops.log no
expect runner-started-panic.log no
expect rt-int3-oops.log no "$tmp/started.tap"
expect clean-no-tap.log no

# run-kernel.sh against a stand-in QEMU. FAKE_QEMU_PLAN lists one boot per
# call: oops (the 6.12-rt console, no TAP), pass (the runner's first line and
# one passing point), failafter (the runner started, one failing point).
mkdir -p "$tmp/bin" "$tmp/build/9.9-test"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
n=$(($(cat "$FAKE_QEMU_DIR/calls" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_QEMU_DIR/calls"
tap=
while [ $# -gt 0 ]; do
	case "$1" in
	file:*) tap=${1#file:} ;;
	-append) echo "$2" >"$FAKE_QEMU_DIR/append-$n" ;;
	esac
	shift
done
mode=$(echo "$FAKE_QEMU_PLAN" | cut -d' ' -f "$n")
case "$mode" in
oops) cat "$FAKE_QEMU_FAULTS/rt-int3-oops.log" ;;
pass | failafter)
	point="ok 1 - a scenario"
	[ "$mode" = pass ] || point="not ok 1 - a scenario after the load"
	printf '# guacrng VM suite on 9.9-test, 2 CPUs, at 2.0 s uptime\n%s\n1..1\n# suite time 1.0 s, boot to suite start 2.0 s\n' \
		"$point" | tee "$tap"
	;;
esac
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
: >"$tmp/vmlinuz"
: >"$tmp/build/9.9-test/initramfs.cpio.gz"
export FAKE_QEMU_DIR=$tmp FAKE_QEMU_FAULTS=$faults GUAC_VM_KERNEL=$tmp/vmlinuz \
	GUAC_VM_BUILD=$tmp/build GUAC_RETRY_LEDGER=$tmp/ledger GUAC_CHECK_SUITE=vm-check

# run PLAN: run-kernel.sh with that plan and a fresh call count; its result
# line in $tmp/line, its status in $rc.
run() {
	rm -f "$tmp/calls" "$tmp"/append-*
	rc=0
	FAKE_QEMU_PLAN=$1 PATH="$tmp/bin:$PATH" "$top/scripts/vm/run-kernel.sh" 9.9-test \
		>"$tmp/line" 2>"$tmp/err" || rc=$?
}

GUAC_VM_FIRST_APPEND=rdinit=/nonexistent run "oops pass"
check "an oops before the load, then a clean boot: PASS" '[ "$rc" = 0 ] && grep -q "^vm-check 9.9-test: PASS, 1/1 passed" "$tmp/line"'
check "... the result line names the retry and its reason" \
	'grep -q "after 1 retry: int3 oops in sched_clock_cpu before guacrng loaded" "$tmp/line"'
check "... booted twice, the first boot's console kept" \
	'[ "$(cat "$tmp/calls")" = 2 ] && grep -q sched_clock_cpu "$tmp/build/9.9-test/console-retried.log"'
check "... GUAC_VM_FIRST_APPEND on the first boot only" \
	'grep -q rdinit=/nonexistent "$tmp/append-1" && ! grep -q rdinit=/nonexistent "$tmp/append-2"'
check "... the ledger records suite, kernel and reason" \
	'[ "$(cat "$tmp/ledger")" = "$(printf "vm-check\t9.9-test\tint3 oops in sched_clock_cpu")" ]'

run "failafter pass"
check "a failure after the runner started: FAIL, never retried" \
	'[ "$rc" = 1 ] && [ "$(cat "$tmp/calls")" = 1 ] && ! grep -q retry "$tmp/line" && [ "$(grep -c . "$tmp/ledger")" = 1 ]'

run "oops oops"
check "an oops on both boots: FAIL after 1 retry" \
	'[ "$rc" = 1 ] && [ "$(cat "$tmp/calls")" = 2 ] && grep -q "^vm-check 9.9-test: FAIL.*after 1 retry: int3 oops" "$tmp/line"'
check "... the budget of 2 is now spent" '[ "$(grep -c . "$tmp/ledger")" = 2 ]'

run "oops pass"
check "with the budget spent, an oops before the load is not retried" \
	'[ "$rc" = 1 ] && [ "$(cat "$tmp/calls")" = 1 ] && [ "$(grep -c . "$tmp/ledger")" = 2 ]'

rm -f "$tmp/ledger"
GUAC_RETRY_LEDGER= run "oops pass"
check "outside make check (no ledger) a boot may still retry once" '[ "$rc" = 0 ] && [ "$(cat "$tmp/calls")" = 2 ]'
tap_end
