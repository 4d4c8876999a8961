# SPDX-License-Identifier: GPL-2.0
# guac write and guac verify on real block devices whose faults the kernel's
# own injectors make: scsi_debug's medium errors (reads of chosen LBAs fail
# while writes succeed), dm-flakey's lost writes (drop_writes) and its
# corrupted writes and reads (corrupt_bio_byte). verify must name the exact
# LBAs: unreadable ones apart from mismatching ones, going on past read errors,
# a lost write as stale data of the earlier pass, a corrupted byte at its
# byte offset. Devices of 4 MiB in RAM; everything is removed at the end.

. /tests/storage.sh
dmname=guac-faults

# sdebug_load PARAM=VALUE...: a fresh scsi_debug with these parameters (an
# earlier one left by a failed check would keep its own).
sdebug_load() {
	! grep -q '^scsi_debug ' /proc/modules || rmmod scsi_debug || return
	mod_load sd_mod && mod_load scsi_debug "$@"
}

# The scsi_debug disk, once sd has attached it (sd probes asynchronously).
sdebug_disk() {
	local i dev
	for i in $(seq 100); do
		for dev in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -b "/dev/${dev##*/}" ] && [ "$(cat "$dev/size")" != 0 ] &&
				{ echo "/dev/${dev##*/}"; return 0; }
		done
		sleep 0.2
	done
	echo "no scsi_debug disk after 20 s" >&2
	return 1
}

# dm_table ROWS: load ROWS (printf format lines) into $dmname and resume it.
dm_table() {
	printf "$1" | dmsetup load "$dmname" && dmsetup resume "$dmname" && dmsetup table "$dmname"
}

dm_create() {
	printf "$linear" | dmsetup create "$dmname" && dmsetup table "$dmname"
}

# Whatever failed above: leave no device or module behind for the next scenarios.
cleanup() {
	dmsetup remove "$dmname" 2>/dev/null
	for m in dm_flakey scsi_debug brd; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	rm -f /tmp/sector /tmp/dd.err /tmp/sd.* /tmp/sd-*.* /tmp/dm.* /tmp/dm-*.*
}

# disk_is DEV BYTES SECTOR: DEV has BYTES bytes in SECTOR-byte logical sectors.
disk_is() {
	echo "$1: $(blockdev --getsize64 "$1") bytes, $(blockdev --getss "$1")-byte sectors"
	[ "$(blockdev --getsize64 "$1")" = "$2" ] && [ "$(blockdev --getss "$1")" = "$3" ]
}

# reads DEV SECTOR LBA...: a direct read of each LBA; "+LBA" must succeed,
# "-LBA" must fail.
reads() {
	local dev=$1 ss=$2 lba ok=0
	shift 2
	for lba in "$@"; do
		if dd if="$dev" of=/dev/null bs="$ss" skip="${lba#?}" count=1 iflag=direct status=none 2>/tmp/dd.err; then
			echo "LBA ${lba#?}: read"
			[ "${lba%"${lba#?}"}" = + ] || ok=1
		else
			echo "LBA ${lba#?}: $(cat /tmp/dd.err)"
			[ "${lba%"${lba#?}"}" = - ] || ok=1
		fi
	done
	return $ok
}

# plant DEV SECTOR BYTE VALUE LBA COUNT: byte BYTE of DEV becomes VALUE and
# COUNT sectors from LBA zeros, behind the page cache as on the medium.
plant() {
	poke "$1" "$2" "$3" "$4" &&
		dd if=/dev/zero of="$1" bs="$2" seek="$5" count="$6" oflag=direct conv=notrunc status=none
}

# ---- scsi_debug: medium errors at LBAs 300-304 of a disk of 4096-byte sectors.
# scsi_debug fails every READ that touches them (MEDIUM ERROR, unrecovered
# read error, ENODATA to a direct read) and stores WRITEs there as anywhere else,
# like a disk with pending sectors. Past them, the scenario plants a flipped
# byte in LBA 700 and zeros over LBAs 900-901, which verify must still find.
ss=4096
flip=$((700 * ss + 1234))
if why=$(missing sd_mod scsi_debug); then
	skip "scsi_debug medium errors: verify lists the unreadable LBAs and goes on" \
		"no $why module for this kernel (none in its modules.map)"
else
	check "insmod scsi_debug: 4 MiB of $ss-byte sectors, medium errors at LBAs 300-304" \
		sdebug_load dev_size_mb=4 sector_size=$ss opts=2 \
		medium_error_start=300 medium_error_count=5 delay=0
	disk=$(sdebug_disk)
	check "the scsi_debug disk ($disk) has 4194304 bytes in $ss-byte sectors" disk_is "$disk" 4194304 $ss
	check "guac write --direct --origin 0 --manifest fills it: the writes to LBAs 300-304 succeed" \
		guac write --direct --origin 0 --manifest /tmp/sd.manifest "$disk"
	# The injector itself, so that what verify reports is not taken on trust.
	check "direct reads: LBAs 300 and 304 fail, LBAs 299 and 305 read" \
		reads "$disk" $ss -300 -304 +299 +305
	want=$(stream_byte 0 $flip)
	check "plant with O_DIRECT: byte $flip (LBA 700) $want -> $((want ^ 255)), zeros over LBAs 900-901" \
		plant "$disk" $ss $flip $((want ^ 255)) 900 2
	check "guac verify --direct --manifest $disk: a report" \
		verify_run sd --direct --manifest /tmp/sd.manifest "$disk"
	check "verify exits 3 (unreadable sectors: the disk's I/O, not a usage error)" exit_status sd 3
	check "verify lists LBAs 300-304 unreadable and LBAs 700 and 900-901 mismatching, nothing else" \
		bad_list sd \
		"unreadable $((300 * ss)) $((305 * ss - 1)) 300 304 -" \
		"mismatch $((700 * ss)) $((701 * ss - 1)) 700 700 TORN" \
		"mismatch $((900 * ss)) $((902 * ss - 1)) 900 901 ALL_ZERO"
	check "verify's first mismatch is byte $flip: expected $want, read $((want ^ 255))" \
		first_mismatch sd $flip "$want" $((want ^ 255))
	check "verify counts 5 unreadable and 3 mismatching sectors" \
		counts sd unreadable_sectors=5 bad_sectors=3
	check "verify diagnoses LBAs 900-901 as zeros" diagnosis sd "900-901 ALL_ZERO"
	check "rmmod scsi_debug" rmmod scsi_debug
fi

# ---- dm-flakey over a scsi_debug disk of 512-byte sectors, no medium errors.
# A linear table maps it whole; the fault goes into a window of its own target
# between two linear ones, so that dm splits every bio at the window's edges
# and the fault lands at sectors (and bytes) the scenario chose, whatever
# sizes the writer's bios have.
ss=512
drop=2048	# lost writes: sectors 2048-2111 (32 KiB at 1 MiB)
wbad=4096	# corrupted write: byte 100 of sector 4096 (2 MiB)
rbad=6144	# corrupted read: byte 200 of sector 6144 (3 MiB)
# The disk under dm: scsi_debug's or, in a kernel without scsi_debug
# (Debian's arm64), a brd RAM disk of the same size and sectors.
under=scsi_debug
if missing sd_mod scsi_debug >/dev/null && ! missing brd >/dev/null; then
	under=brd
fi
if [ "$under" = brd ]; then
	why=$(missing brd dm-mod dm-flakey)
else
	why=$(missing sd_mod scsi_debug dm-mod dm-flakey)
fi
if [ -n "$why" ]; then
	skip "dm-flakey lost and corrupted writes: verify names them" \
		"no $why module for this kernel (none in its modules.map)"
else
	if [ "$under" = brd ]; then
		check "insmod brd (no scsi_debug in this kernel): a 4 MiB RAM disk of $ss-byte sectors" \
			mod_load brd rd_nr=1 rd_size=4096
		disk=/dev/ram0
	else
		check "insmod scsi_debug: 4 MiB of $ss-byte sectors, no errors" \
			sdebug_load dev_size_mb=4 delay=0
		disk=$(sdebug_disk)
	fi
	check "insmod dm-flakey" mod_load dm-flakey
	# The checks below name $ss-byte LBAs: verify is told so, since it
	# classifies in the physical sector by default (issue 36, U8), and a brd
	# RAM disk's (and dm's over it) is the page size, 4096.
	size=$(blockdev --getsz "$disk")
	linear="0 $size linear $disk 0\n"
	# window START LEN FLAKEY_ARGS: the table with sectors START..START+LEN-1 flakey.
	window() {
		echo "0 $1 linear $disk 0\n$1 $2 flakey $disk $1 $3\n$(($1 + $2)) $((size - $1 - $2)) linear $disk $(($1 + $2))\n"
	}
	check "dmsetup create $dmname: linear over $disk" dm_create
	# No udev here to make /dev/mapper/NAME: devtmpfs has /dev/dm-MINOR.
	dm=/dev/dm-$(dmsetup info -c --noheadings -o minor "$dmname")
	check "$dm has 4194304 bytes in $ss-byte sectors" disk_is "$dm" 4194304 $ss

	# Lost writes: pass 1 from origin 1000 everywhere, pass 2 from origin
	# 2000 with writes to the window dropped (and reported done): the window
	# keeps pass 1's data, which the manifest's history lets verify name.
	check "pass 1: guac write --direct --origin 1000 --manifest" \
		guac write --direct --origin 1000 --manifest /tmp/dm.manifest "$dm"
	check "table: sectors $drop-$((drop + 63)) drop writes" \
		dm_table "$(window $drop 64 "0 1 1 drop_writes")"
	check "pass 2: guac write --direct --origin 2000 --manifest succeeds (the loss is silent)" \
		guac write --direct --origin 2000 --force --manifest /tmp/dm.manifest "$dm"
	check "table: linear again" dm_table "$linear"
	check "guac verify --direct --manifest $dm: a report" \
		verify_run dm-drop --direct --sector $ss --manifest /tmp/dm.manifest "$dm"
	check "verify exits 1 (mismatch)" exit_status dm-drop 1
	check "verify lists sectors $drop-$((drop + 63)) mismatching, nothing else" bad_list dm-drop \
		"mismatch $((drop * ss)) $(((drop + 64) * ss - 1)) $drop $((drop + 63)) STALE_ORIGIN"
	check "verify diagnoses them as stale data of origin 1000 (pass 1)" \
		diagnosis dm-drop "$drop-$((drop + 63)) STALE_ORIGIN origin 1000"

	# A corrupted write: byte 100 of the window's first bio, that is byte
	# wbad * 512 + 99 of the device, gets the complement of the stream's byte
	# there (a fixed value could happen to be the right one).
	wbyte=$((wbad * ss + 99))
	want=$(stream_byte 3000 $wbyte)
	check "table: writes to sector $wbad get byte 100 set to $((want ^ 255))" \
		dm_table "$(window $wbad 8 "0 1 5 corrupt_bio_byte 100 w $((want ^ 255)) 0")"
	check "pass 3: guac write --direct --origin 3000 --manifest" \
		guac write --direct --origin 3000 --force --manifest /tmp/dm.manifest "$dm"
	check "table: linear again" dm_table "$linear"
	check "guac verify --direct --manifest $dm: a report" \
		verify_run dm-wr --direct --sector $ss --manifest /tmp/dm.manifest "$dm"
	check "verify exits 1 (mismatch)" exit_status dm-wr 1
	check "verify lists sector $wbad mismatching, nothing else" bad_list dm-wr \
		"mismatch $((wbad * ss)) $(((wbad + 1) * ss - 1)) $wbad $wbad TORN"
	check "verify's first mismatch is byte $wbyte: expected $want, read $((want ^ 255)); 1 byte differs" \
		one_byte dm-wr $wbyte "$want" $((want ^ 255))

	# A corrupted read: the medium is right, what reads of the window
	# return is not. verify through dm finds both bytes; on the disk itself,
	# only the write's. dm-flakey corrupts reads since "dm-flakey: make
	# corrupting read bios work" (6.16, in 6.12.33): before, its end_io saw
	# the bio's iterator already consumed and changed nothing.
	rbyte=$((rbad * ss + 199))
	want=$(stream_byte 3000 $rbyte)
	rchecks="table: reads of sector $rbad get byte 200 set to $((want ^ 255))
guac verify --direct --manifest $dm: a report
verify lists sectors $wbad and $rbad mismatching, nothing else
verify counts 2 bytes that differ
guac verify --direct --origin 3000 $disk, under dm: a report
its bad list is sector $wbad only: the medium holds the right byte $rbyte"
	if kernel_before 6.12; then
		echo "$rchecks" | while read -r desc; do
			skip "$desc" "dm-flakey corrupts no read bio before 6.12.33 / 6.16"
		done
	else
		check "$(echo "$rchecks" | sed -n 1p)" \
			dm_table "$(window $rbad 8 "0 1 5 corrupt_bio_byte 200 r $((want ^ 255)) 0")"
		check "$(echo "$rchecks" | sed -n 2p)" \
			verify_run dm-rd --direct --sector $ss --manifest /tmp/dm.manifest "$dm"
		check "$(echo "$rchecks" | sed -n 3p)" bad_list dm-rd \
			"mismatch $((wbad * ss)) $(((wbad + 1) * ss - 1)) $wbad $wbad TORN" \
			"mismatch $((rbad * ss)) $(((rbad + 1) * ss - 1)) $rbad $rbad TORN"
		check "$(echo "$rchecks" | sed -n 4p)" counts dm-rd bad_bytes=2
		check "$(echo "$rchecks" | sed -n 5p)" verify_run sd-rd --direct --sector $ss --origin 3000 "$disk"
		check "$(echo "$rchecks" | sed -n 6p)" bad_list sd-rd \
			"mismatch $((wbad * ss)) $(((wbad + 1) * ss - 1)) $wbad $wbad TORN"
	fi

	check "dmsetup remove $dmname" dmsetup remove "$dmname"
	check "rmmod dm-flakey $under" rmmod dm_flakey $under
fi
cleanup
check "no dm device and no scsi_debug left" sh -c '
	! ls /sys/block | grep -E "^dm-" && ! grep -E "^(scsi_debug|dm_flakey|brd) " /proc/modules'
