#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Issue 37, item 3: guac write --crash-safe keeps a 16 KiB journal, and guac
# verify --after-crash tells from it alone what every piece of the fill may
# hold after a crash: its refusals (exit 2, nothing written), its report,
# where the journal goes (a file's end, a device's last 16 KiB, --journal),
# each class at the right bytes (LOST, TORN, UNISSUED, FOREIGN), a writer
# killed outright, and a torn newest record. crash_differential.py tries
# random damage against a reference; tests/vm/storage-crash/ real power loss
# (dm-log-writes, dm-flakey). TAP output.
set -u
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
loop=""
tap_cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
}
trap 'exit 130' INT TERM
bs=65536

tap_begin

# refused DESCRIPTION WORDS COMMAND...: exit 2, the message has WORDS, no $tmp/new.
refused() {
	desc=$1 words=$2
	shift 2
	"$@" >"$tmp/r.out" 2>&1
	rc=$?
	check "$desc: exit 2, '$words', nothing written" \
		"[ $rc -eq 2 ] && grep -q -- '$words' '$tmp/r.out' && [ ! -e '$tmp/new' ]" ||
		sed 's/^/#   /' "$tmp/r.out"
}

refused "--journal without --crash-safe" "is for a --crash-safe fill" \
	"$GUAC" write --journal "$tmp/j" --length 1M "$tmp/new"
refused "--crash-window 0" "invalid --crash-window 0" \
	"$GUAC" write --crash-safe --crash-window 0 --length 1M "$tmp/new"
refused "--flush-interval 0" "invalid --flush-interval" \
	"$GUAC" write --crash-safe --flush-interval 0 --length 1M "$tmp/new"
refused "--crash-safe --resume" "not with --resume" \
	"$GUAC" write --crash-safe --resume -m "$tmp/m.json" --length 1M "$tmp/new"
refused "--crash-safe --shard 1/2" "not with --shard" \
	"$GUAC" write --crash-safe --shard 1/2 --length 1M "$tmp/new"
refused "--crash-safe --jobs 129" "at most 128 --jobs" \
	"$GUAC" write --crash-safe --jobs 129 --length 16M "$tmp/new"
"$GUAC" gen --length 4096 >"$tmp/same"
refused "--journal naming the target" "is the target" \
	"$GUAC" write --crash-safe --journal "$tmp/same" --length 1M "$tmp/same"
echo "not a journal" >"$tmp/notj"
refused "--journal over a file that is not a guac journal" "holds data that is not a guac journal" \
	"$GUAC" write --crash-safe --journal "$tmp/notj" --length 1M "$tmp/new"
check "... that file untouched" "[ \"\$(cat '$tmp/notj')\" = 'not a journal' ]"
head -c 20000 /dev/zero >"$tmp/zeros"
"$GUAC" write --crash-safe --journal "$tmp/zeros" --length 64K "$tmp/z.img" >/dev/null 2>&1
check "--journal over a file of zeros (a wiped disk's first 16 KiB): written, exit 0" \
	"[ $? -eq 0 ] && '$GUAC' verify --after-crash --journal '$tmp/zeros' '$tmp/z.img' >/dev/null"
typo=/dev/guac-journal-typo-$$
refused "--journal naming a /dev path that does not exist (a typo)" "no such device" \
	"$GUAC" write --crash-safe --journal "$typo" --length 1M "$tmp/new"
check "... no file made in /dev" "[ ! -e '$typo' ]"
rm -f "$typo"
refused "--journal naming the manifest" "is the manifest" \
	"$GUAC" write --crash-safe --journal "$tmp/m.json" -m "$tmp/m.json" --length 1M "$tmp/new"
refused "--journal naming a target not yet created" "is the target" \
	"$GUAC" write --crash-safe --journal "$tmp/new" --length 1M "$tmp/new"
refused "verify --prior-origin without --after-crash" "is for --after-crash" \
	"$GUAC" verify --prior-origin 5 "$tmp/same"
refused "verify --after-crash --length" "not with --length" \
	"$GUAC" verify --after-crash --length 4096 "$tmp/same"
refused "verify --after-crash of standard input" "not standard input" \
	"$GUAC" verify --after-crash -
refused "verify --after-crash of a file without a journal" "no valid journal record" \
	"$GUAC" verify --after-crash "$tmp/same"

"$GUAC" write --dry-run --crash-safe --crash-window 8 --flush-interval 0.5 --length 1000000 \
	"$tmp/new" >"$tmp/d.out" 2>&1
check "--dry-run: the journal's place and cadence, nothing written" \
	"[ $? -eq 0 ] && grep -q '^journal:  16 KiB at byte 1003520 of .*/new., a flush at least every 0.5 s and every 8 blocks a job\$' '$tmp/d.out' && [ ! -e '$tmp/new' ]"

# A whole fill over an earlier one (origin 5), its journal after it, 4 KiB aligned.
len=$((2 * 1024 * 1024 + 512))
"$GUAC" write --origin 5 --length 3M "$tmp/t" >/dev/null 2>&1
"$GUAC" write --crash-safe --bs $bs --origin 77 --length $len "$tmp/t" >"$tmp/w.out" 2>&1
check "a whole fill: exit 0, the journal at byte 3145728 (the file's end) named, records counted" \
	"grep -q '^crash-safe: [0-9]* journal records at byte 3145728 of .*/t. (the target.s end); after a crash: guac verify --after-crash ' '$tmp/w.out'"
check "the file is its 3 MiB and the journal's 16 KiB" "[ \$(stat -c %s '$tmp/t') -eq $((3145728 + 16384)) ]"
"$GUAC" verify --after-crash "$tmp/t" >"$tmp/v.out" 2>&1
check "verify --after-crash: exit 0, OK, every byte flushed, the record complete" \
	"[ $? -eq 0 ] && grep -q '^after-crash: OK: ' '$tmp/v.out' &&
	 grep -q '^after-crash: $len bytes flushed (must be new), 0 in flight' '$tmp/v.out' &&
	 grep -q 'sequential; complete; atomic unit 512 bytes\$' '$tmp/v.out'"
"$GUAC" verify --after-crash --progress log --progress-interval 0.001 "$tmp/t" >/dev/null 2>"$tmp/p.err"
check "--progress log: lines of bytes checked on stderr, the last at 100%" \
	"grep -q '^after-crash: [0-9]* of $len bytes checked (' '$tmp/p.err' &&
	 tail -1 '$tmp/p.err' | grep -q '^after-crash: $len of $len bytes checked (100.0%)'"
"$GUAC" write --crash-safe --json --bs $bs --origin 78 --length 1M --journal "$tmp/j" \
	"$tmp/t2" >"$tmp/w.json" 2>/dev/null
check "--json: the journal, its byte and its records" \
	"grep -q '\"journal\":\"$tmp/j\",\"journal_byte\":0,\"journal_records\":[1-9]' '$tmp/w.json'"

# LOST: a flushed block holding the earlier fill again (a lost write).
lost=$((3 * bs))
"$GUAC" write --origin 5 --seek $lost --offset $lost --length $bs "$tmp/t" >/dev/null 2>&1
"$GUAC" verify --after-crash --prior-origin 5 "$tmp/t" >"$tmp/v.out" 2>&1
check "a flushed block with the earlier fill's data: exit 1, LOST at its bytes, the prior content named" \
	"[ $? -eq 1 ] && grep -q '^violation $lost $((lost + bs - 1)) $((lost / 512)) $(((lost + bs) / 512 - 1)) LOST (flushed: must hold the new data): holds the prior content (origin 5)\$' '$tmp/v.out' &&
	 [ \$(grep -c '^violation ' '$tmp/v.out') -eq 1 ]"
"$GUAC" verify --after-crash "$tmp/t" >"$tmp/v.out" 2>&1
check "without --prior-origin: FOREIGN, the prior content offered as the reason" \
	"[ $? -eq 1 ] && grep -q '^violation $lost .* FOREIGN (flushed: must hold the new data): holds data this fill never wrote there (or the prior content' '$tmp/v.out'"
"$GUAC" write --origin 77 --seek $lost --offset $lost --length $bs "$tmp/t" >/dev/null 2>&1

# TORN: a 4 KiB unit of a flushed block, its first 1000 bytes new, the rest old.
torn=$((5 * bs + 8192))
"$GUAC" gen --origin 5 --offset $((torn + 1000)) --length 3096 |
	dd of="$tmp/t" bs=1 seek=$((torn + 1000)) conv=notrunc status=none
"$GUAC" verify --after-crash --prior-origin 5 --sector 4096 "$tmp/t" >"$tmp/v.out" 2>&1
check "a unit torn after 1000 bytes: exit 1, TORN at that 4 KiB unit alone" \
	"[ $? -eq 1 ] && grep -q '^violation $torn $((torn + 4095)) $((torn / 4096)) $((torn / 4096)) TORN (flushed: must hold the new data): its first 1000 bytes are pass 1.s (origin 77) data, the rest not\$' '$tmp/v.out' &&
	 [ \$(grep -c '^violation ' '$tmp/v.out') -eq 1 ]"
"$GUAC" verify --after-crash --prior-origin 5 "$tmp/t" >"$tmp/v.out" 2>&1
check "the same in 512-byte units: the unit with the tear TORN, the next five LOST" \
	"grep -q '^violation $((torn + 512)) $((torn + 1023)) .* TORN ' '$tmp/v.out' &&
	 grep -q '^violation $((torn + 1024)) $((torn + 4095)) .* LOST ' '$tmp/v.out'"

# A writer killed outright mid-fill: nothing lost in the page cache, so OK;
# then the data of a block never issued appears: UNISSUED.
rm -f "$tmp/k"
"$GUAC" write --origin 5 --length 4M "$tmp/k" >/dev/null 2>&1
"$GUAC" write --crash-safe --bs $bs --origin 77 --length 4M --rate 1M --crash-window 2 \
	--flush-interval 0.05 --progress none "$tmp/k" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
"$GUAC" verify --after-crash --prior-origin 5 "$tmp/k" >"$tmp/v.out" 2>&1
check "a writer SIGKILLed after 1 s of a 4 s fill: exit 0, OK, some bytes flushed, the rest not issued" \
	"[ $? -eq 0 ] && grep -q '^after-crash: OK' '$tmp/v.out' &&
	 grep -q '^after-crash: [1-9][0-9]* bytes flushed (must be new), [0-9]* in flight (new or old), [1-9][0-9]* not issued (must be old; old: the prior content)' '$tmp/v.out' &&
	 grep -q 'under way' '$tmp/v.out'" || sed 's/^/#   /' "$tmp/v.out"
last=$((4 * 1024 * 1024 - bs))
"$GUAC" write --origin 77 --seek $last --offset $last --length $bs "$tmp/k" >/dev/null 2>&1
"$GUAC" verify --after-crash --prior-origin 5 "$tmp/k" >"$tmp/v.out" 2>&1
check "the last block's new data, never issued: exit 1, UNISSUED there" \
	"[ $? -eq 1 ] && grep -q '^violation $last $((last + bs - 1)) .* UNISSUED (not issued: must hold the old): holds pass 1.s (origin 77) data\$' '$tmp/v.out'"

# A torn newest record: the older slot is read, and says less.
seq=$("$GUAC" verify --after-crash --prior-origin 5 "$tmp/t" |
	sed -n 's/^after-crash: journal record \([0-9]*\) .*/\1/p')
slot=$((3145728 + (seq % 2) * 8192 + 100))
printf 'X' | dd of="$tmp/t" bs=1 seek=$slot conv=notrunc status=none
"$GUAC" verify --after-crash --prior-origin 5 "$tmp/t" >"$tmp/v.out" 2>&1
check "its newest record ($seq) torn: record $((seq - 1)) from the other slot is the one read" \
	"grep -q '^after-crash: journal record $((seq - 1)) at byte 3145728 ' '$tmp/v.out'"
printf 'Y' | dd of="$tmp/t" bs=1 seek=$((3145728 + ((seq - 1) % 2) * 8192 + 100)) conv=notrunc status=none
"$GUAC" verify --after-crash "$tmp/t" >"$tmp/v.out" 2>&1
check "both records torn: exit 2, no valid journal record" \
	"[ $? -eq 2 ] && grep -q 'no valid journal record in the last 16 KiB of' '$tmp/v.out'"

# A block device: the journal in its last 16 KiB, which the default length leaves out.
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null; then
	not_ok "loop device: needs root and losetup (uid $(id -u))"
	tap_end
	exit
fi
truncate -s 8M "$tmp/backing"
if ! loop=$(losetup -f --show "$tmp/backing" 2>"$tmp/losetup"); then
	loop=""
	not_ok "losetup failed" "$tmp/losetup"
	tap_end
	exit
fi
end=$((8 * 1024 * 1024 - 16384))
"$GUAC" write --crash-safe --seek 4096 --length $((end - 4096 + 512)) "$loop" >"$tmp/d.out" 2>&1
check "a device: a range over its last 16 KiB refused, naming them and the longest length" \
	"[ $? -eq 2 ] && grep -q 'keeps its journal in device bytes $end-$((end + 16383)) .*at most --length $((end - 4096))' '$tmp/d.out'"
"$GUAC" write --crash-safe --force --bs $bs --origin 9 --seek 4096 "$loop" >"$tmp/d.out" 2>&1
check "a device: the default length ends at its last 16 KiB, the journal there" \
	"[ $? -eq 0 ] && grep -q '^OK: $((end - 4096)) of $((end - 4096)) bytes' '$tmp/d.out' &&
	 grep -q 'journal records at byte $end of .$loop. (the target.s end)' '$tmp/d.out'"
"$GUAC" verify --after-crash "$loop" >"$tmp/v.out" 2>&1
check "a device: verify --after-crash finds the journal and says OK (O_DIRECT, its physical sector)" \
	"[ $? -eq 0 ] && grep -q '^after-crash: OK' '$tmp/v.out' &&
	 grep -q 'device bytes 4096-$((end - 1)), bs $bs' '$tmp/v.out'" || sed 's/^/#   /' "$tmp/v.out"
tap_end
