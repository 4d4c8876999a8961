#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac report (a fleet's report, docs/fleet.md), held to what each manifest
# says: a disk whose write failed, was interrupted or killed, whose check
# found bad sectors or never ran, whose manifest is corrupt, edited,
# duplicated or missing from an expected list is never OK, and the exit
# status is not 0 while any disk is not OK; the JSON and the SVG picture
# say the same. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

# row STATE TARGET-NAME: the table has that row (the target's file name).
row() {
	grep -E "^[^ ]+ +$tmp/$2( |$).* $1 " "$tmp/out" >/dev/null
}

tap_begin
host=$(uname -n)
d=$tmp/m
mkdir "$d"
cd "$tmp" || exit 1

# Two good disks (files here), written and checked.
for k in a b; do
	"$GUAC" write --origin 7 -n 4M -m "$d/$k.json" "$tmp/$k" >/dev/null 2>&1 &&
		"$GUAC" verify -m "$d/$k.json" >/dev/null 2>&1
done
"$GUAC" report "$d/a.json" "$d/b.json" >"$tmp/out" 2>&1
rc=$?
check "two good disks: exit 0" "[ $rc -eq 0 ]"
check "... both rows OK, with the host" "row OK a && row OK b && grep -q '^$host ' '$tmp/out'"
check "... the summary counts them" "grep -qx '2 disks: 2 OK' '$tmp/out'"
check "... written and verified are shown" "grep -E ' OK +4.00 MiB +4.00 MiB +-$' '$tmp/out' >/dev/null"

# Bad sectors: zeroed, and the earlier fill's data (origin 6) where origin 7 belongs.
"$GUAC" write --origin 6 -n 4M -m "$d/c.json" "$tmp/c" >/dev/null 2>&1
"$GUAC" write --origin 7 --force -n 4M -m "$d/c.json" "$tmp/c" >/dev/null 2>&1
dd if=/dev/zero of="$tmp/c" bs=512 seek=100 count=3 conv=notrunc status=none
"$GUAC" gen --origin 6 --offset 2M --length 1024 | dd of="$tmp/c" bs=512 seek=4096 conv=notrunc status=none
"$GUAC" verify -m "$d/c.json" >/dev/null 2>&1
"$GUAC" report "$d/a.json" "$d/c.json" >"$tmp/out" 2>&1
rc=$?
check "a disk with bad sectors: exit 1" "[ $rc -eq 1 ]"
check "... its row is MISMATCH with the sectors per class" \
	"row MISMATCH c && grep -q 'ALL_ZERO 3, STALE_ORIGIN 2' '$tmp/out'"
check "... and the reason line says how many" "grep -q 'c: MISMATCH: 5 bad sectors in 2 ranges' '$tmp/out'"

# A write that fails: a file size limit (EFBIG) 1 MiB into a 4 MiB fill.
(ulimit -f 2048; "$GUAC" write --origin 7 -n 4M -m "$d/f.json" "$tmp/f" >/dev/null 2>&1)
"$GUAC" report "$d/f.json" >"$tmp/out" 2>&1
rc=$?
check "a failed write: exit 1, FAILED, never OK" "[ $rc -eq 1 ] && row FAILED f && ! grep -q ' OK ' '$tmp/out'"
check "... the reason names the error and the durable bytes" \
	"grep -q 'f: FAILED: the write failed: File too large; 1048576 of 4194304 bytes durable' '$tmp/out'"
"$GUAC" verify -m "$d/f.json" >/dev/null 2>&1
"$GUAC" report "$d/f.json" >"$tmp/out" 2>&1
check "... still FAILED after its written part verifies clean" "[ \$? -eq 1 ] && row FAILED f"

# Interrupted (Ctrl-C) and killed (SIGKILL: the manifest says running).
"$GUAC" write --origin 7 -n 1G -m "$d/i.json" "$tmp/i" >/dev/null 2>&1 &
pid=$!
wait_written $pid 30000000
kill -INT $pid
wait $pid
"$GUAC" write --origin 7 -n 1G -m "$d/k.json" "$tmp/k" >/dev/null 2>&1 &
pid=$!
wait_written $pid 30000000
kill -KILL $pid
wait $pid 2>/dev/null
"$GUAC" report "$d/i.json" "$d/k.json" >"$tmp/out" 2>&1
rc=$?
check "an interrupted write is INTERRUPTED, a killed one UNFINISHED (exit 1)" \
	"[ $rc -eq 1 ] && row INTERRUPTED i && row UNFINISHED k"
check "... the interrupted one says how to continue" "grep -q 'i: INTERRUPTED: .*guac write --resume' '$tmp/out'"

# Written, never checked. (i and k removed only after u exists: a file made
# with a removed one's inode number would have its identity, one medium.)
"$GUAC" write --origin 7 -n 4M -m "$d/u.json" "$tmp/u" >/dev/null 2>&1
rm -f "$tmp/i" "$tmp/k"
"$GUAC" report "$d/u.json" >"$tmp/out" 2>&1
check "a disk never checked is UNVERIFIED (exit 1)" "[ \$? -eq 1 ] && row UNVERIFIED u"

# Corrupt, edited, and not a manifest at all.
head -c 200 "$d/a.json" >"$tmp/trunc.json"
sed 's/"bad_sectors": 5,/"bad_sectors": 0,/' "$d/c.json" >"$tmp/edited.json"
"$GUAC" verify -m "$d/a.json" --json >"$tmp/vreport.json" 2>/dev/null
"$GUAC" report "$d/a.json" "$tmp/trunc.json" "$tmp/edited.json" "$tmp/vreport.json" \
	"$tmp/nonexistent.json" >"$tmp/out" 2>&1
rc=$?
check "a truncated manifest is INVALID (exit 1)" "[ $rc -eq 1 ] && grep -q 'trunc.json: INVALID: .*truncated' '$tmp/out'"
check "a manifest edited to hide bad sectors is INVALID (checksum), not OK" \
	"grep -q 'edited.json: INVALID: .*checksum mismatch' '$tmp/out'"
check "a verify --json report is not taken for a manifest" "grep -q 'vreport.json: INVALID' '$tmp/out'"
check "a manifest that does not exist is INVALID" "grep -q 'nonexistent.json: INVALID: .*No such file' '$tmp/out'"
check "... and the good one among them stays OK" "row OK a && grep -qx '5 disks: 1 OK, 4 INVALID' '$tmp/out'"

# The same disk twice (a copy of its manifest).
cp "$d/a.json" "$tmp/a-copy.json"
"$GUAC" report "$d/a.json" "$tmp/a-copy.json" >"$tmp/out" 2>&1
check "one disk in two manifests: both DUPLICATE (exit 1), each naming the other" \
	"[ \$? -eq 1 ] && [ \$(grep -c 'a: DUPLICATE: the same disk as' '$tmp/out') -eq 2 ] &&
	 grep -q \"same disk as '$tmp/a-copy.json' (its own state OK)\" '$tmp/out'"
# Shards of one target are parts, not duplicates.
# (Both written before either is checked: a write after a check makes it stale.)
for k in 0 1; do
	"$GUAC" write --origin 8 -n 4M --shard $k/2 -m "$tmp/s$k.json" "$tmp/s" >/dev/null 2>&1
done
for k in 0 1; do
	"$GUAC" verify -m "$tmp/s$k.json" >/dev/null 2>&1
done
"$GUAC" report "$tmp/s0.json" "$tmp/s1.json" >"$tmp/out" 2>&1
check "two shards of one target are two OK rows (exit 0)" \
	"[ \$? -eq 0 ] && grep -q 's \[0/2\]' '$tmp/out' && grep -q 's \[1/2\]' '$tmp/out' && grep -qx '2 disks: 2 OK' '$tmp/out'"

"$GUAC" report "$tmp/s0.json" >"$tmp/out" 2>&1
check "a shard whose sibling's manifest is not given: the missing shard is a MISSING row (exit 1)" \
	"[ \$? -eq 1 ] && grep -q '^- $tmp/s: MISSING: shard 1/2 of this fill (origin 8,' '$tmp/out' &&
	 grep -qx '2 disks: 1 OK, 1 MISSING' '$tmp/out'"
"$GUAC" write --origin 9 -n 4M --shard 1/2 -m "$tmp/t1.json" "$tmp/s" >/dev/null 2>&1
"$GUAC" verify -m "$tmp/t1.json" >/dev/null 2>&1
"$GUAC" report "$tmp/s0.json" "$tmp/t1.json" >"$tmp/out" 2>&1
check "... and a shard of another fill (origin 9) does not stand in for it (and, written over the file after its check, makes shard 0 CHANGED)" \
	"[ \$? -eq 1 ] && grep -qx '4 disks: 1 OK, 1 CHANGED, 2 MISSING' '$tmp/out'"

# Expected disks: a missing manifest is named; a directory is read whole.
cat >"$tmp/expect" <<EOT
# host target
$host $tmp/a
$host $tmp/b
$host $tmp/gone
node9 /dev/disk/by-id/wwn-0x5000c500a1b2c3d4
EOT
"$GUAC" report --expect "$tmp/expect" "$d/a.json" "$d/b.json" >"$tmp/out" 2>&1
rc=$?
check "--expect: the disks without a manifest are MISSING (exit 1)" \
	"[ $rc -eq 1 ] && grep -q '^$host $tmp/gone: MISSING: expected ($tmp/expect line 4)' '$tmp/out' &&
	 grep -q '^node9 /dev/disk/by-id/wwn-0x5000c500a1b2c3d4: MISSING' '$tmp/out'"
check "... the others OK" "grep -qx '4 disks: 2 OK, 2 MISSING' '$tmp/out'"
printf '%s %s\n%s %s\n' "$host" "$tmp/a" "$host" "$tmp/b" >"$tmp/expect2"
"$GUAC" report --expect "$tmp/expect2" "$d/a.json" "$d/b.json" >"$tmp/out" 2>&1
check "--expect with every disk there: exit 0" "[ \$? -eq 0 ]"
echo "$host" >"$tmp/expect3"
"$GUAC" report --expect "$tmp/expect3" "$d/a.json" >"$tmp/out" 2>&1
check "an expected list with a bad line: exit 2, naming the line" \
	"[ \$? -eq 2 ] && grep -q 'expect3:1: expected \"HOST TARGET\"' '$tmp/out'"
"$GUAC" report --expect "$tmp/none" "$d/a.json" >"$tmp/out" 2>&1
check "an expected list that does not exist: exit 2" "[ \$? -eq 2 ] && grep -q 'cannot open the expected list' '$tmp/out'"
"$GUAC" report "$d" >"$tmp/out" 2>&1
rc=$?
check "a directory: every manifest in it (exit 1: some are not OK)" \
	"[ $rc -eq 1 ] && grep -qx '7 disks: 2 OK, 1 MISMATCH, 1 FAILED, 1 INTERRUPTED, 1 UNFINISHED, 1 UNVERIFIED' '$tmp/out'"
"$GUAC" report >"$tmp/out" 2>&1
check "no manifest: exit 2" "[ \$? -eq 2 ] && grep -q 'no manifest given' '$tmp/out'"
mkdir "$tmp/empty"
"$GUAC" report "$tmp/empty" >"$tmp/out" 2>&1
check "an empty directory: no disk is not a fleet that is OK (exit 1)" "[ \$? -eq 1 ]"

# ids FILE SERIAL WWID: give a manifest's target that serial and WWID (null: none).
ids() {
	sed -i "s/\"serial\": [^,]*, \"wwid\": [^,}]*/\"serial\": $2, \"wwid\": $3/" "$1"
	reseal "$1"
}
# good HOST NAME: a good disk (file) NAME written and checked from HOST (GUAC_HOST), manifest h/NAME.json.
good() {
	GUAC_HOST=$1 "$GUAC" write --origin 7 -n 1M -m "$tmp/h/$2.json" "$tmp/$2" >/dev/null 2>&1 &&
		"$GUAC" verify -m "$tmp/h/$2.json" >/dev/null 2>&1
}
expect_report() {	# LINES...: guac report --expect (the lines) of every h/*.json, into out
	printf '%s\n' "$@" >"$tmp/hexpect"
	"$GUAC" report --expect "$tmp/hexpect" "$tmp/h" >"$tmp/out" 2>&1
}
mkdir "$tmp/h"
# Host names: a manifest from a host whose name is its FQDN, an inventory of short names.
good guacn1.lab.example f1
expect_report "guacn1 $tmp/f1"
check "--expect: short name guacn1 is the manifest's guacn1.lab.example (exit 0, no MISSING)" \
	"[ \$? -eq 0 ] && grep -qx '1 disk: 1 OK' '$tmp/out' && grep -q '^guacn1.lab.example ' '$tmp/out'"
expect_report "guacn1.lab.example $tmp/f1"
check "--expect: the FQDN itself matches" "[ \$? -eq 0 ] && grep -qx '1 disk: 1 OK' '$tmp/out'"
for other in guacn10 guacn guacn1.lab guacn1.lab.example.org guacn1.other.example GUACN1; do
	expect_report "$other $tmp/f1"
	check "--expect: $other is another host: MISSING (exit 1)" \
		"[ \$? -eq 1 ] && grep -q '^$other $tmp/f1: MISSING' '$tmp/out' && grep -qx '2 disks: 1 OK, 1 MISSING' '$tmp/out'"
done
good guacn2 f2
expect_report "guacn2.lab.example $tmp/f2"
check "--expect: the FQDN guacn2.lab.example is the manifest's short guacn2" "[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"
# Two hosts of one short name in two domains: the short name is neither of them.
good guacn3.a.example f3
good guacn3.b.example f4
expect_report "guacn3 $tmp/f3"
check "--expect: guacn3 beside guacn3.a.example and guacn3.b.example matches neither (MISSING)" \
	"[ \$? -eq 1 ] && grep -q '^guacn3 $tmp/f3: MISSING' '$tmp/out'"
expect_report "guacn3.a.example $tmp/f3" "guacn3.b.example $tmp/f4"
check "... their FQDNs match each its own" "[ \$? -eq 0 ] && grep -qx '4 disks: 4 OK' '$tmp/out'"
rm -f "$tmp"/h/f3.json "$tmp"/h/f4.json
expect_report "guacn1 $tmp/f1" "guacn1.lab.example.org $tmp/f2"
check "--expect: a list naming another long name of guacn1: guacn1 matches no FQDN (2 MISSING)" \
	"[ \$? -eq 1 ] && grep -qx '4 disks: 2 OK, 2 MISSING' '$tmp/out'"

# SERIAL/WWN: the column, and the expected list naming a disk by WWN or by serial.
ids "$tmp/h/f1.json" '"ZA1B2C3D"' '"naa.5000c500a1b2c3d4"'
ids "$tmp/h/f2.json" '"S3Z9NB0K123456"' null
expect_report "guacn1 naa.5000c500a1b2c3d4" "guacn2 S3Z9NB0K123456"
check "--expect by WWN and by serial: both matched (exit 0)" "[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"
check "... SERIAL/WWN shows the WWN where there is one, else the serial; no run (-), an age in minutes" \
	"grep -Eq '^guacn1.lab.example +$tmp/f1 +naa.5000c500a1b2c3d4 +1.00 MiB +- +[0-9]+m +OK ' '$tmp/out' &&
	 grep -Eq '^guacn2 +$tmp/f2 +S3Z9NB0K123456 +1.00 MiB +- +[0-9]+m +OK ' '$tmp/out'"
expect_report "guacn1 ZA1B2C3D"
check "--expect by the serial of a disk that has a WWN too" "[ \$? -eq 0 ] && grep -qx '2 disks: 2 OK' '$tmp/out'"
expect_report "guacn1 naa.5000c500a1b2c3d5" "guacn2 S3Z9NB0K12345" "guacn2 naa.5000c500a1b2c3d4"
check "--expect: another WWN, a serial's prefix, a WWN on the wrong host: 3 MISSING" \
	"[ \$? -eq 1 ] && grep -qx '5 disks: 2 OK, 3 MISSING' '$tmp/out'"
"$GUAC" report --json "$tmp/h" >"$tmp/hj" 2>&1
check "... and the JSON carries them" \
	"grep -q '\"serial\":\"ZA1B2C3D\",\"wwid\":\"naa.5000c500a1b2c3d4\"' '$tmp/hj' && grep -q '\"serial\":\"S3Z9NB0K123456\",\"wwid\":null' '$tmp/hj'"

# JSON and the picture say what the table says.
"$GUAC" report --json --svg "$tmp/fleet.svg" --expect "$tmp/expect" "$d" >"$tmp/out.json" 2>"$tmp/err"
rc=$?
check "--json --svg: exit 1 (some disks are not OK)" "[ $rc -eq 1 ]"
python3 - "$tmp/out.json" "$tmp/fleet.svg" "$tmp" >"$tmp/py" 2>&1 <<'PY'
import json, sys, xml.dom.minidom
r = json.load(open(sys.argv[1]))
t = sys.argv[3]
by = {d["target"].replace(t + "/", ""): d for d in r["disks"]}
assert r["disks_total"] == 9 and r["disks_not_ok"] == 7 and r["disks_ok"] == 2, r
assert [d["ok"] for d in r["disks"]].count(True) == 2
assert by["f"]["state"] == "FAILED" and not by["f"]["ok"] and "File too large" in by["f"]["reason"]
assert by["c"]["classes"]["ALL_ZERO"] == 3 and by["c"]["classes"]["STALE_ORIGIN"] == 2
bad = by["c"]["bad"]
assert [(b["device_offset"], b["length"], b["class"]) for b in bad] == \
    [(51200, 1536, "ALL_ZERO"), (2097152, 1024, "STALE_ORIGIN")], bad
assert by["gone"]["state"] == "MISSING" and by["a"]["state"] == "OK"
assert by["a"]["verified"] == by["a"]["written"] == 4194304
svg = xml.dom.minidom.parse(sys.argv[2])
rows = svg.getElementsByTagName("g")
assert len(rows) == 9, len(rows)
texts = [n.firstChild.data for n in svg.getElementsByTagName("text") if n.firstChild]
for s in ("FAILED", "MISMATCH", "MISSING", "INTERRUPTED", "UNFINISHED", "UNVERIFIED"):
    assert s in texts, s
assert texts.count("OK") == 2, texts
fills = [r.getAttribute("fill") for r in svg.getElementsByTagName("rect")]
assert "#1f77b4" in fills and "#bcbd22" in fills      # ALL_ZERO, STALE_ORIGIN
# c's zeroed sectors at 51200 of 4 MiB: x = 420 + 640 * 51200 / 4194304
x = [float(r.getAttribute("x")) for r in svg.getElementsByTagName("rect") if r.getAttribute("fill") == "#1f77b4"]
assert abs(x[0] - (420 + 640 * 51200 / 4194304)) < 0.01, x
print("json and svg agree")
PY
check "the JSON and the SVG agree with the table (states, classes, places)" \
	"grep -q 'json and svg agree' '$tmp/py'" 
[ -s "$tmp/py" ] && grep -v 'json and svg agree' "$tmp/py" | sed 's/^/# /'
# Names that mean something in XML and JSON stay names.
odd=$tmp/'o<d>&"d'
"$GUAC" write --origin 7 -n 1M -m "$tmp/odd.json" "$odd" >/dev/null 2>&1
"$GUAC" report --json --svg "$tmp/odd.svg" "$tmp/odd.json" >"$tmp/odd.out" 2>&1
python3 - "$tmp/odd.out" "$tmp/odd.svg" "$odd" >"$tmp/py2" 2>&1 <<'PY'
import json, sys, xml.dom.minidom
r = json.load(open(sys.argv[1]))
assert r["disks"][0]["target"] == sys.argv[3], r
svg = xml.dom.minidom.parse(sys.argv[2])
assert any(sys.argv[3][-20:] in (t.firstChild.data if t.firstChild else "") for t in svg.getElementsByTagName("text"))
print("escaped")
PY
check "a target named with < > & \" : the JSON and the SVG parse and keep the name" "grep -qx escaped '$tmp/py2'"
"$GUAC" report --svg /nonexistent-dir/x.svg "$d/a.json" >"$tmp/out" 2>&1
check "a picture that cannot be written: exit 2" "[ \$? -eq 2 ] && grep -q 'cannot write the picture' '$tmp/out'"
"$GUAC" report --help | grep -q -- '--expect FILE'
check "--help documents --expect" "[ \$? -eq 0 ]"

# A run's report speaks for that run (issue 40): the fleet of week 1 is
# written and checked OK; week 2 reruns into the same directory with another
# origin, so --resume refuses the disk that exists ("records another fill":
# nothing written, the job FAILED), and the other disk's job never runs.
# guac report --run w2 must not show week 1's OK for either.
r=$tmp/run
mkdir -p "$r/m"
for k in x y; do
	"$GUAC" write --run w1 --host n1 --origin 8 -n 1M -m "$r/m/n1-$k.json" "$r/$k" >/dev/null 2>&1 &&
		"$GUAC" verify -m "$r/m/n1-$k.json" >/dev/null 2>&1
done
printf 'n1 %s\nn1 %s\n' "$r/x" "$r/y" >"$r/inv"
GUAC_RUN=w2 "$GUAC" write --resume --host n1 --origin 9 -n 1M -m "$r/m/n1-x.json" "$r/x" >"$r/o" 2>&1
check "week 2's resume over week 1's manifest of another fill: refused (exit 2), the manifest still week 1's" \
	"[ \$? -eq 2 ] && grep -q 'records another fill' '$r/o' && grep -qxF '  \"run\": \"w1\",' '$r/m/n1-x.json'"
"$GUAC" report --expect "$r/inv" "$r/m" >"$tmp/out" 2>&1
check "without --run: both OK, each with its run (w1) and age" \
	"[ \$? -eq 0 ] && [ \$(grep -Ec '^n1 +$r/[xy] +[^ ]+ +1.00 MiB +w1 +[0-9]+m +OK ' '$tmp/out') -eq 2 ]"
"$GUAC" report --run w2 --expect "$r/inv" "$r/m" >"$tmp/out" 2>&1
check "--run w2: exit 1, both disks MISSING, naming week 1's manifest, never OK" \
	"[ \$? -eq 1 ] && grep -qx '2 disks: 2 MISSING' '$tmp/out' &&
	 grep -q \"^n1 $r/x: MISSING: no manifest of run w2: '$r/m/n1-x.json' is of run w1 (finished 20.*, status complete)\$\" '$tmp/out' &&
	 ! grep -q 'RUN' '$tmp/out'"
printf '# host state why\nn1 FAILED 2:0 (job 41)\nn9 COMPLETED 0:0\n' >"$r/jobs"
"$GUAC" report --run w2 --jobs "$r/jobs" --expect "$r/inv" "$r/m" >"$tmp/out" 2>&1
check "--jobs: each disk not OK says its job's end state" \
	"[ \$? -eq 1 ] && [ \$(grep -c '; its job: FAILED 2:0 (job 41)\$' '$tmp/out') -eq 2 ]"
# Week 2 writes y again (its job ran) under a new name, next to week 1's file.
GUAC_RUN=w2 "$GUAC" write --host n1 --origin 9 -n 1M -m "$r/m/n1-by-id-y.json" "$r/y" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$r/m/n1-by-id-y.json" >/dev/null 2>&1
"$GUAC" report --run w2 --json --expect "$r/inv" "$r/m" >"$tmp/out.json" 2>&1
python3 - "$tmp/out.json" "$r" >"$tmp/py3" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["disks"]
by = {x["target"][len(sys.argv[2]) + 1:]: x for x in d}
assert len(d) == 2, d
assert by["y"]["state"] == "OK" and by["y"]["run"] == "w2", by["y"]
assert by["x"]["state"] == "MISSING" and by["x"]["run"] == "w1", by["x"]
print("one row per disk")
PY
check "--run w2: y, written again by week 2, is OK once (week 1's manifest of it is no row); x MISSING" \
	"grep -qx 'one row per disk' '$tmp/py3'" "$tmp/py3"
printf 'n1\n' >"$r/badjobs"
"$GUAC" report --run w2 --jobs "$r/badjobs" "$r/m" >"$tmp/out" 2>&1
check "--jobs: a line without a state is refused (exit 2), naming it" \
	"[ \$? -eq 2 ] && grep -q 'badjobs:1: expected \"HOST STATE' '$tmp/out'"
"$GUAC" report --help | grep -q -- '--run ID' && "$GUAC" report --help | grep -q -- '--jobs FILE'
check "--help documents --run and --jobs" "[ \$? -eq 0 ]"
tap_end
