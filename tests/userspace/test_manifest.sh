#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The write manifest (docs/manifest.md): a round trip through write, show and
# verify; the history of earlier origins; and every damaged manifest
# (truncated, another version, edited lengths, unknown or mistyped fields)
# refused by verify, show and write with a clear message and exit status 2,
# the target left untouched. TAP output.
set -u
GUAC=${GUAC:-build/userspace/guac}
. "$(dirname "$0")/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_begin
f=$tmp/f m=$tmp/m.json
"$GUAC" write --length 2M --jobs 2 --origin 5 --offset 1M -m "$m" "$f" >/dev/null 2>&1
check "write -m exits 0" "[ \$? -eq 0 ]"
for key in '"format": "guacrng-manifest"' '"version": 1' '"tool": "guac"' '"stream_version": 1' \
	'"origin": 5' '"stream_offset": 1048576' '"device_offset": 0' '"length": 2097152' \
	'"block_size": 1048576' '"sector_size": 512' '"status": "complete"' '"history": []' \
	'"type": "file"' '"shard": {"index": 0, "count": 1}' '"started": "20' '"finished": "20'; do
	check "manifest has $key" "grep -qF '$key' '$m'"
done
check "two ranges, each 1 MiB and done" \
	"[ \$(grep -c '\"length\": 1048576, \"done\": 1048576' '$m') -eq 2 ]"
check "tool_version is guac --version's" \
	"grep -qF \"\\\"tool_version\\\": \\\"\$(\"$GUAC\" --version | cut -d' ' -f2)\\\"\" '$m'"
"$GUAC" manifest show "$m" >"$tmp/show" 2>&1
check "manifest show: exit 0 and a summary" "[ \$? -eq 0 ] && grep -q '^# .*complete fill of 2097152 bytes' '$tmp/show'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "verify -m (target from the manifest): OK" "[ \$? -eq 0 ] && grep -q '^OK: 2097152 bytes' '$tmp/v'"
cp "$f" "$tmp/copy"
"$GUAC" verify -m "$m" "$tmp/copy" >/dev/null 2>&1
check "verify -m on a copy: OK" "[ \$? -eq 0 ]"
printf 'Z' | dd of="$tmp/copy" bs=1 seek=1500000 conv=notrunc status=none
"$GUAC" verify -m "$m" "$tmp/copy" >"$tmp/v" 2>&1
check "a damaged copy: exit 1 at sector 2929" "[ \$? -eq 1 ] && grep -q 'sector 2929)' '$tmp/v'"
"$GUAC" verify -m "$m" --origin 5 "$f" >/dev/null 2>&1
check "--origin with --manifest is a usage error" "[ \$? -eq 2 ]"

# History: another origin over the same target keeps the old one.
"$GUAC" write --length 2M --origin 9 -m "$m" "$f" >/dev/null 2>&1
check "rewrite with origin 9: history holds origin 5" \
	"grep -q '\"history\": \\[' '$m' && grep -q '{\"origin\": 5, \"stream_offset\": 1048576, \"device_offset\": 0, \"length\": 2097152' '$m'"
check "rewrite: origin is now 9" "grep -q '^  \"origin\": 9,' '$m'"
"$GUAC" write --length 2M --origin 9 -m "$m" "$f" >/dev/null 2>&1
check "the same origin again adds no history entry" "[ \$(grep -c '{\"origin\": ' '$m') -eq 1 ]"

# Damaged manifests: verify, show and write refuse them; the target is untouched.
good=$(cat "$m")
before=$(cksum <"$f")
bad() {	# bad NAME MESSAGE-REGEX: $tmp/bad.json is refused everywhere with MESSAGE.
	for cmd in "verify -m $tmp/bad.json" "manifest show $tmp/bad.json" \
		"write --length 2M -m $tmp/bad.json $f"; do
		# shellcheck disable=SC2086
		"$GUAC" $cmd >"$tmp/o" 2>"$tmp/e"
		rc=$?
		if [ $rc -eq 2 ] && grep -Eq "$2" "$tmp/e" && [ "$(cksum <"$f")" = "$before" ]; then
			ok "$1: '${cmd%% *}' refuses it: $(head -1 "$tmp/e")"
		else
			not_ok "$1: '${cmd%% *}': status $rc, '$(cat "$tmp/e")'"
		fi
	done
}
printf '%s' "$good" | head -c 300 >"$tmp/bad.json"
bad "truncated" "truncated"
: >"$tmp/bad.json"
bad "empty" "truncated"
printf '%s' "$good" | sed 's/"version": 1/"version": 2/' >"$tmp/bad.json"
bad "version 2" "manifest version 2 is not supported"
printf '%s' "$good" | sed 's/"format": "guacrng-manifest"/"format": "other"/' >"$tmp/bad.json"
bad "wrong format" "not a guac manifest"
printf '%s' "$good" | sed 's/"length": 2097152, "done": 2097152/"length": 2096640, "done": 2096640/' >"$tmp/bad.json"
bad "a range's length edited" "inconsistent manifest.*(gap|cover)"
printf '%s' "$good" | sed 's/^  "length": 2097152/  "length": 4194304/' >"$tmp/bad.json"
bad "the total length edited" "inconsistent manifest"
printf '%s' "$good" | sed 's/"done": 2097152/"done": 3000000/' >"$tmp/bad.json"
bad "done beyond the length" "inconsistent manifest.*done"
printf '%s' "$good" | sed 's/"sync": false/"sync": false, "colour": "blue"/' >"$tmp/bad.json"
bad "unknown field" "unknown field \"colour\""
printf '%s' "$good" | sed 's/"origin": 9,/"origin": "9",/' >"$tmp/bad.json"
bad "mistyped field" "\"origin\" must be"
printf '%s' "$good" | sed 's/"origin": 9,/"origin": 09,/' >"$tmp/bad.json"
bad "leading zero" "not a valid 64-bit integer"
printf '%s' "$good" | sed 's/"status": "complete"/"status": "done"/' >"$tmp/bad.json"
bad "unknown status" "unknown status"
printf '%s}' "$good" >"$tmp/bad.json"
bad "trailing text" "syntax error"
printf '%s' "$good" | sed 's/"sector_size": 512/"sector_size": 500/' >"$tmp/bad.json"
bad "sector size 500" "sector_size"
"$GUAC" verify -m "$tmp/nonexistent.json" >/dev/null 2>"$tmp/e"
check "a missing manifest: exit 2" "[ \$? -eq 2 ] && grep -q 'cannot open manifest' '$tmp/e'"
"$GUAC" manifest bogus >/dev/null 2>&1
check "manifest with an unknown action: exit 2" "[ \$? -eq 2 ]"
tap_end
