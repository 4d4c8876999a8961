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
# ROUNDS rounds (default 5), the tools' order reversed from one to the next
# (fio first, then each GUAC; then the GUACs backwards, fio last), so load
# that comes and goes on a shared machine hits them alike.
# IOPS: fio's own (its JSON), guac's bytes written / seconds / 4096 (its
# --json; seconds from the first write to the fsync's end). And blocks per
# CPU-second, steadier on a loaded machine: each process's user and system
# time, its io_uring workers' included (getrusage of the children), less
# fio's start-up (the median of three 4 KiB runs; guac's few milliseconds are
# left in). The kernel threads of a loop device count for neither. Only
# lengths whose runs take far more than that start-up (the default 256 MiB)
# give CPU figures worth comparing.
#
# Prints a line per measurement and a Markdown summary (to OUT if given):
# every round's figure, the medians, the median of the rounds' guac/fio
# ratios, with the CPU they were measured on. Several GUAC binaries (GUAC="new
# old") each get their rows in every round: a before/after under the same
# load. Needs root (mount, losetup) and fio. Exits non-zero if any command
# fails; the mount, loop device and image are removed whatever happens. Not a
# test: nothing is asserted.
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

# cpu_run COMMAND...: COMMAND, its standard output and error as they are; the CPU
# seconds (user and system) it and its threads took written to $tmp/cpu.
cpu_run() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f\n" % (u.ru_utime + u.ru_stime))
sys.exit(rc)' "$tmp/cpu" "$@"
}

rows=$tmp/rows
: >"$rows"
# row ROUND TOOL IOPS SECONDS CPU-SECONDS: one measurement, kept and shown.
row() {
	echo "$1|$2|$3|$4|$5" >>"$rows"
	printf 'round %s: %-24s %8.0f IOPS %7.3f s %7.3f CPU-s  [%s]\n' "$@" "$CPU" >&2
}

# fio SIZE: the random write, its JSON in $tmp/fio.json, its CPU in $tmp/cpu.
fio_randwrite() {
	cpu_run fio --name=randwrite --filename="$target" --rw=randwrite --bs=4k --iodepth=32 \
		--ioengine=io_uring --direct=$direct --size="$1" --norandommap=0 \
		--randrepeat=0 --numjobs=1 --time_based=0 --end_fsync=1 \
		--output-format=json --output="$tmp/fio.json"
}

# fio's CPU less what the process spends starting (0.15-0.25 CPU-second here, on
# any size), measured on 4 KiB (fio_start). Its JSON's usr_cpu and sys_cpu are
# not used: on tmpfs they said 0.10 CPU-second where perf stat counted 0.34.
run_fio() {
	local j=$tmp/fio.json
	fio_randwrite $LENGTH
	row "$1" fio "$(field "$j" 'j["jobs"][0]["write"]["iops"]')" \
		"$(field "$j" 'j["jobs"][0]["job_runtime"] / 1000')" \
		"$(python3 -c 'import sys; print(float(sys.argv[1]) - float(sys.argv[2]))' \
			"$(cat "$tmp/cpu")" "$fio_start")"
}

# run_guac ROUND GUAC: its random fill, the check of it, and a sequential fill.
run_guac() {
	local r=$1 g=$2 name=${2##*/} m=$tmp/random.json j=$tmp/guac.json
	rm -f "$m" "$tmp/seq.json"
	cpu_run "$g" write --pattern random --bs 4K --iodepth 32 "${gdirect[@]}" \
		--length $LENGTH -m "$m" --json --progress none "$target" >"$j"
	row "$r" "$name random" "$(field "$j" 'j["bytes_written"] / j["seconds"] / 4096')" \
		"$(field "$j" 'j["seconds"]')" "$(cat "$tmp/cpu")"
	cpu_run "$g" verify -m "$m" --json --progress none >"$j"
	row "$r" "$name verify" "$(field "$j" 'j["bytes_checked"] / j["seconds"] / 4096')" \
		"$(field "$j" 'j["seconds"]')" "$(cat "$tmp/cpu")"
	cpu_run "$g" write --bs 1M "${gdirect[@]}" --length $LENGTH -m "$tmp/seq.json" --json \
		--progress none "$target" >"$j"
	row "$r" "$name sequential" "$(field "$j" 'j["bytes_written"] / j["seconds"] / 4096')" \
		"$(field "$j" 'j["seconds"]')" "$(cat "$tmp/cpu")"
}

# The GUACS in the order given, and the other way round: the even rounds' order.
read -r -a forward <<<"$GUACS"
backward=()
for g in "${forward[@]}"; do backward=("$g" "${backward[@]}"); done

load=$(cut -d' ' -f1-3 /proc/loadavg)
starts=()
for i in 1 2 3; do
	fio_randwrite 4k
	starts+=("$(cat "$tmp/cpu")")
done
fio_start=$(printf '%s\n' "${starts[@]}" | sort -g | sed -n 2p)
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then
		run_fio $r
		for g in "${forward[@]}"; do run_guac $r "$g"; done
	else
		for g in "${backward[@]}"; do run_guac $r "$g"; done
		run_fio $r
	fi
done

{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench/fio-compare.sh $KIND\` on"
	echo "**$CPU**, $(nproc) CPUs, Linux $(uname -r); load average before the run: $load;"
	echo "fio's start-up, taken off its CPU time: $fio_start CPU-seconds."
	echo "Target: $KIND ($([ $direct = 1 ] && echo O_DIRECT || echo buffered)), $LENGTH_MIB MiB, $ROUNDS"
	echo "rounds, the order reversed each round. IOPS are 4 KiB blocks a second (verify: blocks"
	echo "checked; sequential: a 1 MiB write counted as 256 blocks)."
	echo
	python3 - "$rows" "$CPU" "$LENGTH" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r, tool, iops, sec, cpu = line.rstrip("\n").split("|")
    rows.setdefault(tool, {})[int(r)] = (float(iops), float(sec), float(cpu))
blocks = int(sys.argv[3]) / 4096
rounds = sorted(rows["fio"])
med = statistics.median
wall = lambda v, r: v[r][0]
per_cpu = lambda v, r: blocks / v[r][2]
for title, fig, col in (("IOPS (wall clock)", wall, 1), ("blocks per CPU-second", per_cpu, 2)):
    print("%s:" % title)
    print()
    print("| tool | " + " | ".join("round %d" % r for r in rounds) + " | median | median %s |" %
          ("s" if col == 1 else "CPU-s"))
    print("|---|" + "---|" * len(rounds) + "---|---|")
    for tool, v in rows.items():
        print("| %s | %s | %.0f | %.3f |" % (tool, " | ".join("%.0f" % fig(v, r) for r in rounds),
              med(fig(v, r) for r in rounds), med(x[col] for x in v.values())))
    print()
fio = rows["fio"]
for tool, v in rows.items():
    if not tool.endswith(" random"):
        continue
    for what, fig in (("IOPS", wall), ("per CPU-second", per_cpu)):
        ratios = [fig(v, r) / fig(fio, r) for r in rounds]
        print("- %s / fio, %s: median of the rounds' ratios **%.2fx** (%s), ratio of medians "
              "%.2fx; on %s" % (tool, what, med(ratios), ", ".join("%.2f" % x for x in ratios),
              med(fig(v, r) for r in rounds) / med(fig(fio, r) for r in rounds), sys.argv[2]))
for tool, v in rows.items():
    if tool.endswith(" sequential") or tool.endswith(" verify"):
        print("- %s: median %.0f MB/s, %.0f MB per CPU-second; on %s" % (
            tool, med(wall(v, r) for r in rounds) * 4096 / 1e6,
            med(per_cpu(v, r) for r in rounds) * 4096 / 1e6, sys.argv[2]))
EOF
} >"$OUT"
