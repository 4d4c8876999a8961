#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write --rate RATE (issue 37, "a rate limit"; as fio's rate=): the
# fill's writes, over all --jobs together, stay under RATE bytes a second.
# Timing is asserted one way only, as a slow machine can only make a fill
# slower: a throttled fill takes at least the time its bytes take at the
# rate, never that anything is fast. The bytes are still guac gen's (guac
# verify -m OK); the report says the limit (text, JSON, the --dry-run plan);
# a Ctrl-C ends a throttled fill at once (exit 130, the manifest
# interrupted), even one whose next block is an hour away, and --resume
# finishes it at another rate. With --pattern random --passes,
# --verify-backlog, --sync and --direct. Bad input is refused, exit 2,
# nothing created. guac verify --rate throttles a check's reads the same
# way. Regular files only. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

f=$tmp/f m=$tmp/m.json

# now: seconds since the epoch, to the nanosecond.
now() {
	date +%s.%N
}

# at_least START SECONDS: true when SECONDS or more have passed since START.
at_least() {
	awk -v s="$1" -v e="$(now)" -v min="$2" 'BEGIN { exit !(e - s >= min) }'
}

# within START SECONDS: true when at most SECONDS have passed since START.
within() {
	awk -v s="$1" -v e="$(now)" -v max="$2" 'BEGIN { exit !(e - s <= max) }'
}

tap_begin

# 3 MiB at 1 MiB/s over two jobs: the jobs share the rate, so at least 3 s
# (2.5 asserted), where each job alone at the rate would take 1.5 s.
rm -f "$f" "$m"
start=$(now)
"$GUAC" write --origin 7 --bs 64K --length 3M --jobs 2 --rate 1M --progress log \
	--progress-interval 0.5 -m "$m" "$f" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "3 MiB at --rate 1M with --jobs 2: exit 0, OK" \
	"[ $rc -eq 0 ] && grep -q '^OK: 3145728 of 3145728 bytes' '$tmp/o'"
check "... took at least 2.5 s (3 MiB at 1 MiB/s over both jobs together)" "at_least $start 2.5"
check "... the summary says the limit (rate limit 1.0 MB/s (1.00 MiB/s))" \
	"grep -q ', 2 jobs, pwrite, queue depth 1, bs 65536, 512-byte sectors, rate limit 1.0 MB/s (1.00 MiB/s); ' '$tmp/o'"
check "... and a rate achieved of at most 1.0 MB/s (1 MiB/s is 1.05 MB/s)" \
	"sed -n 's/^OK: .*; [0-9.]* s, \\([0-9.]*\\) MB\\/s\$/\\1/p' '$tmp/o' |
	 awk '{ n++ } \$1 > 1.05 { bad = 1 } END { exit bad || n != 1 }'"
# The progress lines' rate is the bytes over the time, as without a limit.
check "... the progress log lines say at most 1.0 MB/s, and some were printed" \
	"grep -q 'MB/s, ETA' '$tmp/e' &&
	 ! grep -o '[0-9.]* MB/s' '$tmp/e' | awk '\$1 > 1.05 { bad = 1 } END { exit !bad }'"
"$GUAC" gen --origin 7 --length 3M >"$tmp/ref"
check "... its bytes are guac gen's" "cmp -s '$tmp/ref' '$f'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... guac verify -m: OK" "[ \$? -eq 0 ] && grep -q '^OK: 3145728 bytes' '$tmp/v'"
# The rate is how the bytes were written, not which: the manifest's fields stay as they were.
check "... the manifest records no rate (not part of the fill)" "! grep -q rate '$m'"

# Through io_uring (--iodepth 8): each submission waits for its turn too.
rm -f "$f" "$m"
start=$(now)
"$GUAC" write --origin 9 --bs 64K --length 2M --iodepth 8 --rate 1M --progress none \
	-m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
"$GUAC" gen --origin 9 --length 2M >"$tmp/ref9"
check "2 MiB at --rate 1M --iodepth 8: OK, at least 1.5 s, guac gen's bytes" \
	"[ $rc -eq 0 ] && grep -q 'queue depth 8, .*rate limit 1.0 MB/s' '$tmp/o' &&
	 at_least $start 1.5 && cmp -s '$tmp/ref9' '$f'"

# Late wake-ups (a loaded machine's timers; the sleep_late shim makes each
# clock_nanosleep 20 ms late) must not lower the rate: the schedule takes
# the lost time back (up to 10 ms behind it), as the next blocks go at once.
# 1 MiB of 4 KiB blocks at 1 MiB/s: about 1 s; a schedule that restarted
# from each late wake-up would take 256 x (3.9 + 20) ms, over 6 s.
CC=${CC:-cc}
shims=$(cd "$(dirname "$0")/../shims" && pwd)
if $CC -shared -fPIC -o "$tmp/late.so" "$shims/sleep_late.c" -ldl 2>"$tmp/cc.err"; then
	rm -f "$f"
	start=$(now)
	LD_PRELOAD="$tmp/late.so" "$GUAC" write --origin 3 --bs 4K --length 1M --rate 1M \
		--progress none "$f" >"$tmp/o" 2>&1
	rc=$?
	check "timers 20 ms late: 1 MiB at --rate 1M in 4 KiB blocks still within 4 s (the rate kept)" \
		"[ $rc -eq 0 ] && within $start 4 && at_least $start 0.9"
else
	not_ok "cannot build the sleep_late shim with $CC" "$tmp/cc.err"
fi

# Without --rate: no limit said (no timing asserted).
rm -f "$f"
"$GUAC" write --origin 7 --bs 64K --length 1M --progress none "$f" >"$tmp/o" 2>&1
check "control: without --rate the summary names no limit" \
	"[ \$? -eq 0 ] && grep -q '^OK: ' '$tmp/o' && ! grep -q 'rate limit' '$tmp/o'"

# JSON: rate_limit in bytes a second, null without.
rm -f "$f"
"$GUAC" write --origin 7 --bs 64K --length 256K --rate 512K --json --progress none "$f" \
	>"$tmp/o" 2>&1
check "--json: \"rate_limit\":524288" "[ \$? -eq 0 ] && grep -q '\"rate_limit\":524288,' '$tmp/o'"
rm -f "$f"
"$GUAC" write --origin 7 --bs 64K --length 256K --json --progress none "$f" >"$tmp/o" 2>&1
check "--json without --rate: \"rate_limit\":null" "grep -q '\"rate_limit\":null,' '$tmp/o'"

# --dry-run: the plan says the rate; nothing is created.
rm -f "$f" "$m"
"$GUAC" write --dry-run --origin 7 --length 1M --rate 50M -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--dry-run --rate 50M: the plan says the limit, nothing created" \
	"[ $rc -eq 0 ] &&
	 grep -q '^rate:     at most 52.4 MB/s (50.00 MiB/s) over all jobs, 52428800 bytes a second\$' '$tmp/o' &&
	 [ ! -e '$f' ] && [ ! -e '$m' ]"
"$GUAC" write --dry-run --origin 7 --length 1M --rate 50MB "$f" >"$tmp/o" 2>&1
check "... --rate 50MB is decimal: 50.0 MB/s (47.68 MiB/s)" \
	"grep -q '^rate:     at most 50.0 MB/s (47.68 MiB/s) over all jobs, 50000000 bytes a second\$' '$tmp/o'"

# --pattern random --passes 2 --verify-backlog: 2 MiB twice at 2 MiB/s, at least 2 s.
rm -f "$f" "$m"
start=$(now)
"$GUAC" write --pattern random --seed 9 --passes 2 --bs 64K --length 2M --jobs 2 \
	--verify-backlog 4 --rate 2M --progress none -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "random, 2 passes, --verify-backlog 4, --rate 2M: exit 0, every block read back, none wrong" \
	"[ $rc -eq 0 ] && grep -q '^read back: 64 blocks (4194304 bytes), 0 mismatches; ' '$tmp/o'"
check "... took at least 1.5 s (both passes' 4 MiB at 2 MiB/s; read-backs not counted)" \
	"at_least $start 1.5"
o=$(sed -n 's/^  "origin": \([0-9]*\),$/\1/p' "$m")
"$GUAC" gen --origin "$o" --length 2M >"$tmp/ref2"
check "... the bytes are the last pass's stream, and guac verify -m says OK" \
	"cmp -s '$tmp/ref2' '$f' && '$GUAC' verify -m '$m' >/dev/null 2>&1"

# --sync, and --direct where the file system takes it.
rm -f "$f"
start=$(now)
"$GUAC" write --origin 7 --bs 64K --length 1M --sync --rate 512K --progress none "$f" \
	>"$tmp/o" 2>&1
rc=$?
check "--sync --rate 512K, 1 MiB: exit 0, at least 1.5 s, gen's bytes" \
	"[ $rc -eq 0 ] && at_least $start 1.5 && head -c 1048576 '$tmp/ref' | cmp -s - '$f'"
if dd if=/dev/zero of="$tmp/d" oflag=direct bs=4096 count=1 status=none 2>/dev/null; then
	rm -f "$f"
	start=$(now)
	"$GUAC" write --origin 7 --bs 64K --length 1M --direct --rate 512K --progress none "$f" \
		>"$tmp/o" 2>&1
	rc=$?
	check "--direct --rate 512K, 1 MiB: exit 0, direct I/O, at least 1.5 s, gen's bytes" \
		"[ $rc -eq 0 ] && grep -q '; direct I/O, ' '$tmp/o' && at_least $start 1.5 &&
		 head -c 1048576 '$tmp/ref' | cmp -s - '$f'"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP this file system takes no O_DIRECT"
fi

# Ctrl-C during a throttled fill: exit 130 at once, the manifest interrupted;
# then --resume at another rate ends it.
rm -f "$f" "$m"
"$GUAC" write --origin 7 --bs 64K --length 3M --jobs 2 --rate 512K --progress none \
	-m "$m" "$f" >"$tmp/o" 2>&1 &
pid=$!
wait_written $pid 262144
start=$(now)
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C (SIGINT) during a throttled fill: exit 130 within 20 s, INTERRUPTED" \
	"[ $rc -eq 130 ] && within $start 20 && grep -q '^INTERRUPTED: ' '$tmp/o'"
check "... the manifest says interrupted, with some but not all bytes done" \
	"grep -q '^  \"status\": \"interrupted\",' '$m' && grep -q '\"done\": [1-9]' '$m' &&
	 ! grep -q '^OK' '$tmp/o'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "... guac verify -m: the bytes written match (INCOMPLETE, nothing wrong)" \
	"grep -q '^INCOMPLETE: .*they all match the stream' '$tmp/v'"
"$GUAC" write --resume --rate 8M --progress none -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "... --resume with another --rate (8M) ends it: OK, the new limit said" \
	"[ $rc -eq 0 ] && grep -q '^OK: 3145728 of 3145728' '$tmp/o' &&
	 grep -q 'rate limit 8.4 MB/s (8.00 MiB/s)' '$tmp/o'"
check "... gen's bytes, guac verify -m OK" \
	"cmp -s '$tmp/ref' '$f' && '$GUAC' verify -m '$m' >/dev/null 2>&1"

# A block an hour away: the wait looks at the stop flag, a Ctrl-C ends it
# (a watchdog kills it after 60 s, which the test then fails).
rm -f "$f" "$m"
"$GUAC" write --origin 7 --bs 1M --length 2M --rate 300 --progress none -m "$m" "$f" \
	>"$tmp/o" 2>&1 &
pid=$!
# Its sleep ends with it: a sleep left behind would hold the suite's output open.
( trap 'kill $nap 2>/dev/null; exit 0' TERM
  sleep 60 & nap=$!
  wait $nap && kill -KILL $pid 2>/dev/null ) >/dev/null 2>&1 &
dog=$!
sleep 1
start=$(now)
kill -INT $pid
wait $pid
rc=$?
kill $dog 2>/dev/null
wait $dog 2>/dev/null
check "--rate 300 with --bs 1M (a block an hour): Ctrl-C exits 130 within 20 s, nothing written" \
	"[ $rc -eq 130 ] && within $start 20 &&
	 grep -q '^INTERRUPTED: 0 of 2097152 bytes' '$tmp/o' && grep -q 'rate limit 300 B/s;' '$tmp/o'"
check "... the manifest says interrupted, 0 done" \
	"grep -q '^  \"status\": \"interrupted\",' '$m' && grep -q '\"done\": 0' '$m'"

# A resume is held to one block an hour at the recorded --bs (1M), not the default's.
"$GUAC" write --resume --rate 200 --progress none -m "$m" "$f" >"$tmp/o" 2>&1
rc=$?
check "--resume --rate 200 of that 1M-block fill: refused (exit 2), at least 292 said" \
	"[ $rc -eq 2 ] && grep -q 'invalid --rate 200: less than one --bs block (1048576 bytes) an hour.*at least --rate 292' '$tmp/o' &&
	 grep -q '\"done\": 0' '$m'"

# guac verify --rate: the check's reads under the same schedule.
rm -f "$f" "$m"
"$GUAC" write --origin 7 --length 3M --progress none -m "$m" "$f" >/dev/null 2>&1
start=$(now)
"$GUAC" verify --jobs 2 --bs 64K --rate 1M --progress none -m "$m" >"$tmp/v" 2>&1
rc=$?
check "verify --rate 1M --jobs 2 of 3 MiB: OK, at least 2.5 s" \
	"[ $rc -eq 0 ] && grep -q '^OK: 3145728 bytes' '$tmp/v' && at_least $start 2.5"
check "... the mode line says the limit" \
	"grep -q '^mode: .*, 2 jobs, 65536-byte reads, .*, rate limit 1.0 MB/s (1.00 MiB/s)\$' '$tmp/v'"
"$GUAC" verify --bs 64K --rate 8M --json --progress none -m "$m" >"$tmp/v" 2>&1
check "... --json: \"rate_limit\":8388608; without --rate null" \
	"grep -q '\"rate_limit\":8388608,' '$tmp/v' &&
	 '$GUAC' verify --json --progress none -m '$m' 2>&1 | grep -q '\"rate_limit\":null,'"
"$GUAC" verify --jobs 2 --bs 64K --rate 512K --progress none -m "$m" >"$tmp/v" 2>&1 &
pid=$!
wait_read $pid 262144
start=$(now)
kill -INT $pid
wait $pid
rc=$?
check "verify --rate: Ctrl-C exits 130 within 20 s, INTERRUPTED, the manifest's check interrupted" \
	"[ $rc -eq 130 ] && within $start 20 && grep -q '^INTERRUPTED: ' '$tmp/v' &&
	 grep -q '\"verify\": {\"status\": \"interrupted\"' '$m'"
"$GUAC" verify --resume --rate 16M --progress none -m "$m" >"$tmp/v" 2>&1
check "... verify --resume at another rate: OK" \
	"[ \$? -eq 0 ] && grep -q '^OK: 3145728 bytes' '$tmp/v' && grep -q 'rate limit 16.8 MB/s' '$tmp/v'"
cp "$m" "$tmp/m.before"
for r in 0 -1 5Q 10; do
	"$GUAC" verify --rate $r --progress none -m "$m" >"$tmp/v" 2>&1
	rc=$?
	check "verify --rate $r: exit 2, said, the manifest untouched" \
		"[ $rc -eq 2 ] && grep -q 'rate' '$tmp/v' && cmp -s '$m' '$tmp/m.before'"
done
check "... --rate 10 with the default --bs 256K: at least 73 said" \
	"grep -q 'invalid --rate 10: less than one --bs block (262144 bytes) an hour, each read would wait longer; give at least --rate 73' '$tmp/v'"

# Bad input: a message naming --rate, exit 2, neither the target nor the manifest created.
bad() {
	desc=$1
	shift
	rm -f "$f" "$m"
	"$GUAC" write --origin 7 --length 1M --progress none -m "$m" "$@" "$f" >"$tmp/o" 2>&1
	rc=$?
	check "$desc: exit 2, said, nothing created" \
		"[ $rc -eq 2 ] && grep -q 'rate' '$tmp/o' && [ ! -e '$f' ] && [ ! -e '$m' ]"
}
bad "--rate 0" --rate 0
bad "--rate -5" --rate -5
bad "--rate 5Q (garbage)" --rate 5Q
bad "--rate '' (empty)" --rate ''
bad "--rate with no value" --rate
bad "--rate 100 with --bs 1M (under a block an hour)" --rate 100
bad "--rate 1 with --bs 4096 (under a block an hour)" --bs 4096 --rate 1
check "... the last says what would do (at least --rate 2, or a smaller --bs)" \
	"grep -q 'invalid --rate 1: less than one --bs block (4096 bytes) an hour, each write would wait longer; give at least --rate 2, or a smaller --bs; nothing written' '$tmp/o'"
rm -f "$f"
"$GUAC" write --dry-run --origin 7 --length 1M --bs 4096 --rate 2 "$f" >"$tmp/o" 2>&1
check "--rate 2 with --bs 4096 (a block in 34 min) is planned" \
	"[ \$? -eq 0 ] && grep -q '^rate:     at most 2 B/s over all jobs, 2 bytes a second\$' '$tmp/o'"

tap_end
