#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Issue 36, U6: the diagnosis prints one line per incident (a run of adjacent
# bad sectors with one class and cause), never one per sector, and the
# search's bound (the first 1000 OTHER sectors) never splits one incident.
# A 64 MiB file with 512-byte sectors, two fills, then damage: 100 zeroed
# sectors, 16 erased (0xff), 5 torn, 200 holding the first fill (stale), a
# 1 MiB copy (2048 sectors: past the bound), 8 random, 3 with two bytes
# changed, a 4 KiB copy. The copy must be one MISDIRECTED incident of 2048
# sectors in the text, the JSON, the manifest's record and --bad-list. TAP.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
cd "$tmp" || exit 2

tap_begin
"$GUAC" write -n 64M --origin 77 -m m.json t.img >/dev/null 2>&1 &&
	"$GUAC" write -n 64M --force --origin 1000 -m m.json t.img >/dev/null 2>&1
check "two fills written (origins 77, then 1000)" "[ $? -eq 0 ]"
dd if=/dev/zero of=t.img bs=512 seek=1000 count=100 conv=notrunc status=none
head -c $((16 * 512)) /dev/zero | tr '\000' '\377' | dd of=t.img bs=512 seek=3000 conv=notrunc status=none
for l in 5000 5001 5002 5003 5004; do
	dd if=/dev/zero of=t.img bs=1 seek=$((l * 512 + 100)) count=312 conv=notrunc status=none
done
"$GUAC" gen --origin 77 --offset $((8000 * 512)) --length $((200 * 512)) |
	dd of=t.img bs=512 seek=8000 conv=notrunc iflag=fullblock status=none
dd if=t.img bs=1M skip=40 count=1 status=none | dd of=t.img bs=1M seek=20 conv=notrunc iflag=fullblock status=none
head -c 4096 /dev/urandom | dd of=t.img bs=512 seek=60000 conv=notrunc status=none
for l in 70000 70001 70002; do
	printf '\001\002' | dd of=t.img bs=1 seek=$((l * 512 + 7)) conv=notrunc status=none
done
dd if=t.img bs=4096 skip=12500 count=1 status=none | dd of=t.img bs=4096 seek=11250 conv=notrunc status=none

"$GUAC" verify -m m.json --bad-list bl >out 2>&1
check "verify: exit 1, 2388 bad sectors in 8 ranges" "[ $? -eq 1 ] && grep -q '^MISMATCH: 2388 bad 512-byte sectors in 8 ranges' out"
sed -n 's/^  \(sectors\{0,1\} [0-9-]* ([^)]*)\): \([A-Z_]*\):.*/\1 \2/p' out >lines
printf '%s\n' \
	'sectors 1000-1099 (bytes 512000-563199, 100 sectors) ALL_ZERO' \
	'sectors 3000-3015 (bytes 1536000-1544191, 16 sectors) ALL_ONES' \
	'sectors 5000-5004 (bytes 2560000-2562559, 5 sectors) TORN' \
	'sectors 8000-8199 (bytes 4096000-4198399, 200 sectors) STALE_ORIGIN' \
	'sectors 40960-43007 (bytes 20971520-22020095, 2048 sectors, the last 1048 read again past the search\047s bound) MISDIRECTED' |
	while IFS= read -r l; do printf "$l\n"; done >want
check "the diagnosis: one line per incident, the 1 MiB copy one line of 2048 sectors" \
	"cmp -s want lines"
check "... the copy's line names its source, LBAs 81920-83967, and its size" \
	"grep -q '^  sectors 40960-43007 .*: MISDIRECTED: 2048 sectors hold stream offsets 41943040-42991615, meant for LBAs 81920-83967 (bytes 41943040-42991615), 40960 sectors later' out"
check "classes: the copy's 2048 sectors all MISDIRECTED, none left OTHER by the bound" \
	"grep -qx 'classes: 100 ALL_ZERO, 16 ALL_ONES, 8 TORN, 200 STALE_ORIGIN (origin 77), 2064 OTHER (the first 1000 searched, the next 1048 read again: the rest of the incident the search.s bound cut: 2048 MISDIRECTED; 16 not searched: the search takes at most 1000)' out"
check "the bad list: the copy one MISDIRECTED range" \
	"grep -qx 'mismatch 20971520 22020095 40960 43007 MISDIRECTED' bl"
check "the manifest's record: 2048 MISDIRECTED, 16 OTHER" \
	"grep -q '\"MISDIRECTED\": 2048, \"WRAPPED\": 0, \"PARTIAL_MATCH\": 0, \"OTHER\": 16,' m.json"
"$GUAC" verify -m m.json --json >j 2>&1
check "--json: the incidents, the copy's with 1048 sectors read again; per-sector detail kept" \
	"python3 -c 'import json,sys; j=json.load(open(\"j\")); i=j[\"incidents\"]; c=[x for x in i if x[\"class\"]==\"MISDIRECTED\"][0]; sys.exit(0 if len(i)==5 and c[\"lba\"]==40960 and c[\"sectors\"]==2048 and c[\"extended\"]==1048 and c[\"first\"][\"found_lba\"]==81920 and j[\"other_extended\"]==1048 and j[\"searched_classes\"][\"MISDIRECTED\"]==2048 and len(j[\"diagnosis\"])==j[\"diagnosed_sectors\"] else 1)'"
"$GUAC" verify -j 1 -m m.json >out1 2>&1
check "one job: the same diagnosis lines" \
	"sed -n 's/^  \(sectors\{0,1\} [0-9-]* ([^)]*)\): \([A-Z_]*\):.*/\1 \2/p' out1 | cmp -s - lines"
tap_end
