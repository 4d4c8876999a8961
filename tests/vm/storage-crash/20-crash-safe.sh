# SPDX-License-Identifier: GPL-2.0
# guac write --crash-safe and guac verify --after-crash on a real kernel's
# block layer (issue 37, item 4; docs/crash-safety.md). The fill's journal
# (two 8 KiB slots) says, after a crash at any moment, what each block must
# and may hold; the kernel's own fault tools make the crashes:
# - dm-log-writes records a crash-safe fill of a brd RAM disk, the journal in
#   the disk's last 16 KiB, with its flushes; guac-vmtest log-replay rebuilds
#   the disk as it stood after each entry of the log, from the earlier fill
#   (origin 5) it started on. After every entry with a whole journal record
#   among those before it, verify --after-crash must say OK; before the first one, "no valid journal
#   record" (exit 2) and the earlier fill untouched. The same, where a record
#   follows the last flush, with every data write after that flush lost (a
#   volatile cache that kept the record and not the writes). Twice: one
#   sequential job, then 2 random passes by 4 jobs 8 writes deep (io_uring:
#   writes complete during the flushes, which the lost-cache states test).
# - The same log replayed without one flushed write (--drop): LOST over
#   exactly its bytes; with one torn 1000 bytes into a 4096-byte sector
#   (--tear): TORN there, LOST over the rest of the write. A journal record
#   torn: OK, from the other slot's older record.
# - dm-flakey: a fill through it, its journal on another RAM disk, the table
#   switched to drop_writes while the fill runs, then kill -9: LOST over
#   exactly the blocks the journal counts as flushed that lack the new data,
#   found independently (guac gen and cmp, block by block; the journal's
#   fields read with od at journal.c's offsets).

. /tests/storage.sh
dmname=guac-cs
bs=65536
unit=4096	# the atomic unit verify classifies in (a brd page)
len=$((2 * 1024 * 1024))	# 32 writes of 64 KiB
flen=$((4 * 1024 * 1024))	# the dm-flakey fill: 16 s at --rate 256k
old=5		# the earlier fill, all over the disk: what a lost write leaves
new=77
T=/tmp/cs
crash_safe="--crash-safe --crash-window 4 --flush-interval 0.05 --bs $bs --origin $new"

cleanup() {
	dmsetup resume "$dmname" 2>/dev/null
	[ -n "$wpid" ] && kill -9 "$wpid" 2>/dev/null && wait "$wpid"
	dmsetup remove "$dmname" 2>/dev/null
	for m in dm_flakey dm_log_writes brd; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	rm -f $T.*
}

# after_crash NAME ARGS...: guac verify --after-crash --prior-origin $old
# --sector $unit ARGS, its output in $T.NAME, its exit status in $T.NAME.rc,
# its violation lines' first six fields (bytes, LBAs, class) in $T.NAME.v.
after_crash() {
	local name=$1 rc=0
	shift
	guac verify --after-crash --prior-origin $old --sector $unit "$@" >$T.$name 2>&1 || rc=$?
	echo $rc >$T.$name.rc
	awk '$1 == "violation" { print $1, $2, $3, $4, $5, $6 }' $T.$name >$T.$name.v
}

# verdict_file NAME RC FILE: after_crash NAME exited RC with exactly FILE's
# violation lines; verdict NAME RC [LINE...]: with the LINEs (none: none).
verdict_file() {
	[ "$3" = $T.$1.want ] || cp "$3" $T.$1.want
	echo "exit status $(cat $T.$1.rc), expected $2; violations expected:"
	cat $T.$1.want
	echo "guac verify --after-crash said:"
	cat $T.$1
	[ "$(cat $T.$1.rc)" = "$2" ] && cmp -s $T.$1.v $T.$1.want
}

verdict() {
	local name=$1 rc=$2
	shift 2
	: >$T.$name.want
	[ $# = 0 ] || printf '%s\n' "$@" >$T.$name.want
	verdict_file $name $rc $T.$name.want
}

# replay_to K [OPTIONS]: /dev/ram2 as /dev/ram0 stood after the log's first K
# entries, from the earlier fill's image of the whole disk.
replay_to() {
	local k=$1
	shift
	dd if=$T.base of=/dev/ram2 bs=1M oflag=direct status=none &&
		guac-vmtest log-replay /dev/ram1 /dev/ram2 --limit "$k" "$@"
}

# replay_ok K: the first K entries, nothing dropped or torn: OK.
replay_ok() {
	replay_to "$1" && after_crash clean /dev/ram2 && verdict clean 0
}

# log_fill OPTIONS...: the crash-safe fill of /dev/ram0 through dm-log-writes,
# from the earlier fill; the log listed in $T.list, its entries sorted in
# $T.kinds as "K KIND SECTOR SECTORS", KIND: data (a write before the
# journal), journal (one into its 16 KiB), flush, mark or other.
log_fill() {
	local dm
	dd if=$T.base of=/dev/ram0 bs=1M oflag=direct status=none &&
		echo "0 $size log-writes /dev/ram0 /dev/ram1" | dmsetup create $dmname || return
	dm=/dev/dm-$(dmsetup info -c --noheadings -o minor $dmname | tr -d ' ')
	echo "guac write $crash_safe $* $dm"
	guac write $crash_safe "$@" "$dm" &&
		dmsetup message $dmname 0 mark filled && dmsetup remove $dmname &&
		guac-vmtest log-replay /dev/ram1 /dev/ram2 --list >$T.list || return
	awk -v jat=$((jat / 512)) -F'[ :,]+' '
		/ MARK/ { print $2, "mark", $4, $5; next }
		$5 > 0 && $4 >= jat { print $2, "journal", $4, $5; next }
		$5 > 0 { print $2, "data", $4, $5; next }
		/ FLUSH$/ { print $2, "flush", $4, $5; next }
		{ print $2, "other", $4, $5 }' $T.list >$T.kinds
}

# log_shape WRITES: the log holds WRITES data writes of one block each, then
# the journal's records, each a run of writes that covers one 8 KiB slot
# (page cache writeback writes it a 4 KiB page at a time), the first record
# before any data write, flushes, and nothing else. $T.records: the entry
# that completes each record.
log_shape() {
	awk -v writes="$1" -v sectors=$((bs / 512)) -v jat=$((jat / 512)) '
		function record_end() {
			if (run && (run != 16 || slot < 0)) bad = bad " " last
			else if (run) print last >records
			run = 0 }
		$2 != "journal" { record_end() }
		$2 == "data" { d++; if ($4 != sectors) bad = bad " " $1 }
		$2 == "journal" {
			j++; if (!d) first = 1
			s = int(($3 - jat) / 16)
			if (!run) slot = s; else if (s != slot) slot = -1
			if ($3 + $4 > jat + 32) slot = -1
			run += $4; last = $1 }
		$2 == "flush" { f++ }
		$2 == "mark" { m++ }
		$2 == "other" { bad = bad " " $1 }
		END { record_end()
			close(records); while ((getline r < records) > 0) n++
			printf "%d data writes, %d journal writes in %d records, %d flushes, %d marks; odd entries:%s\n",
				d, j, n, f, m, bad ? bad : " none"
			exit !(d == writes && first && n >= 3 && f >= 2 && !bad) }' records=$T.records $T.kinds
	cat $T.list
}

# prefix_ok K: after the log's first K entries, verify --after-crash says OK
# if a whole journal record is among them; if none is, it finds no record
# (exit 2) and the disk before the journal is the earlier fill's.
prefix_ok() {
	replay_to "$1" >/dev/null || return
	after_crash prefix /dev/ram2
	if [ "$1" -gt "$first_record" ]; then
		verdict prefix 0 && grep -q '^after-crash: OK' $T.prefix
	else
		verdict prefix 2 && grep -q 'no valid journal record' $T.prefix &&
			cmp -n $jat $T.base /dev/ram2
	fi
}

# cache_lost K: the --drop options that leave out, of the log's first K
# entries, every data write after the last flush among them, when a journal
# write follows that flush too: the disk's volatile cache lost the writes it
# had not flushed, and kept the record (nothing, when that state is a prefix).
cache_lost() {
	head -n "$1" $T.kinds | awk '
		$2 == "flush" { drops = ""; journal = 0 }
		$2 == "data" { drops = drops " --drop " $1 }
		$2 == "journal" { journal = 1 }
		END { if (journal && drops != "") print drops }'
}

# lost_ok K: the first K entries without the writes cache_lost names: OK.
lost_ok() {
	replay_to "$1" $(cache_lost "$1") || return
	after_crash lost /dev/ram2
	verdict lost 0 && grep -q '^after-crash: OK' $T.lost
}

# every_prefix: prefix_ok for K = 0 .. the entries of the log, and lost_ok
# where cache_lost leaves writes out; the failures named.
every_prefix() {
	local k=0 n bad="" without=0 lost=0
	n=$(wc -l <$T.kinds)
	first_record=$(head -n 1 $T.records)
	while [ $k -le "$n" ]; do
		[ "$k" -gt "$first_record" ] || without=$((without + 1))
		prefix_ok $k >$T.prefix.out 2>&1 || { bad="$bad $k"; echo "K=$k:"; cat $T.prefix.out; }
		if [ "$k" -gt "$first_record" ] && [ -n "$(cache_lost $k)" ]; then
			lost=$((lost + 1))
			lost_ok $k >$T.lost.out 2>&1 ||
				{ bad="$bad $k-lost"; echo "K=$k,$(cache_lost $k):"; cat $T.lost.out; }
		fi
		k=$((k + 1))
	done
	echo "$((n + 1)) prefixes checked ($without before the first journal record," \
		"entry $first_record), and $lost with the writes after their last flush lost;" \
		"those that failed:${bad:- none}"
	[ -z "$bad" ]
}

# flushed_write M: "D K B": D the last data write before the flush before the
# log's Mth journal record, K the entries up to the end of the next record
# (whose flushed marks were taken after D completed, so count it), B D's first
# byte. With one job writing in order, D and every write before it are done.
flushed_write() {
	awk -v m="$1" '
		$2 == "data" { d = $1; b = $3 * 512 }
		$2 == "flush" && d != "" { fd = d; fb = b }
		$2 == "journal" && prev != "journal" && ++r == m { pick = fd; byte = fb }
		$2 != "journal" && prev == "journal" && r == m + 1 { print pick, $1, byte; exit }
		{ prev = $2 }' $T.kinds
}

# lost_ranges FILE: the block numbers in FILE (one a line, ascending) as the
# violation lines of LOST ranges, adjacent blocks merged.
lost_ranges() {
	awk -v bs=$bs -v unit=$unit '
		function out() { if (have) print "violation", first * bs, (last + 1) * bs - 1,
			first * bs / unit, (last + 1) * bs / unit - 1, "LOST" }
		{ if (have && $1 == last + 1) { last = $1; next }
		  out(); have = 1; first = last = $1 }
		END { out() }' "$1"
}

# u64 FILE BYTE: the little-endian 64-bit number at BYTE of FILE.
u64() {
	set -- $(od -An -tu4 -j "$2" -N 8 "$1")
	echo $(($1 + $2 * 4294967296))
}

# journal_part FIELD: of the newest record on /dev/ram3 (the slot with the
# magic and the higher sequence number), job 0's FIELD in bytes: flushed or
# limit. journal.c's layout: magic at 0, sequence at 16, the jobs' parts from
# 120, 32 bytes each: start, end, flushed, limit.
journal_part() {
	local s seq best=-1 at=0
	dd if=/dev/ram3 of=$T.jnl bs=16384 count=1 iflag=direct status=none || return
	for s in 0 8192; do
		[ "$(dd if=$T.jnl bs=1 skip=$s count=8 status=none)" = GUACJNL1 ] || continue
		seq=$(u64 $T.jnl $((s + 16)))
		[ "$seq" -gt "$best" ] && best=$seq && at=$s
	done
	[ "$best" -ge 0 ] || { echo "no record on /dev/ram3"; return 1; }
	case $1 in
	flushed) u64 $T.jnl $((at + 120 + 16)) ;;
	limit) u64 $T.jnl $((at + 120 + 24)) ;;
	esac
}

# block_new I: block I of /dev/ram0 holds the new fill's data.
block_new() {
	guac gen --origin $new --offset $(($1 * bs)) --length $bs >$T.gen &&
		dd if=/dev/ram0 of=$T.blk bs=$bs skip="$1" count=1 iflag=direct status=none &&
		cmp -s $T.gen $T.blk
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds, every 0.1 s.
wait_for() {
	local n=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || { echo "not within the time: $*"; return 1; }
		sleep 0.1
	done
}

# kill_writer: kill -9 the background fill ($wpid), which must still be
# running (not a zombie: it would have ended); what it printed.
kill_writer() {
	local pid=$wpid rc
	wpid=
	grep -q '^State:[[:space:]]*[RSD]' /proc/$pid/status && kill -9 $pid
	rc=$?
	wait $pid
	echo "the writer's output:"
	cat $T.writer
	return $rc
}

# dm_switch TABLE: $dmname's table replaced by TABLE (suspend, reload,
# resume), resumed even when the reload fails: a device left suspended would
# hold the writer in uninterruptible sleep, past kill -9.
dm_switch() {
	local rc
	dmsetup suspend $dmname || return
	echo "$1" | dmsetup reload $dmname
	rc=$?
	dmsetup resume $dmname && dmsetup table $dmname && return $rc
}

# flushed_past BYTES: the journal's newest record counts more than BYTES flushed.
flushed_past() {
	[ "$(journal_part flushed)" -gt "$1" ]
}

# lost_reference FLUSHED: the blocks below FLUSHED bytes that lack the new
# data, as LOST violation lines in $T.ref.
lost_reference() {
	local i=0
	: >$T.lostblocks
	while [ $((i * bs)) -lt "$1" ]; do
		block_new $i || echo $i >>$T.lostblocks
		i=$((i + 1))
	done
	echo "journal: $1 bytes flushed; blocks below it without the new data: $(tr '\n' ' ' <$T.lostblocks)"
	lost_ranges $T.lostblocks >$T.ref
	cat $T.ref
	[ -s $T.lostblocks ]
}

if why=$(missing brd dm-mod dm-log-writes); then
	skip "crash-safe fill replayed to every entry of its log, a lost and a torn write named" \
		"no $why module for this kernel (none in its modules.map)"
else
	! grep -q '^brd ' /proc/modules || rmmod brd
	check "insmod brd: four 8 MiB RAM disks (data, log, replay, journal)" \
		mod_load brd rd_nr=4 rd_size=8192
	check "insmod dm-log-writes" mod_load dm-log-writes
	size=$(blockdev --getsz /dev/ram0)
	jat=$((size * 512 - 16384))	# the journal in the target: its last 16 KiB
	check "guac write --origin $old /dev/ram0 (the earlier fill, the whole disk), kept as the replays' start" \
		sh -c "guac write --direct --origin $old /dev/ram0 >/dev/null &&
		       dd if=/dev/ram0 of=$T.base bs=1M iflag=direct status=none"

	check "a crash-safe fill through dm-log-writes: 1 job, window 4, a record each 0.05 s" \
		log_fill --direct --jobs 1 --length $len
	check "the log: $((len / bs)) data writes, the journal records, the first before them, flushes" \
		log_shape $((len / bs))
	cp $T.list $T.list1
	cp $T.kinds $T.kinds1
	check "after each entry of the log, and with the unflushed writes lost, verify --after-crash: OK once a record is whole, else no record and the earlier fill" \
		every_prefix

	# A flushed write lost: the one before the flush before the middle
	# record (the second at least: the first comes before any write).
	m=$(awk 'END { print (NR > 5 ? int(NR / 2) : 2) }' $T.records)
	set -- $(flushed_write $m)
	d=$1 k=$2 b=$3
	check "the log without write entry $d (bytes $b-$((b + bs - 1))), to entry $((k - 1)), a record counting it flushed" \
		replay_to "$k" --drop "$d"
	after_crash drop /dev/ram2
	check "verify --after-crash: exit 1, one violation: bytes $b-$((b + bs - 1)), LBAs $((b / unit))-$(((b + bs) / unit - 1)), LOST" \
		verdict drop 1 "violation $b $((b + bs - 1)) $((b / unit)) $(((b + bs) / unit - 1)) LOST"
	check "the same entries with nothing dropped: OK (what the drop changes)" replay_ok "$k"

	# A flushed write torn 1000 bytes into its first sector: that unit
	# mixes the new data and the earlier fill's, the rest is the earlier's.
	# Another write (a record may follow no new one: the next but one).
	drop=$d
	set -- $(flushed_write $((m + 1)))
	[ "$1" != "$drop" ] || set -- $(flushed_write $((m + 2)))
	d=$1 k=$2 b=$3
	check "the log with write entry $d (bytes $b-$((b + bs - 1))) torn after 1000 bytes, to entry $((k - 1))" \
		replay_to "$k" --tear "$d:1000"
	after_crash torn /dev/ram2
	check "verify --after-crash: exit 1, LBA $((b / unit)) TORN, LBAs $((b / unit + 1))-$(((b + bs) / unit - 1)) LOST" \
		verdict torn 1 "violation $b $((b + unit - 1)) $((b / unit)) $((b / unit)) TORN" \
		"violation $((b + unit)) $((b + bs - 1)) $((b / unit + 1)) $(((b + bs) / unit - 1)) LOST"

	# A journal record torn by the power loss 1000 bytes into its last
	# write: its slot's CRC fails, and the other slot's record, one older,
	# holds (the jobs never passed its limits before the torn one was synced).
	j=$(sed -n "${m}p" $T.records)
	check "the log to entry $j, the end of journal record $m, torn after 1000 bytes" \
		replay_to $((j + 1)) --tear "$j:1000"
	after_crash jtorn /dev/ram2
	check "verify --after-crash: OK, from the other slot's record $((m - 1))" \
		sh -c "cat $T.jtorn; [ \$(cat $T.jtorn.rc) = 0 ] &&
		       grep -q '^after-crash: journal record $((m - 1)) at ' $T.jtorn"

	check "a crash-safe fill through dm-log-writes: 2 random passes, 4 jobs 8 writes deep" \
		log_fill --direct --pattern random --passes 2 --jobs 4 --iodepth 8 --length $len
	check "the log: $((2 * len / bs)) data writes, the journal records, the first before them, flushes" \
		log_shape $((2 * len / bs))
	check "after each entry of the log, and with the unflushed writes lost, verify --after-crash: OK once a record is whole, else no record and the earlier fill" \
		every_prefix
	check "rmmod dm-log-writes" rmmod dm_log_writes
fi

# ---- dm-flakey: writes dropped from a moment on, the journal elsewhere.
if why=$(missing brd dm-mod dm-flakey); then
	skip "crash-safe fill through dm-flakey dropping writes, then kill -9: verify names the flushed blocks lost" \
		"no $why module for this kernel (none in its modules.map)"
else
	grep -q '^brd ' /proc/modules || check "insmod brd: four 8 MiB RAM disks" \
		mod_load brd rd_nr=4 rd_size=8192
	size=$(blockdev --getsz /dev/ram0)
	[ -f $T.base ] || check "guac write --origin $old /dev/ram0 (the earlier fill, the whole disk)" \
		sh -c "guac write --direct --origin $old /dev/ram0 >/dev/null &&
		       dd if=/dev/ram0 of=$T.base bs=1M iflag=direct status=none"
	check "insmod dm-flakey" mod_load dm-flakey
	check "/dev/ram0 the earlier fill, /dev/ram3 (the journal) zeros" sh -c \
		"dd if=$T.base of=/dev/ram0 bs=1M oflag=direct status=none &&
		 dd if=/dev/zero of=/dev/ram3 bs=1M count=8 oflag=direct status=none"
	check "dmsetup create $dmname: flakey over /dev/ram0, up for an hour" \
		sh -c "echo '0 $size flakey /dev/ram0 0 3600 0' | dmsetup create $dmname && dmsetup table $dmname"
	dm=/dev/dm-$(dmsetup info -c --noheadings -o minor $dmname | tr -d ' ')
	guac write $crash_safe --direct --journal /dev/ram3 --jobs 1 --rate 256k --length $flen \
		"$dm" >$T.writer 2>&1 &
	wpid=$!
	check "guac write $crash_safe --journal /dev/ram3 --rate 256k $dm: past its first window (block 4 written)" \
		wait_for 60 block_new 4
	check "table: drop_writes from now on (dmsetup suspend, reload, resume)" \
		dm_switch "0 $size flakey /dev/ram0 0 0 3600 1 drop_writes"
	# Every write issued before the switch is below this limit (limits are
	# recorded before the jobs may use them): wait for the flushed mark to
	# pass it, so that writes the table dropped are counted flushed.
	limit=$(journal_part limit)
	check "the journal counts more than $limit bytes flushed (the limit at the switch)" \
		wait_for 60 flushed_past "${limit:-0}"
	check "kill -9 the writer, still writing (the crash)" kill_writer
	check "dmsetup remove $dmname" dmsetup remove $dmname
	check "the reference: the flushed blocks of /dev/ram0 without the new data (guac gen, cmp), at least one" \
		lost_reference "$(journal_part flushed)"
	after_crash flakey --journal /dev/ram3 /dev/ram0
	check "verify --after-crash --journal /dev/ram3 /dev/ram0: exit 1, LOST exactly over those blocks" \
		verdict_file flakey 1 $T.ref
	check "rmmod dm-flakey" rmmod dm_flakey
fi
cleanup
check "no dm device and no brd left" sh -c '
	! ls /sys/block | grep -E "^dm-" && ! grep -E "^(dm_log_writes|dm_flakey|brd) " /proc/modules'
