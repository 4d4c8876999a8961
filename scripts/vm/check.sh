#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check.sh [SERIES[:smoke|:nornd]...]  (default: GUAC_CHECK_KERNELS, lib.sh)
#
# The VM suite on each Debian kernel series (GUAC_SERIES in lib.sh): fetch
# the kernel, build the module for it, pack the initramfs, boot and run
# tests/vm/scenarios/, or with SERIES:smoke only the smoke set in
# tests/vm/smoke/ (load, dd against guac gen at odd offsets, a hwrng read,
# rmmod). One result line per kernel, then "N passed, N failed" over all of
# them; exits non-zero if anything failed. A kernel that cannot be fetched or
# built fails with a one-line reason. Needs `make vm-tools` first (make
# vm-check does that).
#
# GUAC_ARCH=arm64 runs the arm64 kernels of the series (make vm-check-arm64,
# which builds the aarch64 tools first). SERIES:nornd boots a CPU without
# the hwrng's instruction (arm64: -cpu neoverse-n1, no RNDR; amd64: -cpu
# max,-rdrand,-rdseed) and runs tests/vm/nornd/: no hwrng registered,
# /dev/guac still right; its logs go to build/vm/KVER/nornd/.
set -eu
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $GUAC_CHECK_KERNELS
scenarios=${GUAC_VM_SCENARIOS:-}
append=${GUAC_VM_APPEND:-}
user_cpu=${VM_CPU:-}
vm=$(dirname "$0")
total_passed=0
total_failed=0
results=

# The first error (or, W=1 warnings failing the build too, warning) of a
# failed module build, for the one-line reason.
build_error() {
	cat "$GUAC_VM_BUILD/$1/module-build.log" "$GUAC_VM_BUILD/$1/test/module-build.log" \
		2>/dev/null | grep -m 1 -E 'error|Error|warning:' |
		sed "s|$GUAC_VM_BUILD/$1/[^ ]*src/||g" | cut -c 1-200
}

# SERIES or SERIES:smoke (SERIES:full is the default spelled out).
parse() {
	case "$1" in
	*:smoke) series=${1%:smoke} mode=smoke ;;
	*:nornd) series=${1%:nornd} mode=nornd ;;
	*:full) series=${1%:full} mode=full ;;
	*:*) guac_die "bad kernel '$1': SERIES, SERIES:full, SERIES:smoke or SERIES:nornd" ;;
	*) series=$1 mode=full ;;
	esac
}
for arg in "$@"; do
	parse "$arg"
	guac_series_metas "$series" >/dev/null
done

for arg in "$@"; do
	parse "$arg"
	# The smoke and nornd sets end with the module unloaded: no benchmark
	# after them.
	unset GUAC_VM_LOGDIR
	if [ -n "$user_cpu" ]; then export VM_CPU="$user_cpu"; else unset VM_CPU; fi
	label="$series $mode"
	if [ "$mode" = smoke ] || [ "$mode" = nornd ]; then
		export GUAC_VM_SCENARIOS="$GUAC_TOP/tests/vm/$mode"
		export GUAC_VM_APPEND="$append guacvm.bench=0"
	elif [ -n "$scenarios" ]; then
		export GUAC_VM_SCENARIOS="$scenarios"
	else
		unset GUAC_VM_SCENARIOS
	fi
	[ "$mode" = smoke ] || [ "$mode" = nornd ] || export GUAC_VM_APPEND="$append"
	if [ "$mode" = nornd ]; then
		if [ "$GUAC_ARCH" = arm64 ]; then
			export VM_CPU=neoverse-n1
		else
			export VM_CPU=max,-rdrand,-rdseed
		fi
		label="$label, -cpu $VM_CPU"
	fi
	line=
	start=$(date +%s)
	if ! kver=$("$vm/fetch-kernel.sh" "$series"); then
		line="vm-check $series [$label]: FAIL (fetching the kernel failed)"
	elif ! "$vm/build-module.sh" "$kver" >/dev/null; then
		line="vm-check $kver [$label]: FAIL (module build failed: $(build_error "$kver"))"
	elif ! "$vm/make-initramfs.sh" "$kver" >/dev/null; then
		line="vm-check $kver [$label]: FAIL (initramfs packing failed)"
	else
		[ "$mode" != nornd ] || export GUAC_VM_LOGDIR="$GUAC_VM_BUILD/$kver/nornd"
		line=$("$vm/run-kernel.sh" "$kver") || true
		line=$(echo "$line" | sed "s|^vm-check $kver: |vm-check $kver [$label]: |")
		echo "$line"
		echo "check.sh: $series ($mode) took $(($(date +%s) - start)) s in all (fetch, build, pack, VM)" >&2
		read -r passed failed <"${GUAC_VM_LOGDIR:-$GUAC_VM_BUILD/$kver}/result" || passed=0 failed=1
		total_passed=$((total_passed + passed))
		total_failed=$((total_failed + failed))
		results="$results$(echo "$line" | grep '^vm-check')
"
		continue
	fi
	echo "$line"
	total_failed=$((total_failed + 1))
	results="$results$line
"
done

echo
printf '%s' "$results"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
