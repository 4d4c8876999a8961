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
# whose sectors must all be WRAPPED with a 1 MiB capacity. TAP output.
set -u
GUAC=${GUAC:-build/userspace/guac}
. "$(dirname "$0")/tap.sh"

S=4096				# the sector size verify is asked for
SIZE=$((8 << 20))
OLD=77				# origin of the first pass
NEW=1000			# origin of the pass verified

tmp=$(mktemp -d)
loop=""
cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
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
	"$GUAC" write --length $SIZE --origin $OLD -m "$man" "$t" >"$tmp/w1" 2>&1 &&
		"$GUAC" write --length $SIZE --origin $NEW -m "$man" "$t" >"$tmp/w2" 2>&1
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
	"$GUAC" write --length $SIZE --origin $NEW -m "$man" "$t" >"$tmp/w3" 2>&1
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
	expect_text "$name" "$tmp/$name.txt" 0 "WRAPPED: holds the data of LBA 1792 \(byte 7340032\), 7340032 bytes later: .*capacity looks like 1048576 bytes"
	expect_text "$name" "$tmp/$name.txt" 300 "WRAPPED: holds the data of LBA 1836 .*capacity looks like 1048576 bytes"
	n=$(grep -c ": WRAPPED: .*capacity looks like 1048576 bytes" "$tmp/$name.txt")
	d=$(grep -c "^  sector [0-9]* (byte [0-9]*): " "$tmp/$name.txt")
	check "$name: every diagnosed sector ($d) is WRAPPED at 1 MiB ($n)" "[ $d -ge 1000 ] && [ $n -eq $d ]"
	"$GUAC" verify -j 1 --sector $S --json -m "$man" "$t" >"$tmp/$name.json" 2>&1
	n=$(grep -o '"class":"WRAPPED"[^}]*"capacity":1048576,' "$tmp/$name.json" | wc -l)
	check "$name: JSON: $n WRAPPED with capacity 1048576" "[ $n -eq $d ]"
}

tap_begin

truncate -s $SIZE "$tmp/file"
scenario file "$tmp/file"
truncate -s $SIZE "$tmp/fake"
wrapped fake-file "$tmp/fake"

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

tap_end
