#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Identity and trust (issue 35, items 1 and 2, and item 3's trust rule): a
# check stands for a target only while the target is the one checked, and
# two fills never hold the same bytes unless the user forces it. Each case
# is the review's reproducer (F1, F2, F5, F8, F12, the aliasing of default
# origins); every one failed against the guac before the fix (HEAD 944d5b2).
# Loop devices and the 1-second ext4 need root: skipped without. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
loop= mnt= floop=
tap_cleanup() {
	[ -z "$mnt" ] || umount "$mnt" 2>/dev/null
	[ -z "$floop" ] || losetup -d "$floop" 2>/dev/null
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
}
trap 'exit 130' INT TERM
cd "$tmp" || exit 2
case $GUAC in /*) ;; *) GUAC=$OLDPWD/$GUAC ;; esac
tap_begin

# origin FILE: a manifest's origin.
origin() {
	sed -n 's/^  "origin": \([0-9]*\),$/\1/p' "$1"
}

# edit_report MANIFEST SED: edit it as anyone can (sed, the checksum recomputed),
# then guac report it into out, its status in rc.
edit_report() {
	sed -i "$2" "$1"
	reseal "$1"
	"$GUAC" report "$1" >out 2>&1
	rc=$?
}

# F1: a file checked OK, then refilled without a manifest, or removed.
"$GUAC" write --length 1M -m a.json a.img >/dev/null 2>&1 &&
	"$GUAC" verify -m a.json >/dev/null 2>&1
"$GUAC" report a.json >out 2>&1
check "F1: a file just checked is OK in the report (exit $?)" "grep -q '1 disk: 1 OK' out"
"$GUAC" write --length 1M --origin 12345 a.img >/dev/null 2>&1
"$GUAC" report a.json >out 2>&1
rc=$?
check "F1: refilled with another origin, no manifest: not OK, CHANGED (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q 'CHANGED' out && ! grep -q ' OK ' out"
"$GUAC" write --length 1M -m b.json b.img >/dev/null 2>&1 &&
	"$GUAC" verify -m b.json >/dev/null 2>&1
rm -f b.img
"$GUAC" report b.json >out 2>&1
rc=$?
check "F1: removed after its check: GONE (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q 'GONE' out && grep -q 'b.img' out"

# Aliasing: fills with default options hold different bytes.
"$GUAC" write --length 64K c1.img >/dev/null 2>e1
"$GUAC" write --length 64K c2.img >/dev/null 2>e2
check "two fills with default options hold different bytes" "! cmp -s c1.img c2.img"
o=$(sed -n 's/.*origin \([0-9]*\) was drawn.*/\1/p' e1)
check "write without --manifest names the fresh origin it drew" "[ -n '$o' ]"
"$GUAC" verify c1.img >out 2>&1
rc=$?
check "verify without --origin or manifest: not OK, and says to give --origin (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q -- '--origin N' out"
"$GUAC" verify --origin "${o:-0}" c1.img >/dev/null 2>&1
check "verify --origin with the origin write printed: OK (exit $?)" "[ $? -eq 0 ]"

# Aliasing: an --origin within the target's span of a recorded fill.
"$GUAC" write --length 1M --origin 1000 -m h.json h.img >/dev/null 2>&1
"$GUAC" write --length 1M --origin 1001 -m h.json h.img >out 2>&1
rc=$?
check "--origin 1 block from the recorded fill's: refused, with the reason (exit $rc)" \
	"[ $rc -eq 2 ] && grep -q 'shifted by 64\*d bytes' out && [ \$(origin h.json) = 1000 ]"
"$GUAC" write --length 1M --origin 1000 -m h.json h.img >out 2>&1
rc=$?
check "the same --origin again: refused too (exit $rc)" "[ $rc -eq 2 ]"
"$GUAC" write --length 1M --origin 1001 --force -m h.json h.img >/dev/null 2>&1
check "--force writes it (exit $?)" "[ $? -eq 0 ] && [ \$(origin h.json) = 1001 ]"
"$GUAC" write --length 1M -m h.json h.img >/dev/null 2>&1
o=$(origin h.json)
check "a default origin lies the target's 16384 blocks from every recorded one ($o)" \
	"python3 -c 'import sys; o=int(sys.argv[1]); sys.exit(any(min((o-h)%2**64,(h-o)%2**64) < 16385 for h in (1000, 1001)))' $o"
"$GUAC" write --length 1M --shard 0/2 -m s.json s.img >out 2>&1
rc=$?
check "a sharded fill without --origin is refused, saying why (exit $rc)" \
	"[ $rc -eq 2 ] && grep -q 'needs --origin' out"

# F5: a record without a stamp (target_stamp null) is no OK.
"$GUAC" write --length 64K -m n.json n.img >/dev/null 2>&1 &&
	"$GUAC" verify -m n.json >/dev/null 2>&1
edit_report n.json 's/"version": 7/"version": 5/; /^  "run": /d; s/, "identity": [^}]*}/}/; s/"target_stamp": "[^"]*"/"target_stamp": null/'
check "F5: a version 5 record with target_stamp null: not OK (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q 'UNVERIFIED' out && grep -q 'stamp' out"

# F8: bad_sectors edited to 0, the checksum recomputed, the classes still 4.
"$GUAC" write --length 64K -m k.json k.img >/dev/null 2>&1
dd if=/dev/zero of=k.img bs=512 seek=10 count=4 conv=notrunc status=none
sleep 0.05
"$GUAC" verify -m k.json >/dev/null 2>&1
edit_report k.json 's/"bad_sectors": 4,/"bad_sectors": 0,/'
check "F8: classes that do not sum to bad_sectors: not OK (exit $rc)" \
	"grep -q '\"bad_sectors\": 0,' k.json && [ $rc -ne 0 ] && grep -q 'UNVERIFIED' out"

# Merge: the parts of one fill of a file on a local file system, one of them
# written on another host (its identity's host and running kernel edited, as
# a second machine's would be): two files, not one; refused.
for k in 0 1; do
	"$GUAC" write --origin 5 --length 1M --shard $k/2 -m p$k.json p.img >/dev/null 2>&1
done
cp p1.json p1-uts.json
sed -i 's/ host=[^ "]*/ host=othernode/; s/ kernel=[^ "]*/ kernel=0a1b2c3d-othernode/' p1.json
reseal p1.json
"$GUAC" manifest merge pm.json p0.json p1.json >out 2>&1
rc=$?
check "merge: a part of a local file written on another host is refused (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'target identity (its host differs' out && [ ! -e pm.json ]"

# ... but a part written under the same running kernel by a node whose UTS
# namespace has another host name (Slurm's and containers' nodes on one
# machine) is the same file: merged. A real second node, unshare --uts.
rm -f p1-uts.json pu.json
unshare --uts sh -c 'hostname othernode && "$0" write --origin 5 --length 1M --shard 1/2 -m p1-uts.json p.img' \
	"$GUAC" >/dev/null 2>&1
"$GUAC" manifest merge pu.json p0.json p1-uts.json >out 2>&1
rc=$?
check "merge: the parts of one file written on one machine under two host names merge (exit $rc)" \
	"[ $rc -eq 0 ] && grep -q ' host=othernode' p1-uts.json"

"$GUAC" report p0.json p1.json >out 2>&1
check "report: those two parts are two fills, each missing a shard (F7)" \
	"grep -q 'MISSING: shard 1/2 of this fill' out && grep -q 'MISSING: shard 0/2 of this fill' out"
"$GUAC" report p0.json p1-uts.json >out 2>&1
check "report: the parts written under two host names on one machine are one fill" \
	"! grep -q MISSING out"

# A machine cloned from this one (one image: the same host name, file system,
# device and inode) is told apart by its running kernel alone
# (tests/vm/test_two_hosts.sh does it with two real kernels).
cp p1-uts.json p1-clone.json
sed -i 's/ host=[^ "]*/ host='"$(uname -n)"'/; s/ kernel=[^ "]*/ kernel=0a1b2c3d-clone/' p1-clone.json
reseal p1-clone.json
"$GUAC" manifest merge pc.json p0.json p1-clone.json >out 2>&1
rc=$?
check "merge: a part written under another running kernel, all else alike, is refused (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'its running kernel differs' out && [ ! -e pc.json ]"

if [ "$(id -u)" -ne 0 ]; then
	for t in "F2: re-attached loop device" "F2: write over it" "F2: report" "F12"; do
		ok "# SKIP $t: needs root (loop devices, mount)"
	done
	tap_end
	exit
fi

# F2: the same loop node, another medium.
"$GUAC" write --length 4M --origin 7 one.img >/dev/null 2>&1
"$GUAC" write --length 4M --origin 99999999 two.img >/dev/null 2>&1
loop=$(losetup -f --show one.img)
"$GUAC" write -m l.json "$loop" >/dev/null 2>&1 &&
	"$GUAC" verify -m l.json >/dev/null 2>&1
"$GUAC" verify --resume -m l.json >out 2>&1
check "F2: a loop device checked OK resumes as OK (exit $?)" "grep -q '^OK' out"
losetup -d "$loop"
losetup "$loop" two.img
"$GUAC" verify --resume -m l.json >out 2>&1
rc=$?
check "F2: re-attached to another image: --resume refuses 'OK unchanged since' (exit $rc)" \
	"[ $rc -ne 0 ] && ! grep -q 'unchanged since' out && grep -q 'diskseq' out"
"$GUAC" report l.json >out 2>&1
rc=$?
check "F2: the report does not say OK (exit $rc)" "[ $rc -ne 0 ] && grep -q 'CHANGED' out"
"$GUAC" write -m l.json "$loop" >out 2>&1
rc=$?
check "F2: a write with the other medium's manifest is refused, naming this disk (exit $rc)" \
	"[ $rc -eq 2 ] && grep -q 'this is the disk' out"
losetup -d "$loop"
loop=

# F12: ext4 with 1-second time stamps (128-byte inodes), damage in the second of the check.
truncate -s 16M fs.img
if mkfs.ext4 -q -I 128 fs.img >/dev/null 2>&1 && floop=$(losetup -f --show fs.img) &&
	mkdir -p mnt && mount "$floop" mnt 2>/dev/null; then
	mnt=$tmp/mnt
	# Start at the beginning of a second, so that write, check and damage share it.
	while [ "$(date +%N | cut -c1)" != 0 ]; do sleep 0.01; done
	"$GUAC" write --length 64K -m t.json mnt/t.img >/dev/null 2>&1
	"$GUAC" verify -m t.json >/dev/null 2>&1
	dd if=/dev/zero of=mnt/t.img bs=512 seek=3 count=1 conv=notrunc status=none
	"$GUAC" verify --resume -m t.json >out 2>&1
	rc=$?
	check "F12: damage in the second of the check on a 1-second ext4: found (exit $rc)" \
		"[ $rc -eq 1 ] && grep -q '^MISMATCH' out && ! grep -q 'unchanged since' out"
else
	not_ok "F12: cannot make and mount a 1-second ext4 on a loop device"
fi
tap_end
