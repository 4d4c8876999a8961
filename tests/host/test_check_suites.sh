#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-suites.sh, make check's runner: every suite runs though one
# before it fails, and the summary gives each suite's result, time and the
# boots it retried (recorded through scripts/vm/boot-fault.sh's own
# guac_retry_claim), then "check: N passed, N failed". TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
tap_tmpdir
cat >"$tmp/Makefile" <<MK
first:
	@echo ran-first
broken:
	@echo ran-broken; exit 3
retried:
	@sh -c '. $top/scripts/vm/boot-fault.sh && guac_retry_claim 6.12.57+deb12-rt-amd64 "int3 oops in sched_clock_cpu"'
	@echo ran-retried
MK

rc=0
GUAC_CHECK_OUT=$tmp/out MAKE="make -f $tmp/Makefile" \
	"$top/scripts/check-suites.sh" first broken retried >"$tmp/log" 2>&1 || rc=$?

tap_begin
check "a failed suite fails the run" '[ "$rc" != 0 ]'
check "every suite ran, the one after the failure too" \
	'grep -q ran-first "$tmp/log" && grep -q ran-broken "$tmp/log" && grep -q ran-retried "$tmp/log"'
check "the summary names each suite with its result and time" \
	'grep -Eq "^  first +PASS +[0-9]+s" "$tmp/log" && grep -Eq "^  broken +FAIL +[0-9]+s" "$tmp/log" && grep -Eq "^  retried +PASS +[0-9]+s" "$tmp/log"'
check "the retried boot is named on its suite's line" \
	'grep -q "^  retried .*passed after 1 retry: 6.12.57+deb12-rt-amd64 boot, int3 oops in sched_clock_cpu before guacrng loaded" "$tmp/log"'
check "the retry count of the whole run" 'grep -q "retried boots: 1 of at most 2" "$tmp/log"'
check "it ends with the counts" '[ "$(tail -n 1 "$tmp/log")" = "check: 2 passed, 1 failed" ]'
check "the summary is kept" 'tail -n 1 "$tmp/out/summary.txt" | grep -qx "check: 2 passed, 1 failed"'

rc=0
GUAC_CHECK_OUT=$tmp/out MAKE="make -f $tmp/Makefile" \
	"$top/scripts/check-suites.sh" first >"$tmp/log" 2>&1 || rc=$?
check "all passing: exit 0, and the ledger starts empty each run" \
	'[ "$rc" = 0 ] && grep -q "retried boots: 0 of" "$tmp/log" && [ "$(tail -n 1 "$tmp/log")" = "check: 1 passed, 0 failed" ]'
tap_end
