#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write --bs-split SIZE/PCT[:SIZE/PCT...] (issue 37, item 1: block sizes
# from a small distribution, fio's bssplit). Each --bs block goes out as a
# run of equal writes of one size drawn per block by a fixed hash of (seed,
# pass, block index) (storage/bs_split.c). What the device is sent is seen
# system call by system call: the pwrite_log shim logs each pwrite's offset
# and length, the uring_fault shim each io_uring write's; both logs must be
# exactly what an independent mirror of the documented hash (python3, below)
# expects, for sequential and random fills, one job and three, with a
# --seek, through pwrite and through io_uring. Over 2048 blocks the sizes
# come in about their percentages. The data is positional: a split fill is
# guac gen's bytes, verify finds it OK, and a corruption in it is still
# found. The manifest records the split (version 8, workload.bs_split),
# manifest show and --dry-run and the report say it, a resume keeps it and
# refuses another, a manifest with a bad split is refused on load. Each piece
# waits its own turn under --rate: a Ctrl-C lands between the pieces of a
# block, and a sequential fill's done counts them while a random fill's
# block is done whole or not at all, through pwrite and io_uring. Bad input:
# a message naming the problem, exit 2, nothing created. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

CC=${CC:-cc}
shims=$(cd "$(dirname "$0")/../shims" && pwd)
bs=65536
len=4194304
f=$tmp/f m=$tmp/m.json log=$tmp/log

tap_begin

"$GUAC" gen --origin 5 --length $len >"$tmp/ref"

# The documented draw (docs/storage.md "Block sizes"), written again from the
# text, and the writes it makes a fill send, one "OFF LEN" a line:
#   expect seq LEN BS JOBS SEEK SPLIT          (a sequential fill, 512-byte sectors)
#   expect random LEN BS SEED PASSES SPLIT
cat >"$tmp/expect.py" <<'PY'
import sys
M = (1 << 64) - 1

def mix(x):
    x = (x + 0x9e3779b97f4a7c15) & M
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)

def draw(split, seed, pas, index):
    r, total = mix(mix(mix(seed) ^ pas) ^ index) % 100, 0
    for size, pct in split:
        total += pct
        if r < total:
            return size

def parse(arg):
    return [tuple(int(v) for v in e.split("/")) for e in arg.split(":")]

def pieces(at, n, size):
    size = n if size > n else size
    return [(at + o, min(size, n - o)) for o in range(0, n, size)]

out = []
if sys.argv[1] == "seq":
    length, bs, jobs, seek = (int(v) for v in sys.argv[2:6])
    split = parse(sys.argv[6])
    # guac_io_split: parts of whole 512-byte sectors, counts differing by one at most.
    sectors, pos = length // 512, 0
    for i in range(jobs):
        end = pos + (sectors // jobs + (i < sectors % jobs)) * 512
        for b in range(pos, end, bs):
            n = min(bs, end - b)
            out += pieces(seek + b, n, draw(split, 0, 0, b // bs))
        pos = end
else:
    length, bs, seed, passes = (int(v) for v in sys.argv[2:6])
    split = parse(sys.argv[6])
    for p in range(passes):
        for b in range(length // bs):
            out += pieces(b * bs, bs, draw(split, seed, p, b))
for off, n in out:
    print(off, n)
PY
expect() {
	python3 "$tmp/expect.py" "$@" | sort -n >"$tmp/want"
}
# same_writes: the log holds exactly the writes expected (in any order: jobs and a queue reorder them).
same_writes() {
	sort -n "$log" >"$tmp/got" && [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"
}

# Bad input first: a message naming the problem, exit 2, neither target nor manifest.
bad() {
	rm -f "$f" "$m"
	"$GUAC" write --origin 5 --bs $bs --length $len -m "$m" --bs-split "$1" "$f" >"$tmp/o" 2>&1
	rc=$?
	check "--bs-split '$1': exit 2, '$2' said, nothing created" \
		"[ $rc -eq 2 ] && grep -q -- \"$2\" '$tmp/o' && [ ! -e '$f' ] && [ ! -e '$m' ]"
}
bad 4k/50:8k/40 "the percentages sum to 90, not 100"
bad 4k/50:8k/60 "the percentages sum to 110, not 100"
bad 4k/50:4096/50 "size 4096 is given twice"
bad 4k/0:8k/100 "size 4096 at 0%"
bad 3k/100 "size 3072 does not divide --bs 65536"
bad 4k/50:24k/50 "size 24576 does not divide --bs 65536"
bad 256/100 "size 256 is not whole 512-byte sectors"
bad 0/100 "a size of 0 bytes"
bad 4k "expected SIZE/PERCENT"
bad 4k/50: "expected SIZE/PERCENT"
bad :4k/100 "expected SIZE/PERCENT"
bad 4k/x "expected SIZE/PERCENT"
bad 4k/50x "percentage '50x' is not an integer from 1 to 100"
bad 4k/101 "percentage '101' is not an integer from 1 to 100"
bad 4q/100 "invalid --bs-split size '4q'"
bad 512/10:1k/10:2k/10:4k/10:8k/10:16k/10:32k/10:64k/10:128k/20 "more than 8 sizes"
rm -f "$f"
"$GUAC" write --origin 5 --bs $bs --length $len --bs-split 4k/50:16k/50 --dry-run "$f" \
	>"$tmp/o" 2>&1
rc=$?
check "--dry-run: exit 0, says the split and its seed, nothing written" \
	"[ $rc -eq 0 ] && [ ! -e '$f' ] &&
	 grep -q '^writes:   each --bs block in equal writes of one size, SIZE/PERCENT 4096/50:16384/50, drawn per block (seed 0)\$' '$tmp/o'"

if ! $CC -shared -fPIC -o "$tmp/pl.so" "$shims/pwrite_log.c" -ldl 2>"$tmp/cc.err" ||
   ! $CC -shared -fPIC -o "$tmp/uf.so" "$shims/uring_fault.c" -ldl 2>>"$tmp/cc.err"; then
	not_ok "cannot build the pwrite_log and uring_fault shims with $CC (liburing-dev?)" \
		"$tmp/cc.err"
	tap_end
	exit
fi

# logged ARGS...: a fresh fill of $len at origin 5 with ARGS, its pwrites and
# io_uring writes to the target logged in $log; exit status in $rc.
logged() {
	rm -f "$f" "$m" "$log"
	: >"$f"
	PWRITE_LOG=$log PWRITE_LOG_INO=$(stat -c %i "$f") URING_LOG=$log \
		LD_PRELOAD="$tmp/pl.so $tmp/uf.so" "$GUAC" write --origin 5 --bs $bs \
		--progress none -m "$m" "$@" "$f" >"$tmp/o" 2>"$tmp/e"
	rc=$?
}
# content DESC: the fill is guac gen's bytes and verify -m finds it OK.
content() {
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	vrc=$?
	check "$1: exit 0, guac gen's bytes, verify -m OK" \
		"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' && [ $vrc -eq 0 ] && grep -q '^OK: ' '$tmp/v'"
}

split=4096/50:16384/50
logged --length $len --bs-split 4k/50:16k/50
content "sequential, pwrite, --bs-split 4k/50:16k/50"
expect seq $len $bs 1 0 $split
check "... each block went out in writes of its drawn size, exactly as the documented hash says ($(wc -l <"$log") pwrites)" \
	"same_writes"
check "... both sizes seen (the device got mixed sizes)" \
	"grep -q ' 4096\$' '$log' && grep -q ' 16384\$' '$log' && ! grep -qv ' \\(4096\\|16384\\)\$' '$log'"
check "... the report names the split" \
	"grep -q ', bs 65536, 512-byte sectors, bs split 4096/50:16384/50; ' '$tmp/o'"
check "... the manifest records it: version 8, workload {sequential, bs_split}" \
	"grep -q '\"version\": 8,' '$m' &&
	 grep -q '^  \"workload\": {\"pattern\": \"sequential\", \"bs_split\": \\[{\"size\": 4096, \"percent\": 50}, {\"size\": 16384, \"percent\": 50}\\]}' '$m'"
check "... guac manifest show says it" \
	"'$GUAC' manifest show '$m' | grep -q '^# each block written in equal writes of one size, SIZE/PERCENT 4096/50:16384/50 (--bs-split)\$'"
cp "$log" "$tmp/log1"
logged --length $len --bs-split 4k/50:16k/50
check "... deterministic: a second fill sends the same writes" "cmp -s '$tmp/log1' '$log'"

logged --length $len
check "control: without --bs-split one pwrite a block, version 7, no workload" \
	"[ $rc -eq 0 ] && [ \$(wc -l <'$log') -eq 64 ] && ! grep -qv ' 65536\$' '$log' &&
	 grep -q '\"version\": 7,' '$m' && ! grep -q workload '$m'"

# Three jobs over a length that is not whole blocks: parts of whole sectors,
# blocks counted from the fill's first byte, a part's last block short.
odd=$((len - 4096 - 1536))
"$GUAC" gen --origin 5 --length $odd >"$tmp/ref_odd"
logged --length $odd --jobs 3 --bs-split 512/25:2k/25:8k/50 --seek 65536
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
vrc=$?
check "3 jobs, --seek 65536, an odd length: exit 0, guac gen's bytes at the seek, verify OK" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref_odd' '$f' --ignore-initial=0:65536 && [ $vrc -eq 0 ]"
expect seq $odd $bs 3 65536 512/25:2048/25:8192/50
check "... the writes are the hash's, each part's last block in its size then the rest" \
	"same_writes"

# The random pattern: each pass draws again, by (seed, pass, the block where it lands).
logged --length $len --pattern random --seed 42 --passes 2 --jobs 2 --bs-split 4k/30:16k/30:64k/40
content "random, seed 42, 2 passes, 2 jobs, pwrite"
expect random $len $bs 42 2 4096/30:16384/30:65536/40
check "... the writes of both passes are the hash's ($(wc -l <"$log") pwrites)" "same_writes"
check "... the manifest: workload random with its seed and the bs_split" \
	"grep -q '^  \"workload\": {\"pattern\": \"random\", \"seed\": 42, .*\"bs_split\": \\[{\"size\": 4096, \"percent\": 30}, {\"size\": 16384, \"percent\": 30}, {\"size\": 65536, \"percent\": 40}\\]}' '$m'"

# io_uring: each piece its own write (SQE), as many in flight as the depth allows.
logged --length $len --iodepth 8 --bs-split 4k/50:16k/50
content "sequential, --iodepth 8 (io_uring)"
expect seq $len $bs 1 0 $split
check "... the io_uring writes are the hash's, one a piece" \
	"grep -q ', io_uring, queue depth 8,' '$tmp/o' && same_writes"
logged --length $len --iodepth 16 --jobs 3 --pattern random --seed 9 --passes 3 \
	--bs-split 8k/20:32k/80
content "random, 3 passes, 3 jobs, --iodepth 16"
expect random $len $bs 9 3 8192/20:32768/80
check "... the io_uring writes of the three passes are the hash's" "same_writes"
rm -f "$tmp/batch"
URING_BATCH_LOG=$tmp/batch logged --length 1048576 --iodepth 8 --rate 64M --bs-split 4k/50:16k/50
check "... under --rate each piece goes at its own turn: one write a submit, as many submits as pieces" \
	"[ $rc -eq 0 ] && [ \$(wc -l <'$log') -gt 16 ] && ! grep -qv '^1\$' '$tmp/batch' &&
	 [ \$(wc -l <'$tmp/batch') -eq \$(wc -l <'$log') ]"
GUAC_IO_URING=off logged --length $len --iodepth 8 --bs-split 4k/50:16k/50
expect seq $len $bs 1 0 $split
check "GUAC_IO_URING=off: the fallback's pwrites are the same pieces" \
	"[ $rc -eq 0 ] && grep -q ', pwrite, queue depth 1,' '$tmp/o' && same_writes"

# With --verify-backlog (pwrite): the pieces are written, the whole block read back.
logged --length $len --verify-backlog 2 --bs-split 4k/50:16k/50
content "--verify-backlog 2 with a split"
expect seq $len $bs 1 0 $split
check "... the pieces as without it, every block read back, no mismatch" \
	"same_writes && grep -q '^read back: 64 blocks (4194304 bytes), 0 mismatches' '$tmp/o'"
# Shards: each part's blocks are counted from the fill's first byte.
rm -f "$f" "$m" "$m.1"
for k in 0 1; do
	"$GUAC" write --origin 5 --bs $bs --length $len --shard $k/2 --jobs 2 \
		--bs-split 4k/50:16k/50 --progress none -m "$m.$k" "$f" >"$tmp/o" 2>&1 || break
done
"$GUAC" manifest merge "$m" "$m.0" "$m.1" >"$tmp/o" 2>&1
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
vrc=$?
check "two shards of two jobs with a split: guac gen's bytes, merged, verify OK, the split kept" \
	"[ $vrc -eq 0 ] && cmp -s '$tmp/ref' '$f' && grep -q '\"bs_split\": \[' '$m'"

# The distribution over many blocks: 2048 blocks of 4 KiB, each size's share
# of them at least 4/5 of its percentage, and exactly what the hash gives.
logged --bs 4096 --length 8388608 --pattern random --seed 1 --bs-split 512/20:1k/30:2k/50
awk '{ n[$2] += $2 / 4096 } END { print n[512] + 0, n[1024] + 0, n[2048] + 0 }' "$log" \
	>"$tmp/counts"
python3 "$tmp/expect.py" random 8388608 4096 1 1 512/20:1024/30:2048/50 |
	awk '{ n[$2] += $2 / 4096 } END { print n[512] + 0, n[1024] + 0, n[2048] + 0 }' >"$tmp/want_counts"
read -r n512 n1k n2k <"$tmp/counts"
check "2048 blocks split 512/20:1k/30:2k/50: $n512, $n1k and $n2k blocks, each at least 4/5 of its share, as the hash gives" \
	"[ $rc -eq 0 ] && [ $n512 -ge 327 ] && [ $n1k -ge 491 ] && [ $n2k -ge 819 ] &&
	 [ \$((n512 + n1k + n2k)) -eq 2048 ] && cmp -s '$tmp/counts' '$tmp/want_counts'"

# Verify is unaffected (the data is positional), and still finds a corruption.
logged --length $len --bs-split 4k/50:16k/50
printf 'X' | dd of="$f" bs=1 seek=300000 conv=notrunc status=none
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
vrc=$?
check "a byte corrupted in a split fill: verify exit 1, sector 585 named" \
	"[ $vrc -eq 1 ] && grep -q '^MISMATCH: 1 bad 512-byte sector' '$tmp/v' &&
	 grep -q 'bytes 299520-300031 (512 bytes, sector 585)' '$tmp/v'"

# --json names the split, null without.
rm -f "$f" "$m"
"$GUAC" write --origin 5 --bs $bs --length $len --bs-split 4k/50:16k/50 --json "$f" >"$tmp/o" 2>&1
check "--json: \"bs_split\":\"4096/50:16384/50\"" "grep -q '\"bs_split\":\"4096/50:16384/50\",' '$tmp/o'"
rm -f "$f"
"$GUAC" write --origin 5 --bs $bs --length $len --json "$f" >"$tmp/o" 2>&1
check "--json without it: \"bs_split\":null" "grep -q '\"bs_split\":null,' '$tmp/o'"

# A resume keeps the recorded split; another one is refused, nothing written.
fail_fill() {
	rm -f "$f" "$m"
	(ulimit -f 2000 && "$GUAC" write --origin 5 --bs $bs --length $len --progress none \
		-m "$m" "$@" "$f") >"$tmp/o" 2>&1
	rc=$?
}
fail_fill --bs-split 4k/50:16k/50
check "a split fill cut by ulimit -f: exit 3, recorded failed" \
	"[ $rc -eq 3 ] && grep -q '\"status\": \"failed\"' '$m'"
cp "$f" "$tmp/before"
"$GUAC" write --resume -m "$m" --bs-split 4k/25:16k/75 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume with another --bs-split: exit 2, named with both, nothing written" \
	"[ $rc -eq 2 ] && cmp -s '$tmp/before' '$f' &&
	 grep -q 'its block size split (--bs-split) differs (recorded 4096/50:16384/50, given 4096/25:16384/75' '$tmp/o'"
"$GUAC" write --resume -m "$m" --bs-split 4096/50:16k/50 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume with the same split, spelt otherwise: exit 0, guac gen's bytes" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f'"
fail_fill --bs-split 4k/50:16k/50
rm -f "$log"
PWRITE_LOG=$log PWRITE_LOG_INO=$(stat -c %i "$f") LD_PRELOAD="$tmp/pl.so" \
	"$GUAC" write --resume -m "$m" --progress none "$f" >"$tmp/o" 2>&1
rc=$?
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
vrc=$?
check "--resume without --bs-split: exit 0, guac gen's bytes, verify OK" \
	"[ $rc -eq 0 ] && cmp -s '$tmp/ref' '$f' && [ $vrc -eq 0 ]"
check "... the recorded split kept: in the manifest, the report and the writes sent" \
	"grep -q '\"bs_split\": \\[{\"size\": 4096, \"percent\": 50}, {\"size\": 16384, \"percent\": 50}\\]' '$m' &&
	 grep -q 'bs split 4096/50:16384/50' '$tmp/o' && grep -q ' 4096\$' '$log' &&
	 grep -q ' 16384\$' '$log' && ! grep -qv ' \\(4096\\|16384\\|[0-9]\\{1,4\\}\\)\$' '$log'"
fail_fill
"$GUAC" write --resume -m "$m" --bs-split 4k/50:16k/50 --progress none "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume of a fill without a split, with one: exit 2, 'recorded none'" \
	"[ $rc -eq 2 ] && grep -q 'split (--bs-split) differs (recorded none, given 4096/50:16384/50' '$tmp/o'"

# Ctrl-C while a piece waits for its turn under --rate (a 4 MiB block in 64 KiB
# writes at 1 MiB/s takes 4 s): a sequential fill's done counts the pieces
# written, a random one's block is done whole or not at all; either resumes.
"$GUAC" gen --origin 5 --length 8388608 >"$tmp/ref8"
stopped() {
	rm -f "$f" "$m"
	"$GUAC" write --origin 5 --bs 4M --length "$1" --bs-split 64k/100 --rate 1M \
		--progress none -m "$m" "$2" "$3" "$4" "$5" "$f" >"$tmp/o" 2>&1 &
	pid=$!
	# Three pieces in (io_uring's writes are not in /proc/PID/io: the file's size says).
	n=0
	while [ $n -lt 1000 ] && [ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -lt 196608 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	kill -INT $pid
	wait $pid
	rc=$?
	done=$(sed -n 's/.*"done": \([0-9]*\),.*/\1/p' "$m" | awk '{ n += $1 } END { print n + 0 }')
	interrupted=$(grep -c '^  "status": "interrupted",' "$m")
	"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
	vrc=$?
	"$GUAC" write --resume -m "$m" --progress none "$f" >"$tmp/o2" 2>&1
	rrc=$?
}
for engine in 1 4; do
	stopped 4194304 --iodepth $engine --pattern sequential
	check "--iodepth $engine, sequential: Ctrl-C mid-block: exit 130, done $done: whole pieces, short of the block; verify: what is done matches" \
		"[ $rc -eq 130 ] && [ $interrupted -eq 1 ] && [ $done -gt 0 ] && [ $done -lt 4194304 ] &&
		 [ \$(($done % 65536)) -eq 0 ] && [ $vrc -eq 1 ] &&
		 grep -q 'only the written ones were checked, and they all match the stream' '$tmp/v'"
	check "... --resume completes it: guac gen's bytes" \
		"[ $rrc -eq 0 ] && cmp -s '$f' '$tmp/ref'"
	stopped 8388608 --iodepth $engine --pattern random
	check "--iodepth $engine, random: Ctrl-C mid-block: exit 130, the block not done (done 0)" \
		"[ $rc -eq 130 ] && [ $done -eq 0 ] && [ $interrupted -eq 1 ]"
	check "... --resume completes it: guac gen's bytes" "[ $rrc -eq 0 ] && cmp -s '$f' '$tmp/ref8'"
done

# The manifest's split is checked on load.
logged --length $len --bs-split 4k/50:16k/50
cp "$m" "$tmp/good.json"
sed -i 's/{"size": 16384, "percent": 50}/{"size": 16384, "percent": 40}/' "$m"
reseal "$m"
"$GUAC" manifest show "$m" >"$tmp/o" 2>&1
rc=$?
check "a manifest whose split sums to 90: refused on load, named" \
	"[ $rc -ne 0 ] && grep -q 'workload bs_split entry' '$tmp/o'"
cp "$tmp/good.json" "$m"
sed -i 's/{"size": 16384, "percent": 50}/{"size": 24576, "percent": 50}/' "$m"
reseal "$m"
"$GUAC" verify -m "$m" >"$tmp/o" 2>&1
rc=$?
check "... one whose size does not divide the block size: refused, named" \
	"[ $rc -eq 2 ] && grep -q 'workload bs_split entry 2 (size 24576, 50%)' '$tmp/o'"
cp "$tmp/good.json" "$m"
sed -i 's/"bs_split": \[{"size": 4096, "percent": 50}, {"size": 16384, "percent": 50}\]/"bs_split": []/' "$m"
reseal "$m"
"$GUAC" manifest show "$m" >"$tmp/o" 2>&1
rc=$?
check "... an empty bs_split: refused" "[ $rc -ne 0 ] && grep -q 'bs_split is empty' '$tmp/o'"
cp "$tmp/good.json" "$m"
"$GUAC" manifest show "$m" >/dev/null 2>&1
check "... control: the untouched manifest loads" "[ $? -eq 0 ]"

tap_end
