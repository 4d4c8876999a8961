#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The I/O engine's pipelines (tools/userspace/storage/io_engine.c): per job, a
# reader thread reads the next block while the job's thread checks the current
# one (verify), and a generator fills the next block while the current one is
# written (write). The oracle is the same check run as one job of one block
# (--jobs 1 --bs LEN), which has nothing to overlap and runs inline on the
# job's one thread; everything must come out the same either way: the bytes written, the findings (ranges, first
# mismatch, --bad-list, unreadable sectors apart from mismatches), SHORT at
# an end of data inside a block, and Ctrl-C mid-check (report, exit 130).
# Unreadable sectors come from a pread() shim (LD_PRELOAD) that fails with
# EIO on a byte range: this kernel may have no device-mapper for dm-error.
# Needs root for the loop device of the Ctrl-C case. TAP output.
set -u
CC=${CC:-cc}
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
loop=""
tap_cleanup() {
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
}
trap 'exit 130' INT TERM

# Drop what differs between two runs of the same check: the timings, and
# the jobs and block size the oracle changes.
stable() {
	sed -e 's/"seconds":[0-9.e+-]*//; s/"bytes_per_second":[0-9.e+-]*//' \
	    -e 's/"cpu_seconds":[0-9.e+-]*//; s/"bytes_per_cpu_second":[0-9.e+-]*//' \
	    -e 's/"jobs":[0-9]*//; s/"block_size":[0-9]*//' "$1"
}

# The oracle's options: one job of one block of the whole 4 MiB (LEN), inline.
INLINE="--jobs 1 --bs 4M"

# both NAME FILE ARGS...: guac verify --json ARGS FILE with the pipeline, and
# as the inline oracle (ARGS, then $INLINE, which overrides their --jobs and --bs);
# $tmp/NAME.on and .off hold the reports, .on.bad and .off.bad the bad lists,
# $rc_on and $rc_off the statuses.
both() {
	name=$1 file=$2
	shift 2
	"$GUAC" verify --json --bad-list "$tmp/$name.on.bad" "$@" "$file" >"$tmp/$name.on" 2>"$tmp/$name.on.err"
	rc_on=$?
	"$GUAC" verify --json --bad-list "$tmp/$name.off.bad" "$@" $INLINE "$file" \
		>"$tmp/$name.off" 2>"$tmp/$name.off.err"
	rc_off=$?
	stable "$tmp/$name.on" >"$tmp/$name.on.s"
	stable "$tmp/$name.off" >"$tmp/$name.off.s"
}

# same NAME: the two runs of both NAME agree on status, report and bad list.
same() {
	[ "$rc_on" -eq "$rc_off" ] && cmp -s "$tmp/$1.on.s" "$tmp/$1.off.s" &&
		cmp -s "$tmp/$1.on.bad" "$tmp/$1.off.bad"
}

tap_begin

# 1. guac write: the same bytes with the generator thread and without.
LEN=$((4 << 20))
"$GUAC" write --origin 0 --buffered --bs 64K --jobs 2 --length $LEN "$tmp/w.on" >/dev/null 2>&1
rc_on=$?
"$GUAC" write --origin 0 --buffered $INLINE --length $LEN "$tmp/w.off" >/dev/null 2>&1
rc_off=$?
check "write, 2 jobs of 32 blocks: the same bytes with and without the pipeline, guac gen's" \
	"[ $rc_on -eq 0 ] && [ $rc_off -eq 0 ] && cmp -s '$tmp/w.on' '$tmp/w.off' && \"$GUAC\" gen --length $LEN | cmp -s - '$tmp/w.on'"

# 2. Mismatches in the first and the last block of each job (2 jobs of 2 MiB,
# 64 KiB blocks): each at its own sector, the first at its byte.
"$GUAC" gen --length $LEN >"$tmp/d"
poke() {
	printf 'Z' | dd of="$tmp/d" bs=1 seek="$1" conv=notrunc status=none
}
H=$((LEN / 2))
for b in 5 $((H - 3)) $((H + 100)) $((LEN - 1)); do poke $b; done
both mm "$tmp/d" --bs 64K --jobs 2
check "mismatches in the first and last blocks of 2 jobs: exit 1, pipelined" "[ $rc_on -eq 1 ]"
check "... the four sectors, at their bytes" \
	"grep -q '\"ranges\":\[{\"start\":0,\"length\":512},{\"start\":$((H - 512)),\"length\":1024},{\"start\":$((LEN - 512)),\"length\":512}\]' '$tmp/mm.on' && grep -q '\"bad_sectors\":4,' '$tmp/mm.on'"
check "... the first mismatch at byte 5" "grep -q '\"first_mismatch\":{\"byte\":5,' '$tmp/mm.on'"
check "... the same report and --bad-list without the pipeline" "same mm"
both mm1 "$tmp/d" --bs 64K --jobs 1
check "the same in one job: 4 bad sectors, first at byte 5, the same without the pipeline" \
	"[ $rc_on -eq 1 ] && grep -q '\"bad_sectors\":4,' '$tmp/mm1.on' && grep -q '\"first_mismatch\":{\"byte\":5,' '$tmp/mm1.on' && same mm1"
both mmd "$tmp/d" --direct --bs 64K --jobs 1
if grep -q 'O_DIRECT' "$tmp/mmd.on.err"; then
	ok "# SKIP direct reads: $(dirname "$tmp") refuses O_DIRECT"
else
	check "--direct, one job: 4 bad sectors, first at byte 5, the same without the pipeline" \
		"[ $rc_on -eq 1 ] && grep -q '\"bad_sectors\":4,' '$tmp/mmd.on' && grep -q '\"first_mismatch\":{\"byte\":5,' '$tmp/mmd.on' && same mmd"
fi
# An unaligned start (--skip 1000: byte 5 is left out; a 24-byte head part, then 3 jobs).
both mms "$tmp/d" --bs 64K --jobs 3 --skip 1000
check "--skip 1000, 3 jobs: the 3 bad sectors after it, the same without the pipeline" \
	"[ $rc_on -eq 1 ] && grep -q '\"bad_sectors\":3,' '$tmp/mms.on' && grep -q '\"first_mismatch\":{\"byte\":$((H - 3)),' '$tmp/mms.on' && same mms"
both max "$tmp/d" --bs 64K --jobs 1 --max-errors 2
check "--max-errors 2: exactly 2, the same without the pipeline" \
	"[ $rc_on -eq 1 ] && grep -q '\"bad_sectors\":2,' '$tmp/max.on' && same max"

# 3. The end of the data inside a block: SHORT at that byte, what was there checked.
"$GUAC" gen --length $((LEN / 2 + 1000)) >"$tmp/s"
both short "$tmp/s" --bs 64K --jobs 1 --length $LEN
check "EOF inside a block: exit 1, short at byte $((LEN / 2 + 1000))" \
	"[ $rc_on -eq 1 ] && grep -q '\"short\":true' '$tmp/short.on' && grep -q '\"bytes_checked\":$((LEN / 2 + 1000)),' '$tmp/short.on'"
check "... the same without the pipeline" "same short"
"$GUAC" verify --bs 64K --jobs 2 --length $LEN "$tmp/s" >"$tmp/short.txt" 2>&1
check "... and in text, 2 jobs: SHORT at its byte" \
	"[ \$? -eq 1 ] && grep -q '^SHORT: the data ends at byte $((LEN / 2 + 1000))' '$tmp/short.txt'"
"$GUAC" verify --direct --bs 64K --jobs 1 --length $LEN "$tmp/s" >"$tmp/shortd.txt" 2>&1
rc=$?
if grep -q 'O_DIRECT' "$tmp/shortd.txt" && [ $rc -eq 2 ]; then
	ok "# SKIP direct reads: $(dirname "$tmp") refuses O_DIRECT"
else
	check "--direct, EOF mid-sector inside a block: SHORT at its byte" \
		"[ $rc -eq 1 ] && grep -q '^SHORT: the data ends at byte $((LEN / 2 + 1000))' '$tmp/shortd.txt'"
fi
# A pipe keeps one thread, and the same answers.
"$GUAC" verify --bs 64K --length $LEN - <"$tmp/s" >"$tmp/shortp.txt" 2>&1
check "a pipe that ends inside a block: SHORT at its byte" \
	"[ \$? -eq 1 ] && grep -q '^SHORT: the data ends at byte $((LEN / 2 + 1000))' '$tmp/shortp.txt'"

# 4. Unreadable sectors (EIO from pread) are listed apart from the mismatches,
# and the sectors around them in the same block are still checked.
cat >"$tmp/eio.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <unistd.h>

/* pread fails with EIO on reads of the file with inode EIO_INO that touch [EIO_LO, EIO_HI). */
ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	const char *ino = getenv("EIO_INO");
	struct stat st;

	if (!real)
		real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	if (ino && !fstat(fd, &st) && st.st_ino == strtoull(ino, NULL, 10) &&
	    off < strtoll(getenv("EIO_HI"), NULL, 10) &&
	    off + (off_t)len > strtoll(getenv("EIO_LO"), NULL, 10)) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, len, off);
}
EOF
if $CC -shared -fPIC -o "$tmp/eio.so" "$tmp/eio.c" -ldl 2>"$tmp/cc.err"; then
	# Sectors 2000-2002 (in the 16th 64 KiB block, job 0 of 2) fail; byte 5 and the rest differ as in 2.
	ino=$(stat -c %i "$tmp/d")
	export EIO_INO=$ino EIO_LO=$((2000 * 512 + 7)) EIO_HI=$((2002 * 512 + 1)) LD_PRELOAD="$tmp/eio.so"
	both eio "$tmp/d" --bs 64K --jobs 2
	unset EIO_INO EIO_LO EIO_HI LD_PRELOAD
	check "EIO on sectors 2000-2002: exit 3, three unreadable sectors in one range" \
		"[ $rc_on -eq 3 ] && grep -q '\"unreadable_sectors\":3,' '$tmp/eio.on' && grep -q '\"unreadable\":\[{\"start\":$((2000 * 512)),\"length\":1536}\]' '$tmp/eio.on'"
	check "... apart from the 4 mismatched sectors, still found around them" \
		"grep -q '\"bad_sectors\":4,' '$tmp/eio.on' && grep -q '^unreadable $((2000 * 512)) ' '$tmp/eio.on.bad' && grep -c '^mismatch ' '$tmp/eio.on.bad' | grep -qx 3"
	check "... the same report and --bad-list without the pipeline" "same eio"
else
	not_ok "cannot build the pread shim with $CC" "$tmp/cc.err"
fi

# 5. Ctrl-C mid-check: the report, exit 130, and no job left behind (the
# process ends). 512-byte direct reads of a 64 MiB loop device take seconds;
# the signal goes once the first MiB is read.
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null; then
	not_ok "Ctrl-C case: needs root and losetup (uid $(id -u))"
else
	BIG=$((64 << 20))
	truncate -s $BIG "$tmp/big"
	if loop=$(losetup -f --show "$tmp/big"); then
		"$GUAC" write --origin 0 "$loop" >/dev/null 2>&1
		# One job and two: the twins of one job, and of each of two.
		for p in 1 2; do
			"$GUAC" verify --direct --bs 512 --jobs $p "$loop" >"$tmp/int$p" 2>&1 &
			pid=$!
			wait_read $pid 1048576
			kill -INT $pid
			wait $pid
			rc=$?
			check "SIGINT mid-check (--jobs $p): exit 130 with the INTERRUPTED report" \
				"[ $rc -eq 130 ] && grep -q '^INTERRUPTED: stopped after' '$tmp/int$p' && grep -q '^mode: direct I/O' '$tmp/int$p'"
		done
		# Ctrl-C as soon as the handler is in place (SigCgt has SIGINT), 16 MiB blocks.
		"$GUAC" verify --direct --bs 16M --jobs 1 "$loop" >"$tmp/int2" 2>&1 &
		pid=$!
		n=0
		while [ $n -lt 1000 ] && ! awk '/^SigCgt/ { exit !(substr($2, 16, 1) ~ /[2367abefABEF]/) }' /proc/$pid/status 2>/dev/null; do
			sleep 0.001
			n=$((n + 1))
		done
		kill -INT $pid
		wait $pid
		rc=$?
		check "SIGINT at the start, 16M blocks: exit 130 or 0, a report, no hang" \
			"{ [ $rc -eq 130 ] && grep -q '^INTERRUPTED:' '$tmp/int2'; } || { [ $rc -eq 0 ] && grep -q '^OK:' '$tmp/int2'; }"
	else
		not_ok "Ctrl-C case: losetup failed"
	fi
fi

tap_end
