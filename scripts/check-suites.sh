#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check-suites.sh SUITE...
#
# make check's runner: each SUITE (a make target) in turn, every one of them
# even when one before it failed, so that one red suite never hides the
# rest; then one summary of each suite's result, its time and the boots the
# VM harness retried (scripts/vm/boot-fault.sh), ending with
# "check: N passed, N failed". Exits non-zero if any suite failed.
#
# The retries of the whole run share one ledger and one budget
# (GUAC_RETRY_LEDGER, GUAC_RETRY_BUDGET: 2); the summary is also written to
# build/check/summary.txt (GUAC_CHECK_OUT: another directory, for its test,
# tests/host/test_check_suites.sh, which also sets MAKE).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${GUAC_CHECK_OUT:-$top/build/check}
mkdir -p "$out"
export GUAC_RETRY_LEDGER=${GUAC_RETRY_LEDGER:-$out/retries}
export GUAC_RETRY_BUDGET=${GUAC_RETRY_BUDGET:-2}
: >"$GUAC_RETRY_LEDGER"

# The suites' results, one "SUITE STATUS SECONDS" line each.
results=$out/results
: >"$results"
all_start=$(date +%s)
for suite in "$@"; do
	echo "=== check: $suite ($(date -u +%T) UTC)"
	start=$(date +%s)
	status=0
	GUAC_CHECK_SUITE=$suite ${MAKE:-make} --no-print-directory -C "$top" "$suite" || status=$?
	echo "$suite $status $(($(date +%s) - start))" >>"$results"
	echo "=== check: $suite: $([ "$status" = 0 ] && echo PASS || echo "FAIL (status $status)") in $(($(date +%s) - start)) s"
done

# retries SUITE: "after N retry: KERNEL boot, REASON before guacrng loaded; ..."
retries() {
	awk -F '\t' -v s="$1" '$1 == s { n++; r = r (r ? "; " : "") $2 " boot, " $3 " before guacrng loaded" }
		END { if (n) printf "after %d %s: %s", n, n == 1 ? "retry" : "retries", r }' "$GUAC_RETRY_LEDGER"
}

summary() {
	local suite status secs passed=0 failed=0 verdict note
	echo "make check summary: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	printf '  %-20s %-6s %6s  %s\n' suite result time notes
	while read -r suite status secs; do
		note=$(retries "$suite")
		if [ "$status" = 0 ]; then
			verdict=PASS
			passed=$((passed + 1))
			[ -z "$note" ] || note="passed $note"
		else
			verdict=FAIL
			failed=$((failed + 1))
		fi
		printf '  %-20s %-6s %5ss  %s\n' "$suite" "$verdict" "$secs" "$note"
	done <"$results"
	echo "  retried boots: $(grep -c . "$GUAC_RETRY_LEDGER") of at most $GUAC_RETRY_BUDGET; $(($(date +%s) - all_start)) s in all"
	echo "check: $passed passed, $failed failed"
}
echo
summary | tee "$out/summary.txt"
! awk '$2 != 0 { bad = 1 } END { exit !bad }' "$results"
