#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Bad-sector diagnosis end to end (docs/diagnosis.md): guac write fills a
# file and a loop device (two passes, so the manifest has a history), dd
# corrupts known sectors the way real failures do, and guac verify --manifest
# must name each class at the right LBA, in its text report and its JSON:
# a zeroed sector, an 0xff one, a torn one (first 512 bytes right), a copy of
# another sector (misdirected), the earlier pass's data (stale), random data
# (unknown); then a fake-capacity image (1 MiB of real storage behind 8 MiB)
# whose sectors must all be WRAPPED with a 1 MiB capacity; then a file with
# 512-byte sectors and 3810 bad ones (more than the 1000 diagnosed one by one)
# whose class counts over all of them, and --bad-list classes, must be exact;
# and a clean check, unchanged; stale data of two origins counted apart, and
# a sector only partly checked left unclassified. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"

S=4096				# the sector size verify is asked for
SIZE=$((8 << 20))
OLD=77				# origin of the first pass
NEW=1000			# origin of the pass verified

tap_tmpdir
loop=""
tap_cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
}
trap 'exit 130' INT TERM

# put TARGET LBA: standard input becomes sector LBA of TARGET, durably.
put() {
	dd of="$1" bs=$S seek="$2" count=1 conv=notrunc,fsync iflag=fullblock status=none
}

# get TARGET LBA [DD-FLAGS]: sector LBA of TARGET on standard output.
get() {
	dd if="$1" bs=$S skip="$2" count=1 status=none ${3:-}
}

# corrupt TARGET [DD-READ-FLAGS]: the six corruptions, at LBAs 10 to 15.
corrupt() {
	head -c $S /dev/zero | put "$1" 10
	head -c $S /dev/zero | tr '\000' '\377' | put "$1" 11
	head -c $((S - 512)) /dev/zero |
		dd of="$1" bs=512 seek=$((12 * S / 512 + 1)) conv=notrunc,fsync status=none
	get "$1" 1500 "${2:-}" | put "$1" 13
	"$GUAC" gen --origin $OLD --offset $((14 * S)) --length $S | put "$1" 14
	head -c $S /dev/urandom | put "$1" 15
}

# expect_text NAME FILE LBA REGEX: the text report's line for LBA matches.
expect_text() {
	if grep -Eq "sector $3 \(byte $(($3 * S))\): $4" "$2"; then
		ok "$1: text names LBA $3 $(echo "$4" | cut -d: -f1)"
	else
		not_ok "$1: text names LBA $3 $(echo "$4" | cut -d: -f1)" "$2"
	fi
}

# expect_json NAME FILE STRING: the JSON summary holds STRING.
expect_json() {
	if grep -Fq "$3" "$2"; then
		ok "$1: JSON has $3"
	else
		not_ok "$1: JSON has $3" "$2"
	fi
}

# scenario NAME TARGET [DD-READ-FLAGS]: two passes, corruption, verify.
scenario() {
	name=$1 t=$2 man="$tmp/$1.manifest"
	"$GUAC" write --length $SIZE --force --origin $OLD -m "$man" "$t" >"$tmp/w1" 2>&1 &&
		"$GUAC" write --length $SIZE --force --origin $NEW -m "$man" "$t" >"$tmp/w2" 2>&1
	rc=$?
	check "$name: two passes written (origins $OLD, then $NEW)" "[ $rc -eq 0 ]"
	corrupt "$t" "${3:-}"

	"$GUAC" verify --sector $S -m "$man" "$t" >"$tmp/$name.txt" 2>&1
	rc=$?
	check "$name: verify fails with status 1" "[ $rc -eq 1 ]"
	check "$name: 6 bad sectors" "grep -q '^MISMATCH: 6 bad 4096-byte sectors' '$tmp/$name.txt'"
	expect_text "$name" "$tmp/$name.txt" 10 "ALL_ZERO"
	expect_text "$name" "$tmp/$name.txt" 11 "ALL_ONES"
	expect_text "$name" "$tmp/$name.txt" 12 "TORN: first 512 and last 0 bytes right.* zeros"
	expect_text "$name" "$tmp/$name.txt" 13 "MISDIRECTED: holds stream offset $((1500 * S)), meant for LBA 1500 "
	expect_text "$name" "$tmp/$name.txt" 14 "STALE_ORIGIN: .*origin $OLD "
	expect_text "$name" "$tmp/$name.txt" 15 "UNKNOWN: .*random"
	# The manifest's record keeps the search's class (version 5), and so does the report.
	check "$name: the record counts the misdirected sector as MISDIRECTED, not OTHER" \
		"grep -q '\"STALE_ORIGIN\": 1, \"MISDIRECTED\": 1, \"WRAPPED\": 0, \"PARTIAL_MATCH\": 0, \"OTHER\": 1,' '$man' &&
		 grep -q '\"device_offset\": $((13 * S)), \"length\": $S, \"class\": \"MISDIRECTED\"' '$man'"
	"$GUAC" report "$man" >"$tmp/$name.rep" 2>&1
	check "$name: guac report prints MISDIRECTED 1" \
		"grep -Eq ' ALL_ZERO 1, ALL_ONES 1, TORN 1, STALE_ORIGIN 1, MISDIRECTED 1, OTHER 1\$' '$tmp/$name.rep'"
	"$GUAC" report --svg "$tmp/$name.svg" "$man" >/dev/null 2>&1
	check "$name: the SVG draws it pink, with MISDIRECTED in the legend" \
		"grep -q 'fill=\"#e377c2\"><title>mismatch MISDIRECTED' '$tmp/$name.svg' &&
		 grep -q '>MISDIRECTED</text>' '$tmp/$name.svg'"

	"$GUAC" verify --sector $S --json -m "$man" "$t" >"$tmp/$name.json" 2>&1
	expect_json "$name" "$tmp/$name.json" '"class":"ALL_ZERO","stream_offset":40960,"device_offset":40960,"lba":10}'
	expect_json "$name" "$tmp/$name.json" '"class":"ALL_ONES","stream_offset":45056,"device_offset":45056,"lba":11}'
	expect_json "$name" "$tmp/$name.json" '"lba":12,"head_ok":512,"tail_ok":0,"rest":"zeros"}'
	expect_json "$name" "$tmp/$name.json" '"lba":13,"found_stream_offset":6144000,"found_device_offset":6144000,"found_lba":1500,"distance":6090752}'
	expect_json "$name" "$tmp/$name.json" '"class":"STALE_ORIGIN","stream_offset":57344,"device_offset":57344,"lba":14,"found_origin":77,'
	expect_json "$name" "$tmp/$name.json" '"lba":15,"entropy":'
}

# wrapped NAME TARGET [DD-READ-FLAGS]: 1 MiB of real storage claiming 8 MiB.
wrapped() {
	name=$1 t=$2 man="$tmp/$1.manifest" mib=0
	"$GUAC" write --length $SIZE --force --origin $NEW -m "$man" "$t" >"$tmp/w3" 2>&1
	rc=$?
	check "$name: pass written" "[ $rc -eq 0 ]"
	# Written in order, every MiB's last writer is the last MiB: copy it down.
	dd if="$t" bs=1M skip=7 count=1 status=none ${3:-} >"$tmp/last-mib"
	while [ $mib -lt 7 ]; do
		dd if="$tmp/last-mib" of="$t" bs=1M seek=$mib conv=notrunc,fsync status=none
		mib=$((mib + 1))
	done
	# One job: the first 1000 bad sectors (those diagnosed) are then LBAs 0-999.
	"$GUAC" verify -j 1 --sector $S -m "$man" "$t" >"$tmp/$name.txt" 2>&1
	check "$name: 1792 bad sectors (7 MiB)" "grep -q '^MISMATCH: 1792 bad 4096-byte sectors' '$tmp/$name.txt'"
	# Issue 36, U6: one incident, one line, like f3probe; the search's bound
	# (the first 1000 OTHER sectors) no longer splits it into WRAPPED and OTHER.
	check "$name: one diagnosis line: LBAs 0-1791 WRAPPED, the real capacity 1 MiB" \
		"[ \$(grep -c '^  sectors\\{0,1\\} [0-9]' '$tmp/$name.txt') -eq 1 ] &&
		 grep -q '^  sectors 0-1791 (bytes 0-7340031, 1792 sectors, the last 792 read again past the search.s bound): WRAPPED: 1792 sectors hold the data of places a multiple of 1048576 bytes away (the first, that of LBA 1792, 7340032 bytes later): .*capacity looks like 1048576 bytes' '$tmp/$name.txt'"
	check "$name: classes: all 1792 WRAPPED, none left OTHER" \
		"grep -qx 'classes: 1792 OTHER (the first 1000 searched, the next 792 read again: the rest of the incident the search.s bound cut: 1792 WRAPPED)' '$tmp/$name.txt'"
	check "$name: the record counts all 1792 as WRAPPED, none OTHER" \
		"grep -q '\"WRAPPED\": 1792, \"PARTIAL_MATCH\": 0, \"OTHER\": 0,' '$man'"
	"$GUAC" verify -j 1 --sector $S --json -m "$man" "$t" >"$tmp/$name.json" 2>&1
	# Per sector, the JSON's diagnosis keeps what the text's lines said.
	expect_json "$name" "$tmp/$name.json" '"lba":0,"found_stream_offset":7340032,"found_device_offset":7340032,"found_lba":1792,"distance":7340032,"capacity":1048576,'
	expect_json "$name" "$tmp/$name.json" '"lba":300,"found_stream_offset":7520256,"found_device_offset":7520256,"found_lba":1836,'
	d=$(grep -o '"diagnosed_sectors":[0-9]*' "$tmp/$name.json" | cut -d: -f2)
	n=$(grep -o '"class":{"class":"WRAPPED"[^}]*"capacity":1048576,' "$tmp/$name.json" | wc -l)
	check "$name: JSON: every diagnosed sector ($d) WRAPPED with capacity 1048576 ($n)" \
		"[ $d -ge 1000 ] && [ $n -eq $d ]"
	expect_json "$name" "$tmp/$name.json" '"incidents":[{"class":"WRAPPED","byte":0,"bytes":7340032,"lba":0,"last_lba":1791,"sectors":1792,"diagnosed":1000,"extended":792,"capacity":1048576,'
}

# many NAME: 3810 bad 512-byte sectors in a file, classes changing inside
# ranges: every one is classified (counts in text and JSON), the bad list
# splits ranges where the class changes, the search takes the first 1000 OTHER.
many() {
	name=$1 t="$tmp/many" man="$tmp/many.manifest"
	truncate -s $SIZE "$t"
	"$GUAC" write --length $SIZE --force --origin $OLD -m "$man" "$t" >"$tmp/w4" 2>&1 &&
		"$GUAC" write --length $SIZE --force --origin $NEW -m "$man" "$t" >"$tmp/w5" 2>&1
	rc=$?
	check "$name: two passes written" "[ $rc -eq 0 ]"
	# LBAs 100-1599 zeros, 1600-2799 the earlier pass's (stale), 2800-2804 torn
	# (bytes 100-411 zeroed), 2805-2806 0xff: one range, four classes.
	dd if=/dev/zero of="$t" bs=512 seek=100 count=1500 conv=notrunc status=none
	"$GUAC" gen --origin $OLD --offset $((1600 * 512)) --length $((1200 * 512)) |
		dd of="$t" bs=512 seek=1600 conv=notrunc iflag=fullblock status=none
	for l in 2800 2801 2802 2803 2804; do
		dd if=/dev/zero of="$t" bs=1 seek=$((l * 512 + 100)) count=312 conv=notrunc status=none
	done
	head -c 1024 /dev/zero | tr '\000' '\377' |
		dd of="$t" bs=512 seek=2805 conv=notrunc iflag=fullblock status=none
	# OTHER: 5000-5001 hold 6000-6001 (misdirected), 7000 and 8000-9099 random:
	# 1103 of them; the search takes the first 1000 (one job: in LBA order).
	dd if="$t" bs=512 skip=6000 count=2 status=none |
		dd of="$t" bs=512 seek=5000 conv=notrunc iflag=fullblock status=none
	head -c 512 /dev/urandom | dd of="$t" bs=512 seek=7000 conv=notrunc status=none
	head -c $((1100 * 512)) /dev/urandom |
		dd of="$t" bs=512 seek=8000 conv=notrunc iflag=fullblock status=none

	"$GUAC" verify -j 1 --sector 512 -m "$man" --bad-list "$tmp/many.list" "$t" >"$tmp/many.txt" 2>&1
	rc=$?
	check "$name: verify fails with status 1" "[ $rc -eq 1 ]"
	check "$name: 3810 bad sectors in 4 ranges" \
		"grep -q '^MISMATCH: 3810 bad 512-byte sectors in 4 ranges' '$tmp/many.txt'"
	check "$name: the classes of all 3810, the search's bound and what it left" \
		"grep -qx 'classes: 1500 ALL_ZERO, 2 ALL_ONES, 5 TORN, 1200 STALE_ORIGIN (origin $OLD), 1103 OTHER (the first 1000 searched: 2 MISDIRECTED, 998 UNKNOWN; 103 not searched: the search takes at most 1000)' '$tmp/many.txt'"
	check "$name: diagnosis lines: the first 1000 (zeros), then the first 1000 OTHER" \
		"grep -q '^DIAGNOSIS of 2000 bad sectors: the first 1000, and 1000 more of class OTHER' '$tmp/many.txt' && ! expect_text_512 99 . && expect_text_512 100 ALL_ZERO && expect_text_512 1099 ALL_ZERO && expect_text_512 5001 'MISDIRECTED: .*meant for LBAs 6000-6001 ' && expect_text_512 8996 'UNKNOWN: .*random' && ! expect_text_512 1100 . && ! expect_text_512 8997 ."
	expect_json "$name" "$tmp/many.list" "# guac verify bad sectors of '$t' (512-byte sectors): KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS"
	printf '%s\n' \
		"mismatch 51200 819199 100 1599 ALL_ZERO" \
		"mismatch 819200 1433599 1600 2799 STALE_ORIGIN" \
		"mismatch 1433600 1436159 2800 2804 TORN" \
		"mismatch 1436160 1437183 2805 2806 ALL_ONES" \
		"mismatch 2560000 2561023 5000 5001 MISDIRECTED" \
		"mismatch 3584000 3584511 7000 7000 OTHER" \
		"mismatch 4096000 4659199 8000 9099 OTHER" >"$tmp/many.want"
	grep -v '^#' "$tmp/many.list" >"$tmp/many.got"
	check "$name: the bad list has each range's class (the search's too), split where it changes" \
		"cmp '$tmp/many.got' '$tmp/many.want'"
	check "$name: the record has the search's 2 MISDIRECTED, the 1101 others OTHER" \
		"grep -q '\"STALE_ORIGIN\": 1200, \"MISDIRECTED\": 2, \"WRAPPED\": 0, \"PARTIAL_MATCH\": 0, \"OTHER\": 1101,' '$man'"
	# Four jobs: their parts end at LBAs 4096, 8192, 12288 (8000-9099 spans one).
	"$GUAC" verify -j 4 --sector 512 -m "$man" --bad-list "$tmp/many4.list" --json "$t" \
		>"$tmp/many.json" 2>&1
	# LBAs 5000-5001 are MISDIRECTED when the search took them, else OTHER.
	grep -v '^#' "$tmp/many4.list" | grep -Ev ' 500[01] 500[01] (MISDIRECTED|OTHER)$' >"$tmp/many4.got"
	grep -v ' 5000 5001 ' "$tmp/many.want" >"$tmp/many4.want"
	check "$name: -j 4: the same bad list (merged across the jobs' parts)" \
		"cmp '$tmp/many4.got' '$tmp/many4.want' && grep -Eq ' 5000 500[01] (MISDIRECTED|OTHER)$' '$tmp/many4.list' &&
		 grep -Eq ' 500[01] 5001 (MISDIRECTED|OTHER)$' '$tmp/many4.list'"
	expect_json "$name" "$tmp/many.json" '"bad_sectors":3810,'
	expect_json "$name" "$tmp/many.json" '"classes":{"ALL_ZERO":1500,"ALL_ONES":2,"TORN":5,"STALE_ORIGIN":1200,"PARTIAL_MATCH":0,"OTHER":1103,"unclassified":0},"stale_origins":[{"origin":77,"sectors":1200}],"search_bound":1000,"other_searched":1000,"other_extended":0,"other_not_searched":103,'
	# Which 1000 OTHER sectors four jobs hand the search depends on their pace.
	check "$name: -j 4: what the search made of the 1000 it took" \
		"grep -Eq '\"searched_classes\":[{]\"STALE_ORIGIN\":0,\"MISDIRECTED\":[0-2],\"WRAPPED\":0,\"UNKNOWN\":(998|999|1000)[}]' '$tmp/many.json'"

	# A clean check: no classes in the text or the JSON, a bad list of one header line.
	"$GUAC" write --length $SIZE --force --origin $NEW -m "$man" "$t" >"$tmp/w6" 2>&1
	"$GUAC" verify --sector 512 -m "$man" --bad-list "$tmp/clean.list" "$t" >"$tmp/clean.txt" 2>&1
	rc=$?
	check "$name: clean: exit 0, the OK and mode lines only" \
		"[ $rc -eq 0 ] && [ \$(wc -l <'$tmp/clean.txt') -eq 2 ] && grep -q '^OK: $SIZE bytes' '$tmp/clean.txt'"
	check "$name: clean: the bad list is its header line" \
		"[ \$(wc -l <'$tmp/clean.list') -eq 1 ] && grep -q 'LAST_LBA CLASS\$' '$tmp/clean.list'"
	"$GUAC" verify --sector 512 -m "$man" --json "$t" >"$tmp/clean.json" 2>&1
	check "$name: clean: JSON without classes" \
		"grep -q '\"result\":\"ok\"' '$tmp/clean.json' && ! grep -q '\"classes\"' '$tmp/clean.json'"
}

# expect_text_512 LBA REGEX: many's text report has a diagnosis line for
# LBA (a sector's, or an incident's that spans it) that matches.
expect_text_512() {
	sed -n 's/^  sectors\{0,1\} \([0-9]*\)-\{0,1\}\([0-9]*\) (bytes\{0,1\} [0-9-]*[,)][^:]*: /\1|\2|/p' "$tmp/many.txt" |
		awk -F'|' -v lba="$1" '{ last = $2 == "" ? $1 : $2; if ($1 <= lba + 0 && lba + 0 <= last + 0) print $3 }' |
		grep -Eq "$2"
}

# origins: stale data of two earlier passes is counted per origin; a bad
# sector only partly inside the range checked is unclassified, `-` in the list.
origins() {
	t="$tmp/origins" man="$tmp/origins.manifest"
	truncate -s $((4 << 20)) "$t"
	for o in 5 6 7 8 100; do
		"$GUAC" write --length $((4 << 20)) --force --origin $o -m "$man" "$t" >"$tmp/w7" 2>&1
	done
	"$GUAC" gen --origin 5 --offset $((10 * 512)) --length $((10 * 512)) |
		dd of="$t" bs=512 seek=10 conv=notrunc iflag=fullblock status=none
	"$GUAC" gen --origin 8 --offset $((30 * 512)) --length 1024 |
		dd of="$t" bs=512 seek=30 conv=notrunc iflag=fullblock status=none
	"$GUAC" verify --sector 512 -m "$man" --bad-list "$tmp/origins.list" "$t" >"$tmp/origins.txt" 2>&1
	check "origins: stale sectors counted per origin, newest first" \
		"grep -qx 'classes: 12 STALE_ORIGIN (origin 8: 2, origin 5: 10)' '$tmp/origins.txt'"
	check "origins: the bad list calls both ranges STALE_ORIGIN" \
		"[ \"\$(grep -v '^#' '$tmp/origins.list' | tr '\n' ';')\" = 'mismatch 5120 10239 10 19 STALE_ORIGIN;mismatch 15360 16383 30 31 STALE_ORIGIN;' ]"
	"$GUAC" verify --sector 512 -m "$man" --json "$t" >"$tmp/origins.json" 2>&1
	expect_json origins "$tmp/origins.json" '"stale_origins":[{"origin":8,"sectors":2},{"origin":5,"sectors":10}]'

	"$GUAC" gen --length 1M >"$tmp/part"
	dd if=/dev/zero of="$tmp/part" bs=512 count=2 conv=notrunc status=none
	"$GUAC" verify --skip 100 --bad-list "$tmp/part.list" "$tmp/part" >"$tmp/part.txt" 2>&1
	check "part: a sector only partly checked is unclassified" \
		"grep -qx 'classes: 1 ALL_ZERO, 1 unclassified (only part of the sector was checked)' '$tmp/part.txt'"
	check "part: its bad-list line has class -" \
		"[ \"\$(grep -v '^#' '$tmp/part.list' | tr '\n' ';')\" = 'mismatch 100 511 0 0 -;mismatch 512 1023 1 1 ALL_ZERO;' ]"
}

tap_begin

truncate -s $SIZE "$tmp/file"
scenario file "$tmp/file"
truncate -s $SIZE "$tmp/fake"
wrapped fake-file "$tmp/fake"
many many
origins

# make check runs as root: a missing loop device is a failure, not a skip.
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null; then
	not_ok "loop device: needs root and losetup (uid $(id -u))"
else
	truncate -s $SIZE "$tmp/backing"
	if ! loop=$(losetup -f --show "$tmp/backing" 2>"$tmp/losetup"); then
		loop=""
		not_ok "loop device: losetup failed" "$tmp/losetup"
	else
		scenario loop "$loop" iflag=direct
		wrapped fake-loop "$loop" iflag=direct
	fi
fi

# Ctrl-C during the misdirection search: random data in the last 4 KiB of a
# sparse 1 TiB file leaves a 1 TiB sweep (30 s at most). SIGINT, then a second
# one, must end it at once with the report printed, text and JSON.
truncate -s 1T "$tmp/huge"
head -c 4096 /dev/urandom | dd of="$tmp/huge" bs=4096 seek=$(((1 << 40) / 4096 - 1)) conv=notrunc status=none
for fmt in text json; do
	opt=""
	[ $fmt = text ] || opt=--json
	t0=$(date +%s)
	"$GUAC" verify $opt --skip $(((1 << 40) - 4096)) "$tmp/huge" >"$tmp/int" 2>&1 &
	pid=$!
	sleep 2
	kill -INT $pid
	sleep 0.1
	kill -INT $pid 2>/dev/null
	wait $pid
	rc=$?
	t=$(($(date +%s) - t0))
	if [ $fmt = text ]; then
		check "$fmt: SIGINT twice in the search: exit 1 within $t s, the report printed" \
			"[ $rc -eq 1 ] && [ $t -lt 10 ] && grep -q '^MISMATCH: 8 bad 512-byte sectors' '$tmp/int' && grep -q '^  search interrupted: not exhaustive' '$tmp/int'"
	else
		check "$fmt: SIGINT twice in the search: exit 1 within $t s, the JSON printed" \
			"[ $rc -eq 1 ] && [ $t -lt 10 ] && grep -q '\"search_interrupted\":true' '$tmp/int' && grep -q '\"diagnosed_sectors\":8' '$tmp/int'"
	fi
done
rm -f "$tmp/huge"

# Issue 36, U3: a 4 KiB copy 16 MiB away (a power of two) on a 64 MiB file
# filled by one writer, everything else verifying fine. No wrap explains it:
# a wrap at 16 MiB would leave the copied place's data overwritten by its
# alias 16 MiB on, which the writer wrote after it. MISDIRECTED, never
# "the real capacity looks like 16 MiB: a fake-capacity device".
u=$tmp/u3.img
"$GUAC" write --origin 4242 -n 64M -m "$tmp/u3.json" "$u" >/dev/null 2>&1
dd if="$u" of="$u" bs=4096 skip=2048 seek=6144 count=1 conv=notrunc status=none
"$GUAC" verify -m "$tmp/u3.json" >"$tmp/u3.txt" 2>&1
rc=$?
check "U3: a 4 KiB copy 16 MiB away: exit 1, 8 bad sectors, all MISDIRECTED from byte 8388608, none WRAPPED" \
	"[ $rc -eq 1 ] && grep -q '^classes: 8 OTHER (all 8 searched: 8 MISDIRECTED)' '$tmp/u3.txt' &&
	 grep -q 'sectors 49152-49159 (bytes 25165824-25169919, 8 sectors): MISDIRECTED: 8 sectors hold stream offsets 8388608-8392703, meant for LBAs 16384-16391' '$tmp/u3.txt' &&
	 ! grep -q 'WRAPPED\|fake-capacity' '$tmp/u3.txt'"
rm -f "$u"

# Issue 36, U5: with several jobs the diagnosis is of the first 1000 bad
# sectors by position, and the same in every run: 600 zeroed sectors at the
# start of each of the four jobs' parts of a 64 MiB file, so the first 1000
# are the first part's 600 and the second's first 400, whichever job finds
# its own first.
u=$tmp/u5.img
"$GUAC" write --origin 77 -n 64M -m "$tmp/u5.json" "$u" >/dev/null 2>&1
for mib in 1 17 33 49; do
	dd if=/dev/zero of="$u" bs=512 seek=$((mib * 2048)) count=600 conv=notrunc status=none
done
for k in 1 2 3; do
	"$GUAC" verify --jobs 4 -m "$tmp/u5.json" --json >"$tmp/u5-$k.json" 2>/dev/null
	python3 -c 'import json, sys; print(" ".join(str(x["lba"]) for x in json.load(open(sys.argv[1]))["diagnosis"]))' \
		"$tmp/u5-$k.json" >"$tmp/u5-$k.lba" 2>&1
done
want=$( (seq 2048 2647; seq 34816 35215) | tr '\n' ' ' | sed 's/ $//')
check "U5: --jobs 4: the diagnosis is of the first 1000 bad sectors by position (2048-2647, 34816-35215)" \
	'[ "$(cat "$tmp/u5-1.lba")" = "$want" ]'
check "... the same in three runs" \
	'cmp -s "$tmp/u5-1.lba" "$tmp/u5-2.lba" && cmp -s "$tmp/u5-1.lba" "$tmp/u5-3.lba"'
"$GUAC" verify --jobs 4 -m "$tmp/u5.json" >"$tmp/u5.txt" 2>&1
check "... and the text's diagnosis lines are its incidents, sectors 2048-2647 and 34816-35215" \
	"[ \"\$(grep '^  sectors\\{0,1\\} [0-9]' '$tmp/u5.txt' | cut -d' ' -f4 | tr '\\n' ' ')\" = '2048-2647 34816-35215 ' ]"
rm -f "$u"

tap_end
