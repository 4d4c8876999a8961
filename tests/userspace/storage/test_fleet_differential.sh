#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Differential test of guac report over random fleets (issue 35, item 7):
# fleet_differential.py makes random fleets (refills, overlapping and sharded
# fills, re-attached loop devices, partial checks, host-name variants,
# manifests edited with their checksum recomputed, files marked shared,
# manifests given twice) and compares every row of guac report with the
# truth, `guac gen` of the fill's ranges and a byte comparison of the target
# (the medium recorded): an OK over bytes that differ, or over another medium,
# is a FALSE OK; a clean fleet not all OK is a FALSE ALARM; the exit status
# must be 0 exactly when every row is OK. One TAP line per scenario family,
# one summary line. The seed comes first in the output (replay:
# fleet_differential.py --seed S, or --seed S --case I -v for one case);
# FLEET_DIFFERENTIAL_ARGS passes options (--seed S, --seconds T, --cases N).
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
trap 'exit 130' INT TERM

tap_begin
if ! command -v python3 >/dev/null; then
	not_ok "fleet differential: python3 is missing"
	tap_end
	exit
fi
# shellcheck disable=SC2086 # FLEET_DIFFERENTIAL_ARGS is a list of options
GUAC=$GUAC python3 "$(dirname "$0")/fleet_differential.py" ${FLEET_DIFFERENTIAL_ARGS:-} >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
grep '^family [a-z0-9]*: ' "$tmp/out" >"$tmp/families"
while read -r line; do
	fo=$(echo "$line" | sed -n 's/.* \([0-9]*\) false OK.*/\1/p')
	fa=$(echo "$line" | sed -n 's/.* \([0-9]*\) false alarm.*/\1/p')
	check "$line" "[ '${fo:-x}' = 0 ] && [ '${fa:-x}' = 0 ]"
done <"$tmp/families"
summary=$(grep '^fleet-differential: [0-9]* s, [0-9]* cases, ' "$tmp/out" | tail -1)
if [ -z "$summary" ]; then
	not_ok "fleet differential: fleet_differential.py ended without a summary (exit $rc)"
else
	check "$summary" "[ $rc -eq 0 ]"
fi
tap_end
