#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The manifest's "host" (version 4, docs/manifest.md): guac write records the
# host it runs on; a merge keeps one host, or none when the parts were
# written from several; version 3 manifests (no host) still load, and a
# version 3 manifest that carries "host" is refused. And its "run" (version
# 6, issue 40): --run or GUAC_RUN, kept by a resume without one, refused in
# a version 5 manifest. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir


tap_begin
f=$tmp/f m=$tmp/m.json
"$GUAC" write --length 1M --origin 5 -m "$m" "$f" >/dev/null 2>&1
check "write -m exits 0" "[ \$? -eq 0 ]"
host=$(uname -n)
check "the manifest is version 7" "grep -qF '\"version\": 7,' '$m'"
check "the manifest records the host ($host)" "grep -qxF '  \"host\": \"$host\",' '$m'"

# The host named: --host, else GUAC_HOST (a Slurm node name, a pod's node),
# not the UTS name; an empty GUAC_HOST is unset; a name that is no word is refused.
GUAC_HOST=node7.lab.example "$GUAC" write --length 1M --origin 5 -m "$tmp/e.json" "$tmp/e" >/dev/null 2>&1
check "GUAC_HOST is the host recorded" "grep -qxF '  \"host\": \"node7.lab.example\",' '$tmp/e.json'"
GUAC_HOST=node7 "$GUAC" write --host rack2-n3 --length 1M --origin 5 -m "$tmp/h.json" "$tmp/h" >/dev/null 2>&1
check "--host is recorded, before GUAC_HOST" "grep -qxF '  \"host\": \"rack2-n3\",' '$tmp/h.json'"
GUAC_HOST= "$GUAC" write --length 1M --origin 5 -m "$tmp/z.json" "$tmp/z" >/dev/null 2>&1
check "an empty GUAC_HOST: the host name ($host)" "grep -qxF '  \"host\": \"$host\",' '$tmp/z.json'"
"$GUAC" write --host 'two words' --length 1M --origin 5 -m "$tmp/b.json" "$tmp/b" >"$tmp/o" 2>&1
check "--host 'two words': refused (status 2), nothing written" \
	"[ \$? -eq 2 ] && grep -q 'invalid --host' '$tmp/o' && [ ! -e '$tmp/b' ] && [ ! -e '$tmp/b.json' ]"
"$GUAC" write --host '' --length 1M --origin 5 -m "$tmp/b.json" "$tmp/b" >"$tmp/o" 2>&1
check "--host '': refused (status 2)" "[ \$? -eq 2 ] && grep -q 'invalid --host' '$tmp/o'"
GUAC_HOST=$(printf 'n\377') "$GUAC" write --length 1M --origin 5 -m "$tmp/b.json" "$tmp/b" >"$tmp/o" 2>&1
check "GUAC_HOST not UTF-8: refused (status 2)" "[ \$? -eq 2 ] && grep -q 'invalid GUAC_HOST' '$tmp/o'"
"$GUAC" write --help | grep -q -- '--host NAME'
check "--help documents --host and GUAC_HOST" "[ \$? -eq 0 ] && \"$GUAC\" write --help | grep -q GUAC_HOST"

# Version 3: the same manifest without host still loads and verifies.
sed 's/"version": 7/"version": 3/; /^  "host": /d; /^  "run": /d; s/, "identity": [^}]*}/}/' "$m" >"$tmp/v3.json"
reseal "$tmp/v3.json"
"$GUAC" manifest show "$tmp/v3.json" >"$tmp/o" 2>&1
check "a version 3 manifest (no host) loads" "[ \$? -eq 0 ]"
"$GUAC" verify --manifest "$tmp/v3.json" >"$tmp/o" 2>&1
check "a version 3 manifest verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
check "a save writes version 7 (host unknown: null)" \
	"grep -qF '\"version\": 7,' '$tmp/v3.json' && grep -qxF '  \"host\": null,' '$tmp/v3.json'"

sed 's/"version": 7/"version": 3/; /^  "run": /d; s/, "identity": [^}]*}/}/' "$m" >"$tmp/v3h.json"
reseal "$tmp/v3h.json"
"$GUAC" manifest show "$tmp/v3h.json" >"$tmp/o" 2>&1
check "a version 3 manifest with host is refused (status 2)" \
	"[ \$? -eq 2 ] && grep -q 'unknown field \"host\"' '$tmp/o'"

sed 's/"host": "[^"]*"/"host": "elsewhere"/' "$m" >"$tmp/edited.json"
"$GUAC" manifest show "$tmp/edited.json" >"$tmp/o" 2>&1
check "an edited host breaks the checksum" "[ \$? -eq 2 ] && grep -q 'checksum mismatch' '$tmp/o'"
sed '/^  "host": /d' "$m" >"$tmp/nohost.json"
reseal "$tmp/nohost.json"
"$GUAC" manifest show "$tmp/nohost.json" >"$tmp/o" 2>&1
check "a version 4 manifest without host is refused" "[ \$? -eq 2 ] && grep -q 'host' '$tmp/o'"

# Merges: one host kept, several hosts give null.
for k in 0 1; do
	"$GUAC" write --length 2M --shard $k/2 --origin 6 -m "$tmp/p$k.json" "$tmp/s" >/dev/null 2>&1
done
"$GUAC" manifest merge "$tmp/w.json" "$tmp/p0.json" "$tmp/p1.json" >/dev/null 2>&1
check "a merge of parts from one host keeps it" \
	"grep -qxF '  \"host\": \"$host\",' '$tmp/w.json'"
sed -i 's/"host": "[^"]*"/"host": "node9"/' "$tmp/p1.json"
reseal "$tmp/p1.json"
rm -f "$tmp/w.json"
"$GUAC" manifest merge "$tmp/w.json" "$tmp/p0.json" "$tmp/p1.json" >"$tmp/o" 2>&1
check "parts from two hosts merge (a shared LUN)" "[ \$? -eq 0 ]"
check "... and the merged manifest names no host" "grep -qxF '  \"host\": null,' '$tmp/w.json'"

# Version 6: the run (guac write --run, else GUAC_RUN; issue 40).
"$GUAC" write --run 2026-W48 --length 1M --origin 5 -m "$tmp/r.json" "$tmp/r" >/dev/null 2>&1
check "--run ID is recorded" "[ \$? -eq 0 ] && grep -qxF '  \"run\": \"2026-W48\",' '$tmp/r.json'"
GUAC_RUN=4711_3 "$GUAC" write --length 1M --origin 5 -m "$tmp/r2.json" "$tmp/r2" >/dev/null 2>&1
check "... else GUAC_RUN" "[ \$? -eq 0 ] && grep -qxF '  \"run\": \"4711_3\",' '$tmp/r2.json'"
GUAC_RUN=env "$GUAC" write --run opt --length 1M --origin 5 -m "$tmp/r4.json" "$tmp/r4" >/dev/null 2>&1
check "... --run over GUAC_RUN" "[ \$? -eq 0 ] && grep -qxF '  \"run\": \"opt\",' '$tmp/r4.json'"
"$GUAC" write --run 'two words' --length 1M --origin 5 -m "$tmp/r3.json" "$tmp/r3" >"$tmp/o" 2>&1
check "--run 'two words': refused (status 2), nothing written" \
	"[ \$? -eq 2 ] && grep -q 'invalid --run' '$tmp/o' && [ ! -e '$tmp/r3' ] && [ ! -e '$tmp/r3.json' ]"
# A requeued task without GUAC_RUN goes on in the run it began; one with it, in its own.
"$GUAC" write --run w1 --length 64M --origin 5 -m "$tmp/q.json" "$tmp/q" >/dev/null 2>&1 &
pid=$!
wait_written $pid 8000000
kill -INT $pid
wait $pid
"$GUAC" write --resume --length 64M --origin 5 -m "$tmp/q.json" "$tmp/q" >"$tmp/o" 2>&1
check "a resume without a run keeps the manifest's (w1)" \
	"[ \$? -eq 0 ] && grep -qxF '  \"run\": \"w1\",' '$tmp/q.json'"
sed 's/"version": 7/"version": 5/; s/, "identity": [^}]*}/}/' "$tmp/r.json" >"$tmp/v5r.json"
reseal "$tmp/v5r.json"
"$GUAC" manifest show "$tmp/v5r.json" >"$tmp/o" 2>&1
check "a version 5 manifest with a run is refused (status 2)" \
	"[ \$? -eq 2 ] && grep -q 'unknown field \"run\" in the manifest (version 5 has none)' '$tmp/o'"
sed 's/"version": 7/"version": 5/; /^  "run": /d; s/, "identity": [^}]*}/}/' "$tmp/r.json" >"$tmp/v5.json"
reseal "$tmp/v5.json"
"$GUAC" verify --manifest "$tmp/v5.json" >"$tmp/o" 2>&1
check "a version 5 manifest (no run) verifies, and is saved as version 7 with run null" \
	"[ \$? -eq 0 ] && grep -qF '\"version\": 7,' '$tmp/v5.json' && grep -qxF '  \"run\": null,' '$tmp/v5.json'"
sed 's/"run": "2026-W48"/"run": "2026-W47"/' "$tmp/r.json" >"$tmp/edited.json"
"$GUAC" manifest show "$tmp/edited.json" >"$tmp/o" 2>&1
check "an edited run breaks the checksum" "[ \$? -eq 2 ] && grep -q 'checksum mismatch' '$tmp/o'"
"$GUAC" write --help | grep -q -- '--run ID'
check "--help documents --run and GUAC_RUN" "[ \$? -eq 0 ] && \"$GUAC\" write --help | grep -q GUAC_RUN"
tap_end
