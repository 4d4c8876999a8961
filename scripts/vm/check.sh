#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check.sh [SERIES...]      (default: 6.1 6.12)
#
# The VM suite on each Debian kernel series: fetch the kernel, build the
# module for it, pack the initramfs, boot and run tests/vm/. One result line
# per kernel, then "N passed, N failed" over all of them; exits non-zero if
# anything failed. Needs `make vm-tools` first (make vm-check does that).
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- 6.1 6.12
vm=$(dirname "$0")
total_passed=0
total_failed=0
results=

for series in "$@"; do
	line=
	if ! kver=$("$vm/fetch-kernel.sh" "$series"); then
		line="vm-check $series: FAIL (fetching the kernel failed)"
	elif ! "$vm/build-module.sh" "$kver" >/dev/null; then
		line="vm-check $kver: FAIL (module build failed)"
	elif ! "$vm/make-initramfs.sh" "$kver" >/dev/null; then
		line="vm-check $kver: FAIL (initramfs packing failed)"
	else
		line=$("$vm/run-kernel.sh" "$kver") || true
		echo "$line"
		read -r passed failed <"$GUAC_VM_BUILD/$kver/result" || passed=0 failed=1
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
