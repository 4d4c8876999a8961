#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac report against the findings of issue 35 it answers here: strings from
# a manifest (a path with a newline) cannot forge rows of the table (F9).
# TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

tap_begin
d=$tmp/m
mkdir "$d"

# F9: a target path holding a newline, a tab and an escape byte, written and
# checked; its row (and reason line) is one line, the characters escaped.
nl='
'
evil="$tmp/x${nl}forged  sdz  -  1 GiB  OK	$(printf '\033')[2J"
"$GUAC" write --origin 7 -n 64K -m "$d/x.json" "$evil" >/dev/null 2>&1 &&
	"$GUAC" verify -m "$d/x.json" >/dev/null 2>&1
rc=$?
check "F9: write and verify take a path with control characters" "[ $rc -eq 0 ]"
"$GUAC" report "$d/x.json" >"$tmp/out" 2>&1
check "... the table is its heading, one row and the summary" \
	"[ \$(wc -l <'$tmp/out') -eq 3 ] && grep -qx '1 disk: 1 OK' '$tmp/out'"
check '... the row shows the path escaped (\\n, \\t, \\x1b)' \
	"grep -qF 'x\\nforged  sdz  -  1 GiB  OK\\t\\x1b[2J ' '$tmp/out'"
check "... no control character reaches the output" \
	"! tr -d '\\n' <'$tmp/out' | grep -q '[[:cntrl:]]'"
"$GUAC" report --run "r${nl}x" "$d/x.json" >"$tmp/out" 2>&1
check "... a reason line (which names the run and the manifest) is one line too" \
	"[ \$(wc -l <'$tmp/out') -eq 4 ] && grep -qF 'no manifest of run r\\nx' '$tmp/out'"
"$GUAC" report --json "$d/x.json" >"$tmp/json" 2>&1
check "... the JSON is valid and holds the path as it is" \
	"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d[\"disks\"][0][\"target\"] != sys.argv[2])' '$tmp/json' '$evil'"
"$GUAC" report --svg "$tmp/x.svg" "$d/x.json" >/dev/null 2>&1
check "... the SVG picture is valid XML, with no control character" \
	"python3 -c 'import sys, xml.dom.minidom as x; x.parse(sys.argv[1])' '$tmp/x.svg' 2>/dev/null &&
	 ! tr -d '\\n' <'$tmp/x.svg' | grep -q '[[:cntrl:]]'"

tap_end
