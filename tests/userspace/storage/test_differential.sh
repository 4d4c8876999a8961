#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Differential adversarial test of guac's verdicts (issue 27): differential.py
# makes random storage scenarios (fills, shards and merges, interrupted fills
# and checks, damage, repairs, pipes, offsets across 2^64) and compares every
# verdict of guac verify with `guac gen` of the described range and cmp: an OK
# over bytes that differ is a FALSE OK; a check of matching data, run to its
# end, that is not OK is a FALSE ALARM. One TAP line per scenario family, one
# summary line. The seed comes first in the output (replay: differential.py
# --seed S, or --seed S --case I -v for one case); DIFFERENTIAL_ARGS passes
# options (--seed S, --seconds T, --cases N). TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
trap 'exit 130' INT TERM

tap_begin
if ! command -v python3 >/dev/null; then
	not_ok "differential: python3 is missing"
	tap_end
	exit
fi
# shellcheck disable=SC2086 # DIFFERENTIAL_ARGS is a list of options
GUAC=$GUAC python3 "$(dirname "$0")/differential.py" ${DIFFERENTIAL_ARGS:-} >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
grep '^family [a-z0-9]*: ' "$tmp/out" >"$tmp/families"
while read -r line; do
	fo=$(echo "$line" | sed -n 's/.* \([0-9]*\) false OK.*/\1/p')
	fa=$(echo "$line" | sed -n 's/.* \([0-9]*\) false alarm.*/\1/p')
	check "$line" "[ '${fo:-x}' = 0 ] && [ '${fa:-x}' = 0 ]"
done <"$tmp/families"
summary=$(grep '^differential: [0-9]* cases, ' "$tmp/out" | tail -1)
if [ -z "$summary" ]; then
	not_ok "differential: differential.py ended without a summary (exit $rc)"
else
	check "$summary" "[ $rc -eq 0 ]"
fi
tap_end
