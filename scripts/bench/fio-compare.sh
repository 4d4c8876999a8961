#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# fio-compare.sh tmpfs|loop|DEVICE [OUT]: random 4 KiB writes at queue depth
# 32, guac against fio's io_uring engine on the same target (issue 37 item 7:
# at least 0.9x fio's IOPS, guac's data generated and checked), in rounds:
#
#   fio --rw=randwrite --bs=4k --iodepth=32 --ioengine=io_uring --direct=D
#       --size=L --norandommap=0 --randrepeat=0 --numjobs=1 --time_based=0
#       --end_fsync=1                        (every block once; fsynced at the end)
#   guac write --pattern random --bs 4K --iodepth 32 [--direct] --length L -m M
#   guac verify -m M                         (the random fill checked)
#   guac write --bs 1M [--direct] --length L (a sequential fill, default depth)
#
# tmpfs: a file on a tmpfs mounted for the run under a private temporary
# directory, buffered (D=0: O_DIRECT there is the page cache anyway). loop: a
# loop device (losetup -f) over an image file in IMAGE_DIR (default /var/tmp:
# the regular disk), O_DIRECT. DEVICE: that block device, O_DIRECT; its first
# L bytes are overwritten (guac refuses one with a file system or partition
# table on it). Both tools end with an fsync (guac's durable bytes; fio's
# --end_fsync), so each one's time holds the flush.
#
# ROUNDS rounds (default 5), the tools' order alternating from one to the
# next, so load that comes and goes on a shared machine hits them alike.
# IOPS: fio's own (its JSON), guac's bytes written / seconds / 4096 (its
# --json; seconds from the first write to the fsync's end). Prints a line per
# round and a Markdown summary (to OUT if given): medians, ranges, the median
# of the rounds' guac/fio ratios, every figure with the CPU it was measured
# on. Several GUAC binaries (GUAC="new old") each get their rows in every
# round: a before/after under the same load. Needs root (mount, losetup) and
# fio. Exits non-zero if any command fails; the mount, loop device and image
# are removed whatever happens. Not a test: nothing is asserted.
#
#   scripts/bench/fio-compare.sh tmpfs
#   ROUNDS=3 LENGTH_MIB=256 scripts/bench/fio-compare.sh loop out.md
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUACS=${GUAC:-$TOP/build/userspace/guac}
ROUNDS=${ROUNDS:-5}
LENGTH_MIB=${LENGTH_MIB:-256}
IMAGE_DIR=${IMAGE_DIR:-/var/tmp}
KIND=${1:-}
OUT=${2:-/dev/stdout}
LENGTH=$((LENGTH_MIB << 20))

die() { echo "fio-compare.sh: $*" >&2; exit 2; }
[ -n "$KIND" ] || die "usage: fio-compare.sh tmpfs|loop|DEVICE [OUT]"
[ "$(id -u)" -eq 0 ] || die "needs root (mount, losetup)"
command -v fio >/dev/null || die "needs fio (scripts/install-deps.sh)"
command -v python3 >/dev/null || die "needs python3"
for g in $GUACS; do
	[ -x "$g" ] || die "'$g' is not an executable guac (make tools)"
done
case $KIND in
tmpfs | loop) ;;
*) [ -b "$KIND" ] || die "'$KIND' is neither tmpfs, loop nor a block device" ;;
esac

tmp=$(mktemp -d /tmp/guac-fio-compare.XXXXXX)
mnt="" loop="" image=""
cleanup() {
	local rc=$?
	[ -z "$loop" ] || losetup -d "$loop" || rc=1
	[ -z "$image" ] || rm -f "$image"
	[ -z "$mnt" ] || umount "$mnt" || rc=1
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

case $KIND in
tmpfs)
	mkdir "$tmp/mnt"
	mount -t tmpfs -o size=$((LENGTH_MIB + 16))m,mode=0700 guac-fio-compare "$tmp/mnt"
	mnt=$tmp/mnt
	target=$mnt/file direct=0
	;;
loop)
	image=$(mktemp "$IMAGE_DIR/guac-fio-compare.XXXXXX.img")
	truncate -s $LENGTH "$image"
	loop=$(losetup -f --show "$image")
	target=$loop direct=1
	;;
*) target=$KIND direct=1 ;;
esac
gdirect=()
[ $direct = 0 ] || gdirect=(--direct)

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)
model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
CPU="$cpu (family $fam model $model)"

# Allocate the medium first (tmpfs pages, the image's blocks), so that no run pays for it.
first=${GUACS%% *}
"$first" write "${gdirect[@]}" --bs 1M --length $LENGTH "$target" >/dev/null 2>&1

# field JSON-FILE EXPRESSION: a figure from a tool's JSON (j is the object).
field() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

rows=$tmp/rows
: >"$rows"
# row ROUND TOOL IOPS SECONDS: one measurement, kept and shown.
row() {
	echo "$1|$2|$3|$4" >>"$rows"
	printf 'round %s: %-40s %10.0f IOPS %8.3f s  [%s]\n' "$1" "$2" "$3" "$4" "$CPU" >&2
}

run_fio() {
	local r=$1 j=$tmp/fio.json
	fio --name=randwrite --filename="$target" --rw=randwrite --bs=4k --iodepth=32 \
		--ioengine=io_uring --direct=$direct --size=$LENGTH --norandommap=0 \
		--randrepeat=0 --numjobs=1 --time_based=0 --end_fsync=1 \
		--output-format=json --output="$j"
	row "$r" fio "$(field "$j" 'j["jobs"][0]["write"]["iops"]')" \
		"$(field "$j" 'j["jobs"][0]["job_runtime"] / 1000')"
}

# run_guac ROUND GUAC: its random fill, the check of it, and a sequential fill.
run_guac() {
	local r=$1 g=$2 name=${2##*/} m=$tmp/random.json j=$tmp/guac.json
	rm -f "$m" "$tmp/seq.json"
	"$g" write --pattern random --bs 4K --iodepth 32 "${gdirect[@]}" --length $LENGTH \
		-m "$m" --json --progress none "$target" >"$j"
	row "$r" "$name random" "$(field "$j" 'j["bytes_written"] / j["seconds"] / 4096')" \
		"$(field "$j" 'j["seconds"]')"
	"$g" verify -m "$m" --json --progress none >"$j"
	row "$r" "$name verify" "$(field "$j" 'j["bytes_checked"] / j["seconds"] / 4096')" \
		"$(field "$j" 'j["seconds"]')"
	"$g" write --bs 1M "${gdirect[@]}" --length $LENGTH -m "$tmp/seq.json" --json \
		--progress none "$target" >"$j"
	row "$r" "$name sequential" "$(field "$j" 'j["bytes_written"] / j["seconds"] / 4096')" \
		"$(field "$j" 'j["seconds"]')"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then
		run_fio $r
		for g in $GUACS; do run_guac $r "$g"; done
	else
		for g in $GUACS; do run_guac $r "$g"; done
		run_fio $r
	fi
done

{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench/fio-compare.sh $KIND\` on"
	echo "**$CPU**, $(nproc) CPUs, Linux $(uname -r); load average before the run: $load."
	echo "Target: $KIND ($([ $direct = 1 ] && echo O_DIRECT || echo buffered)), $LENGTH_MIB MiB,"
	echo "$ROUNDS rounds, the order alternating. IOPS are 4 KiB blocks a second (verify: blocks"
	echo "checked, sequential: 1 MiB writes counted as 256 blocks)."
	echo
	python3 - "$rows" "$CPU" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r, tool, iops, sec = line.rstrip("\n").split("|")
    rows.setdefault(tool, {})[int(r)] = (float(iops), float(sec))
rounds = sorted(rows["fio"])
print("| tool | " + " | ".join("round %d" % r for r in rounds) + " | median IOPS | median s |")
print("|---|" + "---|" * len(rounds) + "---|---|")
for tool, v in rows.items():
    print("| %s | %s | %.0f | %.3f |" % (tool, " | ".join("%.0f" % v[r][0] for r in rounds),
          statistics.median(x[0] for x in v.values()), statistics.median(x[1] for x in v.values())))
print()
fio = rows["fio"]
for tool, v in rows.items():
    if not tool.endswith(" random"):
        continue
    ratios = [v[r][0] / fio[r][0] for r in rounds]
    print("- %s / fio: median of the rounds' ratios **%.2fx** (%s), ratio of medians %.2fx; on %s" % (
        tool, statistics.median(ratios), ", ".join("%.2f" % x for x in ratios),
        statistics.median(x[0] for x in v.values()) / statistics.median(x[0] for x in fio.values()),
        sys.argv[2]))
for tool, v in rows.items():
    if tool.endswith(" sequential"):
        med = statistics.median(x[0] for x in v.values())
        print("- %s: median %.0f MB/s; on %s" % (tool, med * 4096 / 1e6, sys.argv[2]))
EOF
} >"$OUT"
