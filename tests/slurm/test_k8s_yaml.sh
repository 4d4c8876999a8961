#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Kubernetes recipes of docs/examples/kubernetes/, validated offline (no
# cluster runs here): strict schema validation against the Kubernetes API
# (scripts/slurm/k8s-validate.sh, PyPI's kubernetes-validate), which must
# also reject a misspelt field and a wrong type (or it proves nothing); and
# what the schemas cannot see: Indexed completion with completions equal to
# the --shards guac gets, restartPolicy Never, backoffLimitPerIndex, the LUN
# as a Block volume through volumeDevices, local disks through a privileged
# hostPath /dev on a pinned node, per-index manifests on a shared volume and
# the merge of exactly those parts. TAP output.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
tap_tmpdir
k8s=$top/docs/examples/kubernetes
val=$top/scripts/slurm/k8s-validate.sh

tap_begin
py=$("$val" --python 2>"$tmp/venv.log") || { not_ok "the kubernetes-validate venv" "$tmp/venv.log"; tap_end; exit 1; }
for f in "$k8s"/*.yaml; do
	"$val" "$f" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q 'failed' "$tmp/out"; then ok "$(basename "$f") passes strict validation (1.31, 1.37)"; else not_ok "$(basename "$f") passes strict validation" "$tmp/out"; fi
done
sed 's/completionMode: Indexed/completionsMode: Indexed/' "$k8s/fill-lun.yaml" >"$tmp/typo.yaml"
"$val" "$tmp/typo.yaml" >"$tmp/out" 2>&1
check "the validator rejects a misspelt field (completionsMode)" "[ \$? -ne 0 ]"
sed 's/completions: 4/completions: four/' "$k8s/fill-lun.yaml" >"$tmp/type.yaml"
"$val" "$tmp/type.yaml" >"$tmp/out" 2>&1
check "the validator rejects a wrong type (completions: four)" "[ \$? -ne 0 ]"

"$py" - "$k8s" >"$tmp/py" 2>&1 <<'PY'
import re, sys, yaml
d = sys.argv[1]
def load(n):
    return [x for x in yaml.safe_load_all(open(f"{d}/{n}")) if x]
def job(docs):
    return next(x for x in docs if x["kind"] == "Job")
fails = []
def need(c, what):
    print(("ok: " if c else "FAIL: ") + what)
    if not c:
        fails.append(what)

lun = load("fill-lun.yaml")
j = job(lun)
s, p = j["spec"], j["spec"]["template"]["spec"]
cmd = " ".join(p["containers"][0]["command"])
m = re.search(r"--shards (\d+)", cmd)
need(s["completionMode"] == "Indexed", "fill-lun: completionMode Indexed")
need(m and int(m.group(1)) == s["completions"], "fill-lun: completions == guac's --shards")
need(p["restartPolicy"] == "Never", "fill-lun: restartPolicy Never")
need(s.get("backoffLimitPerIndex", 0) >= 1, "fill-lun: backoffLimitPerIndex")
need("--resume" in cmd, "fill-lun: a retried index resumes (--resume)")
need("part-$JOB_COMPLETION_INDEX.json" in cmd and "/results/" in cmd, "fill-lun: a manifest per index on the results volume")
pvc = {x["metadata"]["name"]: x for x in lun if x["kind"] == "PersistentVolumeClaim"}
vols = {v["name"]: v for v in p["volumes"]}
dev = p["containers"][0]["volumeDevices"][0]
need(pvc[vols[dev["name"]]["persistentVolumeClaim"]["claimName"]]["spec"]["volumeMode"] == "Block",
     "fill-lun: the LUN is a Block PVC, through volumeDevices")
need(dev["devicePath"] in cmd, "fill-lun: guac writes the volumeDevices path")
res = pvc[vols["results"]["persistentVolumeClaim"]["claimName"]]["spec"]
need("ReadWriteMany" in res["accessModes"], "fill-lun: the results volume is shared (ReadWriteMany)")
need(p.get("nodeSelector") and p.get("topologySpreadConstraints"), "fill-lun: pinned to the LUN's nodes, one pod per node")

mj = job(load("merge-lun.yaml"))
mcmd = " ".join(mj["spec"]["template"]["spec"]["containers"][0]["command"])
need("guac manifest merge /results/lun7.json /results/part-*.json" in mcmd, "merge-lun: merges the parts")
need("guac verify" in mcmd and "--manifest /results/lun7.json" in mcmd, "merge-lun: verifies the whole")
need(mj["spec"]["template"]["spec"]["volumes"][1]["persistentVolumeClaim"]["claimName"] ==
     vols["results"]["persistentVolumeClaim"]["claimName"], "merge-lun: reads the same results volume")

lj = job(load("fill-local-disks.yaml"))
ls_, lp = lj["spec"], lj["spec"]["template"]["spec"]
c = lp["containers"][0]
disks = next(e["value"] for e in c["env"] if e["name"] == "DISKS").split()
need(ls_["completionMode"] == "Indexed" and ls_["completions"] == len(disks), "fill-local-disks: an index per disk of the node")
need(lp["restartPolicy"] == "Never" and ls_.get("backoffLimitPerIndex", 0) >= 1, "fill-local-disks: Never, backoffLimitPerIndex")
need("kubernetes.io/hostname" in lp.get("nodeSelector", {}), "fill-local-disks: pinned to its node")
need(c["securityContext"]["privileged"] and any(v.get("hostPath", {}).get("path") == "/dev" for v in lp["volumes"]),
     "fill-local-disks: raw disks through a privileged hostPath /dev")
need("$JOB_COMPLETION_INDEX" in " ".join(c["command"]), "fill-local-disks: the index picks the disk")
def node_host(c):
    e = next((e for e in c.get("env", []) if e["name"] == "GUAC_HOST"), None)
    return bool(e) and e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName"
need(node_host(c), "fill-local-disks: GUAC_HOST (the host recorded) is the node's spec.nodeName, not the pod's name")
need("/results/$GUAC_HOST-" in " ".join(c["command"]), "fill-local-disks: the manifest is named by GUAC_HOST")
need(node_host(p["containers"][0]), "fill-lun: GUAC_HOST (the host recorded) is the node's spec.nodeName")
print("FAILED" if fails else "ALL OK")
PY
while read -r line; do
	case $line in
	"ok: "*) ok "${line#ok: }" ;;
	"FAIL: "*) not_ok "${line#FAIL: }" ;;
	"ALL OK") ;;
	*) echo "# $line" ;;
	esac
done <"$tmp/py"
check "the recipe checks ran to the end" "tail -1 '$tmp/py' | grep -qx 'ALL OK'"

# fill-local-disks' command itself, run by sh with /dev/disk/by-id made a
# directory of the test's and guac a stub that prints its manifest: two disks
# whose paths end alike (sdb) get manifests of their own, the one with a
# by-id link under that name, and every guac gets the run's label.
"$py" -c 'import sys, yaml
j = next(x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x["kind"] == "Job")
c = j["spec"]["template"]["spec"]["containers"][0]
print(c["command"][2].replace("/dev/disk/by-id", sys.argv[2]))
print([e["value"] for e in c["env"] if e["name"] == "GUAC_RUN"][0], file=open(sys.argv[3], "w"))' \
	"$k8s/fill-local-disks.yaml" "$tmp/by-id" "$tmp/run" >"$tmp/cmd.sh" 2>"$tmp/cmd.err"
mkdir -p "$tmp/by-id" "$tmp/a" "$tmp/b" "$tmp/bin"
: >"$tmp/a/sdb"
: >"$tmp/b/sdb"
ln -s "$tmp/a/sdb" "$tmp/by-id/wwn-0x5000c500a1b2c301"
printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" != --manifest ] || echo "$GUAC_RUN $2"; shift; done\n' >"$tmp/bin/guac"
chmod +x "$tmp/bin/guac"
for i in 0 1; do
	DISKS="$tmp/a/sdb $tmp/b/sdb" JOB_COMPLETION_INDEX=$i GUAC_HOST=node07 GUAC_RUN=$(cat "$tmp/run" 2>/dev/null) \
		PATH=$tmp/bin:$PATH sh "$tmp/cmd.sh" >"$tmp/names-$i" 2>&1
done
run=$(cat "$tmp/run" 2>/dev/null)
want0="$run /results/node07-wwn-0x5000c500a1b2c301.json"
want1="$run /results/node07-$(echo "${tmp#/}/b/sdb" | sed 's|/|_|g').json"
check "fill-local-disks: a disk with a by-id link gets HOST-BYID.json, every guac the run's label" \
	'[ -n "$run" ] && [ "$(sort -u "$tmp/names-0")" = "$want0" ]'
check "fill-local-disks: two disks whose paths end alike (sdb) never share a manifest" \
	'[ "$(sort -u "$tmp/names-1")" = "$want1" ]'
tap_end
