# SPDX-License-Identifier: GPL-2.0
# guac probe (issue 37, item 5) on block devices that lie about their size,
# made with device-mapper over a 64 MiB brd RAM disk: a linear device whose
# upper half maps onto its lower half (addresses wrap at 32 MiB), one whose
# last part is an error target (writes past 40 MiB + 12 KiB fail), and the
# RAM disk itself (genuine: no false alarm). Each verdict is checked against
# the table, and the disk must hold what it held before every probe (the
# probe writes back what it overwrote, in reverse order: aliased writes
# too). Everything is removed at the end.

extra=/lib/modules/extra
dmname=guac-probe
mib=1048576

# probe_load: brd and dm-mod, from the initramfs's extra modules (busybox's
# insmod resolves no dependency); a module already present is left alone.
probe_load() {
	local m
	for m in brd dm-mod; do
		[ -d "/sys/module/$(echo "$m" | tr - _)" ] && continue
		insmod "$extra/$m.ko" $([ "$m" = brd ] && echo rd_nr=1 rd_size=65536) || return
	done
}

# probe_run NAME DEV: guac probe DEV, its output in /tmp/NAME.out and exit
# status in /tmp/NAME.rc; fails when the disk under it changed.
probe_run() {
	local rc=0
	guac probe "$2" >"/tmp/$1.out" 2>&1 || rc=$?
	echo "$rc" >"/tmp/$1.rc"
	cat "/tmp/$1.out"
	echo "exit status $rc; /dev/ram0 $(md5sum </dev/ram0 | cut -d' ' -f1), before $sum"
	[ "$(md5sum </dev/ram0 | cut -d' ' -f1)" = "$sum" ]
}

# dm_node: the device of $dmname (no udev here to make /dev/mapper/NAME:
# devtmpfs has /dev/dm-MINOR).
dm_node() {
	echo "/dev/dm-$(dmsetup info -c --noheadings -o minor "$dmname" | tr -d ' ')"
}

# verdict NAME STATUS TEXT...: probe_run NAME exited STATUS and printed every TEXT.
verdict() {
	local name=$1 t
	[ "$(cat "/tmp/$name.rc")" = "$2" ] || { echo "exit status $(cat "/tmp/$name.rc"), not $2"; return 1; }
	shift 2
	for t in "$@"; do
		grep -qF "$t" "/tmp/$name.out" || { echo "missing: $t"; return 1; }
	done
}

cleanup() {
	dmsetup remove "$dmname" 2>/dev/null
	grep -q '^brd ' /proc/modules && rmmod brd
	rm -f /tmp/probe-*.out /tmp/probe-*.rc
}

if grep -qx -e brd -e dm-mod -e dm_mod /lib/modules/extra.missing 2>/dev/null ||
   { [ ! -f "$extra/brd.ko" ] && [ ! -d /sys/module/brd ]; }; then
	skip "guac probe on device-mapper devices that lie about their size" \
		"no brd or dm-mod module for this kernel (none in its modules.map)"
else
	check "insmod brd (64 MiB RAM disk) and dm-mod" probe_load
	check "fill /dev/ram0 with the stream (what each probe must leave as it was)" sh -c '
		guac gen --origin 5 --length 64M | dd of=/dev/ram0 bs=1M oflag=direct status=none'
	sum=$(md5sum </dev/ram0 | cut -d' ' -f1)

	check "genuine: guac probe /dev/ram0 runs and leaves it as it was" probe_run probe-ram /dev/ram0
	check "genuine: GENUINE, exit 0" verdict probe-ram 0 "GENUINE: all "

	half=$((32 * mib / 512))
	check "dm-linear, 64 MiB whose upper half maps onto its lower half" \
		sh -c "printf '0 $half linear /dev/ram0 0\n$half $half linear /dev/ram0 0\n' |
			dmsetup create $dmname && dmsetup table $dmname"
	check "wrap: guac probe runs and the RAM disk holds what it held" \
		probe_run probe-wrap "$(dm_node)"
	check "wrap: FAKE CAPACITY, addresses wrap every 32 MiB, exit 1" \
		verdict probe-wrap 1 "addresses wrap every 33554432 bytes" \
		"usable: the first 33554432 bytes"
	dmsetup remove "$dmname"

	good=$(((40 * mib + 12288) / 512))
	check "dm: the first 40 MiB + 12 KiB linear, the rest an error target" \
		sh -c "printf '0 $good linear /dev/ram0 0\n$good $((2 * half - good)) error\n' |
			dmsetup create $dmname && dmsetup table $dmname"
	check "limit: guac probe runs and the RAM disk holds what it held" \
		probe_run probe-limit "$(dm_node)"
	check "limit: FAKE CAPACITY from byte 41955328 (to the block), the first held an I/O error, exit 1" \
		verdict probe-limit 1 "from byte 41955328 on, every probe block lost what was written (the first held an I/O error)" \
		"usable: the first 41955328 bytes"
	cleanup
fi
