#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-suites.sh, make check's runner: every suite runs though one
# before it fails, two at a time but never two of one group, and the summary gives each suite's result, time and the
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

# Two at a time, never two of one group, --last after all; each suite's
# output whole. The trace records each suite's start and end, in order.
cat >"$tmp/Makefile.par" <<MK
g1 g2 free late:
	@echo "\$@ start" >>$tmp/trace; echo "\$@ line 1"; sleep 1; echo "\$@ line 2"; echo "\$@ end" >>$tmp/trace
MK
: >"$tmp/trace"
rc=0
GUAC_CHECK_JOBS=2 GUAC_CHECK_OUT=$tmp/out MAKE="make -f $tmp/Makefile.par" \
	"$top/scripts/check-suites.sh" g1@grp g2@grp free --last late >"$tmp/log" 2>&1 || rc=$?
check "two at a time: an ungrouped suite runs beside the first" \
	'[ "$rc" = 0 ] && [ "$(sed -n 2p "$tmp/trace")" = "free start" ]'
check "two of one group never overlap" \
	'awk "/^g1 end/ { e = NR } /^g2 start/ { s = NR } END { exit !(e && s > e) }" "$tmp/trace"'
check "--last starts after every other suite ended" \
	'[ "$(tail -n 2 "$tmp/trace" | head -n 1)" = "late start" ] && [ "$(grep -c end "$tmp/trace")" = 4 ]'
check "a suite's output is printed whole, after its start line" \
	'for s in g1 g2 free late; do grep -A1 "^$s line 1" "$tmp/log" | tail -n 1 | grep -qx "$s line 2" || exit 1; done'
check "the summary says how many ran at a time and when each started" \
	'grep -q "2 suites at a time" "$tmp/log" && grep -Eq "^  g2 +PASS +[0-9]+s +[1-9][0-9]*s" "$tmp/log"'

: >"$tmp/trace"
GUAC_CHECK_JOBS=1 GUAC_CHECK_OUT=$tmp/out MAKE="make -f $tmp/Makefile.par" \
	"$top/scripts/check-suites.sh" g1 free >"$tmp/log" 2>&1
check "GUAC_CHECK_JOBS=1: one at a time" \
	'[ "$(tr "\n" " " <"$tmp/trace")" = "g1 start g1 end free start free end " ]'
rc=0
GUAC_CHECK_JOBS=two GUAC_CHECK_OUT=$tmp/out "$top/scripts/check-suites.sh" g1 >"$tmp/log" 2>&1 || rc=$?
check "a GUAC_CHECK_JOBS that is not a number is refused, naming it" \
	'[ "$rc" = 2 ] && grep -q "GUAC_CHECK_JOBS.*two" "$tmp/log"'
tap_end
