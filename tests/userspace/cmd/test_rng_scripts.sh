#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# scripts/dieharder.sh --quick and scripts/rngtest.sh on the guacamole
# stream (must pass) and on /dev/zero (must fail: proves the checks bite),
# plus their usage errors. TAP output.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
GUAC=${GUAC:-$top/build/userspace/guac}
export GUAC
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
# expect DESCRIPTION STATUS COMMAND...: the command exits with STATUS.
expect() {
	desc=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" = "$want" ]; then ok "$desc"; else echo "# exit $got, expected $want"; not_ok "$desc" "$tmp/out"; fi
}

tap_begin
expect "dieharder.sh guac --quick passes" 0 "$top/scripts/dieharder.sh" guac --quick
check "dieharder.sh summary counts all 5 quick tests" \
	'grep -q "^SUMMARY guac: PASSED 5, WEAK 0, FAILED 0" "$tmp/out"'
expect "dieharder.sh /dev/zero --quick fails" 1 "$top/scripts/dieharder.sh" /dev/zero --quick
check "dieharder.sh names the FAILED tests" 'grep -q "^FAILED: diehard_birthdays/0 " "$tmp/out"'
# A saved run with a WEAK result: re-run with -Y 1 on fresh stream data.
printf '   diehard_birthdays|   0|       100|     100|0.99951234|   WEAK  \n' >"$tmp/weak.log"
expect "dieharder.sh re-runs a WEAK result" 0 "$top/scripts/dieharder.sh" guac --summarize "$tmp/weak.log"
check "dieharder.sh reports the resolved verdict" \
	'grep -q "diehard_birthdays/0: WEAK -> PASSED" "$tmp/out" && grep -q "WEAK 0, FAILED 0" "$tmp/out"'
expect "dieharder.sh without SOURCE is a usage error" 2 "$top/scripts/dieharder.sh"
expect "dieharder.sh on a missing file is an error" 2 "$top/scripts/dieharder.sh" "$tmp/nonexistent" --quick

expect "rngtest.sh guac passes 1000 blocks" 0 "$top/scripts/rngtest.sh" guac
check "rngtest.sh threshold for 1000 blocks is 5" 'grep -q "^OK: [0-5] failed blocks <= 5" "$tmp/out"'
expect "rngtest.sh /dev/zero fails" 1 "$top/scripts/rngtest.sh" /dev/zero -c 100
head -c 100000 /dev/urandom >"$tmp/short"
expect "rngtest.sh on too little data is an error" 2 "$top/scripts/rngtest.sh" "$tmp/short"
expect "rngtest.sh -c 0 is a usage error" 2 "$top/scripts/rngtest.sh" guac -c 0

tap_end
