#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write --pattern random (issue 37, item 1): every --bs block once a
# pass, in the order of a seeded permutation, each holding the stream of its
# pass's origin at its place. A complete fill is a sequential fill of the
# recorded origin: verify says OK and the bytes are `guac gen`'s; a damaged
# byte is found where it is. The order is not the addresses' (a fill cut
# short by a file size limit leaves holes before written blocks, and the
# blocks written are exactly as many as the manifest's steps); passes write
# other origins, the last recorded; an interrupted pass leaves each block
# with its pass's origin or the one before, as many with the new one as the
# manifest's steps, and verify checks each block against its own (it
# refuses a fill short in its first pass: the blocks not written yet hold
# nothing known); --resume completes it; the manifest records the workload
# (version 8; a sequential fill's stays version 7) and a resume with another
# seed, passes or pattern is refused; bad input is refused with nothing
# written. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

CC=${CC:-cc}
shims=$(cd "$(dirname "$0")/../shims" && pwd)
bs=4096

# origin_of MANIFEST: its "origin".
origin_of() {
	sed -n 's/^  "origin": \([0-9]*\),$/\1/p' "$1"
}

# u64 EXPR: EXPR (python) mod 2^64, for origins past the shell's signed arithmetic.
u64() {
	python3 -c "print(($1) % 2**64)"
}

# done_blocks MANIFEST: the steps its ranges have done, in blocks.
done_blocks() {
	grep -o '"done": [0-9]*' "$1" | awk -v bs=$bs '{s += $2} END {print s / bs}'
}

# blocks FILE REF_A [REF_B]: per block of FILE, "z" (zeros), "a" (REF_A's
# bytes there), "b" (REF_B's) or "x" (other), as one word.
blocks() {
	python3 - "$@" <<'PY'
import sys
bs = 4096
d = open(sys.argv[1], 'rb').read()
refs = [open(p, 'rb').read() for p in sys.argv[2:]]
out = []
for i in range(0, len(d), bs):
    b = d[i:i + bs]
    if b == bytes(len(b)):
        out.append('z')
    elif b == refs[0][i:i + bs]:
        out.append('a')
    elif len(refs) > 1 and b == refs[1][i:i + bs]:
        out.append('b')
    else:
        out.append('x')
print(''.join(out))
PY
}

tap_begin

# A complete random fill, two jobs.
f=$tmp/f m=$tmp/m.json
"$GUAC" write --pattern random --seed 42 --jobs 2 --bs $bs --length 1M -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "a random fill of 1 MiB in 4 KiB blocks exits 0 and says OK" \
	"[ $rc -eq 0 ] && grep -q '^OK: 1048576 of 1048576' '$tmp/o'"
check "... and names its pattern, seed and pass" \
	"grep -q '^random pattern: seed 42, pass 1 of 1 (origin [0-9]*), 256 blocks a pass' '$tmp/o'"
o=$(origin_of "$m")
"$GUAC" gen --origin "$o" --length 1M >"$tmp/ref"
check "... its bytes are guac gen's of the recorded origin" "cmp -s '$tmp/ref' '$f'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
rc=$?
check "guac verify of it: OK, exit 0" "[ $rc -eq 0 ] && grep -q '^OK: 1048576 bytes' '$tmp/v'"
check "the manifest records the workload (version 8)" \
	"grep -q '^  \"version\": 8,' '$m' &&
	 grep -q '^  \"workload\": {\"pattern\": \"random\", \"seed\": 42, \"passes\": 1, \"pass\": 0, \"pass_stride\": [1-9][0-9]*},' '$m'"
"$GUAC" manifest show "$m" >"$tmp/show" 2>&1
check "guac manifest show loads it, says its pattern and prints the workload as written" \
	"grep -q '^# random pattern, seed 42: pass 1 of 1 (origin $o), 256 of its 256 blocks written\$' '$tmp/show' &&
	 grep -v '^#' '$tmp/show' | cmp -s '$m' -"
printf 'X' | dd of="$f" bs=1 seek=300000 conv=notrunc status=none
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
rc=$?
check "one byte changed at 300000: verify exits 1 and names its sector" \
	"[ $rc -eq 1 ] && grep -q '^  bytes 299520-300031 (512 bytes, sector 585)' '$tmp/v' &&
	 grep -q '^first difference at byte 300000' '$tmp/v'"

# The loader: the workload is version 8's, consistent with the fill.
loads() {
	"$GUAC" manifest show "$tmp/e.json" >"$tmp/o" 2>&1
}
sed 's/"pass": 0,/"pass": 1,/' "$m" >"$tmp/e.json"
reseal "$tmp/e.json"
loads
rc=$?
check "a random manifest whose pass is not one of its passes is refused" \
	"[ $rc -eq 2 ] && grep -q 'workload pass 1 is not one of its 1 passes' '$tmp/o'"
sed 's/"version": 8,/"version": 7,/' "$m" >"$tmp/e.json"
reseal "$tmp/e.json"
loads
rc=$?
check "a version 7 manifest with a workload is refused" \
	"[ $rc -eq 2 ] && grep -q 'unknown field \"workload\" in the manifest (version 7 has none)' '$tmp/o'"
sed '/"workload"/d' "$m" >"$tmp/e.json"
reseal "$tmp/e.json"
loads
rc=$?
check "a version 8 manifest without a workload is refused" \
	"[ $rc -eq 2 ] && grep -q 'missing field \"workload\"' '$tmp/o'"
sed 's/"workload": {[^}]*}/"workload": {"pattern": "sequential"}/' "$m" >"$tmp/e.json"
reseal "$tmp/e.json"
loads
rc=$?
check "a version 8 manifest of a sequential workload loads" "[ $rc -eq 0 ]"

rm -f "$f" "$m"
"$GUAC" write --origin 5 --bs $bs --length 64K -m "$m" "$f" >/dev/null 2>&1
check "a sequential fill's manifest stays version 7, without a workload" \
	"grep -q '^  \"version\": 7,' '$m' && ! grep -q workload '$m'"

# The order: a file size limit (EFBIG at the first block past it) stops the
# pass short; the blocks written lie anywhere below it, not as a prefix.
rm -f "$f" "$m"
(ulimit -f 900; "$GUAC" write --pattern random --seed 7 --jobs 1 --bs $bs --length 1M \
	--origin 1000000 -m "$m" "$f" >"$tmp/o" 2>&1)
rc=$?
"$GUAC" gen --origin 1000000 --length 1M >"$tmp/ref"
map=$(blocks "$f" "$tmp/ref")
written=$(printf '%s' "$map" | tr -cd a | wc -c)
check "a random fill stopped by a file size limit exits 3 with some blocks written ($written)" \
	"[ $rc -eq 3 ] && [ $written -gt 1 ] && [ $written -lt 225 ]"
check "... not in address order: a block not written lies before a written one" \
	"printf '%s' '$map' | grep -q 'za'"
check "... each written block holds the stream at its place, the others nothing" \
	"! printf '%s' '$map' | grep -q x"
check "... as many as the manifest's steps done ($(done_blocks "$m"))" \
	"[ $(done_blocks "$m") -eq $written ]"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
rc=$?
check "verify of a random fill short in its first pass: refused (exit 2), nothing called OK" \
	"[ $rc -eq 2 ] && grep -q 'random-pattern fill whose first pass did not finish' '$tmp/v' &&
	 grep -q 'guac write --resume' '$tmp/v' && ! grep -q '^OK' '$tmp/v'"
cp "$f" "$tmp/before"
"$GUAC" write --resume --seed 8 -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume with another --seed: refused naming it, nothing written" \
	"[ $rc -eq 2 ] && grep -q 'its seed (--seed) differs (recorded 7, given 8' '$tmp/o' &&
	 cmp -s '$f' '$tmp/before'"
"$GUAC" write --resume --passes 2 -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume with other --passes: refused naming them" \
	"[ $rc -eq 2 ] && grep -q 'its passes (--passes) differs (recorded 1, given 2' '$tmp/o'"
"$GUAC" write --resume --pattern sequential -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume with --pattern sequential: refused naming the pattern" \
	"[ $rc -eq 2 ] && grep -q 'its pattern (--pattern) differs (recorded random, given sequential' '$tmp/o'"
"$GUAC" write --resume -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume completes it from the recorded steps" \
	"[ $rc -eq 0 ] && grep -q \"already durable in random pass 1 of 1\" '$tmp/o' &&
	 grep -q '^OK: 1048576 of 1048576' '$tmp/o'"
check "... its bytes are guac gen's, and verify says OK" \
	"cmp -s '$tmp/ref' '$f' && '$GUAC' verify -m '$m' >/dev/null 2>&1"

# A sequential fill cut short: --resume with a --seed or --passes is another fill.
rm -f "$f" "$m"
(ulimit -f 500; "$GUAC" write --origin 5 --bs $bs --length 1M -m "$m" "$f" >/dev/null 2>&1)
cp "$f" "$tmp/before"
"$GUAC" write --resume --seed 5 -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume --seed of a sequential fill: refused naming the seed, nothing written" \
	"[ $rc -eq 2 ] && grep -q 'its seed (--seed) differs (recorded 0, given 5' '$tmp/o' &&
	 cmp -s '$f' '$tmp/before'"
"$GUAC" write --resume --passes 2 -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume --passes of a sequential fill: refused naming the passes" \
	"[ $rc -eq 2 ] && grep -q 'its passes (--passes) differs (recorded 1, given 2' '$tmp/o'"

# Passes: the last pass's origin is the one recorded; each pass another.
rm -f "$f" "$m"
"$GUAC" write --pattern random --passes 3 --bs $bs --length 256K -m "$m" "$f" --json \
	>"$tmp/j" 2>&1
rc=$?
o=$(origin_of "$m")
"$GUAC" gen --origin "$o" --length 256K >"$tmp/ref"
check "--passes 3: exit 0, the content is the last pass's origin (the recorded one)" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' && '$GUAC' verify -m '$m' >/dev/null 2>&1"
check "... --json names the pattern, the drawn seed and the passes" \
	"grep -q '\"pattern\":\"random\",\"seed\":[0-9]*,\"passes\":3,\"pass\":2' '$tmp/j'"

# The passes' origins alias no other fill: a fill at a pass's origin is refused.
stride=$(sed -n 's/.*"pass_stride": \([0-9]*\)}.*/\1/p' "$m")
o1=$(u64 "$o - $stride")
"$GUAC" write --origin $o1 --bs $bs --length 256K -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "a later fill at the random fill's second pass's origin is refused as aliasing it" \
	"[ $rc -eq 2 ] && grep -q 'refusing to write: origin $o1 puts the stream 0 blocks from' '$tmp/o' &&
	 cmp -s '$tmp/ref' '$f'"
"$GUAC" write --pattern random --passes 3 --origin $(u64 "$o + 2 * $stride") --bs $bs \
	--length 256K -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "a random fill whose first pass has that fill's last origin: refused, nothing written" \
	"[ $rc -eq 2 ] && grep -q 'refusing to write: origin $(u64 "$o + 2 * $stride") (the last of 3 passes, the first at origin $o) puts the stream 0 blocks from' '$tmp/o' &&
	 cmp -s '$tmp/ref' '$f'"

# An interrupted later pass: every block holds its pass's origin or the one
# before, as many the new one as the manifest's steps; --resume ends it.
if $CC -shared -fPIC -o "$tmp/slow.so" "$shims/slow_pwrite.c" -ldl 2>"$tmp/cc.err"; then
	rm -f "$f" "$m"
	: >"$f"
	SLOW_INO=$(stat -c %i "$f") SLOW_NS=4000000 LD_PRELOAD="$tmp/slow.so" \
		"$GUAC" write --pattern random --seed 9 --passes 2 --jobs 2 --bs $bs --length 1M \
		--origin 77777777 -m "$m" "$f" >"$tmp/o" 2>&1 &
	pid=$!
	wait_written $pid 1600000
	kill -INT $pid
	wait $pid
	rc=$?
	stride=$(sed -n 's/.*"pass_stride": \([0-9]*\)}.*/\1/p' "$m")
	"$GUAC" gen --origin 77777777 --length 1M >"$tmp/ref1"
	"$GUAC" gen --origin $(u64 "77777777 - $stride") --length 1M >"$tmp/ref0"
	map=$(blocks "$f" "$tmp/ref1" "$tmp/ref0")
	new=$(printf '%s' "$map" | tr -cd a | wc -c)
	check "an interrupted second pass: exit 130, the manifest says pass 1 (of 0, 1)" \
		"[ $rc -eq 130 ] && grep -q '\"passes\": 2, \"pass\": 1,' '$m' &&
		 grep -q '\"status\": \"interrupted\"' '$m'"
	check "... every block holds the second pass's origin or the first's" \
		"! printf '%s' '$map' | grep -q '[zx]'"
	check "... the second's in as many blocks as the manifest's steps ($new)" \
		"[ $new -gt 0 ] && [ $new -lt 256 ] && [ $(done_blocks "$m") -eq $new ]"
	cp "$m" "$tmp/m.before"
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	rc=$?
	check "... verify checks each block against its origin: OK, exit 0, saying the pass is not done" \
		"[ $rc -eq 0 ] && grep -q '^OK: 1048576 bytes (1.00 MiB) match the stream at offset 0, origin 77777777 in the blocks its pass wrote, the pass before.s in the others (below)' '$tmp/v' &&
		 grep -q '^INCOMPLETE: random pattern, pass 2 of 2 not finished: each block checked against origin 77777777 (its step recorded done in this pass) or $(u64 "77777777 - $stride") (the pass before), or either past the last record' '$tmp/v'"
	"$GUAC" verify -m "$m" --bs 64K >"$tmp/v" 2>&1
	rc=$?
	check "... also with reads of 16 blocks (each block compared with its own origin)" \
		"[ $rc -eq 0 ] && grep -q '^OK: 1048576 bytes' '$tmp/v'"
	"$GUAC" verify -m "$m" --json >"$tmp/vj" 2>&1
	check "... its JSON names both origins and the pass (random_pass)" \
		"grep -q '\"random_pass\":{\"pass\":1,\"passes\":2,\"origin\":77777777,\"origin_before\":$(u64 "77777777 - $stride")}' '$tmp/vj' &&
		 grep -q '\"result\":\"ok\"' '$tmp/vj'"
	check "... and records no check in the manifest (its progress counts steps)" \
		"cmp -s '$m' '$tmp/m.before'"
	# One byte in a block of each origin: both found, at their places.
	a_at=$(printf '%s' "$map" | awk '{print index($0, "a") - 1}')
	b_at=$(printf '%s' "$map" | awk '{print index($0, "b") - 1}')
	printf 'X' | dd of="$f" bs=1 seek=$((a_at * bs + 100)) conv=notrunc status=none
	printf 'X' | dd of="$f" bs=1 seek=$((b_at * bs + 700)) conv=notrunc status=none
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	rc=$?
	check "... a byte changed in a block of each origin: exit 1, both sectors named" \
		"[ $rc -eq 1 ] && grep -q '^MISMATCH: 2 bad 512-byte sectors in 2 ranges' '$tmp/v' &&
		 grep -q \"sector $((a_at * 8))[),]\" '$tmp/v' && grep -q \"sector $((b_at * 8 + 1))[),]\" '$tmp/v'"
	"$GUAC" gen --origin 77777777 --offset $((a_at * bs + 100)) --length 1 |
		dd of="$f" bs=1 seek=$((a_at * bs + 100)) conv=notrunc status=none
	"$GUAC" gen --origin $(u64 "77777777 - $stride") --offset $((b_at * bs + 700)) --length 1 |
		dd of="$f" bs=1 seek=$((b_at * bs + 700)) conv=notrunc status=none
	"$GUAC" write --resume -m "$m" "$f" >"$tmp/o" 2>&1
	rc=$?
	check "... --resume ends the second pass: the bytes are the last origin's" \
		"[ $rc -eq 0 ] && grep -q 'in random pass 2 of 2' '$tmp/o' && cmp -s '$tmp/ref1' '$f'"
	# Killed (SIGKILL) in its second pass a while after its last record: the
	# blocks written since hold the new origin though the manifest's steps
	# do not count them, as a sequential fill's bytes past its done. Verify
	# takes either origin there, not MISMATCH. A kill right after a record
	# leaves no such block: tried again (at most 4 times) until one does.
	try=0
	while [ $try -lt 4 ]; do
		try=$((try + 1))
		rm -f "$f" "$m"
		: >"$f"
		GUAC_CHECKPOINT_SECONDS=1 SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 \
			LD_PRELOAD="$tmp/slow.so" "$GUAC" write --pattern random --seed 9 \
			--passes 2 --jobs 2 --bs $bs --length 1M --origin 77777777 -m "$m" "$f" \
			>"$tmp/o" 2>&1 &
		pid=$!
		wait_written $pid 1700000
		kill -KILL $pid
		wait $pid
		map=$(blocks "$f" "$tmp/ref1" "$tmp/ref0")
		new=$(printf '%s' "$map" | tr -cd a | wc -c)
		[ "$new" -gt "$(done_blocks "$m")" ] && break
	done
	check "killed in the second pass: more blocks hold its origin ($new) than its record's steps ($(done_blocks "$m"), try $try)" \
		"[ $new -gt $(done_blocks "$m") ] && grep -q '\"pass\": 1,' '$m' &&
		 ! printf '%s' '$map' | grep -q '[zx]'"
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	rc=$?
	check "... verify: OK, exit 0 (a block past the record may hold either origin)" \
		"[ $rc -eq 0 ] && grep -q '^OK: 1048576 bytes' '$tmp/v' &&
		 grep -q 'or either past the last record' '$tmp/v'"
	b_at=$(printf '%s' "$map" | awk '{print index($0, "b") - 1}')
	printf 'X' | dd of="$f" bs=1 seek=$((b_at * bs + 9)) conv=notrunc status=none
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	rc=$?
	check "... and a byte changed there is still found (exit 1, its sector named)" \
		"[ $rc -eq 1 ] && grep -q '^MISMATCH: 1 bad 512-byte sector' '$tmp/v' &&
		 grep -q \"sector $((b_at * 8))[),]\" '$tmp/v'"
	# Truncated in its second pass: the holes are found, and no block is known.
	rm -f "$f" "$m"
	: >"$f"
	SLOW_INO=$(stat -c %i "$f") SLOW_NS=4000000 LD_PRELOAD="$tmp/slow.so" \
		"$GUAC" write --pattern random --seed 9 --passes 2 --bs $bs --length 1M \
		--origin 77777777 -m "$m" "$f" >"$tmp/o" 2>&1 &
	pid=$!
	wait_written $pid 1300000
	: >"$f"
	wait $pid
	rc=$?
	check "a file truncated during a random fill's second pass: FAILED, named, no step kept" \
		"[ $rc -ne 0 ] && grep -q 'the target was truncated during the fill' '$tmp/o' &&
		 grep -q '\"pass\": 0,' '$m' && [ $(done_blocks "$m") -eq 0 ]"
else
	not_ok "cannot build the slow-write shim with $CC" "$tmp/cc.err"
fi

# The diagnosis of a complete random fill. A write of the last pass lost
# leaves the pass before's data: STALE_ORIGIN, naming that pass.
rm -f "$f" "$m"
"$GUAC" write --pattern random --seed 9 --passes 3 --bs $bs --length 1M --origin 55555 \
	-m "$m" "$f" >"$tmp/o" 2>&1
stride=$(sed -n 's/.*"pass_stride": \([0-9]*\)}.*/\1/p' "$m")
"$GUAC" gen --origin $((55555 - stride)) --offset $((77 * bs)) --length $bs |
	dd of="$f" bs=$bs seek=77 conv=notrunc status=none
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
rc=$?
check "a block of a 3-pass fill holding pass 2's data: STALE_ORIGIN, origin and pass named" \
	"[ $rc -eq 1 ] && grep -q '^classes: 8 STALE_ORIGIN (origin $((55555 - stride)), pass 2 of 3)\$' '$tmp/v'"
"$GUAC" verify -m "$m" --json >"$tmp/vj" 2>&1
check "... and in the JSON (stale_origins: its pass, from 0)" \
	"grep -q '\"stale_origins\":\[{\"origin\":$((55555 - stride)),\"sectors\":8,\"pass\":1}\]' '$tmp/vj'"

# A fake-capacity device under a random fill: each place holds the block
# written last among those its addresses wrap onto, in the fill's order
# (rebuilt with the Python permutation of differential.py). Every sector
# searched is WRAPPED, the real capacity named; the address order of a
# sequential fill would call many MISDIRECTED (the later writes of the part
# would have landed on them).
wrap_to() {
	python3 - "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[5])
from differential import Permutation
path, bs, cap, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
d = open(path, 'rb').read()
n = len(d) // bs
perm, per, last = Permutation(n, seed, 0), cap // bs, {}
for b in range(n):
    s = perm.step_of(b)
    if b % per not in last or s > last[b % per][0]:
        last[b % per] = (s, b)
out = b''.join(d[last[b % per][1] * bs:(last[b % per][1] + 1) * bs] for b in range(n))
open(path, 'wb').write(out)
PY
}
here=$(cd "$(dirname "$0")" && pwd)
rm -f "$f" "$m"
"$GUAC" write --pattern random --seed 11 --bs $bs --length 4M --origin 1234567 -m "$m" "$f" \
	>"$tmp/o" 2>&1
wrap_to "$f" $bs 1048576 11 "$here"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
rc=$?
check "a random fill on a 1 MiB device that claims 4 MiB: every sector searched WRAPPED at 1 MiB" \
	"[ $rc -eq 1 ] && grep -q '^classes: 6144 OTHER (the first 1000 searched: 1000 WRAPPED;' '$tmp/v' &&
	 ! grep 'capacity looks like' '$tmp/v' | grep -v -q 'looks like 1048576 bytes'"

rm -f "$f" "$m"
"$GUAC" write --dry-run --pattern random --seed 5 --passes 2 --bs $bs --length 1M -m "$m" "$f" \
	>"$tmp/o" 2>&1
rc=$?
check "--dry-run of a random fill: exit 0, its pattern in the plan, nothing written" \
	"[ $rc -eq 0 ] && grep -q '^pattern:  random, seed 5, 2 passes of 256 blocks\$' '$tmp/o' &&
	 [ ! -e '$f' ] && [ ! -e '$m' ]"

# Bad input: a message, exit 2, nothing written (the target not even created).
bad() {
	desc=$1 want=$2
	shift 2
	rm -f "$f" "$m"
	"$GUAC" write "$@" -m "$m" "$f" >"$tmp/o" 2>&1
	rc=$?
	check "$desc: exit 2, '$want', nothing written" \
		"[ $rc -eq 2 ] && grep -q -e \"$want\" '$tmp/o' && [ ! -e '$f' ] && [ ! -e '$m' ]"
}
bad "--pattern foo" "invalid --pattern 'foo': expected sequential or random" \
	--pattern foo --length 1M
bad "--passes 0" "invalid --passes 0: expected 1 to 1000" --pattern random --passes 0 --length 1M
bad "--passes 1001" "invalid --passes 1001" --pattern random --passes 1001 --length 1M
bad "a length not whole blocks" "random writes whole --bs blocks: --length 1049088 is not a multiple of --bs 4096" \
	--pattern random --bs $bs --length 1049088
bad "--passes without --pattern random" "--passes is for --pattern random" --passes 2 --length 1M
bad "--seed with --pattern sequential" "--seed is for --pattern random" \
	--pattern sequential --seed 3 --length 1M
bad "--pattern random with --shard" "not with --shard" \
	--pattern random --shard 0/2 --origin 3 --length 1M

tap_end
