#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write refuses, before any byte is written, what cannot fit (issue 26):
# a length beyond the file system's free space (a 64 MiB tmpfs), except over
# blocks the file already holds, or with --allow-overcommit; beyond the
# largest file of the file system (ext4: 16 TiB with 4 KiB blocks, about
# 16 GiB with 1 KiB blocks and no extents; lseek finds it), past 2^63-1, beyond a block
# device; more shards than sectors; and --jobs with --bs beyond the machine's memory. Each refusal
# names the numbers, exits 2 and leaves no file and no used space behind.
# Also the regressions of the fuzzers' findings that a shell can show
# (tests/fuzz/regress/ holds every crash input, replayed by make fuzz-short).
# Needs root (mount, losetup): without it the suite fails, naming why. TAP.
set -u
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
mnts=""
loops=""
tap_cleanup() {
	for m in $mnts; do umount "$m" 2>/dev/null; done
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
}
trap 'exit 130' INT TERM

tap_begin
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	not_ok "write fits suite: needs root, losetup and mkfs.ext4 (uid $(id -u))"
	tap_end
	exit $?
fi

# refused NAME EXPECTED-REGEX FILE ARGS...: exit 2, the message, FILE not created.
refused() {
	name=$1 re=$2 file=$3
	shift 3
	"$GUAC" write --origin 0 "$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -eq 2 ] && grep -Eq -e "$re" "$tmp/e" && [ ! -e "$file" ]; then
		ok "$name: $(head -c 300 "$tmp/e")"
	else
		echo "exit $rc, file $(ls -la "$file" 2>&1)" >>"$tmp/e"
		not_ok "$name" "$tmp/e"
	fi
}

# A 64 MiB tmpfs: its free space is exactly what statvfs says.
t=$tmp/tmpfs
mkdir "$t"
if mount -t tmpfs -o size=64m guacfits "$t"; then
	mnts="$t $mnts"
	free=$(($(stat -f -c '%a * %S' "$t")))
	refused "--length 2^63-1 on a 64 MiB tmpfs is refused, naming the free bytes" \
		"refusing to write: 9223372036854775807 bytes .* $free bytes .* available" \
		"$t/f" --length 0x7fffffffffffffff "$t/f"
	check "nothing was written to the tmpfs" "[ \$(stat -f -c %a '$t') -eq $((free / 4096)) ]"
	refused "--length 65M (one MiB more than the file system) is refused" \
		"68157440 bytes .* need 68157440 bytes of new space .* $free bytes" \
		"$t/f" --length 65M "$t/f"
	refused "a T typed for a G: --length 1T" "1099511627776 bytes \\(1.00 TiB\\)" \
		"$t/f" --length 1T "$t/f"
	"$GUAC" write --origin 0 --length 40M "$t/f" >"$tmp/o" 2>&1
	check "--length 40M fits: written (exit 0)" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
	# 24 MiB are free now; writing the same 40 MiB again reuses the file's blocks.
	"$GUAC" write --length 40M --origin 3 "$t/f" >"$tmp/o" 2>&1
	check "rewriting the 40 MiB the file holds needs no new space: written" \
		"[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
	"$GUAC" write --origin 0 --length 70M "$t/f" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "need 31457280 bytes of new space (the file already holds 41943040 of them)" "$tmp/e" &&
		[ "$(stat -c %s "$t/f")" -eq $((40 << 20)) ]; then
		ok "growing it to 70 MiB with 24 MiB free is refused before the file changes: $(head -c 200 "$tmp/e")"
	else
		not_ok "growing to 70 MiB: exit $rc" "$tmp/e"
	fi
	"$GUAC" write --origin 0 --length 50M --seek 30M "$t/g" >"$tmp/o" 2>"$tmp/e"
	check "a new file with --seek needs its --length, not seek + length: 50 MiB refused" \
		"[ \$? -eq 2 ] && grep -q 'need 52428800 bytes of new space' '$tmp/e'"
	rm -f "$t/g"
	"$GUAC" write --origin 0 --length 50M --allow-overcommit "$t/g" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	check "--allow-overcommit skips the check: the write runs and meets ENOSPC (exit 3, no refusal)" \
		"[ $rc -eq 3 ] && ! grep -q refusing '$tmp/e' && grep -q 'No space left' '$tmp/o'"
	rm -f "$t/g" "$t/f"
	refused "past 2^63-1: --seek 2^63-4096 --length 8K" \
		"would end at byte 9223372036854779904 .* past 2\\^63-1" \
		"$t/h" --allow-overcommit --seek 0x7ffffffffffff000 --length 8K "$t/h"
	refused "--jobs 256 --bs 64M for 32 GiB (32 GiB of buffers) beyond this machine's memory" \
		"256 jobs with --bs 67108864 need 34359738368 bytes .* more than this machine's memory" \
		"$t/j" --jobs 256 --bs 64M --length 32G "$t/j"
	"$GUAC" write --origin 0 --jobs 256 --bs 64M --length 32M "$t/j" >"$tmp/o" 2>&1
	check "--jobs 256 --bs 64M for 32 MiB (each job touches 128 KiB of its buffers) is written" \
		"[ \$? -eq 0 ]"
	rm -f "$t/j"
	mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024}' /proc/meminfo)
	if [ "$mem" -gt 32768 ]; then
		not_ok "this machine has more than 32 GiB: the memory refusal above cannot be shown here"
	fi
	"$GUAC" write --origin 0 --jobs 4 --bs 64M --length 1M "$t/j" >"$tmp/o" 2>&1
	check "--jobs 4 --bs 64M for 1 MiB (512 MiB of buffers) is written" "[ \$? -eq 0 ]"
	truncate -s 32G "$t/sparse"
	"$GUAC" verify --buffered --jobs 256 --bs 64M "$t/sparse" >"$tmp/o" 2>"$tmp/e"
	check "verify --jobs 256 --bs 64M of 32 GiB (32 GiB of buffers) is refused too, naming the numbers" \
		"[ \$? -eq 2 ] && grep -q 'needs 34359738368 bytes of buffers' '$tmp/e'"
	rm -f "$t/sparse"
	"$GUAC" verify --jobs 256 --bs 64M --length 1M "$t/j" >"$tmp/o" 2>&1
	check "verify --jobs 256 --bs 64M of that 1 MiB (4 KiB a reader): OK" \
		"[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
	rm -f "$t/j"
else
	not_ok "cannot mount a tmpfs"
fi

# ramfs reports no size at all (statvfs f_blocks 0): nothing to refuse there.
r=$tmp/ramfs
mkdir "$r"
if mount -t ramfs guacfits "$r"; then
	mnts="$r $mnts"
	"$GUAC" write --origin 0 --length 1M "$r/f" >"$tmp/o" 2>&1
	check "ramfs (no size reported): 1 MiB is written, not refused" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
else
	not_ok "cannot mount a ramfs"
fi

# ext4 with 1 KiB blocks and no extents (ext3's layout) holds files up to about 16 GiB.
truncate -s 64M "$tmp/ext3.img"
mkfs.ext4 -q -b 1024 -O ^64bit,^extent,^huge_file,^flex_bg "$tmp/ext3.img"
x=$tmp/ext3
mkdir "$x"
if mount -o loop "$tmp/ext3.img" "$x"; then
	mnts="$x $mnts"
	refused "1 KiB blocks, no extents: 17 GiB (with --allow-overcommit) is past its largest file" \
		"would end at byte 18253611008 .* past the largest file its file system holds" \
		"$x/f" --allow-overcommit --length 17G "$x/f"
	"$GUAC" write --origin 0 --allow-overcommit --length 1M --seek 15G "$x/f" >"$tmp/o" 2>&1
	check "1 KiB blocks: 1 MiB at 15 GiB (below the limit) is written" "[ \$? -eq 0 ]"
	rm -f "$x/f"
else
	not_ok "cannot mount an ext4 image with 1 KiB blocks"
fi

# ext4 with 4 KiB blocks holds files up to 16 TiB - 4 KiB: the ftruncate probe finds it.
truncate -s 64M "$tmp/ext4.img"
mkfs.ext4 -q -b 4096 "$tmp/ext4.img"
e=$tmp/ext4
mkdir "$e"
if mount -o loop "$tmp/ext4.img" "$e"; then
	mnts="$e $mnts"
	refused "ext4: 17 TiB (with --allow-overcommit) is past its largest file, found by the probe" \
		"would end at byte 18691697672192 .* past the largest file its file system holds \\(a seek there is refused\\)" \
		"$e/f" --allow-overcommit --length 17T "$e/f"
	check "the probe left nothing behind" "[ -z \"\$(ls -A '$e' | grep -v lost+found)\" ]"
	"$GUAC" write --origin 0 --allow-overcommit --length 1M --seek 15T "$e/f" >"$tmp/o" 2>&1
	check "ext4: 1 MiB at 15 TiB (a sparse file below the limit) is written" "[ \$? -eq 0 ]"
	rm -f "$e/f"
	refused "ext4: 1 TiB on 64 MiB is refused for free space" \
		"need 1099511627776 bytes of new space .* available" "$e/f" --length 1T "$e/f"
else
	not_ok "cannot mount an ext4 image"
fi

# A block device: its size (this check predates issue 26; the numbers are in the message).
truncate -s 8M "$tmp/blk"
loop=$(losetup -f --show "$tmp/blk")
loops="$loop"
"$GUAC" write --origin 0 --length 9M "$loop" >"$tmp/o" 2>"$tmp/e"
check "a block device: 9 MiB on 8 MiB is refused with both sizes" \
	"[ \$? -eq 2 ] && grep -q '9437184 is past the end of .* (8388608 bytes)' '$tmp/e'"
"$GUAC" write --origin 0 --length 1M --shard 0/2049 "$loop" >"$tmp/o" 2>"$tmp/e"
check "a block device, 1 MiB of it (2048 sectors): --shard 0/2049 is refused naming both, nothing written" \
	"[ \$? -eq 2 ] && grep -q '2049 shards .* 1048576 bytes are only 2048 sectors' '$tmp/e' && cmp -s -n 8388608 '$loop' /dev/zero"
# Unaligned on a disk: what to give, not --buffered (issue 36, U10: a disk
# takes whole sectors in either mode).
"$GUAC" write --origin 0 --seek 100 --length 1000000 -m "$tmp/u.json" "$loop" >"$tmp/o" 2>"$tmp/e"
check "a block device, --seek 100 --length 1000000: refused with aligned values to give, no --buffered advice" \
	"[ \$? -eq 2 ] && grep -q 'is written in whole 512-byte sectors: give --seek, --length and --bs in multiples of 512 (got 100, 1000000, .*for example --seek 0 --length 999936)' '$tmp/e' &&
	 ! grep -q -- '--buffered' '$tmp/e' && [ ! -e '$tmp/u.json' ]"
# Shards that could be written but never merged (issue 35, F11): N above 4096,
# or N x --jobs above the 4096 ranges a merged manifest holds.
"$GUAC" write --origin 0 --shard 0/4097 -m "$tmp/s.json" "$loop" >"$tmp/o" 2>"$tmp/e"
check "--shard 0/4097: refused, at most 4096 (what a merge holds), nothing written" \
	"[ \$? -eq 2 ] && grep -q \"invalid shard count '4097': at most 4096\" '$tmp/e' && [ ! -e '$tmp/s.json' ] && cmp -s -n 8388608 '$loop' /dev/zero"
"$GUAC" write --origin 0 --shard 0/2048 --jobs 3 -m "$tmp/s.json" "$loop" >"$tmp/o" 2>"$tmp/e"
check "--shard 0/2048 --jobs 3: refused, 6144 ranges would not merge, advice that can be followed (2 jobs)" \
	"[ \$? -eq 2 ] && grep -q '2048 shards of 3 jobs each would make 6144 ranges.*use at most 2 jobs per shard' '$tmp/e' && [ ! -e '$tmp/s.json' ]"

# Regressions of fuzz findings, through the tool as users run it.
"$GUAC" gen --length 1M 2>/dev/null | "$GUAC" verify --length 0xffffffffffffffff --shard 1/2 - >"$tmp/o" 2>"$tmp/e"
rc=$?
check "fuzz_shard: shard 1/2 of 2^64-1 bytes is half of them, not 'empty' (SHORT, exit 1)" \
	"[ $rc -eq 1 ] && ! grep -q 'is empty' '$tmp/e'"
"$GUAC" write --origin 0 --length 64K -m "$tmp/m.json" "$tmp/d" >/dev/null 2>&1 &&
	printf 'X' | dd of="$tmp/d" bs=1 seek=100 conv=notrunc status=none &&
	"$GUAC" verify -m "$tmp/m.json" >/dev/null 2>&1
if grep -q '"classes": {' "$tmp/m.json"; then
	sed 's/"classes": {/"classes": {"NOT_A_CLASS": 1, /' "$tmp/m.json" >"$tmp/bad.json"
	"$GUAC" manifest show "$tmp/bad.json" >"$tmp/o" 2>"$tmp/e"
	check "fuzz_manifest: an unknown key in the verify record's classes is named, exit 2" \
		"[ \$? -eq 2 ] && grep -q 'unknown field \"NOT_A_CLASS\" in \"classes\"' '$tmp/e'"
else
	not_ok "the verify record has no classes: $(grep -o '"verify": .*' "$tmp/m.json" | head -c 200)"
fi
tap_end
