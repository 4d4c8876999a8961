# SPDX-License-Identifier: GPL-2.0
# A fill as a crash at any moment would leave it (issue 37, item 4): guac
# write --sync --direct fills a brd RAM disk through dm-log-writes, which
# records every write (FUA: O_DSYNC) and flush in completion order on a second
# RAM disk; guac-vmtest log-replay then rebuilds the disk as it stood after
# each entry of the log, on a third. After the first K entries the disk must
# hold exactly the stream up to the end of the writes among them, and guac
# verify of that prefix must say OK, for every K.
# Then the faults a crash check must name, at the right sectors: a write the
# disk lost in the middle (--drop: its sectors stay the earlier fill's data,
# STALE_ORIGIN), and one torn by power loss inside a 4096-byte physical
# sector (--tear: TORN, head right, the rest the earlier fill's).

. /tests/storage.sh
dmname=guac-crash
bs=65536
len=$((2 * 1024 * 1024))	# 32 writes of 64 KiB
old=5		# the earlier fill under the logged one: what a lost write leaves
new=77

cleanup() {
	dmsetup remove "$dmname" 2>/dev/null
	for m in dm_log_writes brd; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	rm -f /tmp/cr.* /tmp/cr-*.*
}

# replay_to K [OPTIONS]: /dev/ram2 as /dev/ram0 stood after the first K logged
# writes, from the earlier fill's image; prints log-replay's summary line.
replay_to() {
	local k=$1
	shift
	dd if=/tmp/cr.base of=/dev/ram2 bs=1M oflag=direct status=none &&
		guac-vmtest log-replay /dev/ram1 /dev/ram2 --limit "$k" "$@" >/tmp/cr.replay &&
		cat /tmp/cr.replay
}

# writes_in K: the data writes among the log's first K entries (/tmp/cr.list).
writes_in() {
	head -n "$1" /tmp/cr.list | grep -c ", $((bs / 512)) sectors, "
}

# entry_of W: the log entry of write W (the one at byte W * bs).
entry_of() {
	sed -n "s/^entry \([0-9]*\): sector $((W_SECTORS * $1)), .*/\1/p" /tmp/cr.list
}
W_SECTORS=$((bs / 512))

# prefix_ok K: after K entries, bytes up to the end of their writes are the
# new fill's and guac verify says OK over them; the rest is still the
# earlier fill's.
prefix_ok() {
	local end want=$(($(writes_in "$1") * bs))
	replay_to "$1" || return
	end=$(sed -n 's/.* to byte \([0-9]*\)$/\1/p' /tmp/cr.replay)
	echo "entries 0-$(($1 - 1)) end at byte $end, expected $want"
	[ "$end" = "$want" ] || return
	if [ "$end" -gt 0 ]; then
		guac verify --direct --origin $new --length "$end" /dev/ram2 || return
	fi
	cmp -s -n $((len - end)) /tmp/cr.base /dev/ram2 "$end" "$end"
}

# every_prefix: prefix_ok for K = 0 .. the entries of the log; the failures named.
every_prefix() {
	local k=0 n bad=""
	n=$(wc -l </tmp/cr.list)
	while [ $k -le "$n" ]; do
		prefix_ok $k >/tmp/cr.prefix 2>&1 || { bad="$bad $k"; cat /tmp/cr.prefix; }
		k=$((k + 1))
	done
	echo "$((n + 1)) prefixes; those that failed:${bad:- none}"
	[ -z "$bad" ]
}

if why=$(missing brd dm-mod dm-log-writes); then
	skip "dm-log-writes crash replay: every prefix of a fill verifies, a lost and a torn write are named" \
		"no $why module for this kernel (none in its modules.map)"
	return 0 2>/dev/null || exit 0
fi
! grep -q '^brd ' /proc/modules || rmmod brd
check "insmod brd: three 8 MiB RAM disks (data, log, replay)" mod_load brd rd_nr=3 rd_size=8192
check "insmod dm-log-writes" mod_load dm-log-writes
# The earlier fill, everywhere the replay starts from: what a lost write leaves.
check "guac write --origin $old --length $len /dev/ram0 (the earlier fill), kept as the replay's start" \
	sh -c "guac write --direct --origin $old --length $len /dev/ram0 >/dev/null &&
	       dd if=/dev/ram0 of=/tmp/cr.base bs=1M count=$((len / 1048576)) iflag=direct status=none"
size=$(blockdev --getsz /dev/ram0)
check "dmsetup create $dmname: log-writes of /dev/ram0 onto /dev/ram1" \
	sh -c "echo '0 $size log-writes /dev/ram0 /dev/ram1' | dmsetup create $dmname"
dm=/dev/dm-$(dmsetup info -c --noheadings -o minor "$dmname" | tr -d ' ')
check "guac write --sync --direct --jobs 1 --bs $bs --origin $new --length $len $dm" \
	guac write --sync --direct --jobs 1 --bs $bs --origin $new --length $len "$dm"
check "dmsetup message $dmname 0 mark filled; dmsetup remove (the log is complete)" \
	sh -c "dmsetup message $dmname 0 mark filled && dmsetup remove $dmname"
check "the log: $((len / bs)) writes of $((bs / 512)) sectors in address order, flushes, the marks" \
	sh -c "guac-vmtest log-replay /dev/ram1 /dev/ram2 --list >/tmp/cr.list; cat /tmp/cr.list;
	       grep ', $((bs / 512)) sectors, ' /tmp/cr.list >/tmp/cr.writes;
	       [ \$(wc -l </tmp/cr.writes) = $((len / bs)) ] &&
	       awk -F'[ ,]+' '{ if (\$4 != n * $((bs / 512))) exit 1; n++ }' /tmp/cr.writes &&
	       ! grep -v -e ', $((bs / 512)) sectors, ' -e ', 0 sectors, FLUSH\$' -e ', MARK, mark ' /tmp/cr.list &&
	       grep -q 'mark filled\$' /tmp/cr.list"
check "after each entry of the log, the disk holds the fill up to its writes and guac verify says OK" \
	every_prefix

# Write 9 lost (the log replayed without it, its flush kept): its 16 sectors
# of 4096 bytes still hold the earlier fill, the writes after it the new one.
lost=9
check "replay of every write but write $lost (entry $(entry_of $lost))" \
	replay_to 999 --drop "$(entry_of $lost)"
check "guac verify --origins $old: MISMATCH, exactly the lost write's bytes" \
	verify_run cr-lost --direct --sector 4096 --origin $new --length $len --origins $old /dev/ram2
check "verify exits 1" exit_status cr-lost 1
check "its bad list: bytes $((lost * bs))-$(((lost + 1) * bs - 1)), LBAs $((lost * 16))-$((lost * 16 + 15)), STALE_ORIGIN" \
	bad_list cr-lost "mismatch $((lost * bs)) $(((lost + 1) * bs - 1)) $((lost * 16)) $((lost * 16 + 15)) STALE_ORIGIN"
check "the diagnosis names the earlier fill's origin $old" \
	diagnosis cr-lost "$((lost * 16))-$((lost * 16 + 15)) STALE_ORIGIN origin $old"

# Write 20 torn after its first 1000 bytes: LBA 320 is TORN (1000 bytes
# right, the rest the earlier fill's), LBAs 321-335 never written.
torn=20
check "replay of every write, write $torn (entry $(entry_of $torn)) torn after 1000 bytes" \
	replay_to 999 --tear "$(entry_of $torn):1000"
check "guac verify: MISMATCH over the torn write's 16 sectors" \
	verify_run cr-torn --direct --sector 4096 --origin $new --length $len --origins $old /dev/ram2
check "its bad list: LBA $((torn * 16)) TORN, LBAs $((torn * 16 + 1))-$((torn * 16 + 15)) STALE_ORIGIN" \
	bad_list cr-torn \
	"mismatch $((torn * bs)) $((torn * bs + 4095)) $((torn * 16)) $((torn * 16)) TORN" \
	"mismatch $((torn * bs + 4096)) $(((torn + 1) * bs - 1)) $((torn * 16 + 1)) $((torn * 16 + 15)) STALE_ORIGIN"
cleanup
check "no dm device and no brd left" sh -c '
	! ls /sys/block | grep -E "^dm-" && ! grep -E "^(dm_log_writes|brd) " /proc/modules'
