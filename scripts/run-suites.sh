#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-suites.sh NAME: run every program in $TESTS (cmocka binaries or TAP
# shell scripts), show their output, and end with one line
# "NAME: N passed, N failed" counting suites. Exit status is non-zero if any
# suite failed.
set -u
name=$1
passed=0
failed=0
failed_names=""
for t in $TESTS; do
	echo "=== $(basename "$t")"
	if "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failed_names="$failed_names $(basename "$t")"
	fi
done
[ -n "$failed_names" ] && echo "failed suites:$failed_names"
echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
