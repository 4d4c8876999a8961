#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guac on a real Slurm cluster (make check-slurm; docs/fleet.md): Debian's
# slurmctld, two slurmd in network and UTS namespaces of their own and munge,
# started by scripts/slurm/cluster.sh; the jobs are the shipped sbatch scripts
# of docs/examples/slurm/, nothing else. As root. TAP output.
#
#   a. one target written by an array of shards, checked by a dependent
#      array, merged and checked whole by a last job; again with --array=2-11:3
#   b. a fleet: each node fills and checks its own disks (loop devices), one of
#      them on a bad disk, one damaged later; the report names every state,
#      the host of each disk and the one whose manifest is missing
#   c. faults: a task interrupted with scancel --signal=INT requeues itself and
#      resumes from its manifest; a task whose node is set DOWN is requeued by
#      Slurm and resumes from the durable bytes its manifest recorded
#      meanwhile; a shard on a bad disk (a loop device over a file on a tmpfs
#      smaller than the device: it runs out of space) fails with exit status
#      3 and the report says why; TERM and a time limit's warning signal
#      requeue a fill task, TERM a check task, each resuming where it stopped
#
# The cluster is torn down, the loop devices detached and the tmpfs unmounted
# whatever happens (trap).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
GUAC=$(readlink -f "$GUAC")
ex=$top/docs/examples/slurm
w=${GUAC_SLURM_TEST_DIR:-$(mktemp -d /var/tmp/guacrng-slurm-test.XXXXXX)}
# A cluster of this run's own (directory, namespaces, addresses; cluster.sh
# takes the first free ports), so that two runs on one machine do not meet.
export GUAC_SLURM_DIR=$w/cluster GUAC_SLURM_NS=${GUAC_SLURM_NS:-gs$$}
# Node guacn2's host name is not its NodeName (an FQDN whose short name differs):
# the sbatch scripts must pick disks and record hosts by Slurm's node name.
export GUAC_SLURM_HOSTNAMES="guacn1 guacbox2.lab.example"
# guac write records its durable bytes every second (c2: a task killed with its node).
export GUAC_CHECKPOINT_SECONDS=1
if [ -z "${GUAC_SLURM_NET:-}" ]; then
	x=$((24 + $$ % 200))
	while ip -4 route show | grep -q "^10\.224\.$x\."; do x=$((x % 250 + 1)); done
	export GUAC_SLURM_NET=10.224.$x
fi
loops=()
mounts=()

cleanup() {
	local l m
	"$top/scripts/slurm/cluster.sh" down >"$w.down.log" 2>&1 || { echo "# cluster.sh down failed:"; sed 's/^/#   /' "$w.down.log"; }
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
	rm -rf "$w" "$w.down.log"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || { echo "test_slurm: needs root (Slurm's daemons, namespaces, loop devices)" >&2; exit 2; }
[ -x "$GUAC" ] || { echo "test_slurm: no guac at $GUAC (make tools)" >&2; exit 2; }
rm -rf "$w"
mkdir -p "$w"
export PATH=$(dirname "$GUAC"):$PATH	# the jobs inherit it: the guac under test

tap_begin
t0=$(date +%s)
if ! up=$("$top/scripts/slurm/cluster.sh" up 2 2>"$w/up.log"); then
	not_ok "the cluster comes up" "$w/up.log"
	tap_end
	exit 1
fi
eval "$up"
check "cluster.sh up prints the SLURM_CONF line ($SLURM_CONF)" "[ -f '$SLURM_CONF' ]"
check "two nodes idle" "[ \$(sinfo -h -N -o '%N %T' | grep -c ' idle\$') -eq 2 ]"
sd=$(dirname "$(dirname "$SLURM_CONF")")/pid
p1=$(cat "$sd/slurmd-guacn1") p2=$(cat "$sd/slurmd-guacn2")
ns() { readlink "/proc/$1/ns/$2"; }
"$top/scripts/slurm/cluster.sh" up >"$w/up2.log" 2>&1
rc=$?
check "a second cluster.sh up is refused (the cluster is up) and leaves it running" \
	"[ $rc -ne 0 ] && grep -q 'a cluster is up' '$w/up2.log' && [ \$(sinfo -h -N -o '%N %T' | grep -c ' idle\$') -eq 2 ]"
"$top/scripts/slurm/cluster.sh" up 9 >"$w/up9.log" 2>&1
check "cluster.sh up 9: refused, naming the limit" "[ \$? -ne 0 ] && grep -q 'NODES must be 1 to 8' '$w/up9.log'"
check "each slurmd has a network and a UTS namespace of its own (not the host's, not the other's)" \
	"[ \"\$(ns $p1 net)\" != \"\$(ns $$ net)\" ] && [ \"\$(ns $p2 net)\" != \"\$(ns $$ net)\" ] &&
	 [ \"\$(ns $p1 net)\" != \"\$(ns $p2 net)\" ] && [ \"\$(ns $p1 uts)\" != \"\$(ns $p2 uts)\" ] &&
	 [ \"\$(ns $p1 uts)\" != \"\$(ns $$ uts)\" ]"
check "... with its own host name (guacn2's is guacbox2.lab.example, not its NodeName) and address" \
	"[ \"\$(nsenter -t $p1 -u hostname)\" = guacn1 ] && [ \"\$(nsenter -t $p2 -u hostname)\" = guacbox2.lab.example ] &&
	 nsenter -t $p1 -n ip -4 -o addr show | grep -qF ' $GUAC_SLURM_NET.11/' &&
	 nsenter -t $p2 -n ip -4 -o addr show | grep -qF ' $GUAC_SLURM_NET.12/'"

# wait_jobs ID...: until none of the jobs (every array task) is pending or running (300 s).
wait_jobs() {
	local i
	for i in $(seq 1500); do
		[ -z "$(squeue -h -j "$(IFS=,; echo "$*")" -t PD,R,CG,CF,RQ,RS,S,RH,RF,SE 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	echo "# jobs $* still queued after 300 s:"; squeue | sed 's/^/#   /'
	return 1
}
# writer_started MANIFEST BYTES: until the guac write that keeps MANIFEST
# exists (30 s at most) and has written BYTES (10 s more at most), so that
# what the test does next meets the fill under way, however fast the
# machine: a fixed sleep let an idle Xeon finish a 512 MiB shard in 0.9 s,
# before the signal came.
writer_started() {
	local pid= i
	for i in $(seq 300); do
		pid=$(pgrep -f -- "$1" | head -n 1)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] && wait_written "$pid" "$2"
}
# merged_whole LABEL DIR ORIGIN: merge DIR's parts with the shipped
# merge.sbatch; the merge must verify OK and DIR/lun.img be the 4 GiB stream.
merged_whole() {
	local mrg
	mrg=$(sbatch --parsable -D "$2" "$ex/merge.sbatch" "$2/parts" "$2/lun.json")
	wait_jobs "$mrg"
	checkl "$1: the merge is complete and the whole verifies OK" "all_ok $mrg" "$2"/guac-merge-*.log
	check "$1: the target is byte for byte the stream (cmp)" \
		"$GUAC gen --origin $3 --length 4G | cmp -s - '$2/lun.img'"
}
# states ID: "STATE EXIT" per task, from scontrol (MinJobAge keeps ended jobs).
states() {
	scontrol -o show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\) .*ExitCode=\([0-9:]*\).*/\1 \2/p'
}
all_ok() {
	local s
	s=$(states "$1")
	[ -n "$s" ] && [ -z "$(echo "$s" | grep -v '^COMPLETED 0:0$')" ]
}
# checkl DESCRIPTION CONDITION FILE...: check, and on failure show the files (job logs).
checkl() {
	local desc=$1 cond=$2
	shift 2
	if eval "$cond"; then
		ok "$desc"
	else
		not_ok "$desc"
		logs "$@"
	fi
}
hosts_of() { grep -h '"host"' "$@" | sort -u | sed 's/.*"host": "\(.*\)",/\1/' | tr '\n' ' '; }
logs() { [ $# -eq 0 ] || cat "$@" 2>/dev/null | sed 's/^/#   /'; }

# --- a. an array of shards, a dependent check, a merge -----------------------
shard_run() {	# NAME ARRAY ORIGIN
	local d=$w/a-$1 fill ver mrg
	mkdir -p "$d"
	fill=$(sbatch --parsable -D "$d" -c 4 --array="$2" "$ex/fill-shard.sbatch" "$d/lun.img" "$d/parts" \
		--origin "$3" --length 96M)
	ver=$(sbatch --parsable -D "$d" -c 2 --array="$2" --dependency=afterok:"$fill" \
		"$ex/verify-shard.sbatch" "$d/parts")
	mrg=$(sbatch --parsable -D "$d" --dependency=afterok:"$ver" "$ex/merge.sbatch" "$d/parts" "$d/lun.json")
	wait_jobs "$fill" "$ver" "$mrg"
	check "a/$1: every fill task COMPLETED 0:0 (--array=$2)" "all_ok $fill" "$d"/guac-fill-*.log
	checkl "a/$1: every verify task of the dependent array COMPLETED 0:0" "all_ok $ver" "$d"/guac-verify-*.log
	checkl "a/$1: the merge job COMPLETED 0:0 (merged, then the whole verified OK)" \
		"all_ok $mrg && grep -q '^OK' '$d'/guac-merge-*.log" "$d"/guac-merge-*.log
	check "a/$1: the parts were written on both nodes ($(hosts_of "$d"/parts/part-*.json))" \
		"[ \"\$(hosts_of '$d'/parts/part-*.json)\" = 'guacn1 guacn2 ' ]"
	check "a/$1: the merged manifest is complete and its check complete, no bad sector" \
		"grep -q '\"status\": \"complete\"' '$d/lun.json' && grep -q '\"verify\": {\"status\": \"complete\", \"bad_sectors\": 0, \"unreadable_sectors\": 0' '$d/lun.json'"
	check "a/$1: the target is byte for byte guac gen's stream (cmp)" \
		"$GUAC gen --origin $3 --length 96M | cmp -s - '$d/lun.img'"
}
shard_run zero 0-3 21
shard_run step 2-11:3 22
d=$w/a-step
check "a/step: task 5 of --array=2-11:3 wrote shard 1/4, task 11 shard 3/4" \
	"grep -q '\"shard\": {\"index\": 1, \"count\": 4}' '$d/parts/part-5.json' &&
	 grep -q '\"shard\": {\"index\": 3, \"count\": 4}' '$d/parts/part-11.json'"

# --- b. a fleet: each node fills and checks its own disks --------------------
d=$w/b
mkdir -p "$d/disks" "$d/tiny" "$d/fleet"
mount -t tmpfs -o size=20m guacrng-slurm-test "$d/tiny" && mounts+=("$d/tiny")
mkloop() {	# FILE SIZE: a loop device over FILE, its name on stdout
	truncate -s "$2" "$1"
	losetup -f --show "$1"
}
n1a=$(mkloop "$d/disks/n1a" 48M); loops+=("$n1a")
n1b=$(mkloop "$d/disks/n1b" 48M); loops+=("$n1b")
n2a=$(mkloop "$d/disks/n2a" 48M); loops+=("$n2a")
n2bad=$(mkloop "$d/tiny/n2bad" 48M); loops+=("$n2bad")	# only 20 MiB behind it: I/O errors
cat >"$d/inventory" <<EOT
# host disk
guacn1 $n1a
guacn1 $n1b
guacn2 $n2a
guacn2 $n2bad
guacn3 /dev/disk/by-id/wwn-0x5000c500deadbeef
EOT
# The manifest's name: the disk's by-id name, else (a loop device) its path with '/' made '_'.
mname() { echo "$1" | sed 's|^/*||; s|/|_|g'; }
j1=$(GUAC_RUN=week1 sbatch --parsable -D "$d" --nodelist=guacn1 "$ex/fleet-fill.sbatch" "$d/inventory" "$d/fleet" --origin 31)
j2=$(GUAC_RUN=week1 sbatch --parsable -D "$d" --nodelist=guacn2 "$ex/fleet-fill.sbatch" "$d/inventory" "$d/fleet" --origin 31)
wait_jobs "$j1" "$j2"
checkl "b: guacn1's fleet job COMPLETED 0:0 (both its disks written and OK)" "all_ok $j1" "$d"/guac-fleet-guacn1-*.log
checkl "b: guacn2's fleet job FAILED with exit status 3 (its bad disk's I/O)" \
	"[ \"\$(states $j2)\" = 'FAILED 3:0' ]" "$d"/guac-fleet-guacn2-*.log
checkl "b: on guacn2 (host name guacbox2.lab.example) the job took its disks by node name" \
	"grep -qx 'guac-fleet: guacn2: 2 disks: $n2a $n2bad' '$d'/guac-fleet-*-$j2.log" "$d"/guac-fleet-*-"$j2".log
check "b: every disk got a manifest that names its host and the run (week1)" \
	"grep -q '\"host\": \"guacn1\"' '$d/fleet/guacn1-$(mname "$n1a").json' &&
	 grep -q '\"host\": \"guacn1\"' '$d/fleet/guacn1-$(mname "$n1b").json' &&
	 grep -q '\"host\": \"guacn2\"' '$d/fleet/guacn2-$(mname "$n2a").json' &&
	 grep -q '\"host\": \"guacn2\"' '$d/fleet/guacn2-$(mname "$n2bad").json' &&
	 [ \$(grep -l '\"run\": \"week1\"' '$d'/fleet/*.json | wc -l) -eq 4 ]"
checkl "b: each job left its end state in fleet/.runs/week1" \
	"grep -qx 'guacn1 COMPLETED 0 (job $j1)' '$d/fleet/.runs/week1/guacn1.job' &&
	 grep -qx 'guacn2 FAILED 3 (job $j2)' '$d/fleet/.runs/week1/guacn2.job'" "$d"/fleet/.runs/week1/*
# Later n1b goes bad: zeroed sectors at 1 MiB, and a write misdirected from 40 MiB to 8 MiB.
dd if=/dev/zero of="$n1b" bs=4096 seek=256 count=2 oflag=direct status=none
"$GUAC" gen --origin 31 --offset 40M --length 8K | dd of="$n1b" bs=4096 seek=2048 oflag=direct status=none
j3=$(sbatch --parsable -D "$d" --nodelist=guacn1 -o "$d/recheck.log" --wrap "guac verify --manifest $d/fleet/guacn1-$(mname "$n1b").json")
wait_jobs "$j3"
checkl "b: the recheck of the damaged disk on guacn1 FAILED 1:0 (a mismatch)" "[ \"\$(states $j3)\" = 'FAILED 1:0' ]" "$d/recheck.log"
# Relative paths (the job runs in $d): the report prints the --expect path as
# given, so the table is the one README.md and docs/fleet.md show.
jr=$(sbatch --parsable -D "$d" --dependency=afterany:"$j1:$j2:$j3" "$ex/fleet-report.sbatch" inventory fleet week1 "$j1" "$j2")
wait_jobs "$jr"
checkl "b: the report job FAILED 1:0: not every disk is OK" "[ \"\$(states $jr)\" = 'FAILED 1:0' ]" "$d"/guac-report-*.log
r=$d/fleet/report.txt
row() { grep -E "^$1 +$2 .* $3 " "$r" >/dev/null; }
check "b: report: guacn1 $n1a OK" "row guacn1 $n1a OK"
check "b: report: guacn1 $n1b MISMATCH, ALL_ZERO 16 and WRAPPED 16 (the write misdirected by 32 MiB, a power of two)" \
	"row guacn1 $n1b MISMATCH && grep -E '^guacn1 +$n1b .*ALL_ZERO 16, WRAPPED 16\$' '$r' >/dev/null"
check "b: report: guacn2 $n2a OK" "row guacn2 $n2a OK"
check "b: report: guacn2 $n2bad FAILED, and why (the write error)" \
	"row guacn2 $n2bad FAILED && grep -q '^guacn2 $n2bad: FAILED: the write failed: \(Input/output error\|No space left on device\);' '$r'"
check "b: report: guacn3's disk, with no manifest, is MISSING" \
	"grep -q '^guacn3 /dev/disk/by-id/wwn-0x5000c500deadbeef: MISSING' '$r'"
check "b: report: the summary" "grep -qx '5 disks: 2 OK, 1 MISMATCH, 1 FAILED, 1 MISSING' '$r'"
check "b: report: each disk not OK says its host's job (Slurm's state)" \
	"grep -q '^guacn2 $n2bad: FAILED: .*; its job: FAILED 3:0 (job $j2)\$' '$r' &&
	 grep -q '^guacn1 $n1b: MISMATCH: .*; its job: COMPLETED 0:0 (job $j1)\$' '$r'"
python3 - "$d/fleet/report.json" "$d/fleet/report.svg" >"$d/py" 2>&1 <<'PY'
import json, sys, xml.dom.minidom
r = json.load(open(sys.argv[1]))
assert (r["disks_total"], r["disks_ok"], r["disks_not_ok"]) == (5, 2, 3), r
st = sorted(d["state"] for d in r["disks"])
assert st == ["FAILED", "MISMATCH", "MISSING", "OK", "OK"], st
svg = xml.dom.minidom.parse(sys.argv[2])
assert len(svg.getElementsByTagName("g")) == 5
fills = [e.getAttribute("fill") for e in svg.getElementsByTagName("rect")]
assert "#1f77b4" in fills and "#d62728" in fills, fills   # ALL_ZERO, OTHER
print("report.json and report.svg agree")
PY
checkl "b: report.json and report.svg say the same" "grep -q agree '$d/py'" "$d/py"
sed 's/^/# /' "$r"
[ -n "${GUAC_SLURM_KEEP:-}" ] && cp "$r" "$d/fleet/report.json" "$d/fleet/report.svg" "$GUAC_SLURM_KEEP/"
# The run's table, kept in build/ (where guac is): README.md and docs/fleet.md show it.
kept=$(dirname "$(dirname "$GUAC")")/slurm/fleet-report.txt
mkdir -p "$(dirname "$kept")" && cp "$r" "$kept"
# doc_table FILE: the table after the "$ guac report --expect inventory" line
# of FILE's console block, with only what varies between machines made the
# same: the loop devices' numbers (the doc says loop0-3 for n1a, n1b, n2a,
# n2bad), the runs of spaces that pad them, and the bad disk's error (ENOSPC
# from a loop over a full tmpfs; EIO on kernels whose loop driver says so).
norm() {
	sed -e "s|$n1a\\b|@0|g; s|$n1b\\b|@1|g; s|$n2a\\b|@2|g; s|$n2bad\\b|@3|g" \
	    -e 's|@\([0-3]\)|/dev/loop\1|g; s/Input\/output error/No space left on device/' \
	    -e 's/(job [0-9]*)/(job N)/g' | tr -s ' '
}
doc_table() {
	awk '/^\$ guac report --expect inventory /{on=1; next} on && (/^\$ / || /^```/){exit} on' "$1" |
		sed -e 's/Input\/output error/No space left on device/; s/(job [0-9]*)/(job N)/g' | tr -s ' '
}
for doc in README.md docs/fleet.md; do
	norm <"$r" >"$d/table.run"
	doc_table "$top/$doc" >"$d/table.doc"
	diff "$d/table.doc" "$d/table.run" >"$d/table.diff"
	checkl "b: $doc shows this run's table (loop numbers and job IDs aside; make check-slurm keeps it in $kept)" \
		"[ -s '$d/table.doc' ] && [ ! -s '$d/table.diff' ]" "$d/table.diff"
done

# --- d. the same fleet a week later, into the same directory (issue 40) -----
# guacn1's job has another origin: --resume refuses its disks ("records
# another fill": nothing written), so it FAILs before its checks; guacn2's
# job is held, then cancelled while pending (a node that stays down). The
# report of week2 must show none of week1's OK.
d=$w/b
k1=$(GUAC_RUN=week2 sbatch --parsable -D "$d" --nodelist=guacn1 "$ex/fleet-fill.sbatch" "$d/inventory" "$d/fleet" --origin 32)
k2=$(GUAC_RUN=week2 sbatch --parsable -D "$d" --hold --nodelist=guacn2 "$ex/fleet-fill.sbatch" "$d/inventory" "$d/fleet" --origin 32)
scancel "$k2"
wait_jobs "$k1" "$k2"
checkl "d: week2 on guacn1 FAILED 2:0 (its resume refused), on guacn2 CANCELLED while pending" \
	"[ \"\$(states $k1)\" = 'FAILED 2:0' ] && grep -q 'records another fill' '$d'/guac-fleet-guacn1-$k1.log &&
	 [ \"\$(states $k2)\" = 'CANCELLED 0:0' ]" "$d"/guac-fleet-*-"$k1".log
kr=$(sbatch --parsable -D "$d" --dependency=afterany:"$k1:$k2" "$ex/fleet-report.sbatch" inventory fleet week2 "$k1" "$k2")
wait_jobs "$kr"
r=$d/fleet/report.txt
checkl "d: the report of week2 FAILED 1:0: 5 disks, 5 MISSING, none of week1's OK" \
	"[ \"\$(states $kr)\" = 'FAILED 1:0' ] && grep -qx '5 disks: 5 MISSING' '$r' && ! grep -q ' OK ' '$r'" "$r" "$d"/guac-report-"$kr".log
check "d: guacn1's disks: week1's manifest named, and the job FAILED 2:0" \
	"[ \$(grep -c \"^guacn1 /dev/loop[0-9]*: MISSING: no manifest of run week2: '.*' is of run week1 (finished .*, status complete); its job: FAILED 2:0 (job $k1)\\\$\" '$r') -eq 2 ]"
check "d: guacn2's disks: the job CANCELLED (it never ran)" \
	"[ \$(grep -c '^guacn2 /dev/loop[0-9]*: MISSING: no manifest of run week2: .*; its job: CANCELLED 0:0 (job $k2)\$' '$r') -eq 2 ]"
"$GUAC" report --expect "$d/inventory" "$d/fleet" >"$d/all.txt" 2>&1
checkl "d: without --run the table shows each manifest's run (week1) and age" \
	"grep -Eq '^guacn1 +$n1a +.* week1 +[0-9]+[mhd] +OK ' '$d/all.txt'" "$d/all.txt"

# S5: one disk listed under two hosts is refused before anything is
# written; two disks of one host with one file name get a manifest each.
mkdir -p "$w/s5/x" "$w/s5/y"
truncate -s 1M "$w/s5/x/disk" "$w/s5/y/disk"
printf 'guacn1 %s\nguacn2 %s\n' "$n1a" "$n1a" >"$w/s5/twice"
SLURMD_NODENAME=guacn1 SLURM_JOB_ID=1 bash "$ex/fleet-fill.sbatch" "$w/s5/twice" "$w/s5/m" --origin 33 >"$w/s5/o1" 2>&1
rc=$?
checkl "S5: a disk listed under guacn1 and guacn2: refused (exit 2), nothing written" \
	"[ $rc -eq 2 ] && grep -q 'lists under guacn1 and another host too: $n1a' '$w/s5/o1' && [ ! -e '$w/s5/m' ]" "$w/s5/o1"
printf 'guacn1 %s\nguacn1 %s\n' "$w/s5/x/disk" "$w/s5/y/disk" >"$w/s5/one"
SLURMD_NODENAME=guacn1 SLURM_JOB_ID=2 bash "$ex/fleet-fill.sbatch" "$w/s5/one" "$w/s5/m" --origin 33 >"$w/s5/o2" 2>&1
rc=$?
checkl "S5: two disks named 'disk' on one host: two manifests, both OK" \
	"[ $rc -eq 0 ] && [ \$(ls '$w/s5/m'/guacn1-*disk.json | wc -l) -eq 2 ] &&
	 \"$GUAC\" report --run 2 '$w/s5/m' | grep -qx '2 disks: 2 OK'" "$w/s5/o2"

# --- c. faults ---------------------------------------------------------------

# c1: scancel --signal=INT mid-write; the task requeues itself and resumes.
d=$w/c1
mkdir -p "$d"
fill=$(sbatch --parsable -D "$d" -c 4 --array=0-1 "$ex/fill-shard.sbatch" "$d/lun.img" "$d/parts" \
	--origin 41 --length 4G --sync)
writer_started "$d/parts/part-0.json" $((64 << 20))	# 64 MiB of its 2 GiB
scancel --signal=INT --full "${fill}_0"
wait_jobs "$fill"
checkl "c1: the interrupted task requeued itself and then COMPLETED 0:0" \
	"all_ok $fill && grep -q 'interrupted: requeued' '$d'/guac-fill-${fill}_0.log" "$d"/guac-fill-*.log
check "c1: the second run resumed from the manifest's durable bytes" \
	"grep -Eq \"^resuming '.*part-0.json' \\(interrupted\\): [1-9][0-9]* of\" '$d'/guac-fill-${fill}_0.log"
check "c1: Slurm counts the restart" "scontrol -o show job ${fill}_0 | grep -q 'Restarts=1'"
merged_whole c1 "$d" 41

# c2: the node of a running task is set DOWN: Slurm requeues it, it resumes.
d=$w/c2
mkdir -p "$d"
fill=$(sbatch --parsable -D "$d" -c 4 --array=0-1 "$ex/fill-shard.sbatch" "$d/lun.img" "$d/parts" \
	--origin 42 --length 4G --sync)
writer_started "$d/parts/part-1.json" $((64 << 20))
# A node lost kills its task without a word (SIGKILL): what the rerun resumes
# from is what guac write recorded meanwhile (GUAC_CHECKPOINT_SECONDS, 1 here:
# the jobs inherit it). Until the manifest records some durable bytes (30 s).
for i in $(seq 300); do
	grep -Eq '"done": [1-9]' "$d/parts/part-1.json" 2>/dev/null && break
	sleep 0.1
done
node=$(squeue -h -j "${fill}_1" -o %N)
scontrol update nodename="$node" state=DOWN reason=guac-test
# Slurm requeues the task; the node returns by itself (ReturnToService=2).
scontrol update nodename="$node" state=RESUME 2>/dev/null || true
wait_jobs "$fill"
checkl "c2: the task on the node set DOWN ($node) was requeued and COMPLETED 0:0" \
	"all_ok $fill && scontrol -o show job ${fill}_1 | grep -q 'Restarts=[1-9]'" "$d"/guac-fill-*.log
checkl "c2: ... its rerun resumed from the manifest's durable bytes (not 0: no rewrite from scratch)" \
	"grep -Eq \"^resuming '.*part-1.json' \\([a-z]+\\): [1-9][0-9]* of\" '$d'/guac-fill-${fill}_1.log" \
	"$d"/guac-fill-"${fill}"_1.log
merged_whole c2 "$d" 42

# c3: a shard on a bad disk (36 MiB behind a 48 MiB device): exit status 3, and the report says why.
d=$w/c3
mkdir -p "$d/tiny"
mount -t tmpfs -o size=36m guacrng-slurm-test "$d/tiny" && mounts+=("$d/tiny")
bad=$(mkloop "$d/tiny/bad" 48M); loops+=("$bad")
# One task at a time (%1), in order: shard 0 (the first 24 MiB) fits, shard 1 runs out.
fill=$(sbatch --parsable -D "$d" -c 4 --array=0-1%1 "$ex/fill-shard.sbatch" "$bad" "$d/parts" --origin 43)
wait_jobs "$fill"
checkl "c3: the shard on the good half COMPLETED 0:0, the one on the bad half FAILED 3:0" \
	"[ \"\$(states ${fill}_0)\" = 'COMPLETED 0:0' ] && [ \"\$(states ${fill}_1)\" = 'FAILED 3:0' ]" "$d"/guac-fill-*.log
"$GUAC" report "$d/parts" >"$d/report.txt" 2>&1
rc=$?
checkl "c3: guac report: exit 1, the part FAILED with the error and its durable bytes" \
	"[ $rc -eq 1 ] && grep -q ': FAILED: the write failed: \(Input/output error\|No space left on device\); [0-9]* of 25165824 bytes durable' '$d/report.txt'" "$d/report.txt"
mrg=$(sbatch --parsable -D "$d" "$ex/merge.sbatch" "$d/parts" "$d/lun.json")
wait_jobs "$mrg"
checkl "c3: the merge refuses the failed part (FAILED 1:0, no merged manifest)" \
	"[ \"\$(states $mrg)\" = 'FAILED 1:0' ] && [ ! -e '$d/lun.json' ]" "$d"/guac-merge-*.log

# c4: scancel --signal=TERM --full mid-write, the check and the merge already
# queued behind it (afterok): the task requeues itself, resumes, and the
# chain completes without anyone.
d=$w/c4
mkdir -p "$d"
fill=$(sbatch --parsable -D "$d" -c 4 --array=0-1 "$ex/fill-shard.sbatch" "$d/lun.img" "$d/parts" \
	--origin 44 --length 4G --sync)
ver=$(sbatch --parsable -D "$d" -c 2 --array=0-1 --dependency=afterok:"$fill" "$ex/verify-shard.sbatch" "$d/parts")
mrg=$(sbatch --parsable -D "$d" --dependency=afterok:"$ver" "$ex/merge.sbatch" "$d/parts" "$d/lun.json")
writer_started "$d/parts/part-0.json" $((64 << 20))
scancel --signal=TERM --full "${fill}_0"
wait_jobs "$fill" "$ver" "$mrg"
checkl "c4: TERM: the task requeued itself, resumed from its manifest's durable bytes, COMPLETED 0:0" \
	"all_ok $fill && grep -q 'interrupted: requeued' '$d'/guac-fill-${fill}_0.log &&
	 grep -Eq \"^resuming '.*part-0.json' \\(interrupted\\): [1-9][0-9]* of\" '$d'/guac-fill-${fill}_0.log &&
	 scontrol -o show job ${fill}_0 | grep -q 'Restarts=1'" "$d"/guac-fill-*.log
checkl "c4: ... and the afterok chain completed: every check and the merge COMPLETED 0:0" \
	"all_ok $ver && all_ok $mrg && grep -q '^OK' '$d'/guac-merge-*.log" "$d"/guac-verify-*.log "$d"/guac-merge-*.log

# c5: a time limit with its warning signal to the batch shell
# (--time=2 --signal=B:INT@90: slurmctld looks at time limits every 30 s or
# so, and sends the warning once no more than 90 s are left, so 30 to 60 s
# into the job). guac write is slowed (tests/userspace/shims/slow_pwrite.c,
# 0.8 s per 1 MiB write of the target, one writer: 77 s for the fill) so that
# the fill outlasts the warning; the task passes the signal on, requeues,
# resumes from its checkpoint and ends COMPLETED, never TIMEOUT.
d=$w/c5
mkdir -p "$d"
truncate -s 96M "$d/lun.img"
if ${CC:-cc} -shared -fPIC -o "$d/slow.so" "$top/tests/userspace/shims/slow_pwrite.c" -ldl 2>"$d/cc.err"; then
	# The shim goes to the job in sbatch's environment: with --export=ALL,VAR=...
	# this Slurm (22.05) sent no warning signal at all.
	fill=$(LD_PRELOAD="$d/slow.so" SLOW_INO="$(stat -c %i "$d/lun.img")" SLOW_NS=800000000 GUAC_REQUEUES=10 \
		sbatch --parsable -D "$d" -c 1 --array=0 --time=2 --signal=B:INT@90 \
		"$ex/fill-shard.sbatch" "$d/lun.img" "$d/parts" --origin 45 --length 96M)
	ver=$(sbatch --parsable -D "$d" --array=0 --dependency=afterok:"$fill" "$ex/verify-shard.sbatch" "$d/parts")
	wait_jobs "$fill" "$ver"
	checkl "c5: the time limit's warning: the task requeued itself and then COMPLETED 0:0 (not TIMEOUT)" \
		"all_ok $fill && grep -q 'interrupted: requeued' '$d'/guac-fill-${fill}_0.log &&
		 scontrol -o show job ${fill}_0 | grep -q 'Restarts=[1-9]'" "$d"/guac-fill-*.log
	checkl "c5: ... a rerun resumed from its checkpoint (durable bytes > 0), and the check after it (afterok) COMPLETED 0:0" \
		"grep -Eq \"^resuming '.*part-0.json' \\(interrupted\\): [1-9][0-9]* of\" '$d'/guac-fill-${fill}_0.log &&
		 all_ok $ver" "$d"/guac-fill-*.log "$d"/guac-verify-*.log
	check "c5: the target is byte for byte the stream (cmp)" \
		"$GUAC gen --origin 45 --length 96M | cmp -s - '$d/lun.img'"
else
	not_ok "c5: cannot build the write-slowing shim" "$d/cc.err"
fi

# c6: the check interrupted too (scancel --signal=TERM --full mid-check of a
# part never checked, its reads slowed by the shim): the task passes TERM on
# to guac verify, which saves its progress in the part; the task requeues
# itself and resumes the check from there, and ends COMPLETED 0:0 with an OK
# for the whole part.
d=$w/c6
mkdir -p "$d/parts"
"$GUAC" write --length 512M --origin 46 -m "$d/parts/part-0.json" "$d/lun.img" >/dev/null 2>&1
if ${CC:-cc} -shared -fPIC -o "$d/slow.so" "$top/tests/userspace/shims/slow_pwrite.c" -ldl 2>"$d/cc.err"; then
	ver=$(LD_PRELOAD="$d/slow.so" SLOW_READS=1 SLOW_INO="$(stat -c %i "$d/lun.img")" SLOW_NS=2000000 \
		sbatch --parsable -D "$d" -c 1 --array=0 "$ex/verify-shard.sbatch" "$d/parts")
	writer_started "guac verify --resume --jobs 1 --manifest $d/parts/part-0.json" 0
	pid=$(pgrep -f -- "guac verify --resume --jobs 1 --manifest $d/parts/part-0.json" | head -n 1)
	[ -z "$pid" ] || wait_read "$pid" $((64 << 20))
	scancel --signal=TERM --full "${ver}_0"
	wait_jobs "$ver"
	checkl "c6: TERM mid-check: the verify task requeued itself, resumed from its saved progress, COMPLETED 0:0" \
		"all_ok $ver && grep -q 'interrupted: requeued' '$d'/guac-verify-${ver}_0.log &&
		 grep -Eq '^OK: 536870912 bytes .* [1-9][0-9]* of them checked by the run resumed' '$d'/guac-verify-${ver}_0.log &&
		 scontrol -o show job ${ver}_0 | grep -q 'Restarts=1'" "$d"/guac-verify-"$ver"*.log
else
	not_ok "c6: cannot build the read-slowing shim" "$d/cc.err"
fi

# fleet-report.sbatch's own status, run as a plain script on b's manifests: a
# fleet not OK is exit 1, but a JSON run that fails otherwise (a usage error,
# a crash: here a guac whose --json exits 3) fails the job, never hidden.
mkdir -p "$w/fake"
printf '#!/bin/sh\ncase " $* " in *" --json "*) exit 3 ;; esac\nexec %s "$@"\n' "$GUAC" >"$w/fake/guac"
chmod +x "$w/fake/guac"
(cd "$w/b" && bash "$ex/fleet-report.sbatch" inventory fleet week1) >"$w/rep1.log" 2>&1
rc=$?
checkl "fleet-report.sbatch: a fleet with disks not OK: exit 1" "[ $rc -eq 1 ]" "$w/rep1.log"
(cd "$w/b" && PATH=$w/fake:$PATH bash "$ex/fleet-report.sbatch" inventory fleet week1) >"$w/rep3.log" 2>&1
rc=$?
checkl "fleet-report.sbatch: guac report --json failing with exit 3: the job exits 3, saying so" \
	"[ $rc -eq 3 ] && grep -q 'guac report --json failed (exit 3)' '$w/rep3.log'" "$w/rep3.log"
echo "# scenarios a, b, c: $(($(date +%s) - t0)) s"

# Down: every daemon stopped by its PID, no namespace, interface or port left.
pids=$(cat "$sd"/* 2>/dev/null | tr '\n' ' ')
port=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
t1=$(date +%s)
"$top/scripts/slurm/cluster.sh" down >"$w/down.log" 2>&1
rc=$?	# checkl's own commands would reset $? before its eval
checkl "cluster.sh down exits 0 ($(($(date +%s) - t1)) s)" "[ $rc -eq 0 ]" "$w/down.log"
alive=""
for p in $pids; do [ -d "/proc/$p" ] && alive="$alive $p"; done
check "... no daemon left (PIDs$pids)" "[ -z '$alive' ]"
check "... no namespace or interface of the cluster left" \
	"! ip netns list | grep -q '^$GUAC_SLURM_NS-' && ! ip link show $GUAC_SLURM_NS-0 >/dev/null 2>&1"
check "... ports $port and $((port + 1)) not bound" \
	"! ss -Hltn 'sport = :$port' | grep -q . && ! ss -Hltn 'sport = :$((port + 1))' | grep -q ."
tap_end
