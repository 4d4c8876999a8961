#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# report-scale.sh [N...]: guac report over fleets of N disks (default 1000
# 10000 100000), its time and its peak memory (issue 35, item 6: a report
# over 100 000 manifests in seconds and linear memory). Not a test: nothing
# is asserted; the numbers go to standard output as a Markdown table.
#
# Each fleet is made once under $REPORT_SCALE_DIR (default
# /var/tmp/guacrng-report-scale): one real manifest (guac write of 64 KiB)
# copied N times, each copy another disk (host nodeNNNN.lab.example, a by-id
# path, serial and WWN of its own) and resealed with its checksum, as a fleet
# of N disks filled and checked clean would leave them; an inventory names
# each disk by its host's short name (as --expect matches FQDNs), and one
# disk of the inventory has no manifest. Then, for each N:
#
#   guac report --expect INVENTORY DIR     (time and peak RSS: /usr/bin/time)
#
# GUAC: the guac to measure (default build/userspace/guac); several, space
# separated, are measured side by side on the same fleets.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
dir=${REPORT_SCALE_DIR:-/var/tmp/guacrng-report-scale}
read -r -a guacs <<<"${GUAC:-$TOP/build/userspace/guac}"
[ $# -gt 0 ] || set -- 1000 10000 100000
command -v /usr/bin/time >/dev/null || { echo "report-scale: needs /usr/bin/time (the time package)" >&2; exit 2; }

mkdir -p "$dir"
if [ ! -s "$dir/template.json" ]; then
	"${guacs[0]}" write -n 64K -m "$dir/template.json" "$dir/template.img" >/dev/null
	"${guacs[0]}" verify -m "$dir/template.json" >/dev/null
fi

# make_fleet N: DIR/fleet-N/ with N manifests and DIR/fleet-N.inventory.
make_fleet() {
	local n=$1 out=$dir/fleet-$1
	[ -e "$out/.done" ] && return
	rm -rf "$out"
	mkdir -p "$out"
	python3 - "$dir/template.json" "$out" "$n" "$dir/fleet-$n.inventory" <<'PY'
import hashlib, json, re, sys
tmpl, out, n, inv = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), sys.argv[4]
path = json.loads(tmpl)["target"]["path"]
with open(inv, "w") as lines:
    for i in range(n):
        host = "node%04d.lab.example" % (i // 8)
        disk = "/dev/disk/by-id/wwn-0x5000c500%08x" % i
        serial = "ZA%08d" % i
        t = tmpl.replace('"host": "%s"' % json.loads(tmpl)["host"], '"host": "%s"' % host)
        t = t.replace('"path": "%s"' % path, '"path": "%s"' % disk, 1)
        t = re.sub(r'"serial": ("[^"]*"|null)', '"serial": "%s"' % serial, t, count=1)
        t = re.sub(r'"wwid": ("[^"]*"|null)', '"wwid": "0x5000c500%08x"' % i, t, count=1)
        t = re.sub(r'"identity": "[^"]*"', '"identity": "block serial=%s wwid=0x5000c500%08x size=65536"' % (serial, i), t, count=1)
        fields = t[:t.index(',\n  "checksum"')]
        sha = "sha256:" + hashlib.sha256(fields.encode()).hexdigest()
        open("%s/%s-wwn-0x5000c500%08x.json" % (out, host.split(".")[0], i), "w").write(
            fields + ',\n  "checksum": "%s"\n}\n' % sha)
        lines.write("%s %s\n" % (host.split(".")[0], disk))
    lines.write("node9999 /dev/disk/by-id/wwn-0x5000c500ffffffff\n")
PY
	touch "$out/.done"
}

echo "| disks | guac | exit | seconds | peak RSS (MiB) | summary |"
echo "|---:|---|---:|---:|---:|---|"
for n in "$@"; do
	make_fleet "$n"
	for g in "${guacs[@]}"; do
		rc=0
		/usr/bin/time -f '%e %M' -o "$dir/time" "$g" report --expect "$dir/fleet-$n.inventory" \
			"$dir/fleet-$n" >"$dir/out" 2>&1 || rc=$?
		read -r secs kib < <(tail -n 1 "$dir/time")
		echo "| $n | $g | $rc | $secs | $((kib / 1024)) | $(tail -n 1 "$dir/out") |"
	done
done
echo
echo "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, $(date -u +%F)"
