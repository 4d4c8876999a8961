#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# verify-one-job.sh [OUT.md]: guac verify with one job against dd, in one run,
# as ratios (issue 24: one job must reach 0.8x `dd iflag=direct`). 1 GiB on a
# file in tmpfs and on a loop device over a tmpfs file, O_DIRECT, 1 MiB reads:
#
#   dd if=T of=/dev/null bs=1M iflag=direct
#   guac verify --direct --bs 1M --jobs 1 --length 1G T         (each GUAC given)
#
# TRIALS runs of each, interleaved (dd, then each guac, then again), so load
# that comes and goes hits them alike. The machines this project runs on are
# shared: with RT=1 (the default) every timed command runs SCHED_FIFO
# (chrt -f 10), which stands in for an idle machine (the kernel keeps 5% of
# each second for everything else; a run takes a fraction of a second); RT=0
# measures under whatever load there is. Median and range of the times, and
# the ratio of medians. Needs root (losetup; chrt -f). Not a test: nothing is
# asserted.
#
# A loop device's reads are done by a kernel worker thread, which SCHED_FIFO
# does not reach: under load it waits its turn, so RT=1 says little there.
# ZRAM=1 adds a block device whose reads run in the reader's own context:
# /dev/zram0, if it exists unconfigured (disksize 0), is set to 1 GiB for
# the run and reset after it (the stream does not compress: it costs 1 GiB
# of memory).
#
#   GUAC="build/userspace/guac /tmp/old/guac" scripts/bench/verify-one-job.sh out.md
#   (GUAC_ENV="VAR=VALUE" adds a row of the first GUAC with that environment)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUACS=${GUAC:-$TOP/build/userspace/guac}
GUAC_ENV=${GUAC_ENV:-}
TRIALS=${TRIALS:-9}
RT=${RT:-1}
OUT=${1:-/dev/stdout}
SIZE=$((1 << 30))

[ "$(id -u)" -eq 0 ] || { echo "verify-one-job.sh: needs root (losetup, chrt)" >&2; exit 2; }
for g in $GUACS; do
	[ -x "$g" ] || { echo "verify-one-job.sh: '$g' is not an executable guac (make tools)" >&2; exit 2; }
done
prio=()
[ "$RT" = 0 ] || prio=(chrt -f 10)

tmp=$(mktemp -d /dev/shm/guac-vbench.XXXXXX)
loop="" zram=""
cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
	[ -z "$zram" ] || echo 1 >/sys/block/zram0/reset
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s $SIZE "$tmp/file" "$tmp/backing"
loop=$(losetup -f --show "$tmp/backing")
targets="tmpfs loop"
if [ "${ZRAM:-0}" = 1 ]; then
	if [ ! -e /sys/block/zram0/disksize ] || [ "$(cat /sys/block/zram0/disksize)" != 0 ]; then
		echo "verify-one-job.sh: ZRAM=1 needs an unconfigured /dev/zram0 (disksize 0)" >&2
		exit 2
	fi
	echo $SIZE >/sys/block/zram0/disksize
	zram=/dev/zram0
	targets="$targets zram"
fi
first=${GUACS%% *}
for t in "$tmp/file" "$loop" $zram; do
	"$first" write --direct --bs 1M --length $SIZE "$t" >/dev/null
done

# timed LABEL COMMAND...: one run's wall seconds appended to $tmp/times.
timed() {
	local label=$1 s e
	shift
	s=$(date +%s%N)
	"${prio[@]}" "$@" >/dev/null
	e=$(date +%s%N)
	echo "$label $(((e - s) / 1000))" >>"$tmp/times"
}

labels=()
for target in $targets; do
	case $target in
	tmpfs) t=$tmp/file ;;
	loop) t=$loop ;;
	zram) t=$zram ;;
	esac
	for ((i = 0; i < TRIALS; i++)); do
		timed "$target|dd" dd if="$t" of=/dev/null bs=1M count=1024 iflag=direct status=none
		for g in $GUACS; do
			timed "$target|$g" "$g" verify --direct --bs 1M --jobs 1 --length $SIZE "$t"
		done
		if [ -n "$GUAC_ENV" ]; then
			# shellcheck disable=SC2086 # a list of VAR=VALUE words
			timed "$target|$first ($GUAC_ENV)" env $GUAC_ENV "$first" verify --direct \
				--bs 1M --jobs 1 --length $SIZE "$t"
		fi
	done
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)
model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench/verify-one-job.sh\` on **$cpu**"
	echo "(family $fam model $model), $(nproc) CPUs, Linux $(uname -r); load average before the"
	echo "run: $(cut -d' ' -f1-3 /proc/loadavg); $([ "$RT" = 0 ] && echo "normal priority" ||
		echo "every timed command SCHED_FIFO (chrt -f 10)"). 1 GiB, O_DIRECT, 1 MiB reads, $TRIALS"
	echo "runs of each, interleaved; seconds of wall time (process start included)."
	echo
	echo "| target | tool | median s | min-max s | MB/s (median) | vs dd (ratio of medians) |"
	echo "|---|---|---|---|---|---|"
	python3 - "$tmp/times" "$TOP" $targets <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, us = line.rsplit(" ", 1)
    rows.setdefault(label, []).append(int(us) / 1e6)
for target in sys.argv[3:]:
    dd = statistics.median(rows[target + "|dd"])
    for label, v in rows.items():
        t, tool = label.split("|", 1)
        if t != target:
            continue
        med = statistics.median(v)
        name = "dd if=T of=/dev/null bs=1M iflag=direct" if tool == "dd" else \
            "guac verify --jobs 1: " + tool.replace(sys.argv[2] + "/", "")
        print("| %s | %s | %.3f | %.3f-%.3f | %.0f | %.2fx |" % (
            target, name, med, min(v), max(v), (1 << 30) / med / 1e6, dd / med))
EOF
} >"$OUT"
