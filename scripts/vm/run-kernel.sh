#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: run-kernel.sh [--run check|demo|shell] KVER
#
# Boot KVER's Debian vmlinuz with build/vm/KVER/initramfs.cpio.gz in
# qemu-system-x86_64 -cpu max (TCG). With --run check (the default), read the
# TAP the guest writes to its second serial port, print one result line and
# exit non-zero on any failed test point, a missing or short plan, a kernel
# panic or a timeout. The console log is kept in build/vm/KVER/console.log.
# A boot that died before guacrng was loaded is booted once more
# (boot-fault.sh: the reason is added to the result line, the first boot's
# logs kept as console-retried.log and tap-retried.txt).
#
# Environment: VM_TIMEOUT (seconds, default 900), VM_VERBOSE=1 (show the
# console while the suite runs), VM_SMP (default 2), VM_MEM (default 1G),
# GUAC_VM_KERNEL (a kernel image other than Debian's, e.g. the debug kernel),
# GUAC_VM_APPEND (more kernel command line), GUAC_VM_FIRST_APPEND (more for
# the first boot only: the retry's test), VM_CPU (qemu's -cpu, default
# max), GUAC_VM_LOGDIR (where console.log, tap.txt and result go, default
# build/vm/KVER), GUAC_RETRY_LEDGER and GUAC_RETRY_BUDGET (boot-fault.sh),
# GUAC_VM_QEMU_ARGS (more qemu arguments, split on spaces: the two-host
# test's 9p share, tests/vm/test_two_hosts.sh).
#
# GUAC_ARCH=arm64: qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on (TCG:
# RNDR, NEON; the cheap pointer-authentication hash, not QARMA), the console
# on the PL011 (ttyAMA0) and the TAP on a virtio serial port (guac.tap), the
# virt machine having one UART. VM_CPU names another CPU (cortex-a57: no RNDR).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boot-fault.sh"

run=check
if [ "${1:-}" = --run ]; then
	run=${2:?--run needs check, demo or shell}
	shift 2
fi
[ $# = 1 ] || guac_die "usage: run-kernel.sh [--run check|demo|shell] KVER"
kver=$1
out=$GUAC_VM_BUILD/$kver
vmlinuz=${GUAC_VM_KERNEL:-$GUAC_VM_CACHE/$kver/vmlinuz}
initrd=$out/initramfs.cpio.gz
out=${GUAC_VM_LOGDIR:-$out}
mkdir -p "$out"
[ -f "$vmlinuz" ] || guac_die "no $vmlinuz (run scripts/vm/fetch-kernel.sh)"
[ -f "$initrd" ] || guac_die "no $initrd (run scripts/vm/make-initramfs.sh $kver)"

# Under TCG on a busy host a vCPU can go tens of seconds without running:
# give the RCU stall and soft lockup detectors their longest patience, so
# they speak up for real hangs only.
vm_tolerance="rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60"
qemu() {
	if [ "$GUAC_ARCH" = arm64 ]; then
		timeout --foreground "${VM_TIMEOUT:-900}" qemu-system-aarch64 \
			-M virt -cpu "${VM_CPU:-max,pauth-impdef=on}" \
			-smp "${VM_SMP:-2}" -m "${VM_MEM:-1G}" -nic none \
			-nographic -no-reboot -monitor none \
			-serial stdio \
			-device virtio-serial-device -chardev "file,id=tap,path=$out/tap.raw" \
			-device virtserialport,chardev=tap,name=guac.tap \
			-kernel "$vmlinuz" -initrd "$initrd" ${GUAC_VM_QEMU_ARGS:-} \
			-append "console=ttyAMA0 panic=-1 oops=panic quiet $vm_tolerance guacvm.tap=guac.tap guacvm.run=$run ${GUAC_VM_APPEND:-}"
		return
	fi
	timeout --foreground "${VM_TIMEOUT:-900}" qemu-system-x86_64 \
		-cpu "${VM_CPU:-max}" -smp "${VM_SMP:-2}" -m "${VM_MEM:-1G}" -nic none \
		-nographic -no-reboot -monitor none \
		-serial stdio -serial "file:$out/tap.raw" \
		-kernel "$vmlinuz" -initrd "$initrd" ${GUAC_VM_QEMU_ARGS:-} \
		-append "console=ttyS0 panic=-1 oops=panic quiet $vm_tolerance guacvm.run=$run ${GUAC_VM_APPEND:-}"
}

# One boot of the check run: the console in console.log, qemu's status (when
# not 0) as its last line, the TAP in tap.txt.
boot() {
	rm -f "$out/tap.raw" "$out/tap.txt" "$out/console.log" "$out/result"
	if [ "${VM_VERBOSE:-0}" = 1 ]; then
		{ qemu </dev/null 2>&1 || echo "qemu-exit-status $?"; } | tee "$out/console.log"
	else
		qemu </dev/null >"$out/console.log" 2>&1 || echo "qemu-exit-status $?" >>"$out/console.log"
	fi
	tr -d '\r' <"$out/tap.raw" >"$out/tap.txt" 2>/dev/null || : >"$out/tap.txt"
}

# The boot's counts, and anything wrong with the run itself, which counts as
# one more failure.
evaluate() {
	tap=$out/tap.txt
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | tail -n 1)
	passed=$(grep -c '^ok ' "$tap" || true)
	skipped=$(grep -c '^ok .* # SKIP ' "$tap" || true)
	failed=$(grep -c '^not ok ' "$tap" || true)
	boot=$(sed -n 's/^# suite time .* s, boot to suite start \([0-9.]*\) s$/\1/p' "$tap")
	suite=$(sed -n 's/^# suite time \([0-9.]*\) s.*/\1/p' "$tap")
	problem=
	qemu_status=$(sed -n 's/^qemu-exit-status //p' "$out/console.log")
	if [ "$qemu_status" = 124 ]; then
		problem="timed out after ${VM_TIMEOUT:-900} s"
	elif grep -q 'Kernel panic' "$out/console.log"; then
		problem="kernel panic: $(grep -m 1 'Kernel panic' "$out/console.log" | tr -d '\r')"
	elif [ -n "$qemu_status" ]; then
		problem="qemu exited with status $qemu_status"
	elif [ -z "$plan" ]; then
		problem="no TAP plan: the guest stopped before the end of the suite"
	elif [ "$plan" != $((passed + failed)) ]; then
		problem="plan 1..$plan but $((passed + failed)) test points"
	fi
	[ -z "$problem" ] || failed=$((failed + 1))
}

start=$(date +%s.%N)
status=0
retried=
case "$run" in
check)
	guac_log "booting $kver (log: $out/console.log)"
	rm -f "$out/console-retried.log" "$out/tap-retried.txt"
	append_all=${GUAC_VM_APPEND:-}
	# GUAC_VM_FIRST_APPEND: command line for the first boot only, with
	# which tests/vm/test_boot_retry.sh makes that boot die early.
	GUAC_VM_APPEND="$append_all ${GUAC_VM_FIRST_APPEND:-}"
	boot
	evaluate
	GUAC_VM_APPEND=$append_all
	# A boot that died before guacrng was loaded (boot-fault.sh) is booted
	# once more, if make check's budget allows; its logs are kept apart.
	if [ "$failed" != 0 ] && reason=$(guac_boot_fault "$out/console.log" "$out/tap.txt") &&
		guac_retry_claim "$kver" "$reason"; then
		mv "$out/console.log" "$out/console-retried.log"
		mv "$out/tap.txt" "$out/tap-retried.txt"
		guac_log "$kver died before guacrng was loaded ($reason); booting once more (first console: $out/console-retried.log)"
		retried=", after 1 retry: $reason before guacrng loaded"
		boot
		evaluate
	fi
	;;
demo)
	qemu </dev/null 2>&1 | tee "$out/console.log" | tr -d '\r'
	exit 0
	;;
shell)
	qemu || status=$?
	exit "$status"
	;;
*)
	guac_die "unknown --run '$run' (check, demo or shell)"
	;;
esac
elapsed=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
echo "$passed $failed" >"$out/result"

if [ "$failed" != 0 ]; then
	# The failed test points with their comments, for the reader of the CI log.
	awk '/^not ok /{ p = 1; print; next } /^(ok |1\.\.)/{ p = 0 } p && /^#/' "$tap" >&2
fi
grep '^# bench:' "$tap" | sed 's/^# bench: /  bench: /' || true
if [ "$failed" = 0 ]; then
	skips=
	[ "$skipped" = 0 ] || skips=", $skipped of them skipped"
	echo "vm-check $kver: PASS, $passed/$plan passed$skips (boot ${boot:-?} s, suite ${suite:-?} s, VM ${elapsed} s)$retried"
else
	echo "vm-check $kver: FAIL, $passed passed, $failed failed${problem:+ ($problem)}$retried; log: $out/console.log, TAP: $tap"
	exit 1
fi
