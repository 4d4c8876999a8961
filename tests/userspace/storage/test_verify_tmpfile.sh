#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac verify when a temporary file for --bad-list cannot be made (the
# fail_tmpfile shim): the run stops with a usage-class error (exit 2) and
# the message naming the cause, and the progress of the segments checked
# before stays saved in the manifest (status "interrupted", the first
# range verified), so that --resume continues from there and ends OK.
# TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

tap_begin
if ! ${CC:-cc} -shared -fPIC -o "$tmp/fail.so" "$(dirname "$0")/../shims/fail_tmpfile.c" \
	-ldl 2>"$tmp/cc.err"; then
	not_ok "cannot build the tmpfile shim" "$tmp/cc.err"
	tap_end
	exit
fi
f=$tmp/t.img
"$GUAC" write --origin 0 -n 4M -j 2 -m "$tmp/m.json" "$f" >/dev/null 2>&1
check "the fill has two ranges" \
	"[ \$(grep -c '\"device_offset\": [0-9]*, \"stream_offset\"' '$tmp/m.json') -eq 2 ]"

# One job: one temporary file a segment; the second one fails.
LD_PRELOAD="$tmp/fail.so" TMPFILE_FAIL_AT=2 "$GUAC" verify -m "$tmp/m.json" -j1 \
	--bad-list "$tmp/bad.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no temporary file for the second segment: exit 2" "[ $rc -eq 2 ]"
check "the message names the cause" \
	"grep -q 'cannot create a temporary file for --bad-list: Too many open files' '$tmp/err'"
check "no OK on standard output" "! grep -q '^OK' '$tmp/out'"
check "the progress is saved: status interrupted" \
	"grep -q '\"status\": \"interrupted\"' '$tmp/m.json'"
check "the first range is recorded as verified, the second not" \
	"grep -q '\"length\": 2097152, \"done\": 2097152, \"verified\": 2097152}' '$tmp/m.json' &&
	 grep -q '\"device_offset\": 2097152, .*\"verified\": 0}' '$tmp/m.json'"

"$GUAC" verify -m "$tmp/m.json" --resume --bad-list "$tmp/bad.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--resume continues after the first range and ends OK" \
	"[ $rc -eq 0 ] && grep -q '^OK: 4194304 bytes .*2097152 of them checked by the run resumed' '$tmp/out'"

# Every temporary file refused: nothing read, exit 2, the record not complete.
cp "$tmp/m.json" "$tmp/m2.json"
LD_PRELOAD="$tmp/fail.so" TMPFILE_FAIL_AT=1 "$GUAC" verify -m "$tmp/m2.json" \
	--bad-list "$tmp/bad.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no temporary file at all: exit 2, the message, no report" \
	"[ $rc -eq 2 ] && grep -q 'cannot create a temporary file for --bad-list' '$tmp/err' && [ ! -s '$tmp/out' ]"
check "... and the record says interrupted, not complete" \
	"grep -q '\"status\": \"interrupted\"' '$tmp/m2.json'"
tap_end
