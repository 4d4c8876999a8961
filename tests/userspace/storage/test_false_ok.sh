#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# No false OK (issue 27): the seven ways an outside review got guac verify,
# --resume and guac manifest merge to say OK (exit 0) over data that is not
# what the manifest or the arguments describe, and the smaller defects found
# with them. Each case is the review's reproducer, checked against the
# simplest reference there is: `guac gen` of the described range and cmp.
# Every case failed before the fix. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
loop= mnt=
tap_cleanup() {
	[ -z "$mnt" ] || umount "$mnt" 2>/dev/null
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
}
trap 'exit 130' INT TERM
cd "$tmp" || exit 2
case $GUAC in /*) ;; *) GUAC=$OLDPWD/$GUAC ;; esac

# poke FILE OFFSET TEXT: overwrite bytes in place.
poke() {
	printf '%s' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# json FIELD FILE: the value of "FIELD": in a one-line JSON report.
json() {
	grep -o "\"$1\":[^,}]*" "$2" | head -1 | sed 's/^[^:]*://'
}

tap_begin

# R1: a SHORT target must not be saved as a complete check for --resume.
"$GUAC" write --origin 0 a.img --length 4M --jobs 2 --manifest a.json >/dev/null 2>&1
truncate -s 3M a.img
"$GUAC" verify --manifest a.json >out 2>&1
rc=$?
check "R1: verify of a truncated target says SHORT, exit 1" "[ $rc -eq 1 ] && grep -q '^SHORT' out"
"$GUAC" verify --manifest a.json --resume >out 2>&1
rc=$?
check "R1: --resume after SHORT is not OK (exit $rc)" "[ $rc -ne 0 ] && ! grep -q '^OK' out"
# The INCOMPLETE variant: a fill that failed (EFBIG at 1 MiB).
(ulimit -f 2048; "$GUAC" write --origin 0 i.img --length 4M --manifest i.json >/dev/null 2>&1)
"$GUAC" verify --manifest i.json >/dev/null 2>&1
"$GUAC" verify --manifest i.json --resume >out 2>&1
rc=$?
check "R1: --resume of a failed fill prints no OK line and exits 1 (exit $rc)" \
	"[ $rc -eq 1 ] && ! grep -q '^OK' out && grep -q '^INCOMPLETE' out"

# R2: merge keeps no part's verify progress; parts of two targets do not merge.
truncate -s 8M b.img
"$GUAC" write --origin 0 b.img --shard 0/2 --manifest b-0.json >/dev/null 2>&1
"$GUAC" write --origin 0 b.img --shard 1/2 --manifest b-1.json >/dev/null 2>&1
poke b.img 1000 XXXX
"$GUAC" verify --manifest b-0.json >/dev/null 2>&1
check "R2: the damaged part's check fails" "[ $? -eq 1 ]"
"$GUAC" manifest merge b-all.json b-0.json b-1.json >/dev/null 2>&1
"$GUAC" verify --manifest b-all.json --resume >out 2>&1
rc=$?
check "R2: --resume of the merged manifest is not OK (exit $rc)" "[ $rc -ne 0 ] && ! grep -q '^OK' out"
truncate -s 8M c1.img c2.img
"$GUAC" write --origin 0 c1.img --shard 0/2 --manifest c-0.json >/dev/null 2>&1
"$GUAC" write --origin 0 c2.img --shard 1/2 --manifest c-1.json >/dev/null 2>&1
"$GUAC" manifest merge c-all.json c-0.json c-1.json >out 2>&1
rc=$?
check "R2: parts written to two different files do not merge (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'target' out && [ ! -e c-all.json ]"
cp b.img b.copy
"$GUAC" manifest merge b.img b-0.json b-1.json >out 2>&1
rc=$?
check "merge refuses to write its output over the parts' target (exit $rc)" \
	"[ $rc -eq 2 ] && cmp -s b.img b.copy"
"$GUAC" manifest merge b-0.json b-0.json b-1.json >out 2>&1
rc=$?
check "merge refuses to write its output over one of its parts (exit $rc)" "[ $rc -eq 2 ]"

# R3: a stop between two manifest ranges must not end as OK.
"$GUAC" write --origin 0 d.img --length 64M --jobs 64 --manifest d.json >/dev/null 2>&1
poke d.img $((63 * 1048576 + 100)) 'BAD!'
false_ok=0 tries=0
while [ $tries -lt 25 ]; do
	tries=$((tries + 1))
	"$GUAC" verify --manifest d.json --jobs 1 --bs 1M >o 2>&1 &
	p=$!
	sleep 0.0$((tries % 5 + 1))
	kill -INT $p 2>/dev/null
	if wait $p; then
		false_ok=$((false_ok + 1))
		sed 's/^/# /' o
	fi
done
check "R3: SIGINT at random moments: no OK in $tries runs ($false_ok were)" "[ $false_ok -eq 0 ]"
"$GUAC" verify --manifest d.json --resume >out 2>&1
rc=$?
check "R3: --resume after the interrupts finds the damage (exit $rc)" "[ $rc -eq 1 ]"

# R4: stream offsets are positions mod 2^70: past 2^64 bytes comes block 2^58.
X=18446744073709547520
{ "$GUAC" gen --offset $X --length 4096; "$GUAC" gen --length 4096; } >e1.img
"$GUAC" verify e1.img --offset $X --skip 4096 --length 4096 >out 2>&1
rc=$?
check "R4: bytes of stream offset 0 are no match for offset 2^64 (exit $rc)" "[ $rc -eq 1 ]"
"$GUAC" gen --offset $X --length 8192 >e2.img
"$GUAC" verify e2.img --offset $X --skip 4096 --length 4096 >out 2>&1
rc=$?
check "R4: the stream past 2^64 verifies with --offset and --skip (exit $rc)" "[ $rc -eq 0 ]"
"$GUAC" verify e2.img --offset $X >out 2>&1
rc=$?
check "R4: a plain verify across 2^64 (exit $rc)" "[ $rc -eq 0 ]"
truncate -s 64K e3.img
"$GUAC" write --origin 0 e3.img --offset $X --length 64K --shard 0/2 -m e3-0.json >/dev/null 2>&1
"$GUAC" write --origin 0 e3.img --offset $X --length 64K --shard 1/2 -m e3-1.json >/dev/null 2>&1
"$GUAC" gen --offset $X --length 64K >e3.ref
check "R4: sharded writes across 2^64 write the stream" "cmp -s e3.img e3.ref"
"$GUAC" manifest merge e3.json e3-0.json e3-1.json >/dev/null 2>&1 &&
	"$GUAC" verify -m e3.json >out 2>&1
rc=$?
check "R4: their merged manifest verifies (exit $rc)" "[ $rc -eq 0 ]"
"$GUAC" gen --length 64K >e3.img
"$GUAC" verify -m e3.json >out 2>&1
rc=$?
check "R4: and offset 0's bytes do not pass for them (exit $rc)" "[ $rc -eq 1 ]"
"$GUAC" write --origin 0 e4.img --offset $X --length 64K --jobs 4 >/dev/null 2>&1
check "R4: a write with jobs across 2^64 writes the stream" "cmp -s e4.img e3.ref"

# The diagnosis too: an older fill's data past 2^64 is that fill's (STALE_ORIGIN).
"$GUAC" write e5.img --offset $X --length 64K --origin 5 -m e5.json >/dev/null 2>&1
"$GUAC" write e5.img --offset $X --length 64K --origin 9 --force -m e5.json >/dev/null 2>&1
"$GUAC" gen --origin 5 --offset $X --length 64K |
	dd of=e5.img bs=512 skip=40 seek=40 count=1 conv=notrunc status=none
"$GUAC" verify -m e5.json >out 2>&1
rc=$?
check "R4: a stale sector past 2^64 is named STALE_ORIGIN (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q '^classes: 1 STALE_ORIGIN (origin 5)' out"

# R5: a bad sector dropped by --max-errors is not counted as verified. Job 0
# meets its bad sector 8 MiB into its first block, long after job 1 has
# taken the budget with the one 1000 bytes into its own: job 0's is dropped,
# and must not count as checked. Repair job 1's and --resume must still fail.
r5=0
for i in 1 2 3; do
	"$GUAC" write --origin 0 f.img --length 32M --manifest f.json >/dev/null 2>&1
	poke f.img $((8388608 - 100)) Z
	poke f.img $((16777216 + 1000)) Z
	"$GUAC" verify --manifest f.json --jobs 2 --max-errors 1 --bs 8M >/dev/null 2>&1
	"$GUAC" write --origin 0 f.img --seek 16777216 --offset 16777216 --length 4096 --buffered \
		>/dev/null 2>&1
	"$GUAC" verify --manifest f.json --resume >out 2>&1
	rc=$?
	[ $rc -eq 1 ] || { r5=$((r5 + 1)); sed 's/^/# /' out; }
done
check "R5: --resume after --max-errors finds the sector left bad (3 runs, $r5 not)" \
	"[ $r5 -eq 0 ]"

# R6: a check killed mid-way leaves no old "complete" behind.
"$GUAC" write --origin 0 g.img --length 256M --manifest g.json >/dev/null 2>&1
"$GUAC" verify --manifest g.json >/dev/null 2>&1
poke g.img 1000 Z
"$GUAC" verify --manifest g.json --jobs 1 --bs 4K >/dev/null 2>&1 &
p=$!
wait_read $p 8388608
kill -KILL $p 2>/dev/null
wait $p 2>/dev/null
check "R6: the killed check left the manifest saying it was running" \
	"grep -q '\"verify\": {\"status\": \"running\"' g.json"
"$GUAC" verify --manifest g.json --resume >out 2>&1
rc=$?
check "R6: --resume after SIGKILL finds the damage (exit $rc)" "[ $rc -eq 1 ]"
# A recorded complete check is no longer OK once the target has changed since.
"$GUAC" write --origin 0 h.img --length 1M --manifest h.json >/dev/null 2>&1
"$GUAC" verify --manifest h.json >/dev/null 2>&1
sleep 0.01
poke h.img 1000 Z
"$GUAC" verify --manifest h.json --resume >out 2>&1
rc=$?
check "R6: --resume of a complete check of a target changed since is not OK (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'changed' out"

# A version 2 manifest (as the guac with these defects wrote it) still loads,
# but its verify record is not trusted: --resume starts from the beginning.
# to_v2 FILE: rewrite a manifest as version 2.
to_v2() {
	sed -i 's/"version": 7/"version": 2/; /^  "host": /d; /^  "run": /d; s/, "target_stamp": \("[^"]*"\|null\)//; s/, "identity": [^}]*}/}/
		s/, "bad_ranges": [0-9]*, "classes": {[^}]*}, "bad": \[\]//' "$1"
	reseal "$1"
}
"$GUAC" write --origin 0 v.img --length 1M --manifest v.json >/dev/null 2>&1
to_v2 v.json
"$GUAC" verify --manifest v.json >out 2>&1
rc=$?
check "a version 2 manifest loads and verifies (exit $rc)" "[ $rc -eq 0 ]"
to_v2 v.json
poke v.img 5000 Z
touch -d @1000000000 v.img
"$GUAC" verify --manifest v.json --resume >out 2>&1
rc=$?
check "--resume does not trust a version 2 record (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'older guac' out"

# R7: --direct where the file system falls back to the page cache is refused.
if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.ext4 >/dev/null; then
	not_ok "R7: needs root and mkfs.ext4 for an ext4 data=journal mount (uid $(id -u))"
else
	truncate -s 64M fs.img
	if mkfs.ext4 -q -F fs.img && loop=$(losetup -f --show fs.img) && mkdir mnt &&
		mount -o data=journal "$loop" mnt; then
		mnt=$tmp/mnt
		"$GUAC" write --origin 0 mnt/j.img --length 1M --direct >out 2>&1
		rc=$?
		check "R7: write --direct on ext4 data=journal is refused (exit $rc)" \
			"[ $rc -eq 2 ] && grep -q 'direct I/O' out && [ ! -s mnt/j.img ]"
		"$GUAC" write --origin 0 mnt/j.img --length 1M --buffered >/dev/null 2>&1
		"$GUAC" verify mnt/j.img --direct >out 2>&1
		rc=$?
		check "R7: verify --direct there is refused (exit $rc)" \
			"[ $rc -eq 2 ] && grep -q 'direct I/O' out"
	else
		not_ok "R7: cannot mount an ext4 file system with data=journal"
	fi
fi

# A pipe whose start is not sector-aligned: every bad sector is counted, also
# those that a read boundary cuts in two, and the rest of that read is still
# compared. The data is device bytes 100 to 1048675; bytes 100 + 512k and
# 611 + 512k are damaged for k = 0 ... 2047: sectors 0 to 2048 are all bad,
# and every piece of them holds damage, however the pipe cuts its reads.
{ head -c 100 /dev/zero; "$GUAC" gen --length 1M; } >p.img
python3 - p.img <<'EOF'
import sys
with open(sys.argv[1], "r+b") as f:
    for k in range(2048):
        for pos in (100 + 512 * k, 100 + 512 * k + 511):
            f.seek(pos)
            b = f.read(1)
            f.seek(pos)
            f.write(bytes([b[0] ^ 0xff]))
EOF
cat p.img | "$GUAC" verify - --seek 100 --length 1M --bs 64K --json >out 2>/dev/null
check "unaligned pipe: all 2049 bad sectors counted ($(json bad_sectors out))" \
	"[ \"\$(json bad_sectors out)\" = 2049 ]"

# A sector larger than verify's 32 KiB slice is met in two pieces: the second
# piece of a bad one must not end the comparison of the rest of the read.
"$GUAC" write --origin 0 k.img --length 4M --manifest k.json >/dev/null 2>&1
sed -i 's/"sector_size": 512/"sector_size": 65536/' k.json
reseal k.json
poke k.img 100 Z
poke k.img 40000 Z
poke k.img 200000 Z
"$GUAC" verify --manifest k.json --jobs 1 --json >out 2>&1
check "64 KiB sectors: both bad sectors counted ($(json bad_sectors out))" \
	"[ \"\$(json bad_sectors out)\" = 2 ]"

# A pipe without --length could end early and pass: the length is required.
"$GUAC" gen --length 1M 2>/dev/null | "$GUAC" verify - >out 2>&1
rc=$?
check "a pipe without --length or a manifest is refused (exit $rc)" \
	"[ $rc -eq 2 ] && grep -q -- '--length' out"

# Shard variables narrow a whole manifest's check: the OK line says so.
"$GUAC" write --origin 0 s.img --length 4M --manifest s.json >/dev/null 2>&1
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 "$GUAC" verify --manifest s.json >out 2>&1
rc=$?
check "a shard's OK line names the shard and its source (exit $rc)" \
	"[ $rc -eq 0 ] && grep -q '^OK: .*shard 1/2.*SLURM' out"

tap_end
