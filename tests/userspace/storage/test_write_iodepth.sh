#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write --iodepth N (issue 37, item 1): each job keeps up to N writes in
# flight through io_uring (storage/io_uring.c). Fills with depths 1, 4 and
# 32, 1 and 3 jobs, sequential and random, buffered and (where the file
# system takes it) O_DIRECT, give guac gen's bytes and a manifest guac
# verify -m finds OK. io_uring is really used (the uring_fault shim on
# io_uring_submit sees the writes); GUAC_IO_URING=off falls back to pwrite,
# says so and writes the same bytes. A write that fails mid-fill (the shim
# sends it to /dev/full: ENOSPC, while the writes queued after it succeed)
# ends the job with only the contiguous prefix before it recorded done, which
# verify finds matching and --resume completes; a short write is finished;
# the writes queued in one turn go in one submit (the shim counts them);
# Ctrl-C stops with exit 130 and a manifest that resumes. Bad input is
# refused, nothing written. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

CC=${CC:-cc}
shims=$(cd "$(dirname "$0")/../shims" && pwd)
bs=65536
len=4194304
f=$tmp/f m=$tmp/m.json

tap_begin

"$GUAC" gen --origin 5 --length $len >"$tmp/ref"

# fill DESC ARGS...: a fresh fill of $len at origin 5, checked against gen and verify.
fill() {
	desc=$1
	shift
	rm -f "$f" "$m"
	"$GUAC" write --origin 5 --bs $bs --length $len --progress none -m "$m" "$@" "$f" \
		>"$tmp/o" 2>"$tmp/e"
	rc=$?
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	vrc=$?
	check "$desc: exit 0, guac gen's bytes, verify -m OK" \
		"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' && [ $vrc -eq 0 ] && grep -q '^OK: ' '$tmp/v'"
}

for pattern in sequential random; do
	for jobs in 1 3; do
		for depth in 1 4 32; do
			fill "--pattern $pattern --jobs $jobs --iodepth $depth" \
				--pattern $pattern --jobs $jobs --iodepth $depth
		done
	done
done
check "the report names the engine: io_uring, queue depth 32" \
	"grep -q ', 3 jobs, io_uring, queue depth 32, bs 65536,' '$tmp/o'"
check "... the manifest records the depth: version 8, workload random with iodepth 32" \
	"grep -q '\"version\": 8,' '$m' && grep -q '^  \"workload\": {\"pattern\": \"random\", .*, \"iodepth\": 32}' '$m' &&
	 '$GUAC' manifest show '$m' | grep -q '^# written with up to 32 writes in flight a job'"
fill "--iodepth 8, sequential" --iodepth 8
check "... a sequential fill at depth 8: version 8, workload {pattern sequential, iodepth 8}" \
	"grep -q '\"version\": 8,' '$m' && grep -q '^  \"workload\": {\"pattern\": \"sequential\", \"iodepth\": 8}' '$m'"
fill "--iodepth 1 (the default)" --iodepth 1
check "... the report says pwrite, queue depth 1" \
	"grep -q ', 1 job, pwrite, queue depth 1, bs 65536,' '$tmp/o'"
check "... and the manifest stays version 7, no workload (one write at a time)" \
	"grep -q '\"version\": 7,' '$m' && ! grep -q workload '$m'"
fill "--iodepth 8 --sync --pattern random --passes 3 --jobs 2" --iodepth 8 --sync \
	--pattern random --passes 3 --jobs 2

# O_DIRECT where the file system takes it.
: >"$tmp/probe"
if dd if=/dev/zero of="$tmp/probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null; then
	fill "--direct --iodepth 32 --jobs 3" --direct --iodepth 32 --jobs 3
	check "... the report says direct I/O" "grep -q '; direct I/O, 3 jobs, io_uring, queue depth 32' '$tmp/o'"
	fill "--direct --iodepth 16 --pattern random --passes 2" --direct --iodepth 16 \
		--pattern random --passes 2
else
	ok "# SKIP O_DIRECT: the file system of $tmp refuses it (buffered tested above)"
fi

# --json and --dry-run say the engine.
rm -f "$f"
"$GUAC" write --origin 5 --bs $bs --length $len --iodepth 4 --json "$f" >"$tmp/o" 2>&1
check "--json: \"engine\":\"io_uring\",\"iodepth\":4" "grep -q '\"engine\":\"io_uring\",\"iodepth\":4,' '$tmp/o'"
rm -f "$f"
"$GUAC" write --origin 5 --bs $bs --length $len --iodepth 4 --dry-run "$f" >"$tmp/o" 2>&1
check "--dry-run: 'engine:   io_uring, queue depth 4 a job', nothing written" \
	"grep -q '^engine:   io_uring, queue depth 4 a job\$' '$tmp/o' && [ ! -e '$f' ]"

# Bad input: a message naming the problem, exit 2, no target.
for bad in 0 257 abc; do
	rm -f "$f"
	"$GUAC" write --origin 5 --length $len --iodepth $bad "$f" >"$tmp/o" 2>&1
	rc=$?
	check "--iodepth $bad: exit 2, said, nothing written" \
		"[ $rc -eq 2 ] && grep -q 'invalid.*iodepth' '$tmp/o' && [ ! -e '$f' ]"
done
"$GUAC" write --origin 5 --length $len --iodepth 4 --verify-backlog 2 "$f" >"$tmp/o" 2>&1
rc=$?
check "--iodepth 4 with --verify-backlog: refused (exit 2), nothing written" \
	"[ $rc -eq 2 ] && grep -q 'not with --iodepth 4' '$tmp/o' && [ ! -e '$f' ]"
# The memory check counts a buffer a write in flight: 4 jobs of 64 MiB blocks take
# 512 MiB at depth 1, and 256 times that at depth 256, more than any test machine has.
mem=$(awk '/^MemTotal:/ {printf "%d\n", $2 * 1024}' /proc/meminfo)
rm -f "$f"
"$GUAC" write --origin 5 --bs 64M --jobs 4 --length 1T --allow-overcommit --dry-run "$f" \
	>"$tmp/o1" 2>&1
rc1=$?
"$GUAC" write --origin 5 --bs 64M --jobs 4 --iodepth 256 --length 1T --allow-overcommit \
	--dry-run "$f" >"$tmp/o" 2>&1
rc=$?
if [ "$mem" -lt $((4 * 256 * 67108864)) ]; then
	check "4 jobs of 64 MiB blocks: planned at depth 1, refused at --iodepth 256 (256 blocks a job)" \
		"[ $rc1 -eq 0 ] && [ $rc -eq 2 ] &&
		 grep -q '(256 blocks a job, one a write in flight (--iodepth 256)), more than this machine.s memory' '$tmp/o' &&
		 [ ! -e '$f' ]"
else
	ok "# SKIP the memory check: this machine has more than 64 GiB"
fi
GUAC_IO_URING=maybe "$GUAC" write --origin 5 --length $len --iodepth 4 "$f" >"$tmp/o" 2>&1
rc=$?
check "GUAC_IO_URING=maybe: refused (exit 2), nothing written" \
	"[ $rc -eq 2 ] && grep -q \"invalid GUAC_IO_URING 'maybe'\" '$tmp/o' && [ ! -e '$f' ]"

# A file size limit (ulimit -f: a short write, then EFBIG) ends a fill through io_uring
# as it ends one through pwrite: the same FAILED line, the same durable bytes.
for depth in 1 8; do
	rm -f "$f" "$m"
	(ulimit -f 2000 && "$GUAC" write --origin 5 --bs $bs --length $len --iodepth $depth \
		--progress none -m "$m" "$f") >"$tmp/o$depth" 2>&1
	echo $? >"$tmp/rc$depth"
	sed -n 's/.*"done": \([0-9]*\),.*/\1/p' "$m" >"$tmp/done$depth"
done
check "ulimit -f: --iodepth 8 fails as --iodepth 1 does (exit 3, the same FAILED line and done)" \
	"[ \$(cat '$tmp/rc1') -eq 3 ] && [ \$(cat '$tmp/rc8') -eq 3 ] &&
	 grep -q '^FAILED: File too large at device byte ' '$tmp/o8' &&
	 [ \"\$(grep ^FAILED '$tmp/o1')\" = \"\$(grep ^FAILED '$tmp/o8')\" ] &&
	 [ -s '$tmp/done8' ] && cmp -s '$tmp/done1' '$tmp/done8'"

if ! $CC -shared -fPIC -o "$tmp/uf.so" "$shims/uring_fault.c" -ldl 2>"$tmp/cc.err"; then
	not_ok "cannot build the uring_fault shim with $CC (liburing-dev?)" "$tmp/cc.err"
	tap_end
	exit
fi
log=$tmp/log

# shim ARGS...: guac write ARGS under the shim, its writes logged; with $prefill set,
# over a target that holds another origin's bytes (no hole, so nothing but
# the writer's own accounting says which blocks were written).
prefill=
shim() {
	rm -f "$f" "$m" "$log"
	[ -z "$prefill" ] || "$GUAC" gen --origin 999 --length $len >"$f"
	URING_LOG=$log LD_PRELOAD="$tmp/uf.so" "$GUAC" write --origin 5 --bs $bs --length $len \
		--progress none -m "$m" "$@" "$f" >"$tmp/o" 2>"$tmp/e"
}

shim --iodepth 8
check "io_uring really writes: the shim saw all 64 writes of --iodepth 8" \
	"[ \$(wc -l <'$log') -eq 64 ] && cmp -s '$tmp/ref' '$f'"
# Batched submits: the writes queued in one turn go in one io_uring_submit (the
# first turn fills the queue: 8 writes); under --rate each goes at its turn.
batch=$tmp/batch
rm -f "$batch"
URING_BATCH_LOG=$batch shim --iodepth 8
check "one submit for the writes queued together: the first hands the kernel all 8 ($(head -1 "$batch" 2>/dev/null))" \
	"[ \"\$(head -1 '$batch')\" = 8 ] && [ \$(awk '{ n += \$1 } END { print n }' '$batch') -eq 64 ] &&
	 cmp -s '$tmp/ref' '$f'"
rm -f "$batch"
URING_BATCH_LOG=$batch shim --iodepth 8 --rate 64M
check "... under --rate one write a submit, at its turn (64 submits of 1)" \
	"[ \$(grep -c '^1\$' '$batch') -eq 64 ] && [ \$(wc -l <'$batch') -eq 64 ] && cmp -s '$tmp/ref' '$f'"
shim --iodepth 1
check "control: --iodepth 1 writes with pwrite (the shim saw no io_uring write)" \
	"[ ! -s '$log' ] && cmp -s '$tmp/ref' '$f'"

# The fallback: forced, said once, the same bytes.
GUAC_IO_URING=off shim --iodepth 8 --jobs 3
rc=$?
check "GUAC_IO_URING=off: exit 0, guac gen's bytes, no io_uring write" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' && [ ! -s '$log' ]"
check "... said once on stderr: io_uring unavailable, 3 threads, queue depth 1 each" \
	"[ \$(grep -c 'io_uring unavailable' '$tmp/e') -eq 1 ] &&
	 grep -q 'io_uring unavailable (GUAC_IO_URING=off): writing with 3 threads, queue depth 1 each' '$tmp/e'"
check "... the report says pwrite, queue depth 1" "grep -q ', 3 jobs, pwrite, queue depth 1,' '$tmp/o'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... verify -m OK" "grep -q '^OK: ' '$tmp/v'"

# io_uring refused where the ring is set up (the shim's io_uring_queue_init).
URING_INIT_ERRNO=38 shim --iodepth 8 --jobs 2
rc=$?
check "no io_uring (ENOSYS): exit 0, guac gen's bytes, written with pwrite" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' && [ ! -s '$log' ] &&
	 grep -q ', 2 jobs, pwrite, queue depth 1,' '$tmp/o'"
check "... said once: io_uring unavailable (Function not implemented): 2 threads" \
	"[ \$(grep -c 'io_uring' '$tmp/e') -eq 1 ] &&
	 grep -q 'io_uring unavailable (Function not implemented): writing with 2 threads, queue depth 1 each' '$tmp/e'"
URING_INIT_ERRNO=1 shim --iodepth 8 --json
rc=$?
check "io_uring refused (EPERM, as seccomp or io_uring_disabled): --json says pwrite and why" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' &&
	 grep -q '\"engine\":\"pwrite\",\"iodepth\":1,\"io_uring_unavailable\":\"Operation not permitted\"' '$tmp/o'"
# The check before the fill passes, then a job's own ring fails: that job writes with pwrite.
URING_INIT_ERRNO=12 URING_INIT_OK=2 shim --iodepth 8 --jobs 3
rc=$?
check "a job whose ring cannot be set up (ENOMEM) writes with pwrite: exit 0, gen's bytes, said" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' &&
	 grep -q 'io_uring could not be set up for a job (Cannot allocate memory): it wrote with pwrite' '$tmp/e'"
check "... the others wrote through io_uring (the shim saw fewer than the 64 writes)" \
	"[ -s '$log' ] && [ \$(wc -l <'$log') -lt 64 ]"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... verify -m OK" "grep -q '^OK: ' '$tmp/v'"

# A short write (half of the block at 655360): its rest is written again.
URING_SHORT_AT=655360 shim --iodepth 8
rc=$?
check "a short write: the rest is submitted again (688128, 32768), exit 0, gen's bytes" \
	"[ $rc -eq 0 ] && grep -q '^688128 32768\$' '$log' && cmp -s '$tmp/ref' '$f'"

# done_of N: the done of the manifest's range N (0-based).
done_of() {
	sed -n 's/.*"done": \([0-9]*\),.*/\1/p' "$m" | sed -n "$(($1 + 1))p"
}

# A write that fails at 655360, with writes queued after it that succeed.
prefill=1
at=655360
URING_FAIL_AT=$at shim --iodepth 8
rc=$?
check "a write failing with ENOSPC mid-fill: exit 3, FAILED at its byte" \
	"[ $rc -eq 3 ] && grep -q '^FAILED: No space left on device at device byte $at ' '$tmp/o'"
size=$(stat -c %s "$f")
check "... writes queued after it completed (the file reaches past it: $size bytes)" \
	"[ $size -gt $((at + bs)) ]"
check "... only the contiguous prefix before it is recorded done ($(done_of 0) = $at)" \
	"[ '$(done_of 0)' = $at ] && grep -q '\"status\": \"failed\"' '$m' &&
	 grep -q '\"error\": \"No space left on device\"' '$m'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... verify -m: what it recorded all matches (INCOMPLETE, no mismatch)" \
	"grep -q '^INCOMPLETE: .*they all match the stream' '$tmp/v' && ! grep -q MISMATCH '$tmp/v'"
"$GUAC" write --resume -m "$m" --iodepth 8 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "... --resume completes it to guac gen's bytes" "[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f'"

# Three jobs (parts of 1398272, 1398272, 1397760 bytes): the failure in job 1's part.
at=$((1398272 + 327680))
URING_FAIL_AT=$at shim --iodepth 8 --jobs 3
rc=$?
check "--jobs 3, a write failing in job 1: exit 3; job 1 done up to it, jobs 0 and 2 whole" \
	"[ $rc -eq 3 ] && [ '$(done_of 1)' = 327680 ] && [ '$(done_of 0)' = 1398272 ] &&
	 [ '$(done_of 2)' = 1397760 ]"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
"$GUAC" write --resume -m "$m" --iodepth 8 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "... verify -m: no mismatch; --resume completes it to guac gen's bytes" \
	"grep -q '^INCOMPLETE: .*they all match the stream' '$tmp/v' && [ $rc -eq 0 ] &&
	 cmp -s '$tmp/ref' '$f'"

# Random: the block landing at 1310720 fails; its job's steps before it are done.
URING_FAIL_AT=1310720 shim --iodepth 16 --pattern random --seed 3 --jobs 2
rc=$?
steps=$(($(done_of 0) + $(done_of 1)))
check "--pattern random, a write failing: exit 3, fewer steps done than the pass's" \
	"[ $rc -eq 3 ] && [ $steps -lt $len ] && [ \$(($steps % $bs)) -eq 0 ]"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... verify -m: no mismatch in what it recorded" "! grep -q MISMATCH '$tmp/v'"
"$GUAC" write --resume -m "$m" --iodepth 16 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "... --resume completes it to guac gen's bytes" "[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f'"

# Ctrl-C: each submit slowed by 20 ms, SIGINT once 20 writes went out.
prefill=
big=67108864
rm -f "$f" "$m" "$log"
URING_SLOW_NS=20000000 URING_LOG=$log LD_PRELOAD="$tmp/uf.so" "$GUAC" write --origin 5 \
	--bs $bs --length $big --iodepth 8 --progress none -m "$m" "$f" >"$tmp/o" 2>&1 &
pid=$!
n=0
while [ $n -lt 1000 ] && [ "$(cat "$log" 2>/dev/null | wc -l)" -lt 20 ]; do
	sleep 0.01
	n=$((n + 1))
done
kill -INT $pid
wait $pid
rc=$?
d=$(done_of 0)
check "SIGINT mid-fill: exit 130, the manifest says interrupted, $d bytes done (some, not all)" \
	"[ $rc -eq 130 ] && grep -q '\"status\": \"interrupted\"' '$m' && [ $d -gt 0 ] &&
	 [ $d -lt $big ]"
check "... what it recorded was written (no more done than the writes submitted)" \
	"[ $d -le \$((\$(wc -l <'$log') * $bs)) ]"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... verify -m: what it recorded all matches" \
	"grep -q '^INCOMPLETE: .*they all match the stream' '$tmp/v'"
"$GUAC" write --resume -m "$m" --iodepth 8 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
"$GUAC" gen --origin 5 --length $big >"$tmp/ref"
check "... --resume completes it to guac gen's bytes" "[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f'"

# SIGKILL after a checkpoint: the manifest (running) holds a prefix that was written.
rm -f "$f" "$m" "$log"
GUAC_CHECKPOINT_SECONDS=0.2 URING_SLOW_NS=20000000 URING_LOG=$log LD_PRELOAD="$tmp/uf.so" \
	"$GUAC" write --origin 5 --bs $bs --length $big --iodepth 8 --progress none -m "$m" "$f" \
	>"$tmp/o" 2>&1 &
pid=$!
n=0
# The manifest appears before the first write, its first checkpoint later.
while [ $n -lt 1000 ] && d=$(done_of 0 2>/dev/null) && [ "${d:-0}" -lt $((4 * bs)) ]; do
	sleep 0.01
	n=$((n + 1))
done
kill -KILL $pid
wait $pid 2>/dev/null
d=$(done_of 0)
check "SIGKILL after a checkpoint: the manifest says running, $d bytes done" \
	"grep -q '\"status\": \"running\"' '$m' && [ $d -gt 0 ] && [ $d -lt $big ]"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... verify -m: what it recorded all matches" "! grep -q MISMATCH '$tmp/v' && grep -q 'match' '$tmp/v'"
"$GUAC" write --resume -m "$m" --iodepth 4 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "... --resume (another depth) completes it to guac gen's bytes" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f'"
check "... and the manifest records the depth of the run that ended it (4)" \
	"grep -q '\"iodepth\": 4}' '$m' && '$GUAC' verify -m '$m' >/dev/null 2>&1"
# A hand-edited depth out of range is refused on load, named.
sed 's/"iodepth": 4}/"iodepth": 0}/' "$m" >"$tmp/m0.json"
reseal "$tmp/m0.json"
"$GUAC" verify -m "$tmp/m0.json" >"$tmp/v" 2>&1
check "a manifest with workload iodepth 0: refused (exit 2), named" \
	"[ \$? -eq 2 ] && grep -q 'iodepth' '$tmp/v'"

tap_end
