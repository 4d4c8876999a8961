# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# differential_tap NAME SCRIPT [OPTIONS...]: run a differential test program
# (differential.py, fleet_differential.py) and turn its output into TAP: its
# output as comments, one check per "family F: ..." line (0 false OK and 0
# false alarm), and one for its summary line "NAME: N ... cases, ..." (the
# program's exit status 0). Sourced after tap.sh, between tap_begin and
# tap_end, with $tmp set (tap_tmpdir).
differential_tap() {
	name=$1 script=$2
	shift 2
	if ! command -v python3 >/dev/null; then
		not_ok "$name: python3 is missing"
		return
	fi
	GUAC=$GUAC python3 "$script" "$@" >"$tmp/out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/out"
	grep '^family [a-z0-9]*: ' "$tmp/out" >"$tmp/families"
	while read -r line; do
		fo=$(echo "$line" | sed -n 's/.* \([0-9]*\) false OK.*/\1/p')
		fa=$(echo "$line" | sed -n 's/.* \([0-9]*\) false alarm.*/\1/p')
		check "$line" "[ '${fo:-x}' = 0 ] && [ '${fa:-x}' = 0 ]"
	done <"$tmp/families"
	summary=$(grep "^$name: [0-9]* .*cases, " "$tmp/out" | tail -1)
	if [ -z "$summary" ]; then
		not_ok "$name: $(basename "$script") ended without a summary (exit $rc)"
	else
		check "$summary" "[ $rc -eq 0 ]"
	fi
}
