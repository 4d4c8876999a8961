#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The TAP producer: runs every tests/vm/scenarios/*.sh in name order, each in
# its own shell with lib.sh loaded, numbers their test points and prints the
# plan last. A scenario that exits non-zero adds a failing test point.
. /tests/lib.sh

tap_init
echo "# guacrng VM suite on $(uname -r), $(nproc) CPUs, at $(cut -d' ' -f1 /proc/uptime) s uptime"
start=$(cut -d' ' -f1 /proc/uptime)
for scenario in /tests/scenarios/*.sh; do
	name=${scenario##*/}
	name=${name%.sh}
	echo "# scenario $name"
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh -c '. /tests/lib.sh && . "$1"' "$name" "$scenario"
	status=$?
	echo "# scenario $name took $(echo "$t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{ printf "%.1f", $2 - $1 }') s"
	[ "$status" = 0 ] || tap_result 1 "scenario $name ran to its end (exit status $status)"
done
end=$(cut -d' ' -f1 /proc/uptime)
echo "1..$(tap_count)"
echo "# suite time $(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }') s, boot to suite start $start s"
if [ "$(tap_failed)" != 0 ]; then
	echo "# $(tap_failed) failed; the end of the kernel log:"
	dmesg | tail -n 60 | tap_comment
fi
