#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: run-guest.sh DISK PAYLOAD VMLINUZ INITRD BOOT STAGES OUTDIR
#        run-guest.sh --shell DISK VMLINUZ INITRD
#
# Boot the Debian guest of scripts/guest/make-image.sh in qemu-system-x86_64
# -cpu max (TCG), from its own kernel and initramfs (direct boot), with:
#   /dev/vda  DISK, the guest's root (a qcow2 overlay on the cached image)
#   /dev/vdb  PAYLOAD, the ext4 disk with tests/guest/ and the .debs
#   virtio-rng, so that the guest has an hwrng besides guacrng's
# and no network. guacguest.stages=STAGES and guacguest.boot=BOOT on the
# command line make guac-guest.service run tests/guest/guest-run.sh, which
# writes TAP to the second serial port (OUTDIR/tap.raw) and powers off.
#
# GUEST_ARCH=arm64 (the image of make-image.sh arm64): qemu-system-aarch64
# -M virt -cpu max,pauth-impdef=on (TCG; QEMU's own pointer authentication
# algorithm, many times faster to emulate than the architected QARMA), the
# console on the PL011 (ttyAMA0). virt has one UART, so the TAP goes to a
# virtio serial port named guac.tap (/dev/virtio-ports/guac.tap in the
# guest, guacguest.tap= on the command line).
# Prints one result line; exit status non-zero on a failed test point, a
# missing or short plan, a kernel panic or a timeout. The console is in
# OUTDIR/console.log.
#
# --shell: the same guest with no stages, root logged in on the console.
#
# Environment: GUEST_TIMEOUT (seconds per boot, default 3600), GUEST_SMP
# (default 2), GUEST_MEM (default 2G), GUEST_VERBOSE=1 (console while it runs).
# GUEST_UEFI_ARGS: boot through firmware instead of directly (make
# check-secureboot, scripts/secureboot/): QEMU options (machine, pflash) that
# replace -kernel, -initrd and -append; the boot loader on DISK makes the
# command line, so VMLINUZ, INITRD and STAGES are only named in messages.
set -eu
. "$(dirname "$0")/../vm/lib.sh"

# The RCU stall and soft lockup detectors' longest patience: under TCG on a
# busy host a vCPU can go tens of seconds without running.
append="root=/dev/vda ro panic=-1 rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60"
case "${GUEST_ARCH:-amd64}" in
amd64)
	qemu_system=qemu-system-x86_64
	qemu_machine="-cpu max"
	append="console=ttyS0 $append"
	tap_port=
	;;
arm64)
	qemu_system=qemu-system-aarch64
	qemu_machine="-M virt -cpu max,pauth-impdef=on"
	append="console=ttyAMA0 $append"
	tap_port=guac.tap
	;;
*) guac_die "unknown GUEST_ARCH '$GUEST_ARCH' (amd64 or arm64)" ;;
esac

if [ "${1:-}" = --shell ]; then
	[ $# = 4 ] || guac_die "usage: run-guest.sh --shell DISK VMLINUZ INITRD"
	# shellcheck disable=SC2086
	exec $qemu_system $qemu_machine -smp "${GUEST_SMP:-2}" -m "${GUEST_MEM:-2G}" -nic none \
		-nographic -no-reboot \
		-drive "file=$2,if=virtio,format=qcow2" -device virtio-rng-pci \
		-kernel "$3" -initrd "$4" -append "$append"
fi

[ $# = 7 ] || guac_die "usage: run-guest.sh DISK PAYLOAD VMLINUZ INITRD BOOT STAGES OUTDIR"
disk=$1 payload=$2 vmlinuz=$3 initrd=$4 boot=$5 stages=$6 out=$7
for f in "$disk" "$payload" "$vmlinuz" "$initrd"; do
	[ -f "$f" ] || [ -n "${GUEST_UEFI_ARGS:-}" ] || guac_die "no $f"
done
if [ -n "${GUEST_UEFI_ARGS:-}" ]; then
	# shellcheck disable=SC2086
	set -- $GUEST_UEFI_ARGS
	disk_format=raw
	case "$disk" in *.qcow2) disk_format=qcow2 ;; esac
else
	set -- -kernel "$vmlinuz" -initrd "$initrd" \
		-append "$append guacguest.boot=$boot guacguest.stages=$stages${tap_port:+ guacguest.tap=/dev/virtio-ports/$tap_port}"
	disk_format=qcow2
fi
mkdir -p "$out"
rm -f "$out/tap.raw" "$out/tap.txt" "$out/console.log" "$out/console-retried.log"
timeout=${GUEST_TIMEOUT:-3600}

start=$(date +%s)
guac_log "boot $boot: $(basename "$vmlinuz"), stages $stages (console: $out/console.log)"
# The TAP's way out: the second serial port, or a virtio serial port.
if [ -z "$tap_port" ]; then
	tap_args="-serial file:$out/tap.raw"
else
	tap_args="-device virtio-serial-pci -chardev file,id=tap,path=$out/tap.raw"
	tap_args="$tap_args -device virtserialport,chardev=tap,name=$tap_port"
fi
qemu() {
	# Not niced: make check runs two suites side by side, each at the same
	# priority; only the background builds (scripts/prefetch.sh) yield.
	# shellcheck disable=SC2086
	timeout --foreground "$timeout" $qemu_system \
		$qemu_machine -smp "${GUEST_SMP:-2}" -m "${GUEST_MEM:-2G}" -nic none \
		-nographic -no-reboot -monitor none \
		-serial stdio $tap_args \
		-drive "file=$disk,if=virtio,format=$disk_format" \
		-drive "file=$payload,if=virtio,format=raw" \
		-device virtio-rng-pci "$@"
}
boot_once() {
	rm -f "$out/tap.raw"
	if [ "${GUEST_VERBOSE:-0}" = 1 ]; then
		{ qemu "$@" </dev/null 2>&1 || echo "qemu-exit-status $?"; } | tee "$out/console.log"
	else
		qemu "$@" </dev/null >"$out/console.log" 2>&1 || echo "qemu-exit-status $?" >>"$out/console.log"
	fi
}
# The boot's own options (direct boot or firmware) are the positional ones.
boot_once "$@"
# Under TCG with 2 vCPUs, a kernel now and then oopses early in its boot on
# code it is patching (an int3 it left on another vCPU), long before any
# module loads. Such a boot, which panicked before the stages wrote anything
# and whose oops does not name guacrng, is booted once more, and the result
# line says so; its console is kept as console-retried.log.
retried=
if grep -q 'Kernel panic' "$out/console.log" && ! grep -qs '^\(ok\|not ok\) ' "$out/tap.raw" &&
	! grep -q guacrng "$out/console.log"; then
	retried=$(grep -m 1 -e 'Oops' -e 'Kernel panic' "$out/console.log" | tr -d '\r')
	mv "$out/console.log" "$out/console-retried.log"
	guac_log "boot $boot: the kernel panicked before the stages, not in guacrng ($retried): booting again, once"
	boot_once "$@"
fi
elapsed=$(($(date +%s) - start))

tr -d '\r' <"$out/tap.raw" >"$out/tap.txt" 2>/dev/null || : >"$out/tap.txt"
tap=$out/tap.txt
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | tail -n 1)
passed=$(grep -c '^ok ' "$tap" || true)
failed=$(grep -c '^not ok ' "$tap" || true)
boot_s=$(sed -n 's/^# stages time .* s, boot to stages start \([0-9.]*\) s$/\1/p' "$tap")
stages_s=$(sed -n 's/^# stages time \([0-9.]*\) s.*/\1/p' "$tap")

problem=
qemu_status=$(sed -n 's/^qemu-exit-status //p' "$out/console.log")
if [ "$qemu_status" = 124 ]; then
	problem="timed out after $timeout s"
elif grep -q 'Kernel panic' "$out/console.log"; then
	problem="kernel panic: $(grep -m 1 'Kernel panic' "$out/console.log" | tr -d '\r')"
elif [ -n "$qemu_status" ]; then
	problem="qemu exited with status $qemu_status"
elif [ -z "$plan" ]; then
	problem="no TAP plan: the guest stopped before the end of its stages"
elif [ "$plan" != $((passed + failed)) ]; then
	problem="plan 1..$plan but $((passed + failed)) test points"
elif [ "$plan" = 0 ]; then
	problem="no test point"
fi
[ -z "$problem" ] || failed=$((failed + 1))
echo "$passed $failed $elapsed" >"$out/result"

if [ "$failed" != 0 ]; then
	awk '/^not ok /{ p = 1; print; next } /^(ok |1\.\.)/{ p = 0 } p && /^#/' "$tap" >&2
fi
if [ "$failed" = 0 ]; then
	echo "guest $boot: PASS, $passed/$plan passed (boot ${boot_s:-?} s, stages ${stages_s:-?} s, VM $elapsed s)${retried:+; booted twice, the first kernel panicked before the stages: $retried}"
else
	echo "guest $boot: FAIL, $passed passed, $failed failed${problem:+ ($problem)}${retried:+ (booted twice: $retried)}; console: $out/console.log, TAP: $tap"
	exit 1
fi
