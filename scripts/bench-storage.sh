#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bench-storage.sh [OUT.md]: guac write and guac verify against dd and fio,
# in one run, on a file on tmpfs and on a loop device (over a tmpfs file, so
# the medium is memory and the numbers show the I/O paths, not a disk), with
# 1 and 2 jobs. Writes a Markdown table (default docs/results/storage-DATE.md)
# naming the CPU. Needs root (losetup, drop_caches) and fio. Not a test: no
# timing is asserted anywhere.
#
#   write:  guac write          vs dd if=/dev/zero oflag=direct bs=1M
#                               vs fio --rw=write --direct=1 --bs=1M --refill_buffers
#   verify: guac verify         vs dd iflag=direct of=/dev/null bs=1M
#                               vs fio --verify=crc32c --verify_only (after a fio write)
#
# O_DIRECT is used wherever the file system allows it; where it does not
# (tmpfs before Linux 6.6) every tool runs buffered there and the table says so.
#
# GUAC_BEFORE=path/to/older/guac adds its write and verify rows to the same run
# (tool "guac write (before)"): a before/after comparison under the same load.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
GUAC=${GUAC:-$TOP/build/userspace/guac}
GUAC_BEFORE=${GUAC_BEFORE:-}
SIZE_MB=${SIZE_MB:-1024}
OUT=${1:-$TOP/docs/results/storage-$(date -u +%Y-%m-%d).md}
SIZE=$((SIZE_MB * 1048576))

[ "$(id -u)" -eq 0 ] || { echo "bench-storage.sh: needs root (losetup, drop_caches)" >&2; exit 2; }
command -v fio >/dev/null || { echo "bench-storage.sh: needs fio (scripts/install-deps.sh)" >&2; exit 2; }
[ -x "$GUAC" ] || { echo "bench-storage.sh: build guac first (make tools)" >&2; exit 2; }
[ -z "$GUAC_BEFORE" ] || [ -x "$GUAC_BEFORE" ] ||
	{ echo "bench-storage.sh: GUAC_BEFORE '$GUAC_BEFORE' is not executable" >&2; exit 2; }

tmp=$(mktemp -d /dev/shm/guac-bench.XXXXXX)
loop=""
cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

TRIALS=${TRIALS:-3}
rows=""
now() { date +%s.%N; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# measure TARGET OP TOOL JOBS MODE COMMAND...: TRIALS runs, caches dropped before
# each; a table row with the median, minimum and maximum.
measure() {
	target=$1 op=$2 tool=$3 jobs=$4 mode=$5
	shift 5
	times=""
	i=0
	while [ $i -lt "$TRIALS" ]; do
		drop
		s=$(now)
		"$@" >/dev/null
		times="$times $(awk -v a="$s" -v b="$(now)" 'BEGIN { print b - a }')"
		i=$((i + 1))
	done
	set -- $(printf '%s\n' $times | sort -g)
	min=$1
	eval "med=\${$(((TRIALS + 1) / 2))}"
	eval "max=\${$TRIALS}"
	line=$(awk -v b=$SIZE -v med="$med" -v min="$min" -v max="$max" \
		'BEGIN { printf "%.3f | %.0f | %.0f-%.0f", med, b / med / 1e6, b / max / 1e6, b / min / 1e6 }')
	rows="$rows| $target | $op | $tool | $jobs | $mode | $line |
"
	echo "$target $op $tool jobs $jobs $mode: $line" >&2
}

# bench NAME TARGET: every tool on TARGET, 1 and 2 jobs.
bench() {
	name=$1 t=$2
	# Allocate the medium first, so that no row pays for it.
	dd if=/dev/zero of="$t" bs=1M count=$SIZE_MB conv=fsync,notrunc status=none
	if "$GUAC" write --direct --length 1M "$t" >/dev/null 2>&1; then
		mode=direct gdirect=--direct ddw=oflag=direct ddr=iflag=direct fdir=1
	else
		mode=buffered gdirect=--buffered ddw=iflag=fullblock ddr=iflag=fullblock fdir=0
		echo "$name: O_DIRECT refused: every tool runs buffered here" >&2
	fi
	for jobs in 1 2; do
		measure "$name" write "guac write" $jobs $mode \
			"$GUAC" write $gdirect --bs 1M --jobs $jobs --length $SIZE "$t"
		measure "$name" verify "guac verify" $jobs $mode \
			"$GUAC" verify $gdirect --bs 1M --jobs $jobs --length $SIZE "$t"
		[ -z "$GUAC_BEFORE" ] && continue
		measure "$name" write "guac write (before)" $jobs $mode \
			"$GUAC_BEFORE" write $gdirect --bs 1M --jobs $jobs --length $SIZE "$t"
		measure "$name" verify "guac verify (before)" $jobs $mode \
			"$GUAC_BEFORE" verify $gdirect --bs 1M --jobs $jobs --length $SIZE "$t"
	done
	measure "$name" write "dd if=/dev/zero bs=1M" 1 $mode \
		dd if=/dev/zero of="$t" bs=1M count=$SIZE_MB $ddw conv=fsync,notrunc status=none
	measure "$name" verify "dd of=/dev/null (no check)" 1 $mode \
		dd if="$t" of=/dev/null bs=1M count=$SIZE_MB $ddr status=none
	for jobs in 1 2; do
		part=$((SIZE / jobs))
		set -- --name=bench --filename="$t" --bs=1M --direct=$fdir --ioengine=psync \
			--numjobs=$jobs --size=$part --offset_increment=$part --group_reporting \
			--verify_state_save=0
		measure "$name" write "fio --refill_buffers" $jobs $mode \
			fio "$@" --rw=write --refill_buffers --end_fsync=1
		# fio checks its own headers: a verify-tagged write first, then time the check.
		fio "$@" --rw=write --verify=crc32c --do_verify=0 --end_fsync=1 >/dev/null
		measure "$name" verify "fio --verify=crc32c" $jobs $mode \
			fio "$@" --rw=write --verify=crc32c --verify_only
	done
}

truncate -s $SIZE "$tmp/file"
bench tmpfs "$tmp/file"
truncate -s $SIZE "$tmp/backing"
loop=$(losetup -f --show "$tmp/backing")
bench loop "$loop"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ncpu=$(nproc)
{
	echo "# Storage I/O: guac write and verify against dd and fio"
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench-storage.sh\` (\`make bench-storage\`)"
	echo "on **$cpu** ($ncpu CPUs), Linux $(uname -r), guac $("$GUAC" --version | cut -d' ' -f2),"
	echo "$(fio --version). Each run moves $SIZE_MB MiB; MB/s = 10^6 bytes per second of wall"
	echo "time (process start and the final fsync included); the page cache is dropped before"
	echo "each run, and the medium is allocated before the first. Median of $TRIALS runs, with the"
	echo "range of the runs' MB/s. dd has no jobs; 2 jobs means 2 threads (guac) or 2"
	echo "processes (fio), each on its own half."
	echo
	echo "- *tmpfs*: a file in /dev/shm. *loop*: a loop device over a tmpfs file, so the medium is"
	echo "  memory and the table compares the I/O paths and the tools, not a disk."
	echo "- *mode*: O_DIRECT where the file system takes it. tmpfs refused O_DIRECT before"
	echo "  Linux 6.6 (guac then refuses \`--direct\` with a message, and this script runs every"
	echo "  tool buffered there); this kernel's tmpfs accepts it when the mode column says direct."
	echo "- guac write generates the stream (work dd and fio do not do: dd writes zeros, fio"
	echo "  refills random buffers); guac verify regenerates and compares every byte, dd reads"
	echo "  and checks nothing, fio checks its crc32c headers."
	echo
	echo "| target | op | tool | jobs | mode | median s | MB/s | MB/s range |"
	echo "|---|---|---|---|---|---|---|---|"
	printf '%s' "$rows"
} >"$OUT"
echo "wrote $OUT" >&2
