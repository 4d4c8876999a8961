# SPDX-License-Identifier: GPL-2.0
# Issue 36, U8, on a real 512e disk: scsi_debug with 512-byte logical and
# 4096-byte physical sectors (physblk_exp=3). guac verify classifies in the
# physical sector by default, so a 4 KiB write torn after 1 KiB is one TORN
# sector, where 512-byte classes would make it six STALE_ORIGIN ones; its
# report says which sector size it used and why; --sector 512 overrides it.
# (The userspace suite proves the same with a BLKPBSZGET shim on a loop
# device, which this kernel's loop driver never makes 512e.)

extra=/lib/modules/extra

# ps_load NAME [PARAM=VALUE...]: insmod NAME after the modules it depends on.
ps_load() {
	local name=$1 dep
	shift
	[ -d "/sys/module/$(echo "$name" | tr - _)" ] && return 0
	for dep in $(strings "$extra/$name.ko" | sed -n 's/^depends=//p' | tr , ' '); do
		ps_load "$dep" || return
	done
	insmod "$extra/$name.ko" "$@"
}

ps_setup() {
	ps_load sd_mod && ps_load scsi_debug dev_size_mb=4 sector_size=512 physblk_exp=3 delay=0
}

# ps_disk: the scsi_debug disk, once sd has attached it.
ps_disk() {
	local i dev
	for i in $(seq 100); do
		for dev in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -b "/dev/${dev##*/}" ] && [ "$(cat "$dev/size")" != 0 ] &&
				{ echo "/dev/${dev##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# ps_verify NAME ARGS...: guac verify ARGS, output in /tmp/NAME.txt; exit 1 wanted.
ps_verify() {
	local name=$1 rc=0
	shift
	guac verify "$@" >"/tmp/$name.txt" 2>&1 || rc=$?
	cat "/tmp/$name.txt"
	echo "exit status $rc, 1 wanted"
	[ "$rc" = 1 ]
}

if grep -qx -e scsi_debug -e sd_mod /lib/modules/extra.missing 2>/dev/null; then
	skip "guac verify on a 512e scsi_debug disk: physical sectors by default" \
		"no scsi_debug or sd_mod module for this kernel (none in its modules.map)"
else
	grep -q '^scsi_debug ' /proc/modules && rmmod scsi_debug
	check "insmod scsi_debug: 4 MiB, 512-byte logical and 4096-byte physical sectors" \
		ps_setup
	disk=$(ps_disk)
	q=/sys/block/${disk#/dev/}/queue
	check "the disk ($disk) is 512e: logical 512, physical 4096" sh -c "
		cat $q/logical_block_size $q/physical_block_size &&
		[ \"\$(cat $q/logical_block_size)\" = 512 ] && [ \"\$(cat $q/physical_block_size)\" = 4096 ]"
	# Two fills, then a 4 KiB write at byte 409600 (physical sector 100) torn
	# after 1 KiB: its last 3 KiB still hold the first fill's data (origin 77).
	check "two fills (origins 77, then 1000), then a 4 KiB write torn after 1 KiB" sh -c "
		guac write --force --origin 77 -m /tmp/ps.json $disk >/dev/null &&
		guac write --force --origin 1000 -m /tmp/ps.json $disk >/dev/null &&
		guac gen --origin 77 --offset $((409600 + 1024)) --length 3072 |
			dd of=$disk bs=1024 seek=$((409600 / 1024 + 1)) oflag=direct conv=notrunc status=none"
	check "verify: one bad 4096-byte sector, TORN, exit 1" ps_verify ps-default -m /tmp/ps.json
	check "... classes: 1 TORN, and the sector size said to be the physical one" sh -c "
		grep -qx 'classes: 1 TORN' /tmp/ps-default.txt &&
		grep -q '4096-byte sectors (the device.s physical sector; logical 512)\$' /tmp/ps-default.txt"
	check "verify --sector 512: six STALE_ORIGIN 512-byte sectors of origin 77, exit 1" \
		ps_verify ps-512 --sector 512 -m /tmp/ps.json
	check "... and the report says --sector chose it" sh -c "
		grep -qx 'classes: 6 STALE_ORIGIN (origin 77)' /tmp/ps-512.txt &&
		grep -q ', 512-byte sectors (--sector)\$' /tmp/ps-512.txt"
	rm -f /tmp/ps.json /tmp/ps-*.txt
	check "rmmod scsi_debug" rmmod scsi_debug
fi
