#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write --verify-backlog N (issue 37, item 2): verify while writing, as
# fio's verify_backlog. Each job reads a block back once N more of its own
# are written (the rest at the end) and compares it with the stream. A clean
# fill reads every block back, finds nothing and leaves guac gen's bytes; a
# disk that stores a byte wrong (the corrupt_pwrite shim: the file gets the
# byte inverted, the writer's buffer stays right) is caught at that byte:
# with stop, exit 1, the fill stops and the manifest says failed, where, and
# only the good blocks before it done; with continue, the fill completes and
# the mismatch is counted. With --jobs 3, and with --pattern random --passes
# 2 (read back from where each block landed). Bad input is refused, nothing
# written. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

CC=${CC:-cc}
shims=$(cd "$(dirname "$0")/../shims" && pwd)
bs=4096

tap_begin

# A clean sequential fill: 256 blocks, all read back, none wrong, gen's bytes.
f=$tmp/f m=$tmp/m.json
"$GUAC" write --origin 7 --bs $bs --length 1M --verify-backlog 8 --progress none -m "$m" \
	"$f" >"$tmp/o" 2>&1
rc=$?
check "a clean fill with --verify-backlog 8 exits 0 and says OK" \
	"[ $rc -eq 0 ] && grep -q '^OK: 1048576 of 1048576' '$tmp/o'"
check "... and read back all 256 blocks, 0 mismatches" \
	"grep -q '^read back: 256 blocks (1048576 bytes), 0 mismatches; ' '$tmp/o'"
"$GUAC" gen --origin 7 --length 1M >"$tmp/ref"
check "... its bytes are guac gen's" "cmp -s '$tmp/ref' '$f'"
# The read-back bypasses the page cache wherever the file system allows O_DIRECT reads.
if dd if="$f" of=/dev/null iflag=direct bs=4096 count=1 status=none 2>/dev/null; then
	check "... read back with O_DIRECT (the file system takes direct reads)" \
		"grep -q '^read back: .*; O_DIRECT, 8 blocks behind\$' '$tmp/o'"
else
	check "... read back through the page cache, said (no direct reads here)" \
		"grep -q '^read back: .*; buffered (the page cache may answer), 8 blocks behind\$' '$tmp/o'"
fi
check "... the manifest says complete" "grep -q '^  \"status\": \"complete\",' '$m'"

# Without the option: no read-back line.
rm -f "$f" "$m"
"$GUAC" write --origin 7 --bs $bs --length 1M --progress none "$f" >"$tmp/o" 2>&1
check "control: without --verify-backlog nothing is read back (no read back line)" \
	"! grep -q '^read back' '$tmp/o'"

# The JSON report has the counts.
rm -f "$f"
"$GUAC" write --origin 7 --bs $bs --length 1M --verify-backlog 3 --json --progress none \
	"$f" >"$tmp/o" 2>&1
check "--json: read_back_blocks 256, mismatches 0" \
	"grep -q '\"verify_backlog\":3,\"read_back_blocks\":256,\"read_back_bytes\":1048576,\"mismatches\":0' '$tmp/o'"

if ! $CC -shared -fPIC -o "$tmp/corrupt.so" "$shims/corrupt_pwrite.c" -ldl 2>"$tmp/cc.err"; then
	not_ok "cannot build the corrupt_pwrite shim with $CC" "$tmp/cc.err"
	tap_end
	exit
fi

# corrupt_write BYTE ARGS...: guac write ARGS to a fresh $f whose byte BYTE the disk stores wrong.
corrupt_write() {
	at=$1
	shift
	rm -f "$f" "$m"
	: >"$f"
	CORRUPT_INO=$(stat -c %i "$f") CORRUPT_AT=$at LD_PRELOAD="$tmp/corrupt.so" \
		"$GUAC" write --origin 7 --bs $bs --length 1M --progress none -m "$m" "$@" "$f" \
		>"$tmp/o" 2>&1
}

# The shim really corrupts, and only with it does the check see anything.
corrupt_write 300000
rc=$?
check "control: the shim alone: a fill without --verify-backlog sees nothing (exit 0)" \
	"[ $rc -eq 0 ] && ! cmp -s '$tmp/ref' '$f' &&
	 [ \"\$(cmp '$tmp/ref' '$f' | sed 's/.*byte \\([0-9]*\\).*/\\1/')\" = 300001 ]"

# stop (the default): exit 1 at byte 300000 (block 299008-303103), the fill stops.
corrupt_write 300000 --verify-backlog 8
rc=$?
check "stop: a byte stored wrong at 300000 exits 1" "[ $rc -eq 1 ]"
check "... the report names the block's device bytes and the first differing byte" \
	"grep -q '^FAILED: a block read back differs from the stream: device bytes 299008-303103, first differing byte 300000 (sector 585); the fill stopped there' '$tmp/o'"
check "... it counts one mismatch" "grep -q '^read back: [0-9]* blocks ([0-9]* bytes), 1 mismatch; ' '$tmp/o'"
size=$(stat -c %s "$f")
check "... the fill stopped soon after (at most 8 + 2 blocks past it written)" \
	"[ $rc -eq 1 ] && [ $size -ge 303104 ] && [ $size -le $((303104 + 10 * bs)) ]"
check "... the manifest records it failed, with where" \
	"grep -q '^  \"status\": \"failed\",' '$m' &&
	 grep -q '^  \"error\": \"read back differs: device bytes 299008-303103, first at byte 300000\",' '$m'"
check "... and only the good blocks before it done" "grep -q '\"done\": 299008,' '$m'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
rc=$?
check "... guac verify: incomplete, and what the manifest calls done matches (the bad block is not in it)" \
	"[ $rc -eq 1 ] && grep -q '^INCOMPLETE: .*they all match the stream' '$tmp/v'"

# continue: the fill completes, the mismatch counted.
corrupt_write 300000 --verify-backlog 8 --verify-backlog-on-error continue
rc=$?
check "continue: exit 1, the fill completes (all 1 MiB durable)" \
	"[ $rc -eq 1 ] && grep -q '^DURABLE: 1048576 of 1048576' '$tmp/o'"
check "... all 256 blocks read back, 1 mismatch, at the right place" \
	"grep -q '^read back: 256 blocks (1048576 bytes), 1 mismatch; ' '$tmp/o' &&
	 grep -q 'device bytes 299008-303103, first differing byte 300000 (sector 585); 1 block differs, the fill went on' '$tmp/o'"
check "... the manifest says failed, with where, all done" \
	"grep -q '^  \"status\": \"failed\",' '$m' && grep -q '\"done\": 1048576,' '$m' &&
	 grep -q 'read back differs: device bytes 299008-303103, first at byte 300000' '$m'"

# The last blocks are read back at the end: a byte in the last block.
corrupt_write 1048570 --verify-backlog 8
rc=$?
check "a byte stored wrong in the last block is caught at the end (exit 1, byte 1048570)" \
	"[ $rc -eq 1 ] && grep -q 'device bytes 1044480-1048575, first differing byte 1048570 ' '$tmp/o'"

# A block that cannot be read back: the target's I/O failed (exit 3), at the block.
CORRUPT_EIO=1 corrupt_write 300000 --verify-backlog 8
rc=$?
check "a read-back that fails with EIO: exit 3, named at the block's first byte" \
	"[ $rc -eq 3 ] && grep -q '^FAILED: Input/output error at device byte 299008 ' '$tmp/o' &&
	 grep -q '^  \"error\": \"Input/output error\",' '$m'"

# --jobs 3, clean and corrupt (job 1's part).
rm -f "$f" "$m"
"$GUAC" write --origin 7 --bs $bs --length 1M --jobs 3 --verify-backlog 5 --progress none \
	-m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--jobs 3 clean: exit 0, every block read back (258: 3 parts, ends not whole), bytes gen's" \
	"[ $rc -eq 0 ] && grep -q '^read back: 258 blocks (1048576 bytes), 0 mismatches; ' '$tmp/o' &&
	 cmp -s '$tmp/ref' '$f'"
corrupt_write 500000 --jobs 3 --verify-backlog 5 --verify-backlog-on-error continue
rc=$?
check "--jobs 3 continue: the byte at 500000 is caught in its block, the fill completes" \
	"[ $rc -eq 1 ] && grep -q 'first differing byte 500000 ' '$tmp/o' &&
	 grep -q '^read back: 258 blocks (1048576 bytes), 1 mismatch; ' '$tmp/o'"
corrupt_write 500000 --jobs 3 --verify-backlog 5
rc=$?
check "--jobs 3 stop: exit 1, caught at 500000, the fill short of the whole" \
	"[ $rc -eq 1 ] && grep -q 'first differing byte 500000 ' '$tmp/o' &&
	 ! grep -q '^DURABLE: 1048576 of' '$tmp/o'"

# --pattern random --passes 2: read back from where each block landed.
rm -f "$f" "$m"
"$GUAC" write --pattern random --seed 9 --passes 2 --bs $bs --length 1M --jobs 2 \
	--verify-backlog 4 --progress none -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
o=$(sed -n 's/^  "origin": \([0-9]*\),$/\1/p' "$m")
"$GUAC" gen --origin "$o" --length 1M >"$tmp/ref2"
check "random, 2 passes, clean: exit 0, 512 blocks read back, 0 mismatches, gen's bytes" \
	"[ $rc -eq 0 ] && grep -q '^read back: 512 blocks (2097152 bytes), 0 mismatches; ' '$tmp/o' &&
	 cmp -s '$tmp/ref2' '$f'"
rm -f "$f" "$m"
: >"$f"
CORRUPT_INO=$(stat -c %i "$f") CORRUPT_AT=700000 LD_PRELOAD="$tmp/corrupt.so" \
	"$GUAC" write --pattern random --seed 9 --passes 2 --bs $bs --length 1M --jobs 2 \
	--verify-backlog 4 --verify-backlog-on-error continue --progress none -m "$m" "$f" \
	>"$tmp/o" 2>&1
rc=$?
check "random, 2 passes, continue: the byte at 700000 caught in each pass (2 mismatches)" \
	"[ $rc -eq 1 ] && grep -q '^read back: 512 blocks (2097152 bytes), 2 mismatches; ' '$tmp/o' &&
	 grep -q 'device bytes 696320-700415, first differing byte 700000 ' '$tmp/o'"
rm -f "$f" "$m"
: >"$f"
CORRUPT_INO=$(stat -c %i "$f") CORRUPT_AT=700000 LD_PRELOAD="$tmp/corrupt.so" \
	"$GUAC" write --pattern random --seed 9 --passes 2 --bs $bs --length 1M --jobs 2 \
	--verify-backlog 4 --progress none -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "random, stop: exit 1 in the first pass, the manifest failed with where" \
	"[ $rc -eq 1 ] && grep -q 'pass 1 of 2' '$tmp/o' &&
	 grep -q 'read back differs: device bytes 696320-700415, first at byte 700000' '$m'"

# The read-back's buffers count in the memory check: a plan that fits in
# this machine's memory with two blocks a job, not with four, is refused.
kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)
jobs=$((kb / (128 * 1024)))
if [ "$jobs" -ge 1 ] && [ "$jobs" -le 256 ]; then
	rm -f "$f"
	"$GUAC" write --dry-run --allow-overcommit --origin 1 --jobs $jobs --bs 64M \
		--length $((jobs * (64 << 20))) "$f" >"$tmp/o" 2>&1
	rc1=$?
	"$GUAC" write --dry-run --allow-overcommit --origin 1 --jobs $jobs --bs 64M \
		--length $((jobs * (64 << 20))) --verify-backlog 2 "$f" >"$tmp/o" 2>&1
	rc=$?
	check "$jobs jobs of 64 MiB blocks: planned without --verify-backlog, refused with it (four blocks a job)" \
		"[ $rc1 -eq 0 ] && [ $rc -eq 2 ] && grep -q '(four, with --verify-backlog.s two blocks a job)' '$tmp/o'"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP this machine's memory needs more than 256 jobs of 64 MiB blocks to fill"
fi

# Bad input: refused with a message, exit 2, nothing written.
bad() {
	rm -f "$f" "$m"
	"$GUAC" write --origin 7 --bs $bs --length 1M --progress none -m "$m" "$@" "$f" \
		>"$tmp/o" 2>&1
	rc=$?
	[ $rc -eq 2 ] && [ ! -e "$f" ] && [ ! -e "$m" ]
}
check "--verify-backlog -1 is refused (exit 2, nothing written)" \
	"bad --verify-backlog -1 && grep -q \"invalid verify-backlog '-1': expected a non-negative number\" '$tmp/o'"
check "--verify-backlog foo is refused" \
	"bad --verify-backlog foo && grep -q \"invalid verify-backlog 'foo': expected a non-negative number\" '$tmp/o'"
check "--verify-backlog 2000000 (past 1048576) is refused" \
	"bad --verify-backlog 2000000 && grep -q 'invalid --verify-backlog 2000000: expected 0 (off) to 1048576 blocks' '$tmp/o'"
check "--verify-backlog 64M counts blocks: 67108864, refused" \
	"bad --verify-backlog 64M && grep -q 'invalid --verify-backlog 67108864: ' '$tmp/o'"
check "--verify-backlog-on-error maybe is refused" \
	"bad --verify-backlog 4 --verify-backlog-on-error maybe &&
	 grep -q \"invalid --verify-backlog-on-error 'maybe': expected stop or continue\" '$tmp/o'"

tap_end
