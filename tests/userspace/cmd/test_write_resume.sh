#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write --resume (issue 24: a requeued batch task continues its fill):
# an interrupted fill continues from the durable bytes its manifest records
# and writes only the rest (a sector damaged in the durable part stays
# damaged: it was not written again); the result verifies OK; a manifest of
# another fill is refused without writing; a complete one is left alone; no
# manifest yet is a new fill; shards from SLURM_ARRAY_* resume too. TAP.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir


tap_begin
f=$tmp/f m=$tmp/m.json
"$GUAC" write --length 1G --jobs 2 --origin 11 -m "$m" "$f" >"$tmp/o1" 2>&1 &
pid=$!
wait_written $pid 100000000
kill -INT $pid
wait $pid
rc=$?
check "an interrupted fill exits 130" "[ $rc -eq 130 ]"
check "... and its manifest says interrupted" "grep -q '\"status\": \"interrupted\"' '$m'"
done1=$(grep -o '"done": [0-9]*' "$m" | awk '{s += $2} END {print s}')
check "... with some bytes durable, not all ($done1)" "[ $done1 -gt 0 ] && [ $done1 -lt 1073741824 ]"

# Damage the first durable sector: a resume that rewrote it would heal it.
dd if=/dev/zero of="$f" bs=512 seek=0 count=1 conv=notrunc status=none
cp "$m" "$tmp/m.before"
"$GUAC" write --length 1G --origin 11 --resume -m "$m" "$f" >"$tmp/o2" 2>&1
rc=$?
check "--resume completes the fill (exit 0)" "[ $rc -eq 0 ] && grep -q '^OK: 1073741824 of 1073741824' '$tmp/o2'"
check "... says what it resumed" "grep -q \"resuming .* $done1 of 1073741824 bytes already durable\" '$tmp/o2'"
check "... the manifest is complete, started when the first run did" \
	"grep -q '\"status\": \"complete\"' '$m' &&
	 [ \"\$(grep '\"started\"' '$m')\" = \"\$(grep '\"started\"' '$tmp/m.before')\" ]"
"$GUAC" verify -m "$m" --json >"$tmp/v.json" 2>"$tmp/v.err"
rc=$?
check "verify finds exactly the damaged sector: the durable part was not rewritten" \
	"[ $rc -eq 1 ] && grep -q '\"bad_sectors\":1,' '$tmp/v.json' && grep -q '\"ranges\":\[{\"start\":0,\"length\":512}\]' '$tmp/v.json'"
"$GUAC" gen --origin 11 --length 512 | dd of="$f" bs=512 conv=notrunc status=none
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "with that sector repaired the whole fill verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/v'"

"$GUAC" write --length 1G --origin 11 --resume -m "$m" "$f" >"$tmp/o3" 2>&1
check "--resume of a complete fill writes nothing (exit 0)" \
	"[ \$? -eq 0 ] && grep -q '^OK: nothing to resume' '$tmp/o3'"
cp "$m" "$tmp/m.keep"
"$GUAC" write --length 1G --origin 12 --resume -m "$m" "$f" >"$tmp/o4" 2>&1
check "--resume with another origin is refused (exit 2), nothing written" \
	"[ \$? -eq 2 ] && grep -q 'records another fill: its origin differs (recorded' '$tmp/o4' && cmp -s '$m' '$tmp/m.keep'"
"$GUAC" write --length 512M --origin 11 --resume -m "$m" "$f" >"$tmp/o4" 2>&1
check "--resume with another length is refused, with both values" \
	"[ \$? -eq 2 ] && grep -q 'its length differs (recorded 1073741824, given 536870912; without it --resume takes the recorded one)' '$tmp/o4'"
# --resume takes the recorded options (issue 36, U10): an interrupted fill of
# 1 GiB at --seek 4096 with --bs 256K and its origin resumes from the
# manifest alone, and the whole verifies.
p=$tmp/p.img pm=$tmp/p.json
"$GUAC" write --length 1G --seek 4096 --bs 256K --origin 21 -m "$pm" "$p" >/dev/null 2>&1 &
pid=$!
wait_written $pid 50000000
kill -INT $pid
wait $pid
"$GUAC" write --resume -m "$pm" "$p" >"$tmp/o7" 2>&1
rc=$?
check "--resume -m M TARGET alone: the recorded --seek, --length, --bs and origin taken (exit 0)" \
	"[ $rc -eq 0 ] && grep -q '^resuming ' '$tmp/o7' && grep -q '^OK: 1073741824 of 1073741824 bytes .* at device bytes 4096-1073745919 .*origin 21; .* bs 262144' '$tmp/o7'"
"$GUAC" verify -m "$pm" >"$tmp/o8" 2>&1
check "... and the fill verifies whole" "[ \$? -eq 0 ] && grep -q '^OK: 1073741824 bytes' '$tmp/o8'"
rm -f "$p"
"$GUAC" write --length 1M --origin 11 --resume "$tmp/g" >"$tmp/o5" 2>&1
check "--resume without --manifest is a usage error" \
	"[ \$? -eq 2 ] && grep -q 'resume needs --manifest' '$tmp/o5' && [ ! -e '$tmp/g' ]"
"$GUAC" write --length 1M --origin 11 --resume -m "$tmp/g.json" "$tmp/g" >"$tmp/o6" 2>&1
check "--resume with no manifest yet is a new fill" \
	"[ \$? -eq 0 ] && grep -q 'nothing to resume, a new fill' '$tmp/o6' && grep -q '\"status\": \"complete\"' '$tmp/g.json'"

# A Slurm array task (shard 1 of 3, --array=2-8:3) interrupted and requeued.
s=$tmp/s sm=$tmp/s1.json
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_STEP=3 \
	"$GUAC" write --length 1500M --origin 13 -m "$sm" "$s" >"$tmp/o7" 2>&1 &
pid=$!
wait_written $pid 50000000
kill -INT $pid
wait $pid
check "an array task (shard 1/3) interrupted" "[ \$? -eq 130 ] && grep -q '\"shard\": {\"index\": 1, \"count\": 3}' '$sm'"
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_STEP=3 \
	"$GUAC" write --length 1500M --origin 13 --resume -m "$sm" "$s" >"$tmp/o8" 2>&1
check "... resumes from the same variables" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o8'"
"$GUAC" verify -m "$sm" >"$tmp/v2" 2>&1
check "... and its part verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/v2'"
SLURM_ARRAY_TASK_ID=8 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_STEP=3 \
	"$GUAC" write --length 1500M --origin 13 --resume -m "$sm" "$s" >"$tmp/o9" 2>&1
check "another task's shard does not resume this one's manifest" \
	"[ \$? -eq 2 ] && grep -q 'its shard differs' '$tmp/o9'"
# A writer killed without a word (SIGKILL; Slurm cancelling a task whose node
# went down): the manifest, still "running", records the bytes made durable
# meanwhile (GUAC_CHECKPOINT_SECONDS, default 10), and --resume goes on from them.
k=$tmp/k km=$tmp/k.json
GUAC_CHECKPOINT_SECONDS=0.2 "$GUAC" write --length 2G --jobs 2 --origin 14 -m "$km" "$k" >"$tmp/k1" 2>&1 &
pid=$!
recorded() { grep -o '"done": [0-9]*' "$km" 2>/dev/null | awk '{s += $2} END {print s + 0}'; }
for i in $(seq 300); do
	[ "$(recorded)" -gt 0 ] && break
	sleep 0.1
done
kill -KILL $pid
wait $pid 2>/dev/null
kdone=$(recorded)
check "a killed writer's manifest says running, with durable bytes recorded meanwhile ($kdone)" \
	"grep -q '\"status\": \"running\"' '$km' && [ $kdone -gt 0 ] && [ $kdone -lt 2147483648 ]"
"$GUAC" write --length 2G --origin 14 --resume -m "$km" "$k" >"$tmp/k2" 2>&1
check "... --resume goes on from them, not from 0" \
	"[ \$? -eq 0 ] && grep -q \"resuming .* (running): $kdone of 2147483648 bytes already durable\" '$tmp/k2'"
"$GUAC" verify -m "$km" >"$tmp/k3" 2>&1
check "... and the whole verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/k3'"
rm -f "$k"
# A resume that fails (its target removed meanwhile: nothing counts durable)
# reports the rate of the bytes it wrote, not of "0 minus those resumed"
# (issue 40: "1736438752.54 GB/s").
r=$tmp/r rm_=$tmp/r.json
"$GUAC" write --length 1G --origin 17 -m "$rm_" "$r" >"$tmp/r1" 2>&1 &
pid=$!
wait_written $pid 50000000
kill -INT $pid
wait $pid
"$GUAC" write --length 1G --origin 17 --resume -m "$rm_" "$r" >"$tmp/r2" 2>&1 &
pid=$!
wait_written $pid 30000000
rm -f "$r"
wait $pid
rc=$?
rate=$(sed -n 's/^DURABLE: .* s, \([0-9.]*\) \([MG]\)B\/s$/\1 \2/p' "$tmp/r2")
check "a resume whose target is removed: FAILED, with a rate this machine can write ($rate B/s)" \
	"[ $rc -eq 2 ] && grep -q 'removed or replaced' '$tmp/r2' &&
	 echo '$rate' | awk '{exit !(NF == 2 && (\$2 == \"M\" || \$1 < 100))}'"
GUAC_CHECKPOINT_SECONDS=x "$GUAC" write --length 1M -m "$tmp/x.json" "$tmp/x" >"$tmp/o" 2>&1
check "GUAC_CHECKPOINT_SECONDS=x: refused (status 2)" "[ \$? -eq 2 ] && grep -q 'invalid GUAC_CHECKPOINT_SECONDS' '$tmp/o'"
# A failed fsync is reported once per open file, so the one at the end can
# succeed over data a checkpoint's fsync lost. A shim fails the target's
# first fsync with EIO (the manifest's own fsyncs pass) and slows its
# writes (shims/slow_pwrite.c) so that checkpoints happen: the run must fail,
# never say durable.
CC=${CC:-cc}
cat >"$tmp/fsynceio.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

static int is_target(int fd)
{
	struct stat st;
	const char *ino = getenv("EIO_INO");

	return ino && !fstat(fd, &st) && st.st_ino == strtoull(ino, NULL, 10);
}

int fsync(int fd)
{
	static int failed;
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	if (is_target(fd) && !__atomic_exchange_n(&failed, 1, __ATOMIC_SEQ_CST)) {
		errno = EIO;
		return -1;
	}
	return real(fd);
}
EOF
e=$tmp/e em=$tmp/e.json
: >"$e"
shims=$(cd "$(dirname "$0")/../shims" && pwd)
if $CC -shared -fPIC -o "$tmp/fsynceio.so" "$tmp/fsynceio.c" "$shims/slow_pwrite.c" -ldl 2>"$tmp/cc.err"; then
	EIO_INO=$(stat -c %i "$e") SLOW_INO=$(stat -c %i "$e") LD_PRELOAD="$tmp/fsynceio.so" GUAC_CHECKPOINT_SECONDS=0.1 \
		"$GUAC" write --length 32M --bs 64K --origin 15 -m "$em" "$e" >"$tmp/e1" 2>&1
	rc=$?
	check "a checkpoint's fsync fails with EIO, the last one passes: exit 3, FAILED: fsync, nothing durable" \
		"[ $rc -eq 3 ] && grep -q '^FAILED: fsync: Input/output error' '$tmp/e1' && ! grep -q '^OK' '$tmp/e1' &&
		 grep -q '\"status\": \"failed\"' '$em' && [ \$(grep -o '\"done\": [0-9]*' '$em' | awk '{s += \$2} END {print s + 0}') -eq 0 ]"
else
	not_ok "cannot build the fsync shim with $CC" "$tmp/cc.err"
fi
rm -f "$e"
# The checkpoints and the waits between them are on the monotonic clock
# (issue 40): a shim steps the wall clock an hour back 0.5 s into the fill
# (CLOCK_REALTIME reads an hour ahead of the kernel's from then on: a
# deadline taken from it lies an hour away, as after a real step back) and
# slows the target's writes (shims/slow_pwrite.c), so that the fill lasts. The manifest must keep
# recording durable bytes after the step; a wait on a wall-clock deadline
# recorded none until the fill ended.
cat >"$tmp/clockstep.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static struct timespec t0;
	int (*real)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	struct timespec mono;
	int ret = real(id, ts);

	if (ret || id != CLOCK_REALTIME)
		return ret;
	real(CLOCK_MONOTONIC, &mono);
	if (!t0.tv_sec)
		t0 = mono;
	if ((mono.tv_sec - t0.tv_sec) * 1000000000L + (mono.tv_nsec - t0.tv_nsec) >= 500000000L)
		ts->tv_sec += 3600;
	return ret;
}
EOF
c=$tmp/c cm=$tmp/c.json
: >"$c"
if $CC -shared -fPIC -o "$tmp/clockstep.so" "$tmp/clockstep.c" "$shims/slow_pwrite.c" -ldl 2>"$tmp/cc.err"; then
	SLOW_INO=$(stat -c %i "$c") SLOW_NS=3000000 LD_PRELOAD="$tmp/clockstep.so" GUAC_CHECKPOINT_SECONDS=0.2 \
		"$GUAC" write --length 1G --bs 64K --origin 16 -m "$cm" "$c" >"$tmp/c1" 2>&1 &
	pid=$!
	rec() { grep -o '"done": [0-9]*' "$cm" 2>/dev/null | awk '{s += $2} END {print s + 0}'; }
	sleep 1.5	# the step came at 0.5 s
	before=$(rec)
	for i in $(seq 50); do
		[ "$(rec)" -gt "$before" ] && break
		sleep 0.1
	done
	after=$(rec)
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "the wall clock stepped back an hour mid-write: checkpoints keep coming ($before, then $after bytes recorded)" \
		"[ $after -gt $before ] && grep -q '\"status\": \"running\"' '$cm'"
else
	not_ok "cannot build the clock shim with $CC" "$tmp/cc.err"
fi
rm -f "$c"
tap_end
