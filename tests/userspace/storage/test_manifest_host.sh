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

# reseal FILE: recompute a manifest's checksum after an edit (docs/manifest.md).
reseal() {
	python3 - "$1" <<'PY'
import hashlib, sys
text = open(sys.argv[1]).read()
fields = text[:text.index(',\n  "checksum"')]
sha = "sha256:" + hashlib.sha256(fields.encode()).hexdigest()
open(sys.argv[1], "w").write(fields + ',\n  "checksum": "%s"\n}\n' % sha)
PY
}

tap_begin
f=$tmp/f m=$tmp/m.json
"$GUAC" write --length 1M --origin 5 -m "$m" "$f" >/dev/null 2>&1
check "write -m exits 0" "[ \$? -eq 0 ]"
host=$(uname -n)
check "the manifest is version 5" "grep -qF '\"version\": 5,' '$m'"
check "the manifest records the host ($host)" "grep -qxF '  \"host\": \"$host\",' '$m'"

# Version 3: the same manifest without host still loads and verifies.
sed 's/"version": 5/"version": 3/; /^  "host": /d' "$m" >"$tmp/v3.json"
reseal "$tmp/v3.json"
"$GUAC" manifest show "$tmp/v3.json" >"$tmp/o" 2>&1
check "a version 3 manifest (no host) loads" "[ \$? -eq 0 ]"
"$GUAC" verify --manifest "$tmp/v3.json" >"$tmp/o" 2>&1
check "a version 3 manifest verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/o'"
check "a save writes version 5 (host unknown: null)" \
	"grep -qF '\"version\": 5,' '$tmp/v3.json' && grep -qxF '  \"host\": null,' '$tmp/v3.json'"

sed 's/"version": 5/"version": 3/' "$m" >"$tmp/v3h.json"
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
