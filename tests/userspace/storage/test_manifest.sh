#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The write manifest (docs/manifest.md): a round trip through write, show and
# verify; the history of earlier origins; and every damaged manifest
# (truncated, another version, edited lengths, unknown or mistyped fields,
# any field edited consistently: the checksum) refused by verify, show and
# write with a clear message and exit status 2, the target left untouched;
# shard merges keep every part's history. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

tap_begin
f=$tmp/f m=$tmp/m.json
"$GUAC" write --length 2M --jobs 2 --origin 5 --offset 1M -m "$m" "$f" >/dev/null 2>&1
check "write -m exits 0" "[ \$? -eq 0 ]"
for key in '"format": "guacrng-manifest"' '"version": 7' '"run": null' '"tool": "guac"' '"stream_version": 1' \
	'"origin": 5' '"stream_offset": 1048576' '"device_offset": 0' '"length": 2097152' \
	'"block_size": 1048576' '"sector_size": 512' '"status": "complete"' '"history": []' \
	'"type": "file"' '"shard": {"index": 0, "count": 1}' '"started": "20' '"finished": "20'; do
	check "manifest has $key" "grep -qF '$key' '$m'"
done
check "two ranges, each 1 MiB and done" \
	"[ \$(grep -c '\"length\": 1048576, \"done\": 1048576' '$m') -eq 2 ]"
check "the manifest ends with its checksum" \
	"tail -2 '$m' | head -1 | grep -Eq '^  \"checksum\": \"sha256:[0-9a-f]{64}\"\$'"
check "target.path is absolute" "grep -qF '\"path\": \"/' '$m'"
check "python3's JSON parser reads it" "! command -v python3 >/dev/null || python3 -m json.tool '$m' >/dev/null"
check "tool_version is guac --version's" \
	"grep -qF \"\\\"tool_version\\\": \\\"\$(\"$GUAC\" --version | cut -d' ' -f2)\\\"\" '$m'"
"$GUAC" manifest show "$m" >"$tmp/show" 2>&1
check "manifest show: exit 0 and a summary" "[ \$? -eq 0 ] && grep -q '^# .*complete fill of 2097152 bytes' '$tmp/show'"
"$GUAC" verify -m "$m" >"$tmp/v" 2>&1
check "verify -m (target from the manifest): OK" "[ \$? -eq 0 ] && grep -q '^OK: 2097152 bytes' '$tmp/v'"
cp "$f" "$tmp/copy"
"$GUAC" verify -m "$m" "$tmp/copy" >/dev/null 2>&1
check "verify -m on a copy: OK" "[ \$? -eq 0 ]"
(cd / && "$GUAC" verify -m "$m" >/dev/null 2>&1)
check "verify -m from another directory finds the target (absolute path)" "[ \$? -eq 0 ]"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[2], "w"), indent=1)' \
		"$m" "$tmp/re.json"
	"$GUAC" verify -m "$tmp/re.json" >/dev/null 2>&1
	check "a manifest only reformatted (whitespace) still loads: the checksum is over the fields" "[ \$? -eq 0 ]"
else
	ok "reformatted manifest # SKIP python3 missing"
fi
printf 'Z' | dd of="$tmp/copy" bs=1 seek=1500000 conv=notrunc status=none
"$GUAC" verify -m "$m" "$tmp/copy" >"$tmp/v" 2>&1
check "a damaged copy: exit 1 at sector 2929" "[ \$? -eq 1 ] && grep -q 'sector 2929)' '$tmp/v'"
"$GUAC" verify -m "$m" --origin 5 "$f" >/dev/null 2>&1
check "--origin with --manifest is a usage error" "[ \$? -eq 2 ]"

# History: another origin over the same target keeps the old one.
"$GUAC" write --length 2M --origin 9 --force -m "$m" "$f" >/dev/null 2>&1
check "rewrite with origin 9: history holds origin 5" \
	"grep -q '\"history\": \\[' '$m' && grep -q '{\"origin\": 5, \"stream_offset\": 1048576, \"device_offset\": 0, \"length\": 2097152' '$m'"
check "rewrite: origin is now 9" "grep -q '^  \"origin\": 9,' '$m'"
"$GUAC" write --length 2M --origin 9 --force -m "$m" "$f" >/dev/null 2>&1
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
printf '%s' "$good" | sed 's/"version": 7/"version": 9/' >"$tmp/bad.json"
bad "version 9 (a newer guac's)" "manifest version 9 is not supported .this guac reads versions 2 to 8; a newer guac wrote it"
printf '%s' "$good" | sed 's/, "identity": [^}]*}/}/; /^  "run": /d; s/"version": 7/"version": 5/' >"$tmp/bad.json"
reseal "$tmp/bad.json"
"$GUAC" manifest show "$tmp/bad.json" >/dev/null 2>&1
check "a version 5 manifest (no identity, no run) still loads" "[ \$? -eq 0 ]"
printf '%s' "$good" | sed '/^  "run": /d; s/"version": 7/"version": 5/' >"$tmp/bad.json"
reseal "$tmp/bad.json"
bad "version 5 with an identity" "unknown field \"identity\" in \"target\" .version 5 has none"
printf '%s' "$good" | sed 's/"version": 7/"version": 1/; /"checksum"/d; s/"verify": null,/"verify": null/' >"$tmp/bad.json"
bad "version 1 (no checksum)" "manifest version 1 is no longer read: it has no checksum"
# Consistent edits pass every structural check: only the checksum sees them.
printf '%s' "$good" | sed 's/2097152/1048576/g; s/"verified": [0-9]*/"verified": 0/' >"$tmp/bad.json"
bad "lengths edited consistently" "checksum mismatch: its fields were edited"
printf '%s' "$good" | sed 's/"origin": 9,/"origin": 7,/' >"$tmp/bad.json"
bad "origin edited" "checksum mismatch"
printf '%s' "$good" | sed 's/"stream_offset": 0,/"stream_offset": 512,/g' >"$tmp/bad.json"
bad "stream offset edited (top and range)" "checksum mismatch"
printf '%s' "$good" | sed 's/"device_offset": 0,/"device_offset": 512,/g; s/"size": 2097152/"size": 2098176/' >"$tmp/bad.json"
bad "device offset edited (top and range)" "checksum mismatch"
printf '%s' "$good" | sed '/"checksum"/d; s/"verify": null,/"verify": null/' >"$tmp/bad.json"
bad "checksum removed" "missing field \"checksum\""
printf '%s' "$good" | sed 's/"checksum": "sha256:[0-9a-f]*"/"checksum": "sha256:00"/' >"$tmp/bad.json"
bad "checksum replaced" "checksum mismatch"
printf '%s' "$good" | sed 's/"seconds": [0-9.]*/"seconds": 1.2.3/' >"$tmp/bad.json"
bad "seconds 1.2.3" "syntax error.*number"
printf '%s' "$good" | sed 's/"seconds": [0-9.]*/"seconds": 1./' >"$tmp/bad.json"
bad "seconds 1." "syntax error.*digit after the decimal point"
printf '%s' "$good" | sed 's/"seconds": [0-9.]*/"seconds": 1e3/' >"$tmp/bad.json"
bad "seconds 1e3" "syntax error"
printf '%s' "$good" | sed "s/\"tool_version\": \"/\"tool_version\": \"$(printf '\377')/" >"$tmp/bad.json"
bad "a byte 0xff in a string" "valid UTF-8"
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

# Merging shards keeps every part's history, each earlier fill once, oldest first.
g=$tmp/g
for k in 0 1; do
	"$GUAC" write --shard $k/2 --length 1M --origin 3 -m "$tmp/h$k.json" "$g" >/dev/null 2>&1
done
"$GUAC" write --shard 0/2 --length 1M --origin 4 --force -m "$tmp/h0.json" "$g" >/dev/null 2>&1
for k in 0 1; do
	"$GUAC" write --shard $k/2 --length 1M --origin 8 --force -m "$tmp/h$k.json" "$g" >/dev/null 2>&1
done
"$GUAC" manifest merge "$tmp/hm.json" "$tmp/h1.json" "$tmp/h0.json" >/dev/null 2>"$tmp/e"
check "merge: exit 0" "[ \$? -eq 0 ]"
check "merge: both parts' histories (origins 3 and 4), origin 3 once" \
	"[ \$(grep -c '{\"origin\": 3,' '$tmp/hm.json') -eq 1 ] && [ \$(grep -c '{\"origin\": 4,' '$tmp/hm.json') -eq 1 ]"
"$GUAC" verify -m "$tmp/hm.json" >/dev/null 2>&1
check "the merged manifest loads and verifies" "[ \$? -eq 0 ]"

"$GUAC" verify -m "$tmp/nonexistent.json" >/dev/null 2>"$tmp/e"
check "a missing manifest: exit 2" "[ \$? -eq 2 ] && grep -q 'cannot open manifest' '$tmp/e'"
"$GUAC" manifest bogus >/dev/null 2>&1
check "manifest with an unknown action: exit 2" "[ \$? -eq 2 ]"

# The summary says what the check found, never "N verified" over bad
# sectors (issue 36, U10).
"$GUAC" write --origin 5 -n 1M -m "$tmp/u10.json" "$tmp/u10" >/dev/null 2>&1
"$GUAC" manifest show "$tmp/u10.json" >"$tmp/show" 2>&1
check "manifest show before a check: 'never checked'" "head -n 1 '$tmp/show' | grep -q 'bytes done, never checked;'"
"$GUAC" verify -m "$tmp/u10.json" >/dev/null 2>&1
"$GUAC" manifest show "$tmp/u10.json" >"$tmp/show" 2>&1
check "... after a clean check: all matching" "head -n 1 '$tmp/show' | grep -q ', 1048576 checked (complete), all matching;'"
dd if=/dev/zero of="$tmp/u10" bs=512 seek=100 count=8 conv=notrunc status=none
"$GUAC" verify -m "$tmp/u10.json" >/dev/null 2>&1
"$GUAC" manifest show "$tmp/u10.json" >"$tmp/show" 2>&1
check "... after a check that found 8 bad sectors: it says so, and no 'verified'" \
	"head -n 1 '$tmp/show' | grep -q ', 1048576 checked (complete), 8 bad and 0 unreadable 512-byte sectors found;' &&
	 ! head -n 1 '$tmp/show' | grep -q verified"
tap_end
