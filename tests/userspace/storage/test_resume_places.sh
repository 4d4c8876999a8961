#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac verify --resume names where the earlier run's bad sectors are, not only
# how many (issue 24): the manifest's verify record (version 4) keeps the
# first 64 bad ranges with their kind and class, the count of all of them and
# the bad sectors per class; --resume prints them (text and JSON), also when
# the check had already ended. A record continued from version 3 (counts
# only) says their places are unknown, never invents them; a damaged list is
# refused. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
cd "$tmp" || exit 2

# rec FILE: the manifest's verify record as one Python dict literal.
rec() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verify"])' "$1"
}
# py FILE EXPR: evaluate EXPR with v = the verify record of manifest FILE.
py() {
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verify"]; sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
# jpy FILE EXPR: evaluate EXPR with j = the JSON report in FILE.
jpy() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

tap_begin
if ! command -v python3 >/dev/null; then
	not_ok "python3 is available (the suite reads the manifests with it)"
	tap_end
	exit
fi

# Three kinds of damage before the stop, one after: zeros over sectors 10-12,
# origin 7's data (the previous fill's) at sector 100, and two bytes of
# sector 7000. --max-errors 4 stops the first run after sector 100.
"$GUAC" write -n 4M --origin 7 -m m.json t.img >/dev/null 2>&1
"$GUAC" write -n 4M --origin 0 --force -m m.json t.img >/dev/null 2>&1
dd if=/dev/zero of=t.img bs=512 seek=10 count=3 conv=notrunc status=none
"$GUAC" gen --origin 7 --offset 51200 -n 512 | dd of=t.img bs=512 seek=100 conv=notrunc status=none
printf 'ZZ' | dd of=t.img bs=1 seek=$((7000 * 512)) conv=notrunc status=none
"$GUAC" verify -m m.json -j1 --bs 512 --max-errors 4 >out 2>&1
check "the first run stops after 4 bad sectors (exit $?)" "grep -q '^STOPPED: --max-errors 4' out"
check "the manifest's record keeps both ranges with their class: $(rec m.json)" \
	"py m.json 'v[\"bad_ranges\"] == 2 and v[\"bad\"] == [{\"kind\": \"mismatch\", \"device_offset\": 5120, \"length\": 1536, \"class\": \"ALL_ZERO\"}, {\"kind\": \"mismatch\", \"device_offset\": 51200, \"length\": 512, \"class\": \"STALE_ORIGIN\"}]'"
check "and the sectors per class, which add up to bad_sectors" \
	"py m.json 'v[\"classes\"][\"ALL_ZERO\"] == 3 and v[\"classes\"][\"STALE_ORIGIN\"] == 1 and sum(v[\"classes\"].values()) == v[\"bad_sectors\"] == 4'"
cp m.json m1.json
"$GUAC" verify -m m.json --resume >out 2>&1
rc=$?
check "--resume: exit 1" "[ $rc -eq 1 ]"
check "--resume lists the earlier run's ranges, with bytes, sectors and class" \
	"grep -qx '  mismatch bytes 5120-6655 (1536 bytes, sectors 10-12): ALL_ZERO' out &&
	 grep -qx '  mismatch bytes 51200-51711 (512 bytes, sector 100): STALE_ORIGIN' out"
check "--resume gives the earlier run's classes" "grep -qx '  classes: 3 ALL_ZERO, 1 STALE_ORIGIN' out"
check "--resume no longer says that only the count is kept" "! grep -q 'keeps only their count' out"
check "the resumed run's own finding is reported as before (sector 7000, TORN)" \
	"grep -q 'bytes 3584000-3584511 (512 bytes, sector 7000)' out && grep -q '^classes: 1 TORN' out"
check "the completed record holds all three ranges, in order" \
	"py m.json 'v[\"status\"] == \"complete\" and v[\"bad_ranges\"] == 3 and [b[\"device_offset\"] for b in v[\"bad\"]] == [5120, 51200, 3584000] and v[\"bad\"][2][\"class\"] == \"TORN\" and sum(v[\"classes\"].values()) == v[\"bad_sectors\"] == 5'"
"$GUAC" verify -m m.json --resume >out 2>&1
check "--resume of the completed check: exit 1, and all three places listed" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: the check was already complete' out && [ \$(grep -c '^  mismatch bytes' out) -eq 3 ] && grep -qx '  classes: 3 ALL_ZERO, 1 TORN, 1 STALE_ORIGIN' out"
cp m1.json m.json
"$GUAC" verify -m m.json --resume --json >j 2>&1
check "--resume --json: resumed_bad_ranges, resumed_bad and resumed_classes" \
	"jpy j 'j[\"resumed_bad_ranges\"] == 2 and j[\"resumed_bad\"][0] == {\"kind\": \"mismatch\", \"start\": 5120, \"length\": 1536, \"class\": \"ALL_ZERO\"} and j[\"resumed_bad\"][1][\"class\"] == \"STALE_ORIGIN\" and j[\"resumed_classes\"][\"ALL_ZERO\"] == 3'"

# A fresh check (no --resume) starts a new record: the old places go.
dd if=/dev/zero of=t.img bs=512 seek=2000 count=1 conv=notrunc status=none
"$GUAC" gen -n 1536 --offset 5120 | dd of=t.img bs=512 seek=10 conv=notrunc status=none
"$GUAC" verify -m m.json >/dev/null 2>&1
check "a fresh check's record has its own ranges only" \
	"py m.json '[b[\"device_offset\"] for b in v[\"bad\"]] == [51200, 1024000, 3584000] and v[\"bad_ranges\"] == 3'"

# A range across the boundary of two jobs is one range, as in --bad-list.
"$GUAC" write -n 1M -m b.json b.img >/dev/null 2>&1
dd if=/dev/zero of=b.img bs=512 seek=1020 count=8 conv=notrunc status=none
"$GUAC" verify -m b.json -j2 --bad-list bl >/dev/null 2>&1
check "zeros across the two jobs' parts: one range in the record and in --bad-list" \
	"py b.json 'v[\"bad_ranges\"] == 1 and v[\"bad\"] == [{\"kind\": \"mismatch\", \"device_offset\": 522240, \"length\": 4096, \"class\": \"ALL_ZERO\"}]' && grep -qx 'mismatch 522240 526335 1020 1027 ALL_ZERO' bl"

# Over 64 ranges: the first 64 kept, all counted, the rest announced.
"$GUAC" write -n 2M -m c.json c.img >/dev/null 2>&1
i=0
while [ $i -lt 100 ]; do
	dd if=/dev/zero of=c.img bs=512 seek=$((2 * i + 1)) count=1 conv=notrunc status=none
	i=$((i + 1))
done
dd if=/dev/zero of=c.img bs=512 seek=4000 count=1 conv=notrunc status=none
"$GUAC" verify -m c.json -j1 --bs 512 --max-errors 100 >/dev/null 2>&1
check "100 ranges: the record counts 100 and keeps the first 64" \
	"py c.json 'v[\"bad_ranges\"] == 100 and len(v[\"bad\"]) == 64 and v[\"bad\"][63][\"device_offset\"] == 127 * 512 and v[\"classes\"][\"ALL_ZERO\"] == 100'"
"$GUAC" verify -m c.json --resume >out 2>&1
check "--resume lists 64 and says how many more (exit $?)" \
	"[ \$(grep -c '^  mismatch bytes' out) -eq 64 ] && grep -q '^  \\.\\.\\. and 36 more ranges (the manifest keeps the first 64' out"
check "the completed record: 101 ranges counted, 64 kept" \
	"py c.json 'v[\"bad_ranges\"] == 101 and len(v[\"bad\"]) == 64 and v[\"bad_sectors\"] == 101'"

# A version 3 record (counts only, and no identity of its target) is not
# trusted (docs/manifest.md, "Identity and trust"): --resume starts afresh
# and the record it saves has its own places and the target's identity.
to_v3() {
	sed -i 's/"version": 7/"version": 3/; /^  "host": /d; /^  "run": /d; s/, "identity": [^}]*}/}/' "$1"
	python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r', "bad_ranges": .*?"bad": \[.*?\]\}', '}', t, flags=re.S)
open(sys.argv[1], "w").write(t)
EOF
	reseal "$1"
}
cp m1.json m3.json
to_v3 m3.json
check "a version 3 manifest made for the test has no places" \
	"grep -q '\"version\": 3' m3.json && ! grep -q 'bad_ranges' m3.json"
"$GUAC" write -n 4M --origin 0 -m w.json t.img >/dev/null 2>&1	# restore the damage of the first run
dd if=/dev/zero of=t.img bs=512 seek=10 count=3 conv=notrunc status=none
"$GUAC" gen --origin 7 --offset 51200 -n 512 | dd of=t.img bs=512 seek=100 conv=notrunc status=none
printf 'ZZ' | dd of=t.img bs=1 seek=$((7000 * 512)) conv=notrunc status=none
python3 - m3.json t.img <<'EOF'
import os, re, sys
# The target was rewritten: take its stamp now, so the record is trusted.
st = os.stat(sys.argv[2])
stamp = "file ino %d size %d mtime %d.%09d ctime %d.%09d" % (st.st_ino, st.st_size,
    st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9, st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9)
t = open(sys.argv[1]).read()
t = re.sub(r'"target_stamp": "[^"]*"', '"target_stamp": "%s"' % stamp, t)
open(sys.argv[1], "w").write(t)
EOF
reseal m3.json
"$GUAC" verify -m m3.json --resume >out 2>&1
rc=$?
check "--resume of a version 3 record starts afresh, saying why (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q '^NOTE: --resume started from the beginning: .*records no identity' out"
check "the record saved after it has the places and classes of all 5 bad sectors" \
	"py m3.json 'v[\"bad_ranges\"] == 3 and sum(v[\"classes\"].values()) == v[\"bad_sectors\"] == 5'"
check "... and the target's identity" "grep -q '\"identity\": \"file ' m3.json"

# Damaged lists are refused (status 2, a message naming the problem).
refuse() {	# refuse NAME REGEX PYTHON-EDIT: the edited m1.json is refused.
	python3 - m1.json e.json "$3" <<'EOF'
import sys
t = open(sys.argv[1]).read()
exec(sys.argv[3])
open(sys.argv[2], "w").write(t)
EOF
	reseal e.json
	"$GUAC" verify -m e.json >o 2>err
	rc=$?
	check "$1: refused, exit $rc: $(head -1 err)" "[ $rc -eq 2 ] && grep -Eq '$2' err"
}
refuse "a count below the list" "lists 2 bad ranges of 1" 't = t.replace("\"bad_ranges\": 2", "\"bad_ranges\": 1")'
refuse "ranges out of order" "out of order" 't = t.replace("\"device_offset\": 51200, \"length\": 512", "\"device_offset\": 4096, \"length\": 512")'
refuse "a range past the fill" "outside the fill" 't = t.replace("\"device_offset\": 51200, \"length\": 512", "\"device_offset\": 51200, \"length\": 99999999")'
refuse "an unknown class" "unknown class" 't = t.replace("\"class\": \"ALL_ZERO\"", "\"class\": \"ZEROS\"")'
refuse "an unreadable range with a class" "unknown class" 't = t.replace("\"kind\": \"mismatch\", \"device_offset\": 5120", "\"kind\": \"unreadable\", \"device_offset\": 5120")'
refuse "an unknown kind" "kind" 't = t.replace("\"kind\": \"mismatch\", \"device_offset\": 5120", "\"kind\": \"bad\", \"device_offset\": 5120")'
refuse "places in a version 3 manifest" "unknown field \"bad_ranges\"" 'import re; t = t.replace("\"version\": 7", "\"version\": 3"); t = re.sub(r", \"identity\": [^}]*\}", "}", t); t = "\n".join(l for l in t.split("\n") if not l.startswith(("  \"host\": ", "  \"run\": ")))'
refuse "a missing classes field" "missing field \"classes\"" 'import re; t = re.sub(r", \"classes\": \{[^}]*\}", "", t)'
refuse "bad_ranges null with classes" "null together" 't = t.replace("\"bad_ranges\": 2", "\"bad_ranges\": null")'
tap_end
