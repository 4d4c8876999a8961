#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Stale data of an origin the manifest's history does not name (issue 24):
# the previous run's manifest is gone, so its origin is in no history. A bad
# sector holding that origin's data at its own place is STALE_ORIGIN, not
# UNKNOWN, when the origin lies near one the manifest knows (the origin
# search, docs/diagnosis.md) or when the user names it with --origins (alone:
# every bad sector is checked against it; a range A-B: searched). Bad
# --origins lists are usage errors. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
cd "$tmp" || exit 2

tap_begin
# The previous run: origin 7, its manifest since lost. This run: origin 8.
"$GUAC" write -n 8M --origin 7 -m old.json t.img >/dev/null 2>&1
rm -f old.json
"$GUAC" write -n 8M --origin 8 -m m.json t.img >/dev/null 2>&1
check "the manifest has no history (the old one is gone)" "grep -q '\"history\": \\[\\]' m.json"
# Sectors 100-109 still hold origin 7's data; 300-303 origin 20261117's (a run named by date).
"$GUAC" gen --origin 7 --offset 51200 -n 5120 | dd of=t.img bs=512 seek=100 conv=notrunc status=none
"$GUAC" gen --origin 20261117 --offset 153600 -n 2048 | dd of=t.img bs=512 seek=300 conv=notrunc status=none
cp m.json m0.json

"$GUAC" verify -m m.json >out 2>&1
rc=$?
check "verify: exit 1" "[ $rc -eq 1 ]"
check "origin 7 is found near origin 8: 10 STALE_ORIGIN among the searched, the far one UNKNOWN" \
	"grep -qx 'classes: 14 OTHER (all 14 searched: 10 STALE_ORIGIN (origin 7, not in the history), 4 UNKNOWN)' out"
check "the diagnosis line names origin 7, its place, and that the history lacks it" \
	"grep -q '^  sectors 100-109 (bytes 51200-56319, 10 sectors): STALE_ORIGIN: 10 sectors hold their places. data from a pass with origin 7 (stream offsets 51200-56319), not in the manifest.s history: found by the origin search near origin 8' out"
check "sector 300 (origin 20261117, far from 8) stays UNKNOWN without --origins" \
	"grep -q '^  sectors 300-303 (bytes 153600-155647, 4 sectors): UNKNOWN' out"
# The manifest's record takes the classes the search found (version 5), and
# so do --bad-list, the fleet report and --resume's listing of the earlier run.
cp m.json m1.json
check "the record counts the search's STALE_ORIGIN sectors as STALE_ORIGIN, not OTHER" \
	"grep -q '\"STALE_ORIGIN\": 10, \"MISDIRECTED\": 0, \"WRAPPED\": 0, \"PARTIAL_MATCH\": 0, \"OTHER\": 4,' m.json &&
	 grep -q '\"device_offset\": 51200, \"length\": 5120, \"class\": \"STALE_ORIGIN\"' m.json &&
	 grep -q '\"device_offset\": 153600, \"length\": 2048, \"class\": \"OTHER\"' m.json"
"$GUAC" report m.json >rep 2>&1
check "guac report: STALE_ORIGIN 10, OTHER 4" "grep -Eq ' STALE_ORIGIN 10, OTHER 4\$' rep"
"$GUAC" verify -m m.json --resume >res 2>&1
check "--resume lists the earlier run's searched STALE_ORIGIN range and its classes" \
	"grep -qx '  mismatch bytes 51200-56319 (5120 bytes, sectors 100-109): STALE_ORIGIN' res &&
	 grep -qx '  classes: 10 STALE_ORIGIN, 4 OTHER' res"
cp m0.json m.json
"$GUAC" verify -m m.json --bad-list bl0 >out 2>&1
check "--bad-list: the search's class, the far origin OTHER" \
	"grep -qx 'mismatch 51200 56319 100 109 STALE_ORIGIN' bl0 && grep -qx 'mismatch 153600 155647 300 303 OTHER' bl0"

# An older guac's manifest (version 4: no MISDIRECTED or WRAPPED) still loads;
# those classes in one are refused, as version 4 never wrote them.
to_v4() {
	sed 's/"version": [567]/"version": 4/; /^  "run": /d; s/, "MISDIRECTED": [0-9]*, "WRAPPED": [0-9]*//; s/, "identity": [^}]*}/}/' "$1" >"$2"
	reseal "$2"
}
to_v4 m1.json v4.json
"$GUAC" manifest show v4.json >o 2>&1
check "a version 4 manifest with a verify record loads" "[ \$? -eq 0 ] && grep -q '\"version\": 4,' o"
"$GUAC" report v4.json >rep 2>&1
check "guac report reads a version 4 manifest" "grep -Eq ' STALE_ORIGIN 10, OTHER 4\$' rep"
"$GUAC" verify -m v4.json --resume >res 2>&1
check "--resume does not trust a version 4 record (no identity): it checks afresh" \
	"grep -q '^NOTE: --resume started from the beginning: .*records no identity' res &&
	 grep -q 'classes: 14 OTHER (all 14 searched: 10 STALE_ORIGIN' res"
"$GUAC" verify -m v4.json >o 2>&1
check "a fresh check saves it as version 7" \
	"grep -q '\"version\": 7,' v4.json && grep -q '\"STALE_ORIGIN\": 10, \"MISDIRECTED\": 0, \"WRAPPED\": 0,' v4.json"
to_v4 m1.json v4m.json
sed -i 's/"device_offset": 153600, "length": 2048, "class": "OTHER"/"device_offset": 153600, "length": 2048, "class": "MISDIRECTED"/' v4m.json
to_v4 v4m.json v4m2.json
"$GUAC" manifest show v4m2.json >o 2>&1
check "a version 4 manifest naming MISDIRECTED is refused" \
	"[ \$? -eq 2 ] && grep -q 'unknown class \"MISDIRECTED\" (it came with manifest version 5)' o"
to_v4 m1.json v4k.json
sed -i 's/"OTHER": 4,/"MISDIRECTED": 0, "OTHER": 4,/' v4k.json
to_v4 v4k.json v4k2.json
"$GUAC" manifest show v4k2.json >o 2>&1
check "a version 4 manifest counting MISDIRECTED is refused" \
	"[ \$? -eq 2 ] && grep -q 'unknown field \"MISDIRECTED\" in \"classes\"' o"

cp m0.json m.json
"$GUAC" verify -m m.json --json >j 2>&1
check "--json: searched_stale_origins and the origin search's figures" \
	"python3 -c 'import json,sys; j=json.load(open(\"j\")); o=j[\"origin_search\"]; d=[x[\"class\"] for x in j[\"diagnosis\"] if x[\"lba\"]==100][0]; sys.exit(0 if j[\"searched_stale_origins\"]==[{\"origin\":7,\"sectors\":10,\"source\":\"near\"}] and j[\"searched_classes\"][\"STALE_ORIGIN\"]==10 and o[\"radius\"]==65536 and o[\"exhaustive\"] and o[\"found\"]==10 and o[\"blocks\"]>0 and d[\"origin_source\"]==\"near\" and d[\"near_origin\"]==8 and d[\"found_origin\"]==7 else 1)'"

# --origins A-B: a range is searched.
cp m0.json m.json
"$GUAC" verify -m m.json --origins 20261101-20261130 >out 2>&1
check "--origins 20261101-20261130: the far origin is found in it (exit $?)" \
	"grep -qx 'classes: 14 OTHER (all 14 searched: 14 STALE_ORIGIN (origin 7: 10, not in the history; origin 20261117: 4, named by --origins))' out &&
	 grep -q '^  sectors 300-303 (bytes 153600-155647, 4 sectors): STALE_ORIGIN: 4 sectors hold their places. data from the pass with origin 20261117 among the past origins given' out &&
	 grep -q 'origin 20261117 among the past origins given .*: if that pass came before this fill, this fill.s writes were lost; if after, it wrote here since' out"
# --origins N: checked on every bad sector, counted with the local classes and in --bad-list.
cp m0.json m.json
"$GUAC" verify -m m.json --origins 20261117,7 --bad-list bl >out 2>&1
check "--origins 20261117,7: every one of the 14 classified where found, per origin" \
	"grep -qx 'classes: 14 STALE_ORIGIN (origin 20261117: 4, origin 7: 10)' out"
check "--origins: the bad list names the class" \
	"grep -qx 'mismatch 51200 56319 100 109 STALE_ORIGIN' bl && grep -qx 'mismatch 153600 155647 300 303 STALE_ORIGIN' bl"
check "--origins: the manifest's record counts them as STALE_ORIGIN" \
	"grep -q '\"STALE_ORIGIN\": 14' m.json"

# Without a manifest: the pass of --origin, and --origins.
"$GUAC" verify --origin 8 --length 8M --origins 20261117 t.img >out 2>&1
check "no manifest: --origins 20261117 with --origin 8 (near origin 7 too)" \
	"grep -qx 'classes: 4 STALE_ORIGIN (origin 20261117), 10 OTHER (all 10 searched: 10 STALE_ORIGIN (origin 7, not in the history))' out"

# Usage errors: exit 2, a message, and the manifest untouched.
for bad in "9-5:end is before its start" ",:no origin in it" ":expected origins" "x:invalid origin 'x'" \
	"5-:invalid origin ''" "0-2000000000000:wider than 2^40"; do
	arg=${bad%%:*} msg=${bad#*:}
	cp m0.json m.json
	"$GUAC" verify -m m.json --origins "$arg" >o 2>e
	rc=$?
	check "--origins '$arg': exit $rc, '$(head -1 e)'" \
		"[ $rc -eq 2 ] && grep -qF -- \"\$msg\" e && cmp -s m.json m0.json"
done
"$GUAC" verify --help >h 2>&1
check "--help documents --origins" "grep -q -- '--origins LIST' h"
tap_end
