#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac report against the findings of issue 35 it answers here: strings from
# a manifest (a path with a newline) cannot forge rows of the table (F9);
# two manifests of one disk are DUPLICATE whether their hosts are written as
# the short name or the FQDN, as --expect matches hosts (F4); --whole wants
# fills that cover the whole target (F10); a fill that a later fill of the
# same disk wrote over is SUPERSEDED, never OK (F3); a check of part of a
# disk that finds damage is recorded, so the report stops saying OK (F6);
# a block device written after its check is CHANGED, never OK, and one
# target under two names or host labels is one target, and a later fill of
# another run voids this run's (item 7); a fill kept only in another
# manifest's history voids what it wrote over.
# TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
loop=
tap_cleanup() {
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
}
trap 'exit 130' INT TERM

# manifest_sub FILE REGEX REPLACEMENT: edit a manifest (Python's re.sub, the
# first match) and recompute its checksum (docs/manifest.md).
manifest_sub() {
	python3 - "$@" <<'PY'
import hashlib, re, sys
path, pattern, repl = sys.argv[1:4]
t = re.sub(pattern, repl, open(path).read(), count=1)
body = t[t.index("{"):t.index(',\n  "checksum"')]
open(path, "w").write(body + ',\n  "checksum": "sha256:%s"\n}\n'
                      % hashlib.sha256(body.encode()).hexdigest())
PY
}

tap_begin
d=$tmp/m
mkdir "$d"

# F9: a target path holding a newline, a tab and an escape byte, written and
# checked; its row (and reason line) is one line, the characters escaped.
nl='
'
evil="$tmp/x${nl}forged  sdz  -  1 GiB  OK	$(printf '\033')[2J"
"$GUAC" write --origin 7 -n 64K -m "$d/x.json" "$evil" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/x.json" >/dev/null 2>&1
rc=$?
check "F9: write and verify take a path with control characters" "[ $rc -eq 0 ]"
"$GUAC" report "$d/x.json" >"$tmp/out" 2>&1
check "... the table is its heading, one row and the summary" \
	"[ \$(wc -l <'$tmp/out') -eq 3 ] && grep -qx '1 disk: 1 OK' '$tmp/out'"
check '... the row shows the path escaped (\\n, \\t, \\x1b)' \
	"grep -qF 'x\\nforged  sdz  -  1 GiB  OK\\t\\x1b[2J ' '$tmp/out'"
check "... no control character reaches the output" \
	"! tr -d '\\n' <'$tmp/out' | grep -q '[[:cntrl:]]'"
"$GUAC" report --run "r${nl}x" "$d/x.json" >"$tmp/out" 2>&1
check "... a reason line (which names the run and the manifest) is one line too" \
	"[ \$(wc -l <'$tmp/out') -eq 4 ] && grep -qF 'no manifest of run r\\nx' '$tmp/out'"
"$GUAC" report --json "$d/x.json" >"$tmp/json" 2>&1
check "... the JSON is valid and holds the path as it is" \
	"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d[\"disks\"][0][\"target\"] != sys.argv[2])' '$tmp/json' '$evil'"
"$GUAC" report --svg "$tmp/x.svg" "$d/x.json" >/dev/null 2>&1
check "... the SVG picture is valid XML, with no control character" \
	"python3 -c 'import sys, xml.dom.minidom as x; x.parse(sys.argv[1])' '$tmp/x.svg' 2>/dev/null &&
	 ! tr -d '\\n' <'$tmp/x.svg' | grep -q '[[:cntrl:]]'"

# F4: one file filled twice, recorded from n1.lab.example and from n1 (each
# check clean when it ran): one disk, two manifests, as --expect would match.
for h in n1.lab.example n1; do
	GUAC_HOST=$h "$GUAC" write -n 64K -m "$d/$h.json" "$tmp/f4" >/dev/null 2>&1 &&
		"$GUAC" verify -m "$d/$h.json" >/dev/null 2>&1
done
"$GUAC" report "$d/n1.json" "$d/n1.lab.example.json" >"$tmp/out" 2>&1
rc=$?
check "F4: one disk as n1 and n1.lab.example: exit 1, both DUPLICATE" \
	"[ $rc -eq 1 ] && grep -qx '2 disks: 2 DUPLICATE' '$tmp/out'"
check "... the reason names the other manifest" \
	"grep -q '^n1 $tmp/f4: DUPLICATE: the same disk as .*n1.lab.example.json' '$tmp/out'"
printf 'n1 %s\n' "$tmp/f4" >"$tmp/expect"
"$GUAC" report --expect "$tmp/expect" "$d/n1.json" "$d/n1.lab.example.json" >"$tmp/out" 2>&1
check "... with --expect naming it once: still two DUPLICATE rows, nothing MISSING" \
	"grep -qx '2 disks: 2 DUPLICATE' '$tmp/out'"
GUAC_HOST=n10 "$GUAC" write -n 64K -m "$d/n10.json" "$tmp/f4" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/n10.json" >/dev/null 2>&1
# Host n10 is another machine: its file is another file (its identity's host
# and kernel another's; one machine's would be one file under two labels).
manifest_sub "$d/n10.json" ' host=[^ ]* kernel=[^ ]* ' ' host=n10 kernel=0f0f0f0f-0000-4000-8000-000000000010 '
"$GUAC" report "$d/n1.json" "$d/n10.json" >"$tmp/out" 2>&1
check "... but n1 and n10 are two hosts: their disks of one path are no DUPLICATE" \
	"grep -q '^n10 .* OK ' '$tmp/out' && ! grep -q DUPLICATE '$tmp/out'"

# F10: 64 KiB filled on a 1 GiB disk (a sparse file here), checked clean.
truncate -s 1G "$tmp/big"
"$GUAC" write -n 64K -m "$d/big.json" "$tmp/big" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/big.json" >/dev/null 2>&1
truncate -s 1M "$tmp/w"
"$GUAC" write -m "$d/w.json" "$tmp/w" >/dev/null 2>&1 && "$GUAC" verify -m "$d/w.json" >/dev/null 2>&1
printf '%s %s\n' "$(uname -n)" "$tmp/big" "$(uname -n)" "$tmp/w" >"$tmp/expect"
"$GUAC" report --expect "$tmp/expect" --whole "$d/big.json" "$d/w.json" >"$tmp/out" 2>&1
rc=$?
check "F10: --expect --whole: 64 KiB of 1 GiB is PARTIAL, exit 1; the whole fill OK" \
	"[ $rc -eq 1 ] && grep -q ' PARTIAL ' '$tmp/out' && grep -qx '2 disks: 1 OK, 1 PARTIAL' '$tmp/out'"
check "... the reason says how much is covered" \
	"grep -q 'big: PARTIAL: the fill covers 64.00 KiB of the target.s 1.00 GiB' '$tmp/out'"
"$GUAC" report --whole "$d/big.json" >"$tmp/out" 2>&1
check "... --whole alone too" "[ \$? -eq 1 ] && grep -qx '1 disk: 1 PARTIAL' '$tmp/out'"
"$GUAC" report "$d/big.json" >"$tmp/out" 2>&1
check "... without --whole a part of a disk may be OK, as before" "[ \$? -eq 0 ]"
# Two shards of one file fill it whole together; one alone does not.
truncate -s 2M "$tmp/s"
for i in 0 1; do
	"$GUAC" write --shard $i/2 -n 2M --origin 1000000 -m "$d/s$i.json" "$tmp/s" >/dev/null 2>&1
done
"$GUAC" verify -m "$d/s0.json" >/dev/null 2>&1 && "$GUAC" verify -m "$d/s1.json" >/dev/null 2>&1
"$GUAC" report --whole "$d/s0.json" "$d/s1.json" >"$tmp/out" 2>&1
check "... a sharded fill's shards together cover the disk: both OK" \
	"[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"
"$GUAC" report --whole --json "$d/big.json" >"$tmp/json" 2>&1
check "... the JSON says PARTIAL, not ok" \
	"python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[\"disks\"][0]; sys.exit(r[\"state\"] != \"PARTIAL\" or r[\"ok\"])' '$tmp/json' 2>/dev/null"

# F3: a disk (a loop device: the report re-reads its identity and finds it
# unchanged) filled whole and checked, then its second half filled again
# and checked. The first record speaks for bytes the disk no longer holds.
truncate -s 4M "$tmp/f3.img"
loop=$(losetup -f --show "$tmp/f3.img")
"$GUAC" write -m "$d/f3-whole.json" "$loop" >/dev/null 2>&1 && "$GUAC" verify -m "$d/f3-whole.json" >/dev/null 2>&1
sleep 1	# the manifests' times are in seconds: the second fill starts a second later
"$GUAC" write --seek 2M --length 2M --force -m "$d/f3-half.json" "$loop" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/f3-half.json" >/dev/null 2>&1
"$GUAC" report "$d/f3-whole.json" "$d/f3-half.json" >"$tmp/out" 2>&1
rc=$?
check "F3: a disk filled whole, then half of it again: exit 1, the first fill SUPERSEDED, the second OK" \
	"[ $rc -eq 1 ] && grep -qx '2 disks: 1 OK, 1 SUPERSEDED' '$tmp/out'"
# Its own state is CHANGED: the second fill wrote to the device after its check
# (item 7: a block device's stamp counts the sectors written to it).
check "... the reason names the later fill, both start times and the first byte written over" \
	"grep -q \"SUPERSEDED: '$d/f3-half.json', a fill started later (.*, this one .*), wrote over this one from device byte 2097152 on: .*(its own state CHANGED)\" '$tmp/out'"
"$GUAC" report --whole "$d/f3-half.json" "$d/f3-whole.json" >"$tmp/out" 2>&1
check "... --whole: the later fill covers half the disk (PARTIAL), the earlier does not count" \
	"[ \$? -eq 1 ] && grep -qx '2 disks: 1 SUPERSEDED, 1 PARTIAL' '$tmp/out'"
# The same in one second: which of them the disk holds cannot be told.
"$GUAC" write --length 2M --force -m "$d/f3-a.json" "$loop" >/dev/null 2>&1
"$GUAC" write --seek 1M --length 2M --force -m "$d/f3-b.json" "$loop" >/dev/null 2>&1
"$GUAC" verify -m "$d/f3-a.json" >/dev/null 2>&1
"$GUAC" verify -m "$d/f3-b.json" >/dev/null 2>&1
"$GUAC" report "$d/f3-a.json" "$d/f3-b.json" >"$tmp/out" 2>&1
rc=$?
a=$(grep -o '"started": "[^"]*"' "$d/f3-a.json") b=$(grep -o '"started": "[^"]*"' "$d/f3-b.json")
if [ "$a" = "$b" ]; then
	check "... two overlapping fills started in the same second: both SUPERSEDED, exit 1" \
		"[ $rc -eq 1 ] && grep -qx '2 disks: 2 SUPERSEDED' '$tmp/out' && grep -q 'started in the same second' '$tmp/out'"
else
	check "... two overlapping fills a second apart: the earlier SUPERSEDED, exit 1" \
		"[ $rc -eq 1 ] && grep -qx '2 disks: 1 OK, 1 SUPERSEDED' '$tmp/out'"
fi
# No false alarm: the two halves of a disk filled apart (no byte in common).
"$GUAC" write --length 2M --force -m "$d/f3-lo.json" "$loop" >/dev/null 2>&1
"$GUAC" write --seek 2M --length 2M --force -m "$d/f3-hi.json" "$loop" >/dev/null 2>&1
"$GUAC" verify -m "$d/f3-lo.json" >/dev/null 2>&1 && "$GUAC" verify -m "$d/f3-hi.json" >/dev/null 2>&1
"$GUAC" report "$d/f3-lo.json" "$d/f3-hi.json" >"$tmp/out" 2>&1
check "... the two halves of a disk filled apart share no byte: both OK, exit 0" \
	"[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"

# F6: a disk checked OK, then damaged (a block device: a write leaves no
# stamp). A check of part of it (--shard 0/2) finds the damage: that must
# reach the record, or the report keeps saying OK.
"$GUAC" write --force -m "$d/f6.json" "$loop" >/dev/null 2>&1 && "$GUAC" verify -m "$d/f6.json" >/dev/null 2>&1
dd if=/dev/zero of="$loop" bs=512 seek=100 count=8 conv=notrunc oflag=direct status=none
"$GUAC" verify --shard 1/2 -m "$d/f6.json" >/dev/null 2>&1
"$GUAC" report "$d/f6.json" >"$tmp/out" 2>&1
check "F6: the write after the check shows (item 7): CHANGED, not OK; a clean check of the other half changes nothing" \
	"[ \$? -eq 1 ] && grep -qx '1 disk: 1 CHANGED' '$tmp/out'"
"$GUAC" verify --shard 0/2 -m "$d/f6.json" >"$tmp/v" 2>&1
rc=$?
check "F6: verify --shard 0/2 finds the damage: exit 1, and says its findings are recorded as partial" \
	"[ $rc -eq 1 ] && grep -q 'recorded in .* (verify status \"partial\")' '$tmp/v'"
"$GUAC" report "$d/f6.json" >"$tmp/out" 2>&1
check "... the report: MISMATCH, 8 bad sectors, found by a check of part of the fill, exit 1" \
	"[ \$? -eq 1 ] && grep -qx '1 disk: 1 MISMATCH' '$tmp/out' && grep -q 'MISMATCH: 8 bad sectors .*found by a check of part of the fill' '$tmp/out'"
"$GUAC" verify --resume -m "$d/f6.json" >"$tmp/v" 2>&1
check "... --resume does not continue a partial record: it checks the whole from the start, MISMATCH" \
	"[ \$? -eq 1 ] && grep -q '^NOTE: --resume started from the beginning: the last check recorded was of part of the fill' '$tmp/v'"
"$GUAC" report "$d/f6.json" >"$tmp/out" 2>&1
check "... and that whole check's record stands: MISMATCH, without the partial note" \
	"[ \$? -eq 1 ] && grep -qx '1 disk: 1 MISMATCH' '$tmp/out' && ! grep -q 'part of the fill' '$tmp/out'"

# Item 7 (found by the fleet differential test): a block device written
# after its check, by anything but guac (dd), kept its OK: its stamp was its
# size, diskseq and boot alone. The stamp now counts the sectors written to
# it (/sys/dev/block/M:m/stat), after a flush, so that a write still in the
# page cache counts too.
"$GUAC" write --force -m "$d/i7.json" "$loop" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7.json" >/dev/null 2>&1
"$GUAC" report "$d/i7.json" >"$tmp/out" 2>&1
check "item 7: a disk filled, checked and not written since: OK, exit 0" \
	"[ \$? -eq 0 ] && grep -qx '1 disk: 1 OK' '$tmp/out' && grep -q '\"target_stamp\": \"block .* written [0-9]*\"' '$d/i7.json'"
dd if=/dev/zero of="$loop" bs=512 seek=3 count=1 conv=notrunc status=none
"$GUAC" report "$d/i7.json" >"$tmp/out" 2>&1
check "... one sector written after the check (buffered, not yet flushed): CHANGED, exit 1, the counts named" \
	"[ \$? -eq 1 ] && grep -qx '1 disk: 1 CHANGED' '$tmp/out' && grep -q 'CHANGED: the target changed since the recorded check began (then: block .* written [0-9]*; now: .* written [0-9]*)' '$tmp/out'"
"$GUAC" write --force -m "$d/i7.json" "$loop" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7.json" >/dev/null 2>&1
dd if=/dev/zero of="$loop" bs=512 seek=3 count=1 conv=notrunc oflag=direct status=none
"$GUAC" report "$d/i7.json" >"$tmp/out" 2>&1
check "... written with O_DIRECT after the check: CHANGED, exit 1" \
	"[ \$? -eq 1 ] && grep -qx '1 disk: 1 CHANGED' '$tmp/out'"
"$GUAC" verify --resume -m "$d/i7.json" >"$tmp/v" 2>&1
check "... and verify --resume does not continue that check: it checks again, and finds the sector" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: 1 bad 512-byte sector' '$tmp/v'"
# A record of an older guac, whose stamp has no count: still compared as it was.
"$GUAC" write --force -m "$d/i7.json" "$loop" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7.json" >/dev/null 2>&1
manifest_sub "$d/i7.json" ' written [0-9]+"' '"'
"$GUAC" report "$d/i7.json" >"$tmp/out" 2>&1
check "... a record whose stamp has no count (an older guac's), not written since: OK, as before" \
	"[ \$? -eq 0 ] && grep -qx '1 disk: 1 OK' '$tmp/out' && ! grep -q ' written [0-9]' '$d/i7.json'"

# Item 7 (found by the fleet differential test): one target under two names,
# read where the report cannot re-read it (another host: the manifests'
# identities rewritten to another machine's). A file filled through its path,
# checked, then filled again through a symbolic link; a file filled as host n1,
# checked, then again under the host name: the first fill of each was
# reported OK, as if two targets. Their identities name one medium.
far() {	# the manifest as another machine sees it: its target on host "far"
	manifest_sub "$1" ' host=[^ ]* kernel=[^ ]* ' ' host=far kernel=0f0f0f0f-0000-4000-8000-0000000000fa '
}
mkdir "$tmp/i7" && ln -s "$tmp/i7/file" "$tmp/i7/link"
"$GUAC" write -n 64K -m "$d/i7-path.json" "$tmp/i7/file" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-path.json" >/dev/null 2>&1
"$GUAC" write -n 64K -m "$d/i7-link.json" "$tmp/i7/link" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-link.json" >/dev/null 2>&1
far "$d/i7-path.json" && far "$d/i7-link.json"
"$GUAC" report "$d/i7-path.json" "$d/i7-link.json" >"$tmp/out" 2>&1
check "item 7: a file filled through its path, then through a link (seen from afar): the first SUPERSEDED, exit 1" \
	"[ \$? -eq 1 ] && grep -q '^[^ ]* $tmp/i7/file: SUPERSEDED: .*i7-link.json' '$tmp/out'"
"$GUAC" write -n 64K --host n1 -m "$d/i7-n1.json" "$tmp/i7/h" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-n1.json" >/dev/null 2>&1
"$GUAC" write -n 64K -m "$d/i7-uname.json" "$tmp/i7/h" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-uname.json" >/dev/null 2>&1
far "$d/i7-n1.json" && far "$d/i7-uname.json"
"$GUAC" report "$d/i7-n1.json" "$d/i7-uname.json" >"$tmp/out" 2>&1
check "... a file filled as host n1, then under the host name (seen from afar): n1's SUPERSEDED, exit 1" \
	"[ \$? -eq 1 ] && grep -q '^n1 $tmp/i7/h: SUPERSEDED: .*i7-uname.json' '$tmp/out'"
"$GUAC" write -n 64K -m "$d/i7-other.json" "$tmp/i7/other" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-other.json" >/dev/null 2>&1
far "$d/i7-other.json"
"$GUAC" report "$d/i7-link.json" "$d/i7-other.json" >"$tmp/out" 2>&1
check "... but two files (two inodes) filled once each are two OK disks, exit 0" \
	"[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"

# Item 7: --run w1 over a disk that a later fill of run w2 wrote over. The
# w2 row is MISSING (another run's), and it no longer voided w1's: w1 said
# OK where the disk holds w2's fill (seen from afar, where nothing re-reads).
"$GUAC" write -n 64K --run w1 -m "$d/i7-w1.json" "$tmp/i7/r" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-w1.json" >/dev/null 2>&1
cp "$d/i7-w1.json" "$tmp/i7-copy.json"
"$GUAC" write -n 32K --seek 32K --run w2 -m "$d/i7-w2.json" "$tmp/i7/r" >/dev/null 2>&1 && "$GUAC" verify -m "$d/i7-w2.json" >/dev/null 2>&1
far "$d/i7-w1.json" && far "$d/i7-w2.json"
"$GUAC" report --run w1 "$d/i7-w1.json" "$d/i7-w2.json" >"$tmp/out" 2>&1
check "item 7: --run w1, a later fill of run w2 over w1's: w1's row SUPERSEDED, exit 1" \
	"[ \$? -eq 1 ] && grep -q '^[^ ]* $tmp/i7/r: SUPERSEDED: .*i7-w2.json' '$tmp/out' && ! grep -q ' OK ' '$tmp/out'"
# The same fill recorded under run w2 too (a copy): the same bytes, w1 stays OK.
manifest_sub "$tmp/i7-copy.json" '"run": "w1"' '"run": "w2"'
far "$tmp/i7-copy.json"
far_w1=$tmp/i7-w1-again.json
cp "$tmp/i7-copy.json" "$far_w1" && manifest_sub "$far_w1" '"run": "w2"' '"run": "w1"'
"$GUAC" report --run w1 "$far_w1" "$tmp/i7-copy.json" >"$tmp/out" 2>&1
check "... but run w2's manifest of the same fill (the same bytes) leaves w1's OK, exit 0" \
	"[ \$? -eq 0 ] && grep -qx '1 disk: 1 OK' '$tmp/out'"

# Found by the fleet differential test: a fill kept only in another manifest's
# history (that manifest was written again since) voids what it wrote over.
# A fills 64K-128K and is checked; B fills the whole file under h.json; C fills
# 192K-256K with h.json again, B moving into its history. A's record (seen from
# afar, where the file cannot be re-read) was reported OK.
"$GUAC" write -n 64K --seek 64K -m "$d/hist-a.json" "$tmp/hist.img" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/hist-a.json" >/dev/null 2>&1
"$GUAC" write -n 256K -m "$d/hist-h.json" "$tmp/hist.img" >/dev/null 2>&1
"$GUAC" write -n 64K --seek 192K -m "$d/hist-h.json" "$tmp/hist.img" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/hist-h.json" >/dev/null 2>&1
far "$d/hist-a.json" && far "$d/hist-h.json"
"$GUAC" report "$d/hist-a.json" "$d/hist-h.json" >"$tmp/out" 2>&1
check "a fill in another manifest's history wrote over a checked fill (seen from afar): SUPERSEDED, exit 1" \
	"[ \$? -eq 1 ] && grep -q '^[^ ]* $tmp/hist.img: SUPERSEDED: .*hist-h.json. records in its history a fill (origin [0-9]*, finished [0-9TZ:-]*) that overlaps this one from device byte 65536 on' '$tmp/out'"
# No false alarm: a history fill that ended before this one began.
sleep 1	# the manifests' times are in seconds
"$GUAC" write -n 64K --seek 64K --force -m "$d/hist-a2.json" "$tmp/hist.img" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/hist-a2.json" >/dev/null 2>&1
far "$d/hist-a2.json"
"$GUAC" report "$d/hist-a2.json" "$d/hist-h.json" >"$tmp/out" 2>&1
check "... a fill after the one in the history: both OK, exit 0" \
	"[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"

tap_end
