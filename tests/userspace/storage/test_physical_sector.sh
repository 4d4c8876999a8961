#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Issue 36, U8: guac verify classifies in a block device's physical sector
# (BLKPBSZGET) unless --sector says otherwise, and its report says which. On
# a 512e disk (512-byte logical sectors, 4096-byte physical ones) a 4 KiB
# write torn after 1 KiB is one TORN sector, not six STALE_ORIGIN 512-byte
# ones. A loop device's physical sector is always its logical one (the
# kernel's loop driver sets both from --sector-size), so the test makes a
# 512/512 loop device pass for a 512e disk with an LD_PRELOAD shim
# (../shims/physical_sector.c) that answers BLKPBSZGET with FAKE_PBSZ;
# without the shim the same device is checked as it is, 512/512. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
loop=""
tap_cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
}
trap 'exit 130' INT TERM

tap_begin

# A file: 512 unless the manifest or --sector says otherwise, and said so.
"$GUAC" gen --length 1M >"$tmp/f.img"
dd if=/dev/zero of="$tmp/f.img" bs=512 seek=3 count=1 conv=notrunc status=none
"$GUAC" verify "$tmp/f.img" >"$tmp/f.txt" 2>&1
check "a file: 512-byte sectors, the report says why" \
	"grep -q ', 512-byte sectors (a file.s default)\$' '$tmp/f.txt'"
"$GUAC" verify --sector 4096 "$tmp/f.img" >"$tmp/f.txt" 2>&1
check "a file, --sector 4096: 4096-byte sectors (--sector)" \
	"grep -q ', 4096-byte sectors (--sector)\$' '$tmp/f.txt'"

if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null; then
	not_ok "loop device: needs root and losetup (uid $(id -u))"
	tap_end
	exit
fi
if ! ${CC:-cc} -shared -fPIC -o "$tmp/pbsz.so" "$(dirname "$0")/../shims/physical_sector.c" \
	-ldl 2>"$tmp/cc.err"; then
	not_ok "cannot build the BLKPBSZGET shim with ${CC:-cc}" "$tmp/cc.err"
	tap_end
	exit
fi
truncate -s 16M "$tmp/backing"
if ! loop=$(losetup -f --show "$tmp/backing" 2>"$tmp/losetup"); then
	loop=""
	not_ok "losetup failed" "$tmp/losetup"
	tap_end
	exit
fi
dev=${loop#/dev/}
check "the loop device is 512/512 (logical/physical), as this kernel makes them" \
	"[ \$(cat /sys/block/$dev/queue/logical_block_size) -eq 512 ] &&
	 [ \$(cat /sys/block/$dev/queue/physical_block_size) -eq 512 ]"

# Two fills, then a 4 KiB write at byte 409600 (LBA 800, physical sector
# 100) torn after 1 KiB: its last 3 KiB still hold the first fill (origin 77).
"$GUAC" write --force --origin 77 -m "$tmp/u8.json" "$loop" >/dev/null 2>&1 &&
	"$GUAC" write --force --origin 1000 -m "$tmp/u8.json" "$loop" >/dev/null 2>&1
check "two fills written (origins 77, then 1000)" "[ $? -eq 0 ]"
"$GUAC" gen --origin 77 --offset $((409600 + 1024)) --length 3072 |
	dd of="$loop" bs=1024 seek=$((409600 / 1024 + 1)) oflag=direct conv=notrunc status=none

fake() {
	FAKE_PBSZ=4096 LD_PRELOAD=$tmp/pbsz.so "$@"
}

"$GUAC" verify -m "$tmp/u8.json" >"$tmp/plain.txt" 2>&1
check "512/512 as it is: six 512-byte STALE_ORIGIN sectors, 'the device's physical sector'" \
	"[ \$? -eq 1 ] && grep -qx 'classes: 6 STALE_ORIGIN (origin 77)' '$tmp/plain.txt' &&
	 grep -q ', 512-byte sectors (the device.s physical sector)\$' '$tmp/plain.txt'"

fake "$GUAC" verify -m "$tmp/u8.json" >"$tmp/512e.txt" 2>&1
check "512e (shim): one bad 4096-byte sector, TORN after 1024 bytes, the rest origin 77's" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: 1 bad 4096-byte sector in 1 range' '$tmp/512e.txt' &&
	 grep -qx 'classes: 1 TORN' '$tmp/512e.txt' &&
	 grep -q '^  sector 100 (byte 409600): TORN: first 1024 and last 0 bytes right, the 3072 between hold origin 77.s data (stale)' '$tmp/512e.txt'"
check "512e (shim): the report says the sector is the physical one, and the logical size" \
	"grep -q ', 4096-byte sectors (the device.s physical sector; logical 512)\$' '$tmp/512e.txt'"

fake "$GUAC" verify --json -m "$tmp/u8.json" >"$tmp/512e.json" 2>&1
check "512e (shim), --json: sector 4096, its source physical, logical 512, one TORN" \
	"grep -q '\"sector\":4096,\"sector_source\":\"physical\",\"logical_sector\":512,' '$tmp/512e.json' &&
	 grep -q '\"class\":\"TORN\",\"stream_offset\":409600,' '$tmp/512e.json'"

fake "$GUAC" verify --sector 512 -m "$tmp/u8.json" >"$tmp/o512.txt" 2>&1
check "512e (shim), --sector 512: six STALE_ORIGIN again, '(--sector)'" \
	"[ \$? -eq 1 ] && grep -qx 'classes: 6 STALE_ORIGIN (origin 77)' '$tmp/o512.txt' &&
	 grep -q ', 512-byte sectors (--sector)\$' '$tmp/o512.txt'"

# Without a manifest: the same default.
fake "$GUAC" verify --origin 1000 --length 16M "$loop" >"$tmp/nom.txt" 2>&1
check "512e (shim), no manifest: one TORN 4096-byte sector" \
	"[ \$? -eq 1 ] && grep -qx 'classes: 1 TORN' '$tmp/nom.txt' &&
	 grep -q ', 4096-byte sectors (the device.s physical sector; logical 512)\$' '$tmp/nom.txt'"

# --bs must hold whole sectors of the default too; the message says where it came from.
fake "$GUAC" verify --bs 512 -m "$tmp/u8.json" >"$tmp/bs.txt" 2>&1
check "512e (shim), --bs 512: exit 2, the 4096-byte sector named as the physical one" \
	"[ \$? -eq 2 ] && grep -q 'not a multiple of the 4096-byte sector verify reports in (physical; --sector sets it)' '$tmp/bs.txt'"

tap_end
