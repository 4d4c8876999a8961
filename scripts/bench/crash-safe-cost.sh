#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# crash-safe-cost.sh [LENGTH] [OUT]: what guac write --crash-safe costs
# against a plain fill on the same target (issue 37, item 3): a loop device
# over an image in IMAGE_DIR (default /var/tmp), O_DIRECT, LENGTH bytes
# (default 512M), in ROUNDS rounds (default 5) of, in an order reversed from
# one round to the next:
#
#   plain   guac write --force --bs BS --length L DEV
#   journal guac write --force --bs BS --length L --crash-safe DEV
#           (the default window, 64 blocks, and interval, 1 s)
#   window4 the same with --crash-window 4 (a flush every 4 blocks a job)
#
# for BS 1M (a sequential fill) and 64K. Each figure is guac's own rate (its
# --json bytes_per_second: first write to the last fsync); the summary gives
# each mode's median and its median ratio to plain in the same round, on the
# CPU named. Needs root and losetup; the loop device and image are removed
# whatever happens. A benchmark, never a test: nothing is asserted.
set -euo pipefail

len=${1:-512M}
out=${2:-}
rounds=${ROUNDS:-5}
guac=${GUAC:-build/userspace/guac}
dir=$(mktemp -d "${IMAGE_DIR:-/var/tmp}/guac-crash-cost.XXXXXX")
loop=""
cleanup() {
	[ -z "$loop" ] || losetup -d "$loop"
	rm -rf "$dir"
}
trap cleanup EXIT


bytes=$(numfmt --from=iec "${len%B}")
truncate -s $((bytes + 1024 * 1024)) "$dir/image"
loop=$(losetup -f --show "$dir/image")
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1) model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)"

# rate MODE BS: one fill, its bytes a second.
rate() {
	local extra=()
	case $1 in
	journal) extra=(--crash-safe) ;;
	window4) extra=(--crash-safe --crash-window 4) ;;
	esac
	"$guac" write --force --json --progress none --origin 1 --bs "$2" --length "$bytes" "${extra[@]}" \
		"$loop" | sed -n 's/.*"bytes_per_second":\([0-9]*\).*/\1/p'
}

# A first fill, not counted: the image's blocks allocated before any round.
"$guac" write --force --progress none --length "$bytes" "$loop" >/dev/null

declare -A fig
modes=(plain journal window4)
for bs in 1M 64K; do
	for r in $(seq 1 "$rounds"); do
		order=("${modes[@]}")
		[ $((r % 2)) -eq 1 ] || order=(window4 journal plain)
		for m in "${order[@]}"; do
			v=$(rate "$m" "$bs")
			fig[$bs,$m,$r]=$v
			echo "bs $bs round $r $m: $((v / 1000000)) MB/s"
		done
	done
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
{
	echo "# guac write --crash-safe against a plain fill ($(date -u +%Y-%m-%d))"
	echo
	echo "CPU: $cpu, $(nproc) CPUs; a loop device over $(df --output=source "$dir" | tail -1)," \
		"O_DIRECT, $bytes bytes a fill, $rounds rounds (median; ratio to plain in the same round)."
	echo
	echo "| bs | mode | MB/s | ratio to plain |"
	echo "| --- | --- | --- | --- |"
	for bs in 1M 64K; do
		for m in "${modes[@]}"; do
			mb=$(for r in $(seq 1 "$rounds"); do echo "${fig[$bs,$m,$r]}"; done | median)
			ratio=$(for r in $(seq 1 "$rounds"); do
				awk -v a="${fig[$bs,$m,$r]}" -v b="${fig[$bs,plain,$r]}" 'BEGIN { print a / b }'
			done | median)
			printf '| %s | %s | %.0f | %.3f |\n' "$bs" "$m" "$(awk -v v="$mb" 'BEGIN { print v / 1e6 }')" "$ratio"
		done
	done
} | tee ${out:+"$out"}
