#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write refuses what a typo makes of a target (issue 36, U1, U2, U9),
# before anything is written, and leaves no file and no manifest behind:
# a /dev path that does not exist (once an 8 GiB file in /dev's RAM, with OK
# printed), a loop device holding a real ext4 or a GPT (sfdisk), a file
# holding an ext4 image, a disk with a mounted partition, a device in use
# as swap, a read-only loop device (losetup -r) and a read-only mount.
# --force writes over signatures, never over a target in use; --dry-run
# prints the plan and writes nothing; --resume of guac's own fill is not
# refused for what the fill has not yet reached. Every case failed on the
# build before the change. Needs root (losetup, mount, swapon, sfdisk,
# mkfs.ext4): make check runs as root, so without them the suite fails,
# naming what is missing. TAP.
set -u
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
loops=""
mnts=""
swaps=""
nodev=""
tap_cleanup() {
	for s in $swaps; do swapoff "$s" 2>/dev/null; done
	for m in $mnts; do umount "$m" 2>/dev/null; done
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	# A build without the fix leaves a regular file there: never a device.
	for f in $nodev; do [ -f "$f" ] && rm -f "$f"; done
}
trap 'exit 130' INT TERM

tap_begin
for t in losetup sfdisk partx mkfs.ext4 mkswap swapon blkid mount; do
	command -v $t >/dev/null || missing="${missing:-} $t"
done
if [ "$(id -u)" -ne 0 ] || [ -n "${missing:-}" ]; then
	not_ok "write safety suite: needs root and${missing:- nothing else} (uid $(id -u))"
	tap_end
	exit $?
fi

# loop NAME SIZE [losetup option]: $dev, a loop device over a new backing file $tmp/NAME.
loop() {
	dev=""
	truncate -s "$2" "$tmp/$1" && dev=$(losetup -f --show ${3:-} "$tmp/$1") && loops="$loops $dev"
}

# w CASE ARGS...: guac write ARGS, its output in $tmp/CASE.txt, its status in $rc.
w() {
	out=$1
	shift
	"$GUAC" write "$@" >"$tmp/$out.txt" 2>&1
	rc=$?
}

# refused CASE: exit 2, nothing left: no manifest, output in $tmp/CASE.txt.
refused() {
	[ "$rc" -eq 2 ] && [ ! -e "$tmp/$1.json" ]
}

# keep DEV: remember what DEV holds (its hash); unchanged DEV: it holds that still.
keep() {
	sum=$(sha256sum <"$1")
}
unchanged() {
	[ "$(sha256sum <"$1")" = "$sum" ]
}

# 1. U1: a /dev path that does not exist names no device; no file is made of it.
for n in sdzz sdzy sdzx vdzz; do [ -e "/dev/$n" ] || { nodev="/dev/$n"; break; }; done
w nodev --length 8M -m "$tmp/nodev.json" "$nodev"
check "write --length 8M to $nodev (absent): exit 2, no manifest" "refused nodev"
check "... and no file $nodev is created" "[ ! -e '$nodev' ]"
check "... the message says: no such device" "grep -q \"'$nodev': no such device\" '$tmp/nodev.txt'"
w nodev2 -m "$tmp/nodev2.json" "$nodev"
check "without --length: 'no such device', not '... holds 0 bytes'" \
	"refused nodev2 && grep -q 'no such device' '$tmp/nodev2.txt' && ! grep -q 'holds 0 bytes' '$tmp/nodev2.txt'"
w proc --length 1M "/proc/guac-safety-$$"
check "a missing path in /proc: refused, no such device" \
	"[ $rc -eq 2 ] && grep -q 'no such device' '$tmp/proc.txt'"
# A regular file in /dev (what the old bug left behind) is no device either.
left=/dev/guac-safety-left.$$
nodev="$nodev $left"
truncate -s 1M "$left"
w left -m "$tmp/left.json" "$left"
check "a regular file on /dev's file system: refused, untouched" \
	"refused left && grep -q 'not a device' '$tmp/left.txt' && cmp -s -n 1048576 '$left' /dev/zero"
rm -f "$left"
# Files are still created where they are meant; the OK line says which kind.
w file --length 1M -m "$tmp/file.json" "$tmp/file"
check "a new file in a directory of its own: written, OK names a file" \
	"[ $rc -eq 0 ] && grep -q \"^OK: .* of file '$tmp/file'\" '$tmp/file.txt'"

# 2. U2: a loop device with a real ext4: refused, naming type, label and UUID.
loop ext4.img 32M && E=$dev && mkfs.ext4 -q -L guacsafety "$E"
uuid=$(blkid -p -s UUID -o value "$E")
keep "$E"
w ext4 -m "$tmp/ext4.json" "$E"
check "ext4 on $E: exit 2, no manifest, the device unchanged" "refused ext4 && unchanged $E"
check "... names ext4, its label and UUID ($uuid), and --force" \
	"grep -q \"ext4 file system, label 'guacsafety', UUID $uuid at byte 1080\" '$tmp/ext4.txt' && grep -q -- '--force' '$tmp/ext4.txt'"
w dry --dry-run -m "$tmp/ext4.json" "$E"
check "--dry-run on it: the plan (block device, size, ext4 found, range, manifest), exit 2" \
	"refused ext4 && grep -q \"^target: *'$E', block device, 33554432 bytes\" '$tmp/dry.txt' && grep -q '^  ext4 file system' '$tmp/dry.txt' && grep -q '^write: *device bytes 0-33554431 (33554432 bytes), stream offset 0, origin [0-9][0-9]*' '$tmp/dry.txt' && grep -q \"^manifest: *'$tmp/ext4.json'\" '$tmp/dry.txt'"
check "... without --origin, says the write draws its own origin and how to fix this one" \
	"grep -q 'origin [0-9]* (drawn for this plan; the write draws a fresh one: --origin [0-9]* writes this one)' '$tmp/dry.txt'"
w dryf --dry-run --force -m "$tmp/ext4.json" "$E"
check "--dry-run --force: exit 0, and still nothing written, no manifest" \
	"[ $rc -eq 0 ] && [ ! -e '$tmp/ext4.json' ] && unchanged $E"
w force --force -m "$tmp/ext4.json" "$E"
check "--force writes over it: OK names a block device, says what it overwrites" \
	"[ $rc -eq 0 ] && grep -q \"^OK: .* of block device '$E'\" '$tmp/force.txt' && grep -q 'ext4 file system' '$tmp/force.txt'"
w refill --origin 7 -m "$tmp/ext4.json" "$E"
check "a re-fill of guac's own fill needs no --force (no signature)" "[ $rc -eq 0 ]"

# An ext4 image in a regular file counts too (mkfs.ext4 warns there as well).
truncate -s 8M "$tmp/fs.img" && mkfs.ext4 -q -F "$tmp/fs.img"
w img -m "$tmp/img.json" "$tmp/fs.img"
check "a file holding an ext4 image: refused, naming it" \
	"refused img && grep -q 'ext4 file system' '$tmp/img.txt'"

# 3. U2: a GPT written by sfdisk.
loop gpt.img 32M && P=$dev && printf 'label: gpt\n,8M,L\n,,L\n' | sfdisk -q "$P" 2>/dev/null
ptuuid=$(blkid -p -s PTUUID -o value "$P")
keep "$P"
w gpt -m "$tmp/gpt.json" "$P"
check "GPT on $P: exit 2, no manifest, unchanged" "refused gpt && unchanged $P"
check "... names the gpt partition table and its UUID ($ptuuid)" \
	"grep -q 'gpt partition table, UUID $ptuuid at byte 512' '$tmp/gpt.txt'"
w gpt2 --seek 16M --length 1M -m "$tmp/gpt.json" "$P"
check "... also when the range written misses the table (--seek 16M)" "refused gpt"

# 4. U2: a disk with a mounted partition: refused, naming the mount, even with --force.
partx -a "$P" 2>/dev/null
partx -u "$P" 2>/dev/null
n=0
while [ ! -b "${P}p1" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
mkdir "$tmp/mnt"
if mkfs.ext4 -q -L guacpart "${P}p1" && mount "${P}p1" "$tmp/mnt"; then
	mnts="$tmp/mnt"
	w busy --force -m "$tmp/busy.json" "$P"
	check "$P with ${P}p1 mounted: refused with --force too, no manifest" "refused busy"
	check "... names the partition and where it is mounted" \
		"grep -q '${P}p1 is mounted on $tmp/mnt' '$tmp/busy.txt'"
	check "... and what the partition holds" \
		"grep -q \"partition ${P}p1: ext4 file system, label 'guacpart'\" '$tmp/busy.txt'"
	w busyd --dry-run "$P"
	check "--dry-run lists the use: exit 2" \
		"[ $rc -eq 2 ] && grep -q '^  in use: ${P}p1 is mounted on $tmp/mnt' '$tmp/busyd.txt'"
	umount "$tmp/mnt" && mnts=""
else
	not_ok "mounted partition: no ${P}p1 or mkfs.ext4/mount failed"
fi

# ... and a device in use as swap.
loop swap.img 16M && S=$dev && mkswap -q "$S" >/dev/null && swapon "$S" && swaps="$S"
w swap --force -m "$tmp/swap.json" "$S"
check "$S in use as swap: refused with --force too, naming it, no manifest" \
	"refused swap && grep -q '$S is in use as swap' '$tmp/swap.txt' && grep -q '^  swap area, UUID' '$tmp/swap.txt'"
swapoff "$S" && swaps=""

# 5. U9: a read-only loop device (losetup -r) and a read-only mount.
loop ro.img 8M -r && R=$dev
w ro -m "$tmp/ro.json" "$R"
check "losetup -r $R: exit 2, no manifest, before any write" \
	"refused ro && grep -q 'read-only' '$tmp/ro.txt' && ! grep -q 'FAILED' '$tmp/ro.txt'"
w rod --dry-run "$R"
check "... --dry-run says read-only too" "[ $rc -eq 2 ] && grep -q 'read-only' '$tmp/rod.txt'"
mkdir "$tmp/romnt"
if mount -t tmpfs -o ro,size=1M tmpfs "$tmp/romnt"; then
	mnts="$mnts $tmp/romnt"
	w rof --length 64K -m "$tmp/rof.json" "$tmp/romnt/f"
	check "a file on a read-only mount: refused (EROFS), no manifest" \
		"refused rof && grep -q \"'$tmp/romnt/f' is read-only: .*Read-only file system\" '$tmp/rof.txt'"
else
	not_ok "read-only tmpfs mount failed"
fi

# 6. --dry-run on a clean target and on a file to create: nothing at all is written.
loop clean.img 8M && C=$dev
w clean --dry-run --origin 3 -m "$tmp/clean.json" "$C"
check "--dry-run on a clean device: exit 0, says nothing is found and written" \
	"[ $rc -eq 0 ] && grep -q '^dry run: nothing written' '$tmp/clean.txt' && grep -q '^found: *no signature' '$tmp/clean.txt' && grep -q 'origin 3' '$tmp/clean.txt'"
check "... the device still holds zeros, no manifest" \
	"cmp -s -n 8388608 '$C' /dev/zero && [ ! -e '$tmp/clean.json' ]"
w new --dry-run --length 1M -m "$tmp/new.json" "$tmp/new"
check "--dry-run on a file to create: exit 0, neither file nor manifest" \
	"[ $rc -eq 0 ] && [ ! -e '$tmp/new' ] && [ ! -e '$tmp/new.json' ] && grep -q 'regular file (to be created)' '$tmp/new.txt'"

# 7. --resume of guac's own fill: what it has not reached is not refused,
# what it counts durable is (the disk was reused since: refused).
# resume_state FILE DONE0 DONE1: the manifest says interrupted with those parts durable.
resume_state() {
	python3 - "$1" "$2" "$3" <<'PY'
import re, sys
p, d0, d1 = sys.argv[1], sys.argv[2], sys.argv[3]
t = open(p).read().replace('"status": "complete"', '"status": "interrupted"')
dones = iter([d0, d1])
t = re.sub(r'"done": [0-9]+', lambda m: '"done": ' + next(dones), t)
t = re.sub(r'"verified": [0-9]+', '"verified": 0', t)
t = re.sub(r'"verify": \{.*\},\n', '"verify": null,\n', t)
open(p, "w").write(t)
PY
	reseal "$1"
}
# plant_ext4: the first 4 KiB of an ext4 image (its superblock) onto $C.
plant_ext4() {
	dd if="$tmp/fs.img" of="$C" bs=4096 count=1 conv=notrunc oflag=direct status=none
}
"$GUAC" write --jobs 2 -m "$tmp/res.json" "$C" >/dev/null 2>&1 && plant_ext4 &&
	resume_state "$tmp/res.json" 0 4194304
w res --jobs 2 --resume -m "$tmp/res.json" "$C"
check "--resume: an ext4 in the part the fill has not reached yet is not refused" \
	"[ $rc -eq 0 ] && grep -q '^OK' '$tmp/res.txt'"
"$GUAC" verify -m "$tmp/res.json" "$C" >/dev/null 2>&1
check "... and the fill is whole afterwards" "[ $rc -eq 0 ]"
plant_ext4 && resume_state "$tmp/res.json" 4194304 0
cp "$tmp/res.json" "$tmp/res.before"
w res2 --jobs 2 --resume -m "$tmp/res.json" "$C"
check "--resume: an ext4 in bytes the fill counts durable is refused (reused since)" \
	"[ $rc -eq 2 ] && grep -q 'ext4 file system' '$tmp/res2.txt' && cmp -s '$tmp/res.json' '$tmp/res.before'"

tap_end
