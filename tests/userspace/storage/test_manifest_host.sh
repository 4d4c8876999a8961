#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The manifest's "host" (version 4, docs/manifest.md): guac write records the
# host it runs on; a merge keeps one host, or none when the parts were
# written from several; version 3 manifests (no host) still load, and a
# version 3 manifest that carries "host" is refused. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir


tap_begin
f=$tmp/f m=$tmp/m.json
"$GUAC" write --length 1M --origin 5 -m "$m" "$f" >/dev/null 2>&1
check "write -m exits 0" "[ \$? -eq 0 ]"
host=$(uname -n)
check "the manifest is version 6" "grep -qF '\"version\": 6,' '$m'"
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
sed 's/"version": 6/"version": 3/; /^  "host": /d; s/, "identity": [^}]*}/}/' "$m" >"$tmp/v3.json"
reseal "$tmp/v3.json"
"$GUAC" manifest show "$tmp/v3.json" >"$tmp/o" 2>&1
check "a version 3 manifest (no host) loads" "[ \$? -eq 0 ]"
"$GUAC" verify --manifest "$tmp/v3.json" >"$tmp/o" 2>&1
check "a version 3 manifest verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
check "a save writes version 6 (host unknown: null)" \
	"grep -qF '\"version\": 6,' '$tmp/v3.json' && grep -qxF '  \"host\": null,' '$tmp/v3.json'"

sed 's/"version": 6/"version": 3/; s/, "identity": [^}]*}/}/' "$m" >"$tmp/v3h.json"
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
tap_end
