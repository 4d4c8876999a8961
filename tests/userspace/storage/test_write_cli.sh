#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write on regular files: the bytes are guac gen's, every range option
# lands where it says, and every wrong argument is refused with a message
# and exit status 2 before a single byte of the target changes. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

tap_begin
f=$tmp/f
"$GUAC" write --origin 0 --length 3M --jobs 3 --bs 64K "$f" >"$tmp/out" 2>&1
check "write --length 3M --jobs 3 exits 0" "[ $? -eq 0 ]"
check "the file is guac gen --length 3M" "\"$GUAC\" gen --length 3M | cmp -s - '$f'"
check "the report says OK, fsynced and buffered" \
	"grep -q '^OK: 3145728 of 3145728 bytes (3.00 MiB) durable (fsynced)' '$tmp/out' && grep -q 'buffered I/O, 3 jobs' '$tmp/out'"
"$GUAC" write --seek 1000 --offset 777 --origin 9 --length 5000 --sync "$f" >/dev/null 2>&1
check "write --seek 1000 --offset 777 --origin 9 --length 5000 --sync" "[ $? -eq 0 ]"
tail -c +1001 "$f" | head -c 5000 >"$tmp/mid"
check "bytes 1000-5999 are gen --origin 9 --offset 777 --length 5000" \
	"\"$GUAC\" gen --origin 9 --offset 777 --length 5000 | cmp -s - '$tmp/mid'"
"$GUAC" gen --length 1000 >"$tmp/head"
"$GUAC" gen --offset 6000 --length $((3145728 - 6000)) >"$tmp/tail"
check "bytes before and after are untouched" \
	"head -c 1000 '$f' | cmp -s - '$tmp/head' && tail -c +6001 '$f' | cmp -s - '$tmp/tail'"
check "the file keeps its size (never truncated)" "[ \$(stat -c %s '$f') -eq 3145728 ]"
"$GUAC" write --origin 0 "$f" >/dev/null 2>&1
check "default length: the rest of the file" "[ \$? -eq 0 ] && \"$GUAC\" gen --length 3M | cmp -s - '$f'"
"$GUAC" verify --seek 1000 --offset 777 --origin 9 --length 5000 "$f" >/dev/null 2>&1
check "verify of a range that was overwritten fails" "[ \$? -eq 1 ]"

# Ctrl-C during a write: clean stop, the manifest says how far it got.
"$GUAC" write --origin 0 --length 4G --bs 4K --sync -m "$tmp/int.json" "$tmp/int" >"$tmp/int.txt" 2>&1 &
pid=$!
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 130, INTERRUPTED with the durable count" \
	"[ $rc -eq 130 ] && grep -q '^INTERRUPTED: [0-9]* of 4294967296 bytes' '$tmp/int.txt'"
check "... whose range is said to be the fill's, not what is durable (issue 36, U10)" \
	"grep -q '^INTERRUPTED: [0-9]* of 4294967296 bytes ([^)]*) durable (fsynced), of the fill at device bytes 0-4294967295 ' '$tmp/int.txt'"
check "SIGINT: the manifest says interrupted" "grep -q '\"status\": \"interrupted\"' '$tmp/int.json'"
done_bytes=$(grep -o '"done": [0-9]*' "$tmp/int.json" | sed 's/.*: //')
check "SIGINT: the recorded $done_bytes bytes verify" \
	"\"$GUAC\" verify --length $done_bytes '$tmp/int' >/dev/null"

# Ctrl-C twice while a 64 MiB O_DSYNC block is in flight (users press it
# again when nothing seems to happen): still a clean stop with the report and
# the manifest. Only a third signal may kill.
"$GUAC" write --origin 0 --length 2G --bs 64M --sync -m "$tmp/int2.json" "$tmp/int2" >"$tmp/int2.txt" 2>&1 &
pid=$!
for i in $(seq 100); do [ -s "$tmp/int2" ] && break; sleep 0.02; done
kill -INT $pid
sleep 0.02
kill -INT $pid
wait $pid
rc=$?
check "two SIGINTs: exit 130, INTERRUPTED with the durable count" \
	"[ $rc -eq 130 ] && grep -q '^INTERRUPTED: [0-9]* of 2147483648 bytes' '$tmp/int2.txt'"
check "two SIGINTs: the manifest says interrupted" \
	"grep -q '\"status\": \"interrupted\"' '$tmp/int2.json'"
rm -f "$tmp/int2"

# The progress line: on a terminal (script(1)'s pseudo-terminal) only. A
# write far longer than the 0.5 s between lines, stopped with Ctrl-C once the
# first line is drawn (how long 8 MiB of O_DSYNC writes take depends on the
# disk: on a fast one, less than one interval).
if command -v script >/dev/null; then
	script -qec "'$GUAC' write --length 4G --bs 4K --sync '$tmp/p'" /dev/null >"$tmp/tty" 2>&1 &
	pid=$!
	progress='write: [0-9.]* [KMG]iB of 4.00 GiB ([0-9.]*%), [0-9.]* [kMG]B/s, ETA [0-9]*:[0-9][0-9]:[0-9][0-9]'
	for i in $(seq 200); do grep -q "$progress" "$tmp/tty" && break; sleep 0.1; done
	pkill -INT -f "write --length 4G --bs 4K --sync $tmp/p"
	wait $pid
	check "write on a terminal draws 'write: X of 4.00 GiB (P%), R MB/s, ETA h:mm:ss'" \
		"grep -q '$progress' '$tmp/tty'"
	rm -f "$tmp/p"
	"$GUAC" write --origin 0 --length 8M --bs 4K --sync "$tmp/p" >/dev/null 2>"$tmp/err"
	check "no progress off a terminal in a write shorter than the log interval" "[ ! -s '$tmp/err' ]"
else
	ok "progress line # SKIP script(1) missing"
fi

# A file size limit (EFBIG) is reported like ENOSPC: durable bytes, exit 3
# (the target's I/O failed; issue 36, U7: not 2, a usage error's).
sh -c "ulimit -f 2048; exec '$GUAC' write --length 4M -m '$tmp/fb.json' '$tmp/fb'" >"$tmp/fb.txt" 2>&1
rc=$?
check "EFBIG: exit 3, FAILED and 1 MiB durable" \
	"[ $rc -eq 3 ] && grep -q '^FAILED: File too large at device byte 1048576' '$tmp/fb.txt' && grep -q '^DURABLE: 1048576 of 4194304 bytes' '$tmp/fb.txt'"
check "EFBIG: the manifest says failed with 1048576 done" \
	"grep -q '\"status\": \"failed\"' '$tmp/fb.json' && grep -q '\"done\": 1048576' '$tmp/fb.json'"

# Wrong arguments: message, exit 2, target unchanged (and not created).
head -c 65536 /dev/urandom >"$tmp/victim"
before=$(cksum <"$tmp/victim")
printf 'not json' >"$tmp/bad.json"
for args in "--length 1X" "--length 010x" "--seek -1" "--offset 0x" "--jobs 0" "--jobs 257" \
	"--bs 100" "--bs 1000" "--bs 1000 --buffered -m $tmp/bs.json" "--bs 128M" "--shard 3/3" "--shard 1" "--shard a/b" "--shards 4" \
	"--direct --buffered" "--length 0" "--bogus" "--manifest $tmp/bad.json" \
	"--direct --seek 100 --length 4096" "--direct --length 1000" "--impl avx1024" \
	"--seek 18446744073709551615 --length 2" "--manifest /nonexistent-dir/m.json"; do
	# shellcheck disable=SC2086
	"$GUAC" write --origin 0 $args "$tmp/victim" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -eq 2 ] && [ -s "$tmp/e" ] && [ "$(cksum <"$tmp/victim")" = "$before" ]; then
		ok "rejects '$args': $(head -1 "$tmp/e")"
	else
		not_ok "rejects '$args': status $rc, message '$(cat "$tmp/e")'"
	fi
done
"$GUAC" write --origin 0 --bs 1000 -n 100000 -m "$tmp/bs.json" "$tmp/bs.img" >/dev/null 2>"$tmp/e"
check "--bs 1000 (not whole sectors): exit 2, nothing created, the sector size named" \
	"[ \$? -eq 2 ] && [ ! -e '$tmp/bs.img' ] && [ ! -e '$tmp/bs.json' ] && grep -q 'not a multiple of the 512-byte sector size' '$tmp/e'"

# The manifest is renamed into place at the end: never over the target itself.
"$GUAC" write --origin 0 -n 1M -m "$tmp/same" "$tmp/same" >/dev/null 2>"$tmp/e"
check "-m X X: exit 2, nothing created" \
	"[ \$? -eq 2 ] && [ ! -e '$tmp/same' ] && grep -q 'is the target' '$tmp/e'"
"$GUAC" write --origin 0 -n 1M -m "$tmp/./same" "$tmp/../$(basename "$tmp")/same" >/dev/null 2>"$tmp/e"
check "-m X X spelled differently: exit 2" "[ \$? -eq 2 ] && [ ! -e '$tmp/same' ]"
ln -s victim "$tmp/vlink"
ln "$tmp/victim" "$tmp/vhard"
for mpath in "$tmp/victim" "$tmp/vlink" "$tmp/vhard"; do
	"$GUAC" write --origin 0 -n 4096 -m "$mpath" "$tmp/victim" >/dev/null 2>"$tmp/e"
	rc=$?
	check "-m $(basename "$mpath") (the target, a symlink or hard link to it): exit 2, target unchanged" \
		"[ $rc -eq 2 ] && grep -q 'is the target' '$tmp/e' && [ \"\$(cksum <'$tmp/victim')\" = '$before' ]"
done

# The manifest names the target by its absolute path: it works from anywhere.
mkdir "$tmp/d"
(cd "$tmp" && "$GUAC" write --origin 0 -n 1M -m d/rel.json d/rel.img >/dev/null 2>&1)
check "a relative target is recorded absolute" "grep -qF '\"path\": \"$tmp/d/rel.img\"' '$tmp/d/rel.json'"
(cd "$tmp/d" && "$GUAC" verify -m rel.json >"$tmp/o" 2>&1)
check "cd elsewhere; verify -m: OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
# A manifest is JSON, and JSON is UTF-8: a path that is not is refused, not mangled.
bad_name=$tmp/$(printf 'a\377b')
"$GUAC" write --origin 0 -n 1M -m "$tmp/u.json" "$bad_name" >/dev/null 2>"$tmp/e"
check "a non-UTF-8 target path with -m: exit 2, nothing created" \
	"[ \$? -eq 2 ] && [ ! -e '$tmp/u.json' ] && [ ! -e \"\$bad_name\" ] && grep -q 'not valid UTF-8' '$tmp/e'"
"$GUAC" write --origin 0 -n 1M -m "$tmp/u.json" "$tmp/caf$(printf '\303\251')" >/dev/null 2>&1
check "a UTF-8 path (café) is recorded and the JSON is valid" \
	"[ \$? -eq 0 ] && { ! command -v python3 >/dev/null || python3 -m json.tool '$tmp/u.json' >/dev/null; }"
"$GUAC" verify -m "$tmp/u.json" >/dev/null 2>&1
check "... and verifies" "[ \$? -eq 0 ]"

"$GUAC" write --origin 0 "$tmp/victim" extra >/dev/null 2>&1
check "an extra argument: exit 2" "[ \$? -eq 2 ] && [ \"\$(cksum <'$tmp/victim')\" = '$before' ]"
"$GUAC" write --origin 0 >/dev/null 2>&1
check "no TARGET: exit 2" "[ \$? -eq 2 ]"
"$GUAC" write --origin 0 --length 1M "$tmp" >/dev/null 2>"$tmp/e"
check "a directory: exit 2" "[ \$? -eq 2 ] && grep -q directory '$tmp/e'"
"$GUAC" write --origin 0 "$tmp/new" >/dev/null 2>"$tmp/e"
check "a new file without --length: exit 2, not created" "[ \$? -eq 2 ] && [ ! -e '$tmp/new' ]"
"$GUAC" write --origin 0 --length 1M /dev/null >/dev/null 2>"$tmp/e"
check "a character device: exit 2" "[ \$? -eq 2 ] && grep -q 'neither a regular file nor a block device' '$tmp/e'"
# "-" is standard input: refused before any origin is drawn or file named "-" made.
(cd "$tmp" && "$GUAC" write --length 4096 - >/dev/null 2>"$tmp/e")
check "write - (standard input): exit 2, one message naming it, no file '-'" \
	"[ \$? -eq 2 ] && [ \$(wc -l <'$tmp/e') -eq 1 ] && grep -q \"'-' is standard input\" '$tmp/e' && [ ! -e '$tmp/-' ]"
"$GUAC" gen --length 4096 | "$GUAC" verify --direct --origin 0 --length 4096 - >/dev/null 2>"$tmp/e"
check "verify --direct - : exit 2, naming O_DIRECT" \
	"[ \$? -eq 2 ] && grep -q 'standard input cannot be read with --direct' '$tmp/e'"
"$GUAC" verify --direct --origin 0 --length 4096 /dev/zero >/dev/null 2>"$tmp/e"
check "verify --direct of a character device: exit 2, naming it" \
	"[ \$? -eq 2 ] && grep -q \"'/dev/zero' is a pipe or character device\" '$tmp/e'"
JOB_COMPLETION_INDEX=1 "$GUAC" write --origin 0 --length 1M "$tmp/victim" >/dev/null 2>"$tmp/e"
check "JOB_COMPLETION_INDEX without a count: exit 2, target unchanged" \
	"[ \$? -eq 2 ] && grep -q GUAC_SHARDS '$tmp/e' && [ \"\$(cksum <'$tmp/victim')\" = '$before' ]"
"$GUAC" write --origin 0 --help >"$tmp/h"
for opt in --offset --length --origin --seek --direct --buffered --bs --jobs --sync --manifest \
	--shard --shards --impl --version --help; do
	grep -q -- "$opt" "$tmp/h" || not_ok "write --help documents $opt"
done
ok "write --help documents every option"
tap_end
