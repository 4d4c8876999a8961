#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check-suites.sh SUITE[@GROUP]... [--last SUITE]
#
# make check's runner: each SUITE (a make target), every one of them even
# when one before it failed, so that one red suite never hides the rest;
# then one summary of each suite's result, its time and the boots the VM
# harness retried (scripts/vm/boot-fault.sh), ending with
# "check: N passed, N failed". Exits non-zero if any suite failed.
#
# Suites run GUAC_CHECK_JOBS at a time (default 2, or 1 on one CPU): most
# of them keep one CPU busy (an emulated guest, a shell suite, a fuzzer), so
# two at a time keep both of a 2-core machine's busy. They start in the
# order given; a suite waits while another of its GROUP runs: a group names
# what its suites share and rebuild (build/vm/guac-vmtest, the .debs, the
# host's loop devices), so they never race each other. Running alongside
# others, a suite's output goes to build/check/logs/SUITE.log and is printed
# whole when it ends; GUAC_CHECK_JOBS=1 runs them one by one with their
# output as it comes. --last SUITE runs after all the others have ended.
#
# The retries of the whole run share one ledger and one budget
# (GUAC_RETRY_LEDGER, GUAC_RETRY_BUDGET: 2); the summary is also written to
# build/check/summary.txt (GUAC_CHECK_OUT: another directory, for its test,
# tests/host/test_check_suites.sh, which also sets MAKE).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${GUAC_CHECK_OUT:-$top/build/check}
logs=$out/logs
mkdir -p "$logs"
export GUAC_RETRY_LEDGER=${GUAC_RETRY_LEDGER:-$out/retries}
export GUAC_RETRY_BUDGET=${GUAC_RETRY_BUDGET:-2}
: >"$GUAC_RETRY_LEDGER"
rm -f "$logs"/*.log

jobs=${GUAC_CHECK_JOBS:-$(($(nproc) > 1 ? 2 : 1))}
case $jobs in
'' | *[!0-9]* | 0)
	echo "check-suites: GUAC_CHECK_JOBS must be a number of at least 1, not '$jobs'" >&2
	exit 2
	;;
esac

suites=()
last=
while [ $# -gt 0 ]; do
	case $1 in
	--last)
		[ $# -ge 2 ] || { echo "check-suites: --last needs a suite" >&2; exit 2; }
		last=$2
		shift 2
		;;
	*)
		suites+=("$1")
		shift
		;;
	esac
done

# The suites' results in the order they were given, one
# "SUITE STATUS SECONDS START" line each (START: seconds into the run).
results=$out/results
: >"$results"
all_start=$(date +%s)
declare -A pid_of=() status_of=() secs_of=() start_of=() group_busy=()

# run_one SUITE: the suite's make, its output to the terminal when it runs
# alone, to its log otherwise.
run_one() {
	if [ "$jobs" = 1 ]; then
		GUAC_CHECK_SUITE=$1 ${MAKE:-make} --no-print-directory -C "$top" "$1"
	else
		GUAC_CHECK_SUITE=$1 ${MAKE:-make} --no-print-directory -C "$top" "$1" >"$logs/$1.log" 2>&1
	fi
}

# start WORD: SUITE[@GROUP] in the background.
start() {
	local suite=${1%@*}
	start_of[$suite]=$(date +%s)
	echo "=== check: $suite ($(date -u +%T) UTC${2:+, beside $2})"
	run_one "$suite" </dev/null &
	pid_of[$!]=$1
}

# reap: wait for one suite to end and report it.
reap() {
	local pid status=0 word suite group
	wait -n -p pid || status=$?
	word=${pid_of[$pid]}
	unset "pid_of[$pid]"
	suite=${word%@*}
	group=
	[ "$word" = "$suite" ] || group=${word#*@}
	[ -z "$group" ] || unset "group_busy[$group]"
	status_of[$suite]=$status
	secs_of[$suite]=$(($(date +%s) - start_of[$suite]))
	if [ "$jobs" != 1 ] && [ -s "$logs/$suite.log" ]; then
		echo "=== check: $suite: output"
		cat "$logs/$suite.log"
	fi
	echo "=== check: $suite: $([ "$status" = 0 ] && echo PASS || echo "FAIL (status $status)") in ${secs_of[$suite]} s"
}

# A Ctrl-C or a TERM ends the suites still running, not only this script.
stop() {
	[ ${#pid_of[@]} = 0 ] || kill -TERM "${!pid_of[@]}" 2>/dev/null
	wait
	exit 130
}
trap stop INT TERM

# Start suites in the order given while a slot is free, skipping any whose
# group is busy; when none can start, wait for one to end.
pending=("${suites[@]}")
while [ ${#pending[@]} -gt 0 ] || [ ${#pid_of[@]} -gt 0 ]; do
	left=()
	for word in "${pending[@]}"; do
		group=
		[ "$word" = "${word%@*}" ] || group=${word#*@}
		if [ ${#pid_of[@]} -lt "$jobs" ] && { [ -z "$group" ] || [ -z "${group_busy[$group]:-}" ]; }; then
			beside=$(for w in "${pid_of[@]}"; do printf '%s ' "${w%@*}"; done)
			start "$word" "${beside% }"
			[ -z "$group" ] || group_busy[$group]=1
		else
			left+=("$word")
		fi
	done
	pending=("${left[@]}")
	[ ${#pid_of[@]} = 0 ] || reap
done
if [ -n "$last" ]; then
	start "$last" ""
	reap
fi

# retries SUITE: "after N retry: KERNEL boot, REASON before guacrng loaded; ..."
retries() {
	awk -F '\t' -v s="$1" '$1 == s { n++; r = r (r ? "; " : "") $2 " boot, " $3 " before guacrng loaded" }
		END { if (n) printf "after %d %s: %s", n, n == 1 ? "retry" : "retries", r }' "$GUAC_RETRY_LEDGER"
}

for word in "${suites[@]}" $last; do
	suite=${word%@*}
	echo "$suite ${status_of[$suite]} ${secs_of[$suite]} $((start_of[$suite] - all_start))" >>"$results"
done

summary() {
	local suite status secs at passed=0 failed=0 verdict note
	echo "make check summary: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, $jobs suites at a time, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	printf '  %-20s %-6s %6s %6s  %s\n' suite result time start notes
	while read -r suite status secs at; do
		note=$(retries "$suite")
		if [ "$status" = 0 ]; then
			verdict=PASS
			passed=$((passed + 1))
			[ -z "$note" ] || note="passed $note"
		else
			verdict=FAIL
			failed=$((failed + 1))
		fi
		printf '  %-20s %-6s %5ss %5ss  %s\n' "$suite" "$verdict" "$secs" "$at" "$note"
	done <"$results"
	echo "  retried boots: $(grep -c . "$GUAC_RETRY_LEDGER") of at most $GUAC_RETRY_BUDGET; $(($(date +%s) - all_start)) s in all"
	echo "check: $passed passed, $failed failed"
}
echo
summary | tee "$out/summary.txt"
! awk '$2 != 0 { bad = 1 } END { exit !bad }' "$results"
