#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac verify's progress line: drawn on standard error when it is a terminal
# (here a pseudo-terminal from script(1)), absent otherwise. The input pauses
# for a second mid-way, longer than the progress period, so a line is due
# whatever the machine's speed. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

cat >"$tmp/slow.sh" <<SLOW
#!/bin/sh
{ "$GUAC" gen --length 1M; sleep 1; "$GUAC" gen --offset 1M --length 1M; } | "$GUAC" verify --length 2M -
SLOW
chmod +x "$tmp/slow.sh"

tap_begin
if ! command -v script >/dev/null; then
	not_ok "script(1) is available (bsdutils)"
else
	script -qec "$tmp/slow.sh" /dev/null >"$tmp/tty" 2>&1
	if grep -q "verify: [0-9.]* [KM]iB of 2.00 MiB ([0-9.]*%), [0-9.]* [MG]B/s, ETA [0-9]:[0-9][0-9]:[0-9][0-9], 0 bad sectors, 0 unreadable" "$tmp/tty"; then
		ok "progress line with bytes, percent, rate, ETA and bad sectors on a terminal"
	else
		not_ok "progress line with bytes, percent, rate, ETA and bad sectors on a terminal" "$tmp/tty"
	fi
	if grep -q "OK: 2097152 bytes" "$tmp/tty"; then
		ok "the report follows the progress line"
	else
		not_ok "the report follows the progress line" "$tmp/tty"
	fi
fi
"$tmp/slow.sh" >"$tmp/out" 2>"$tmp/err"
if [ ! -s "$tmp/err" ] && grep -q "^OK: 2097152 bytes" "$tmp/out"; then
	ok "no progress output off a terminal in a check shorter than the log interval"
else
	not_ok "no progress output off a terminal in a check shorter than the log interval" "$tmp/err"
fi

# json FIELD FILE: the value of "FIELD": in a one-line JSON report.
json() {
	grep -o "\"$1\":[^,}]*" "$2" | head -1 | sed 's/^[^:]*://'
}

# --resume keeps the earlier run's findings: a stale sector found before the
# stop (here --max-errors 1, which saves the progress as Ctrl-C does) makes
# the resumed check a MISMATCH, never OK, in text and JSON.
f=$tmp/t.img
"$GUAC" write --origin 0 -n 4M -m "$tmp/m.json" "$f" >/dev/null 2>&1
"$GUAC" gen --origin 7 --offset 51200 -n 512 | dd of="$f" bs=512 seek=100 conv=notrunc status=none
cp "$tmp/m.json" "$tmp/m0.json"
"$GUAC" verify -m "$tmp/m.json" -j1 --bs 512 --max-errors 1 >"$tmp/o" 2>&1
check "the first run stops at the stale sector: exit 1" "[ \$? -eq 1 ]"
cp "$tmp/m.json" "$tmp/m1.json"
"$GUAC" verify -m "$tmp/m.json" --resume >"$tmp/o" 2>&1
rc=$?
check "--resume after a finding: exit 1, MISMATCH with the earlier count, no OK" \
	"[ $rc -eq 1 ] && grep -q '^MISMATCH: RESUMED: the earlier run had found 1 bad' '$tmp/o' && ! grep -q '^OK' '$tmp/o'"
check "--resume says where it started, as device and stream offsets" \
	"grep -q '^RESUMED: this run checked [0-9]* bytes (.*) from byte 51712 (stream offset 51712), all matching' '$tmp/o'"
cp "$tmp/m1.json" "$tmp/m.json"
"$GUAC" verify -m "$tmp/m.json" --resume --json >"$tmp/j" 2>&1
rc=$?
check "--resume --json: exit 1, result mismatch, the earlier sector counted" \
	"[ $rc -eq 1 ] && [ \"\$(json result '$tmp/j')\" = '\"mismatch\"' ] && [ \"\$(json bad_sectors '$tmp/j')\" = 1 ] && [ \"\$(json resumed_bad_sectors '$tmp/j')\" = 1 ]"
check "--resume --json: offset and device_offset are the first byte checked" \
	"[ \"\$(json offset '$tmp/j')\" = 51712 ] && [ \"\$(json device_offset '$tmp/j')\" = 51712 ]"
"$GUAC" verify -m "$tmp/m.json" --resume >"$tmp/o" 2>&1
check "--resume of a completed check with a finding: exit 1, says already complete" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: the check was already complete: it had found 1 bad' '$tmp/o' && ! grep -q '0 bytes' '$tmp/o'"
"$GUAC" gen -n 512 --offset 51200 | dd of="$f" bs=512 seek=100 conv=notrunc status=none
cp "$tmp/m0.json" "$tmp/m.json"
"$GUAC" verify -m "$tmp/m.json" >/dev/null 2>&1
"$GUAC" verify -m "$tmp/m.json" --resume >"$tmp/o" 2>&1
check "--resume of a clean completed check: exit 0, already complete" \
	"[ \$? -eq 0 ] && grep -q '^OK: the recorded check of this fill was complete' '$tmp/o'"

# --max-errors N stops at exactly N, however the bad sectors fall in reads and jobs.
dd if=/dev/zero of="$f" bs=512 seek=1000 count=40 conv=notrunc status=none
"$GUAC" verify -m "$tmp/m.json" --max-errors 5 -j 4 --bs 4096 --json >"$tmp/j" 2>&1
check "--max-errors 5: exit 1 with exactly 5 bad sectors" \
	"[ \$? -eq 1 ] && [ \"\$(json bad_sectors '$tmp/j')\" = 5 ]"
"$GUAC" gen -n $((40 * 512)) --offset 512000 | dd of="$f" bs=512 seek=1000 conv=notrunc status=none

# A copy given as SOURCE is checked, but the original's progress is left alone.
cp "$f" "$tmp/copy.img"
cp "$tmp/m.json" "$tmp/before.json"
"$GUAC" verify -m "$tmp/m.json" "$tmp/copy.img" >"$tmp/o" 2>"$tmp/e"
check "verify of a copy: OK, the manifest untouched, a note says so" \
	"[ \$? -eq 0 ] && cmp -s '$tmp/m.json' '$tmp/before.json' && grep -q 'progress not saved' '$tmp/e'"
"$GUAC" verify -m "$tmp/m.json" --resume "$tmp/copy.img" >/dev/null 2>"$tmp/e"
check "--resume on a copy is refused: exit 2" "[ \$? -eq 2 ] && grep -q 'resume continues the check of' '$tmp/e'"

# JSON offsets: both the first byte checked, --skip included.
"$GUAC" verify -m "$tmp/m.json" --skip 1M --length 4096 --json >"$tmp/j" 2>&1
check "--skip 1M: JSON offset and device_offset are both 1048576" \
	"[ \"\$(json offset '$tmp/j')\" = 1048576 ] && [ \"\$(json device_offset '$tmp/j')\" = 1048576 ]"

# A sub-range the manifest does not record as written is never OK.
# A write cut short by the file size limit (EFBIG): a real "failed" manifest.
(ulimit -f 2048; trap '' XFSZ; "$GUAC" write --origin 0 -j 1 -n 4M -m "$tmp/one.json" "$tmp/one.img" >/dev/null 2>&1)
done_b=$(grep -o '"done": [0-9]*' "$tmp/one.json" | sed 's/.*: //')
"$GUAC" verify -m "$tmp/one.json" --skip "$done_b" --length 1M >"$tmp/o" 2>&1
check "a sub-range never written (after byte $done_b): exit 1, INCOMPLETE, not OK" \
	"[ \$? -eq 1 ] && grep -q '^INCOMPLETE: the manifest records 1048576 bytes' '$tmp/o' && ! grep -q '^OK' '$tmp/o'"
"$GUAC" verify -m "$tmp/one.json" --skip $((done_b - 4096)) --length 8192 >"$tmp/o" 2>&1
check "a sub-range half written: exit 1, INCOMPLETE 4096 bytes" \
	"[ \$? -eq 1 ] && grep -q '^INCOMPLETE: the manifest records 4096 bytes' '$tmp/o' && ! grep -q '^OK' '$tmp/o'"
check "... and it says the written part matched (issue 36, U10)" \
	"grep -q '^INCOMPLETE: .*only the written ones were checked, and they all match the stream' '$tmp/o'"
dd if=/dev/zero of="$tmp/one.img" bs=512 seek=$(((done_b - 4096) / 512)) count=1 conv=notrunc status=none
"$GUAC" verify -m "$tmp/one.json" --skip $((done_b - 4096)) --length 8192 >"$tmp/o" 2>&1
check "... or that it did not, when a written sector is bad" \
	"[ \$? -eq 1 ] && grep -q '^INCOMPLETE: .*only the written ones were checked, and they do not all match (above)' '$tmp/o'"
"$GUAC" gen --origin 0 --offset $((done_b - 4096)) --length 512 |
	dd of="$tmp/one.img" bs=512 seek=$(((done_b - 4096) / 512)) count=1 conv=notrunc status=none	# mended
"$GUAC" verify -m "$tmp/one.json" --length 1M >"$tmp/o" 2>&1
check "the written part of it: exit 0" "[ \$? -eq 0 ] && grep -q '^OK: 1048576 bytes' '$tmp/o'"
"$GUAC" write --origin 0 --shard 1/3 -n 3M -m "$tmp/part-1.json" "$tmp/p.img" >/dev/null 2>&1
"$GUAC" verify -m "$tmp/part-1.json" --skip 0 --length 1M >"$tmp/o" 2>&1
check "a sub-range outside a shard's part: exit 2, named" \
	"[ \$? -eq 2 ] && grep -q 'not all in this manifest.s part, shard 1/3: bytes 1048576-2097151' '$tmp/o'"
"$GUAC" verify -m "$tmp/part-1.json" >"$tmp/o" 2>&1
check "a shard part's OK line gives its stream offset (1048576)" \
	"[ \$? -eq 0 ] && grep -q '^OK: 1048576 bytes (1.00 MiB) match the stream at offset 1048576' '$tmp/o'"
"$GUAC" verify -m "$tmp/part-1.json" --length 0 >"$tmp/o" 2>&1
check "--length 0 with a manifest: exit 2" "[ \$? -eq 2 ]"

# Offsets past 2^64 are usage errors, as for guac write.
"$GUAC" gen -n 1000 >"$tmp/k.img"
"$GUAC" verify --seek 0x8000000000000000 --skip 0x8000000000000000 "$tmp/k.img" >"$tmp/o" 2>&1
check "--seek + --skip past 2^64: exit 2, overflows" "[ \$? -eq 2 ] && grep -q overflows '$tmp/o' && ! grep -q bytes '$tmp/o'"
"$GUAC" verify --seek 0xffffffffffffff00 -n 0x200 "$tmp/k.img" >"$tmp/o" 2>&1
check "--seek + --length past 2^64: exit 2, overflows" "[ \$? -eq 2 ] && grep -q overflows '$tmp/o' && ! grep -q UNREADABLE '$tmp/o'"

# A report sector larger than the target's: one sector is counted and diagnosed once.
"$GUAC" gen -n 12288 >"$tmp/s.img"
"$GUAC" gen -n 4096 --origin 9 | dd of="$tmp/s.img" bs=4096 seek=1 conv=notrunc status=none
"$GUAC" verify --sector 4096 -j 2 "$tmp/s.img" >"$tmp/o" 2>&1
check "--sector 4096 -j 2: 1 bad sector, not 2" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: 1 bad 4096-byte sector in 1 range' '$tmp/o'"
check "... and it is diagnosed" "grep -q '^  sector 1 (byte 4096): ' '$tmp/o'"
"$GUAC" verify --sector 4096 -j 3 --skip 512 "$tmp/s.img" >"$tmp/o" 2>&1
check "--sector 4096 -j 3 --skip 512: 1 bad sector, diagnosed" \
	"[ \$? -eq 1 ] && grep -q '^MISMATCH: 1 bad 4096-byte sector in 1 range' '$tmp/o' && grep -q '^  sector 1 (byte 4096): ' '$tmp/o'"
"$GUAC" verify --sector 4096 --bs 512 "$tmp/s.img" >"$tmp/o" 2>&1
check "--bs 512 --sector 4096: exit 2 (reads smaller than a sector)" "[ \$? -eq 2 ] && grep -q 'not a multiple of the 4096-byte sector' '$tmp/o'"

# A pipe is the target from byte 0: a fill at --seek 1M checks where it lies.
"$GUAC" write --origin 0 --seek 1M -n 2M -j 2 -m "$tmp/q.json" "$tmp/q.img" >/dev/null 2>&1
cat "$tmp/q.img" | "$GUAC" verify -m "$tmp/q.json" - >"$tmp/o" 2>&1
check "cat target | verify -m - of a fill at --seek 1M: OK, 1 job" \
	"[ \$? -eq 0 ] && grep -q '^OK: 2097152 bytes' '$tmp/o' && grep -q ', 1 job,' '$tmp/o'"
cat "$tmp/q.img" | "$GUAC" verify -m "$tmp/q.json" --skip 1536K - >"$tmp/o" 2>&1
check "... with --skip (from the fill's start): OK from stream offset 1572864" \
	"[ \$? -eq 0 ] && grep -q '^OK: 524288 bytes .* at offset 1572864' '$tmp/o'"
cat "$tmp/q.img" | "$GUAC" verify --seek 1M -n 2M - >"$tmp/o" 2>&1
check "plain verify --seek 1M of a pipe: OK" "[ \$? -eq 0 ] && grep -q '^OK: 2097152 bytes' '$tmp/o'"
head -c 1500000 "$tmp/q.img" | "$GUAC" verify -m "$tmp/q.json" - >"$tmp/o" 2>&1
check "a pipe that ends early: exit 1, SHORT at its end" \
	"[ \$? -eq 1 ] && grep -q '^SHORT: the data ends at byte 1500000' '$tmp/o'"

# A check interrupted and resumed: its OK names the range's first byte (the
# fill's offset 0), not the byte this run began at, and says which run
# checked which part. Each read of the target is slowed (the shim), so the
# TERM lands mid-check.
f=$tmp/r.img
"$GUAC" write --origin 5 -n 8M -m "$tmp/r.json" "$f" >/dev/null 2>&1
if ${CC:-cc} -shared -fPIC -o "$tmp/slow.so" "$(dirname "$0")/../shims/slow_pwrite.c" -ldl 2>"$tmp/cc.err"; then
	LD_PRELOAD=$tmp/slow.so SLOW_READS=1 SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 \
		"$GUAC" verify -m "$tmp/r.json" -j1 --bs 64K >"$tmp/o1" 2>&1 &
	pid=$!
	wait_read $pid $((2 << 20))
	kill -TERM $pid
	wait $pid
	rc=$?
	"$GUAC" verify -m "$tmp/r.json" --resume >"$tmp/o" 2>&1
	rc2=$?
	first=$(sed -n 's/^INTERRUPTED: stopped after \([0-9]*\) bytes.*/\1/p' "$tmp/o1")
	check "interrupted (130), then resumed: OK for the 8 MiB from offset 0, the resumed part and this run's start named" \
		"[ $rc -eq 130 ] && [ $rc2 -eq 0 ] && [ -n '$first' ] && [ '$first' -gt 0 ] &&
		 grep -q '^OK: 8388608 bytes (8.00 MiB) match the stream at offset 0, origin 5; $first of them checked by the run resumed, the rest by this run from offset $first;' '$tmp/o'"

	# --progress=log (issue 36, U10): whole lines for a batch job's log, with
	# the bad sectors found so far. A fill of 4 ranges (4 segments to check)
	# with 3 zeroed sectors in each: the lines count over the whole check.
	f=$tmp/l.img
	"$GUAC" write --origin 6 -n 8M -j 4 -m "$tmp/l.json" "$f" >/dev/null 2>&1
	for k in 1 3 5 7; do
		dd if=/dev/zero of="$f" bs=512 seek=$((k * 2048)) count=3 conv=notrunc status=none
	done
	LD_PRELOAD=$tmp/slow.so SLOW_READS=1 SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 \
		"$GUAC" verify -m "$tmp/l.json" -j1 --bs 64K --progress=log --progress-interval 0.2 \
		>"$tmp/o" 2>"$tmp/e"
	rc=$?
	re="^guac verify: 20[0-9-]*T[0-9:]*Z '$f': [0-9]* of 8388608 bytes ([0-9.]* \(B\|[KM]iB\) of 8.00 MiB, [0-9.]*%), [0-9.]* [MG]B/s, ETA [0-9]*:[0-5][0-9]:[0-5][0-9], [0-9]* bad sectors\{0,1\}, 0 unreadable\$"
	n=$(grep -c "$re" "$tmp/e")
	check "--progress=log: exit 1 and 3 or more lines with time, bytes of the whole check, percent, rate, ETA, bad sectors ($n)" \
		"[ $rc -eq 1 ] && [ $n -ge 3 ]"
	check "... whole lines: no carriage return or escape" "! grep -q \"\$(printf '[\\r\\033]')\" '$tmp/e'"
	sed -n 's/.*, \([0-9]*\) bad sectors\{0,1\}, .*/\1/p' "$tmp/e" >"$tmp/bad"
	check "... the bad-sector count grows, never falls ($(tr '\n' ' ' <"$tmp/bad"))" \
		"awk 'NR > 1 && \$1 < last { bad = 1 } { last = \$1 } NR == 1 { first = \$1 } END { exit bad || first >= last }' '$tmp/bad'"
	check "... and ends with an 'ended' line of the report's 12 bad sectors" \
		"tail -n 1 '$tmp/e' | grep -q \"^guac verify: .* 8388608 of 8388608 bytes (8.00 MiB of 8.00 MiB, 100.0%), [0-9.]* [MG]B/s, ended, 12 bad sectors, 0 unreadable\\$\" &&
		 grep -q '^MISMATCH: 12 bad 512-byte sectors' '$tmp/o'"
	LD_PRELOAD=$tmp/slow.so SLOW_READS=1 SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 \
		"$GUAC" verify -m "$tmp/l.json" -j1 --bs 64K --progress=none --progress-interval 0.2 \
		>"$tmp/o" 2>"$tmp/e"
	check "--progress=none: nothing on standard error, the report as ever" \
		"[ \$? -eq 1 ] && [ ! -s '$tmp/e' ] && grep -q '^MISMATCH: 12 bad' '$tmp/o'"
	LD_PRELOAD=$tmp/slow.so SLOW_READS=1 SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 \
		"$GUAC" verify -m "$tmp/l.json" -j1 --bs 64K --progress-interval 0.2 --json \
		>"$tmp/j" 2>"$tmp/e"
	check "the default off a terminal is log lines; --json's standard output stays one object" \
		"[ \$(grep -c \"$re\" '$tmp/e') -ge 3 ] && python3 -m json.tool '$tmp/j' >/dev/null && [ \$(wc -l <'$tmp/j') -eq 1 ]"
else
	not_ok "cannot build the read-slowing shim" "$tmp/cc.err"
fi
for bad in "--progress=often" "--progress-interval 0" "--progress-interval never"; do
	# shellcheck disable=SC2086 # the option and its value are two words
	"$GUAC" verify $bad "$tmp/k.img" >"$tmp/o" 2>&1
	check "verify $bad: a usage error (exit 2)" "[ \$? -eq 2 ] && grep -q 'invalid --progress' '$tmp/o'"
done

tap_end
