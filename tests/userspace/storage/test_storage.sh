#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write and guac verify on real block devices: loop devices over a
# backing file, and a file on an ext4 file system on one. Proves that
# --direct reads the media (a second loop device on the same backing file
# after dropping the caches; a change made to the backing file behind the
# device's back), that sub-ranges report true LBAs, that a copy shorter than
# the manifest fails, that ENOSPC-like failures report the durable bytes,
# that O_DIRECT is refused where impossible, and Ctrl-C plus --resume.
# Needs root (losetup, mount): make check runs as root, so without them the
# suite fails, naming what is missing, rather than pass a skip. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
loops=""
mnts=""
tap_cleanup() {
	for m in $mnts; do umount "$m" 2>/dev/null; done
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
}
trap 'exit 130' INT TERM


# field NAME FILE: the number after "NAME": in a JSON file.
field() {
	grep -o "\"$1\": *[0-9]*" "$2" | head -1 | sed 's/.*: *//'
}

tap_begin
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null; then
	not_ok "storage suite: needs root and losetup (uid $(id -u))"
	tap_end
	exit $?
fi

SIZE=$((32 << 20))
truncate -s $SIZE "$tmp/backing"
# Each device joins $loops at once, so the trap detaches it whatever happens next.
A=$(losetup -f --show "$tmp/backing") && loops="$A" &&
	B=$(losetup -f --show "$tmp/backing") && loops="$A $B"
if [ "$loops" != "$A $B" ]; then
	not_ok "storage suite: losetup failed"
	tap_end
	exit $?
fi

# 1. Write through loop A with O_DIRECT, read back through loop B with O_DIRECT.
"$GUAC" write --origin 0 --jobs 2 -m "$tmp/a.json" "$A" >"$tmp/w.txt" 2>&1
rc=$?
check "write to $A exits 0" "[ $rc -eq 0 ]"
check "write to a block device is direct by default" "grep -q 'direct I/O' '$tmp/w.txt'"
check "write reports all $SIZE bytes durable" "grep -q '^OK: $SIZE of $SIZE bytes' '$tmp/w.txt'"
check "manifest records a block device of $SIZE bytes" \
	"grep -q '\"type\": \"block\", \"size\": $SIZE' '$tmp/a.json'"
check "the backing file holds guac gen's bytes" \
	"\"$GUAC\" gen --length $SIZE | cmp -s - '$tmp/backing'"
sync
echo 3 >/proc/sys/vm/drop_caches
"$GUAC" verify --direct -m "$tmp/a.json" "$B" >"$tmp/v.txt" 2>&1
rc=$?
check "verify --direct through a second loop device: OK" "[ $rc -eq 0 ] && grep -q '^OK: $SIZE bytes' '$tmp/v.txt'"
check "the report states direct I/O" "grep -q '^mode: direct I/O (O_DIRECT)' '$tmp/v.txt'"
"$GUAC" verify --json -m "$tmp/a.json" "$B" >"$tmp/v.json" 2>&1
check "JSON states io_mode direct (the default for block devices)" "grep -q '\"io_mode\":\"direct\"' '$tmp/v.json'"

# 2. Change the media behind the device's back: direct reads must see it.
printf 'XXXXXXXX' | dd of="$tmp/backing" bs=1 seek=$((1000 * 512 + 17)) conv=notrunc,fsync status=none
"$GUAC" verify --direct --json -m "$tmp/a.json" "$A" >"$tmp/v2.json" 2>&1
rc=$?
check "direct verify through $A sees the backing file changed: exit 1" "[ $rc -eq 1 ]"
check "the change is at LBA 1000, one sector" \
	"grep -q '\"ranges\":\[{\"start\":512000,\"length\":512}\]' '$tmp/v2.json'"
check "8 bytes differ" "grep -q '\"bad_bytes\":8,' '$tmp/v2.json'"

# 3. A sub-range with --skip/--length reports true device byte offsets and LBAs.
"$GUAC" write --seek 1M --length 8M --origin 42 --offset 5G -m "$tmp/s.json" "$A" >/dev/null 2>&1
check "write --seek 1M --length 8M --origin 42 --offset 5G" "[ $? -eq 0 ]"
dd if=/dev/zero of="$A" bs=512 seek=$(((1048576 + 3 * 1048576) / 512 + 5)) count=2 oflag=direct conv=notrunc status=none
"$GUAC" verify -m "$tmp/s.json" --skip 3M --length 1M "$A" >"$tmp/s.txt" 2>&1
rc=$?
check "verify --skip 3M --length 1M finds the zeroed sectors: exit 1" "[ $rc -eq 1 ]"
lba=$(((1048576 + 3 * 1048576) / 512 + 5))
check "the report gives the true device bytes and LBAs $lba-$((lba + 1))" \
	"grep -q 'bytes $((lba * 512))-$(((lba + 2) * 512 - 1)) (1024 bytes, sectors $lba-$((lba + 1)))' '$tmp/s.txt'"
check "the diagnosis calls them zeros at LBA $lba" "grep -q '^  sectors $lba-$((lba + 1)) (bytes $((lba * 512))-$(((lba + 2) * 512 - 1)), 2 sectors): ALL_ZERO' '$tmp/s.txt'"
"$GUAC" verify -m "$tmp/s.json" --skip 4M --length 1M "$A" >/dev/null 2>&1
check "the neighbouring sub-range is clean: exit 0" "[ $? -eq 0 ]"
"$GUAC" verify --seek 1M --offset 5G --origin 42 --length 3M "$A" >/dev/null 2>&1
check "verify without a manifest: --seek, --offset, --origin" "[ $? -eq 0 ]"
"$GUAC" verify -m "$tmp/s.json" --bad-list "$tmp/bad.txt" --max-errors 1 "$A" >"$tmp/me.txt" 2>&1
rc=$?
check "--max-errors 1 stops with exit 1" "[ $rc -eq 1 ] && grep -q '^STOPPED: --max-errors 1' '$tmp/me.txt'"
check "--bad-list holds the bad sector with its LBA and class, and no more (--max-errors 1)" \
	"grep -q '^mismatch $((lba * 512)) $(((lba + 1) * 512 - 1)) $lba $lba ALL_ZERO\$' '$tmp/bad.txt' && [ \$(grep -vc '^#' '$tmp/bad.txt') -eq 1 ]"

# 4. A copy shorter than the manifest says is a failure.
head -c $((SIZE / 2)) "$tmp/backing" >"$tmp/short-copy"
"$GUAC" verify -m "$tmp/a.json" "$tmp/short-copy" >"$tmp/short.txt" 2>&1
rc=$?
check "a half-size copy fails with exit 1 and SHORT" "[ $rc -eq 1 ] && grep -q '^SHORT: the data ends at byte $((SIZE / 2))' '$tmp/short.txt'"

# 5. A file on a file system on the loop device, with --direct.
truncate -s 64M "$tmp/fs.img"
if F=$(losetup -f --show "$tmp/fs.img") && loops="$loops $F" && mkfs.ext4 -q -b 4096 "$F" && mkdir "$tmp/mnt" &&
	mount "$F" "$tmp/mnt"; then
	mnts="$tmp/mnt"
	"$GUAC" write --origin 0 --direct --length 16M --jobs 2 -m "$tmp/mnt/f.json" "$tmp/mnt/f" >"$tmp/fw.txt" 2>&1
	check "write --direct to a file on ext4 on $F" "[ $? -eq 0 ] && grep -q 'direct I/O' '$tmp/fw.txt'"
	"$GUAC" verify --direct -m "$tmp/mnt/f.json" >"$tmp/fv.txt" 2>&1
	check "verify --direct of that file (target from the manifest)" "[ $? -eq 0 ] && grep -q '^mode: direct' '$tmp/fv.txt'"
	"$GUAC" verify -m "$tmp/mnt/f.json" >"$tmp/fb.txt" 2>&1
	check "files default to buffered, and say so" "[ $? -eq 0 ] && grep -q '^mode: buffered' '$tmp/fb.txt'"
	"$GUAC" write --origin 0 --direct --seek 100 --length 1M "$tmp/mnt/g" >"$tmp/fu.txt" 2>&1
	check "write --direct --seek 100 is refused (unaligned) and creates nothing" \
		"[ $? -eq 2 ] && [ ! -e '$tmp/mnt/g' ] && grep -q 'sectors' '$tmp/fu.txt'"
	# 6. ENOSPC: a file larger than the file system (--allow-overcommit: past the
	# check that refuses it up front, to meet ENOSPC for real).
	"$GUAC" write --origin 0 --allow-overcommit --length 100M -m "$tmp/full.json" "$tmp/mnt/big" >"$tmp/full.txt" 2>&1
	rc=$?
	done_bytes=$(grep -o '"done": [0-9]*' "$tmp/full.json" | sed 's/.*: //' | awk '{s += $1} END {print s}')
	size=$(stat -c %s "$tmp/mnt/big")
	check "ENOSPC: exit 3 (the target's I/O, not a usage error) with the error named" "[ $rc -eq 3 ] && grep -q '^FAILED: No space left on device' '$tmp/full.txt'"
	check "ENOSPC: the durable byte count ($done_bytes) is reported and recorded as failed" \
		"grep -q '^DURABLE: $done_bytes of 104857600 bytes' '$tmp/full.txt' && grep -q '\"status\": \"failed\"' '$tmp/full.json' && [ $done_bytes -gt 0 ]"
	"$GUAC" verify -m "$tmp/full.json" >"$tmp/fullv.txt" 2>&1
	check "verify of the failed fill checks the durable part and says INCOMPLETE" \
		"[ $? -eq 1 ] && grep -q '^INCOMPLETE' '$tmp/fullv.txt' && ! grep -q MISMATCH '$tmp/fullv.txt'"
	umount "$tmp/mnt" && mnts=""
else
	not_ok "file on ext4: mkfs.ext4 or mount failed"
fi

# 7. O_DIRECT where the file system cannot: refused, nothing written.
mkdir "$tmp/ram"
if mount -t ramfs ramfs "$tmp/ram" 2>/dev/null; then
	mnts="$mnts $tmp/ram"
	"$GUAC" write --origin 0 --direct --length 1M "$tmp/ram/x" >"$tmp/r.txt" 2>&1
	check "ramfs: write --direct refused with exit 2, no file left" \
		"[ $? -eq 2 ] && [ ! -e '$tmp/ram/x' ] && grep -q 'does not support O_DIRECT' '$tmp/r.txt'"
	"$GUAC" gen --length 1M >"$tmp/ram/y"
	"$GUAC" verify --direct "$tmp/ram/y" >"$tmp/r2.txt" 2>&1
	check "ramfs: verify --direct refused with exit 2" "[ $? -eq 2 ] && grep -q 'does not support O_DIRECT' '$tmp/r2.txt'"
	"$GUAC" verify "$tmp/ram/y" >"$tmp/r3.txt" 2>&1
	check "ramfs: buffered verify works and says buffered" "[ $? -eq 0 ] && grep -q '^mode: buffered' '$tmp/r3.txt'"
	umount "$tmp/ram"
	mnts=$(echo "$mnts" | sed "s|$tmp/ram||")
else
	not_ok "ramfs: cannot mount ramfs"
fi

# 8. Ctrl-C, then --resume. The signal must land mid-check: 256K direct
# 512-byte reads of a 128 MiB device take seconds, and it is sent only once
# guac has read its first MiB (so the handler is in place), long before the end.
truncate -s 128M "$tmp/big"
if C=$(losetup -f --show "$tmp/big") && loops="$loops $C"; then
	BIG=$((128 << 20))
	"$GUAC" write --origin 0 -m "$tmp/r.json" "$C" >/dev/null 2>&1
	sync
	echo 3 >/proc/sys/vm/drop_caches
	"$GUAC" verify -m "$tmp/r.json" --direct --bs 512 --jobs 1 "$C" >"$tmp/int.txt" 2>&1 &
	pid=$!
	wait_read $pid 1048576
	kill -INT $pid
	wait $pid
	rc=$?
	verified=$(grep -o '"verified": [0-9]*' "$tmp/r.json" | sed 's/.*: //')
	check "SIGINT mid-check: exit 130 and an INTERRUPTED summary" "[ $rc -eq 130 ] && grep -q '^INTERRUPTED: stopped after' '$tmp/int.txt'"
	check "SIGINT: progress saved in the manifest ($verified of $BIG)" \
		"grep -q '\"status\": \"interrupted\"' '$tmp/r.json' && [ $verified -gt 0 ] && [ $verified -lt $BIG ]"
	"$GUAC" verify -m "$tmp/r.json" --resume --json "$C" >"$tmp/res.json" 2>&1
	rc=$?
	checked=$(grep -o '"bytes_checked":[0-9]*' "$tmp/res.json" | sed 's/.*://')
	check "--resume checks exactly the rest ($checked = $BIG - $verified)" \
		"[ $rc -eq 0 ] && [ $checked -eq $((BIG - verified)) ]"
	check "--resume leaves the manifest complete" "grep -q '\"verify\": {\"status\": \"complete\"' '$tmp/r.json'"
else
	not_ok "SIGINT: losetup of a third device failed"
fi

# 9. A 4Kn manifest checking a copy on a 512-byte device, in 3 jobs: the jobs
# split on 4096-byte sectors (40 512-byte ones in 3 jobs would split at 7168,
# in sector 1), so one bad 4 KiB sector counts and is diagnosed once.
"$GUAC" write --origin 0 --length 20480 -m "$tmp/k.json" "$tmp/k.img" >/dev/null 2>&1
sed 's/"sector_size": 512/"sector_size": 4096/' "$tmp/k.json" >"$tmp/k4.json"
if "$GUAC" verify -m "$tmp/k4.json" "$tmp/k.img" >/dev/null 2>"$tmp/e"; then
	dd if="$tmp/k.img" of="$A" bs=4096 conv=fsync status=none
	"$GUAC" gen --origin 3 -n 4096 | dd of="$A" bs=4096 seek=1 oflag=direct conv=notrunc status=none
	"$GUAC" verify -m "$tmp/k4.json" -j 3 --sector 4096 "$A" >"$tmp/k.txt" 2>&1
else
	# The manifest checks its own fields: ask for 4096-byte sectors instead.
	dd if="$tmp/k.img" of="$A" bs=4096 conv=fsync status=none
	"$GUAC" gen --origin 3 -n 4096 | dd of="$A" bs=4096 seek=1 oflag=direct conv=notrunc status=none
	"$GUAC" verify -m "$tmp/k.json" -j 3 --sector 4096 "$A" >"$tmp/k.txt" 2>&1
fi
check "4096-byte sectors over 512-byte ones, -j 3: 1 bad sector, diagnosed once" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: 1 bad 4096-byte sector in 1 range' '$tmp/k.txt' && [ \$(grep -c '^  sector 1 (byte 4096)' '$tmp/k.txt') -eq 1 ]"

tap_end
