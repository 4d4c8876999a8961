#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: prefetch.sh start LOG     fill the cache in the background
#        prefetch.sh wait LOG      wait for it to end; print its summary
#
# From a cold cache, make check spends minutes on downloads and debootstraps
# (the kernels of the matrix, the chroots with their compilers, Bochs, the
# amd64 guest image, lintian's chroot) and more on compiling the test
# kernels. `start` runs both in the background, side by side, from make
# check's start, while the suites that need neither run. Every step is the
# consumers' own script, which takes a lock (fetch-kernel.sh per series,
# chroot.sh per chroot, make-image.sh, the Bochs fetch, build-kernel.sh): a
# consumer that comes first waits for the prefetch and then finds the cache
# filled.
# Nothing here decides a result: if a step fails, its consumer runs it again
# in the foreground and fails there with its own message. `wait` makes sure
# no background job outlives make check.
set -eu
GUAC_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$GUAC_TOP/scripts/vm/lib.sh"
. "$GUAC_TOP/scripts/bochs/lib.sh"

[ $# = 2 ] || guac_die "usage: prefetch.sh start|wait LOG"
action=$1 log=$2
lock=$log.lock

# Each step timed into the log, failures noted and passed over.
step() {
	local start status=0
	start=$(date +%s)
	# A subshell: a guac_die in a step ends the step, not the prefetch.
	("$@") >>"$log" 2>&1 </dev/null || status=$?
	echo "prefetch: $* -> status $status, $(($(date +%s) - start)) s" >>"$log"
}

# The kernels, then what compiles for them, then the rest: in the order the
# suites need them, so the first consumer waits least.
fill() {
	local arg series kver
	for arg in $GUAC_CHECK_KERNELS; do
		series=${arg%:*}
		step "$GUAC_TOP/scripts/vm/fetch-kernel.sh" "$series"
	done
	for arg in $GUAC_CHECK_KERNELS; do
		kver=$(cat "$GUAC_VM_CACHE/series-${arg%:*}" 2>/dev/null) || continue
		# shellcheck disable=SC2046,SC2086
		set -- $(cat "$GUAC_VM_CACHE/$kver/toolchain" 2>/dev/null || echo host)
		[ "$1" = host ] ||
			step "$GUAC_TOP/scripts/vm/chroot.sh" ensure "$1" "$2" $GUAC_CHROOT_PACKAGES
	done
	# vm-check-arm64's: its kernels, the cross compilers of their chroots,
	# the guest's arm64 programs.
	for arg in $(GUAC_TOP=$GUAC_TOP GUAC_ARCH=arm64 sh -c '. "$GUAC_TOP/scripts/vm/lib.sh" && echo "$GUAC_CHECK_KERNELS"'); do
		series=${arg%:*}
		step env GUAC_ARCH=arm64 "$GUAC_TOP/scripts/vm/fetch-kernel.sh" "$series"
		kver=$(cat "$GUAC_VM_CACHE/series-$series-arm64" 2>/dev/null) || continue
		# shellcheck disable=SC2046,SC2086
		set -- $(cat "$GUAC_VM_CACHE/$kver/toolchain" 2>/dev/null || echo host)
		[ "$1" = host ] ||
			step env GUAC_ARCH=arm64 "$GUAC_TOP/scripts/vm/chroot.sh" ensure "$1" "$2" \
				$GUAC_CHROOT_PACKAGES gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	done
	step env GUAC_ARCH=arm64 "$GUAC_TOP/scripts/vm/userland.sh"
	step guac_bochs_fetch
	step "$GUAC_TOP/scripts/vm/chroot.sh" ensure bookworm file
	step "$GUAC_TOP/scripts/vm/chroot.sh" ensure bookworm lintian
	step "$GUAC_TOP/scripts/guest/make-image.sh"
	# check-secureboot's: the signed chain, virt-firmware's venv, its disk.
	step "$GUAC_TOP/scripts/secureboot/make-disk.sh"
	# Not check-guest-arm64's image (8 minutes cold): that suite is make
	# check-all's, and makes its image itself.
}

# The kernel trees make check prepares in the background
# (GUAC_PREFETCH_KERNELS: variants of scripts/kernel/build-kernel.sh; the
# clang tree, seconds), beside fill(): one wants the network and the disk,
# this the CPUs. build-kernel.sh compiles at nice 10 and holds its variant's
# lock: a suite that needs the tree first waits for it. The test kernels
# themselves are suites of make check's (debug-kernel, arm64-kernel).
build_kernels() {
	local variant
	for variant in ${GUAC_PREFETCH_KERNELS:-}; do
		step "$GUAC_TOP/scripts/kernel/build-kernel.sh" --variant "$variant"
	done
}

case "$action" in
start)
	mkdir -p "$(dirname "$log")"
	: >"$log"
	# The lock is taken here and held by the background job alone once this
	# script exits (it inherits the open file), so a `wait` that comes at
	# once cannot pass it by.
	exec 9>"$lock"
	flock 9
	(
		start=$(date +%s)
		build_kernels &
		fill
		wait
		echo "prefetch: done in $(($(date +%s) - start)) s" >>"$log"
	) >/dev/null 2>&1 </dev/null &
	echo "prefetch: filling the cache in the background (log: $log)"
	;;
wait)
	[ -f "$lock" ] || exit 0
	flock "$lock" true
	grep '^prefetch: ' "$log" | sed 's/^/  /'
	;;
*)
	guac_die "unknown action '$action' (start or wait)"
	;;
esac
