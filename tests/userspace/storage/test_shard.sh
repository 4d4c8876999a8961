#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Shards: N processes each write one of N contiguous sector-aligned parts
# (--shard K/N, JOB_COMPLETION_INDEX with --shards or GUAC_SHARDS, Slurm's
# array variables), each with its own manifest part; guac manifest merge
# checks the coverage (no gap, no overlap, all complete, one fill) and the
# merged manifest verifies. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
loop=
tap_cleanup() {
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
}
trap 'exit 130' INT TERM

tap_begin
f=$tmp/f
L=$((10 * 1048576 + 4096))	# 20488 sectors: 4 shards of 5122 sectors
"$GUAC" write --origin 0 --shard 0/4 --length $L --jobs 2 -m "$tmp/p0.json" "$f" >/dev/null 2>&1
check "--shard 0/4 exits 0" "[ \$? -eq 0 ]"
JOB_COMPLETION_INDEX=1 "$GUAC" write --origin 0 --shards 4 --length $L -m "$tmp/p1.json" "$f" >/dev/null 2>&1
check "JOB_COMPLETION_INDEX=1 --shards 4 exits 0" "[ \$? -eq 0 ]"
JOB_COMPLETION_INDEX=2 GUAC_SHARDS=4 "$GUAC" write --origin 0 --length $L -m "$tmp/p2.json" "$f" >/dev/null 2>&1
check "JOB_COMPLETION_INDEX=2 GUAC_SHARDS=4 exits 0" "[ \$? -eq 0 ]"
SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1 \
	"$GUAC" write --origin 0 --length $L -m "$tmp/p3.json" "$f" >/dev/null 2>&1
check "SLURM_ARRAY_TASK_ID=4 of 1-4 exits 0" "[ \$? -eq 0 ]"
for k in 0 1 2 3; do
	check "part $k is shard $k/4" "grep -q '\"shard\": {\"index\": $k, \"count\": 4}' '$tmp/p$k.json'"
done
check "shard 1 starts at sector 5122" "grep -q '\"device_offset\": $((5122 * 512)), \"stream_offset\"' '$tmp/p1.json'"
check "the file is the whole stream range" "\"$GUAC\" gen --length $L | cmp -s - '$f'"
"$GUAC" verify -m "$tmp/p2.json" >/dev/null 2>&1
check "one part verifies on its own" "[ \$? -eq 0 ]"

"$GUAC" manifest merge "$tmp/all.json" "$tmp/p3.json" "$tmp/p1.json" "$tmp/p0.json" "$tmp/p2.json" >"$tmp/o" 2>&1
check "merge of the 4 parts (any order): exit 0" "[ \$? -eq 0 ]"
check "the merged manifest is shard 0/1, complete" \
	"grep -q '\"shard\": {\"index\": 0, \"count\": 1}' '$tmp/all.json' && grep -q '\"status\": \"complete\"' '$tmp/all.json'"
"$GUAC" verify -m "$tmp/all.json" >"$tmp/v" 2>&1
check "the merged manifest verifies all $L bytes" "[ \$? -eq 0 ] && grep -q '^OK: $L bytes' '$tmp/v'"

# verify --shard K/N of the whole fill checks exactly what write --shard K/N wrote.
json() {
	grep -o "\"$1\":[^,}]*" "$2" | head -1 | sed 's/^[^:]*://'
}
cp "$f" "$tmp/fc"
"$GUAC" gen --origin 5 -n 512 | dd of="$tmp/fc" bs=512 seek=$((2 * 5122 + 7)) conv=notrunc status=none
for k in 0 1 2 3; do
	"$GUAC" verify --shard $k/4 -m "$tmp/all.json" --json "$tmp/fc" >"$tmp/v$k" 2>&1
	echo $? >"$tmp/rc$k"
done
start1=$((5122 * 512))
check "verify --shard 1/4 of the whole: exit 0, its part exactly" \
	"[ \$(cat '$tmp/rc1') -eq 0 ] && [ \"\$(json device_offset '$tmp/v1')\" = $start1 ] && [ \"\$(json bytes_checked '$tmp/v1')\" = $start1 ] && [ \"\$(json offset '$tmp/v1')\" = $start1 ]"
check "verify --shard 3/4: its part, the last, shorter one" \
	"[ \$(cat '$tmp/rc3') -eq 0 ] && [ \"\$(json bytes_checked '$tmp/v3')\" = $((L - 3 * start1)) ]"
check "verify --shard 2/4 finds the bad sector in its part: exit 1" \
	"[ \$(cat '$tmp/rc2') -eq 1 ] && [ \"\$(json bad_sectors '$tmp/v2')\" = 1 ]"
check "the other shards do not see it" "[ \$(cat '$tmp/rc0') -eq 0 ]"
JOB_COMPLETION_INDEX=2 "$GUAC" verify --shards 4 -m "$tmp/all.json" "$tmp/fc" >/dev/null 2>&1
check "verify with JOB_COMPLETION_INDEX=2 --shards 4: shard 2, exit 1" "[ \$? -eq 1 ]"
JOB_COMPLETION_INDEX=1 GUAC_SHARDS=4 "$GUAC" verify -m "$tmp/all.json" "$tmp/fc" >/dev/null 2>&1
check "verify with JOB_COMPLETION_INDEX=1 GUAC_SHARDS=4: shard 1, exit 0" "[ \$? -eq 0 ]"
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1 \
	"$GUAC" verify -m "$tmp/all.json" "$tmp/fc" >/dev/null 2>&1
check "verify with SLURM_ARRAY_TASK_ID=3 of 1-4: shard 2, exit 1" "[ \$? -eq 1 ]"
SLURM_ARRAY_TASK_ID=14 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_STEP=2 \
	"$GUAC" verify --json -m "$tmp/all.json" "$tmp/fc" >"$tmp/v" 2>&1
check "SLURM_ARRAY_TASK_STEP=2: task 14 of 10-16:2 is shard 2, exit 1" \
	"[ \$? -eq 1 ] && [ \"\$(json device_offset '$tmp/v')\" = $((2 * start1)) ]"
SLURM_ARRAY_TASK_ID=13 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_STEP=2 \
	"$GUAC" verify -m "$tmp/all.json" "$tmp/fc" >/dev/null 2>"$tmp/e"
check "a task ID off the step: exit 2, named" "[ \$? -eq 2 ] && grep -q 'SLURM_ARRAY_TASK_STEP' '$tmp/e'"
"$GUAC" verify --shard 2/4 -m "$tmp/p2.json" "$tmp/fc" >/dev/null 2>&1
check "verify --shard 2/4 of part 2's manifest: that part, exit 1" "[ \$? -eq 1 ]"
"$GUAC" verify --shard 1/4 -m "$tmp/p2.json" "$tmp/fc" >/dev/null 2>"$tmp/e"
check "verify --shard 1/4 of part 2's manifest: exit 2, named" \
	"[ \$? -eq 2 ] && grep -q 'the manifest is shard 2/4' '$tmp/e'"
"$GUAC" verify --shard 1/4 --length $L "$f" >"$tmp/o" 2>&1
check "verify --shard 1/4 --length L without a manifest: that part, OK at its offset" \
	"[ \$? -eq 0 ] && grep -q '^OK: $start1 bytes .* at offset $start1' '$tmp/o'"
"$GUAC" verify --shard 1/4 --skip 4096 -m "$tmp/all.json" >/dev/null 2>&1
check "--shard with --skip: exit 2" "[ \$? -eq 2 ]"

"$GUAC" manifest merge "$tmp/gap.json" "$tmp/p0.json" "$tmp/p1.json" "$tmp/p3.json" >/dev/null 2>"$tmp/e"
check "a missing part is a gap: exit 1, nothing written" \
	"[ \$? -eq 1 ] && grep -q 'gap: shard 2/4 is missing' '$tmp/e' && [ ! -e '$tmp/gap.json' ]"
"$GUAC" manifest merge "$tmp/ov.json" "$tmp/p0.json" "$tmp/p1.json" "$tmp/p1.json" "$tmp/p2.json" "$tmp/p3.json" >/dev/null 2>"$tmp/e"
check "a part given twice is an overlap: exit 1" "[ \$? -eq 1 ] && grep -q 'overlap' '$tmp/e'"
"$GUAC" write --origin 0 --shard 1/3 --length $L -m "$tmp/q1.json" "$tmp/g" >/dev/null 2>&1
"$GUAC" manifest merge "$tmp/mix.json" "$tmp/p0.json" "$tmp/q1.json" >/dev/null 2>"$tmp/e"
check "parts of different splits: exit 1 (shard count differs)" "[ \$? -eq 1 ] && grep -q 'shard count differs' '$tmp/e'"
"$GUAC" write --shard 1/4 --length $L --origin 3 -m "$tmp/o1.json" "$tmp/g" >/dev/null 2>&1
"$GUAC" manifest merge "$tmp/mix.json" "$tmp/p0.json" "$tmp/o1.json" "$tmp/p2.json" "$tmp/p3.json" >/dev/null 2>"$tmp/e"
check "parts of another origin: exit 1" "[ \$? -eq 1 ] && grep -q 'origin differs' '$tmp/e'"
# A real incomplete part (a hand-edited one would fail the manifest's own checks):
# the file size limit (EFBIG) stops shard 2 a MiB into its part.
(ulimit -f $(((2 * 5122 * 512 + 1048576) / 1024)); trap '' XFSZ
	"$GUAC" write --origin 0 --shard 2/4 --length $L -m "$tmp/i2.json" "$tmp/i2" >/dev/null 2>&1)
"$GUAC" manifest merge "$tmp/inc.json" "$tmp/p0.json" "$tmp/p1.json" "$tmp/i2.json" "$tmp/p3.json" >/dev/null 2>"$tmp/e"
check "an incomplete part: exit 1" "[ \$? -eq 1 ] && grep -q 'is failed' '$tmp/e'"
sed '0,/"length": \([0-9]*\)/s//"length": 512/' "$tmp/p1.json" >"$tmp/e1.json"
"$GUAC" manifest merge "$tmp/ed.json" "$tmp/p0.json" "$tmp/e1.json" "$tmp/p2.json" "$tmp/p3.json" >/dev/null 2>"$tmp/e"
check "a part with edited lengths: exit 2 (inconsistent)" "[ \$? -eq 2 ] && grep -q 'inconsistent' '$tmp/e'"

# Shard arguments that make no sense, before anything is written.
printf 'keep' >"$tmp/k"
for env in "SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=4" "JOB_COMPLETION_INDEX=4 GUAC_SHARDS=4" \
	"SLURM_ARRAY_TASK_ID=1"; do
	env $env "$GUAC" write --origin 0 --length 4096 "$tmp/k" >/dev/null 2>"$tmp/e"
	rc=$?
	check "$env: exit 2, target untouched" "[ $rc -eq 2 ] && [ \"\$(cat '$tmp/k')\" = keep ]"
done
"$GUAC" write --origin 0 --shard 5/4 --length 4096 "$tmp/k" >/dev/null 2>&1
check "--shard 5/4: exit 2" "[ \$? -eq 2 ] && [ \"\$(cat '$tmp/k')\" = keep ]"
# More shards than sectors (4096 bytes: 8 of 512) cannot be meant: refused for
# every shard, not only the empty ones, naming both numbers; nothing written.
for k in 9 0 7; do
	rm -f "$tmp/n"
	"$GUAC" write --origin 0 --shard $k/16 --length 4096 "$tmp/n" >/dev/null 2>"$tmp/e"
	rc=$?
	check "--shard $k/16 of 8 sectors: exit 2, both numbers named, no file" \
		"[ $rc -eq 2 ] && grep -q '16 shards .* 4096 bytes are only 8 sectors of 512 bytes' '$tmp/e' && [ ! -e '$tmp/n' ]"
done
JOB_COMPLETION_INDEX=0 GUAC_SHARDS=9 "$GUAC" write --origin 0 --length 4096 "$tmp/k" >/dev/null 2>"$tmp/e"
check "JOB_COMPLETION_INDEX=0 GUAC_SHARDS=9 of 8 sectors: exit 2, target untouched" \
	"[ \$? -eq 2 ] && grep -q 'from JOB_COMPLETION_INDEX' '$tmp/e' && [ \"\$(cat '$tmp/k')\" = keep ]"
"$GUAC" write --origin 0 --shard 7/8 --length 4096 "$tmp/n" >/dev/null 2>&1
check "--shard 7/8 of 8 sectors (one each) is written" "[ \$? -eq 0 ] && [ \$(stat -c %s '$tmp/n') -eq 4096 ]"
# guac verify --shard: the same rule, plain and with a whole-fill manifest.
"$GUAC" gen --length 4096 | "$GUAC" verify --length 4096 --shard 0/9 - >/dev/null 2>"$tmp/e"
check "verify --shard 0/9 of 8 sectors: exit 2, both numbers named" \
	"[ \$? -eq 2 ] && grep -q 'refusing to verify: 9 shards .* only 8 sectors' '$tmp/e'"
"$GUAC" write --origin 0 --length 4096 -m "$tmp/w.json" "$tmp/w" >/dev/null 2>&1
"$GUAC" verify -m "$tmp/w.json" --shard 3/9 >/dev/null 2>"$tmp/e"
check "verify -m (8 sectors) --shard 3/9: exit 2, both numbers named" \
	"[ \$? -eq 2 ] && grep -q 'refusing to verify: 9 shards .* only 8 sectors' '$tmp/e'"
"$GUAC" verify -m "$tmp/w.json" --shard 3/8 >/dev/null 2>&1
check "verify -m (8 sectors) --shard 3/8 checks its sector: exit 0" "[ \$? -eq 0 ]"

# Parts of one fill of a disk that grew between them (issue 40: merge took
# parts with different recorded target sizes): a block device's size is its
# identity's, so the merge refuses them. (A file's parts may differ in size:
# it grows as they land.)
truncate -s 8M "$tmp/grow.img"
loop=$(losetup -f --show "$tmp/grow.img")
"$GUAC" write --shard 0/2 --length 8M --origin 99 -m "$tmp/g0.json" "$loop" >/dev/null 2>&1
truncate -s 16M "$tmp/grow.img"
losetup -c "$loop"
"$GUAC" write --shard 1/2 --length 8M --origin 99 --force -m "$tmp/g1.json" "$loop" >/dev/null 2>&1
"$GUAC" manifest merge "$tmp/g.json" "$tmp/g0.json" "$tmp/g1.json" >/dev/null 2>"$tmp/e"
check "a disk's parts with different recorded sizes: the merge refuses them (exit 1), saying so" \
	"[ \$? -eq 1 ] && grep -q 'its target size differs' '$tmp/e' && [ ! -e '$tmp/g.json' ]"
tap_end
