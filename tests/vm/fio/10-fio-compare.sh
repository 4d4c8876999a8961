# SPDX-License-Identifier: GPL-2.0
# The guest half of tests/vm/bench-fio.sh (issue 37, item 7; never make
# check): random 4 KiB writes at queue depth 32, `guac write --pattern random`
# against fio's io_uring engine with the same pattern (every block once), on a
# null_blk device (no memory behind it, completions inline) and a brd RAM
# disk, O_DIRECT, in rounds whose order is reversed from one to the next;
# and fio with --refill_buffers (new random data for every write, as guac
# generates its own), a third row, beside the comparison asked for. The
# test points say each step ran; the figures leave as "# bench: run ..." lines
# that the host script tabulates. Under TCG only the ratios mean anything.
#
# Kernel command line: guacvm.fio_rounds=N (default 3), guacvm.fio_mib=M
# (the length written, default 64 MiB).

. /tests/storage.sh
rounds=3
mib=64
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	guacvm.fio_rounds=*) rounds=${arg#*=} ;;
	guacvm.fio_mib=*) mib=${arg#*=} ;;
	esac
done
length=$((mib * 1024 * 1024))
devices="/dev/nullb0 /dev/ram0"
engine=io_uring

bench() {
	echo "# bench: $*"
}

# fio_run DEV SIZE [OPTION...]: the random write, its JSON in /tmp/fio.json.
fio_run() {
	local dev=$1 size=$2
	shift 2
	fio --name=rw --filename="$dev" --rw=randwrite --bs=4k --iodepth=32 \
		--ioengine=$engine --direct=1 --size="$size" --norandommap=0 --randrepeat=0 \
		--end_fsync=1 --output-format=json --output=/tmp/fio.json "$@"
}

# guac_run DEV: the same with guac, its JSON report in /tmp/guac.json.
guac_run() {
	guac write --force --pattern random --bs 4K --iodepth 32 --direct \
		--length "$length" --json --progress none "$1" >/tmp/guac.json
}

# The write section's figure NAME from fio's JSON ("iops" : 1234.5, in it).
fio_field() {
	awk -v name="\"$1\"" '/"write" : \{/ { w = 1 }
		w && $1 == name { gsub(/,/, "", $3); print $3; exit }' /tmp/fio.json
}

# guac's figure NAME from its one-line JSON.
guac_field() {
	sed -n "s/.*\"$1\":\\([0-9.e+-]*\\).*/\\1/p" /tmp/guac.json
}

# one ROUND DEV TOOL: a run, its test point, and its figures (IOPS, seconds);
# a run that failed gives no figures.
one() {
	local r=$1 dev=$2 tool=$3 iops= secs=
	rm -f /tmp/fio.json /tmp/guac.json
	if [ "$tool" != guac ]; then
		# fio-refill: fresh random data in every buffer before each write
		# (--refill_buffers), where plain fio fills its buffers once.
		check "round $r: $tool --ioengine=$engine, $mib MiB on $dev" fio_run "$dev" "$length" \
			$([ "$tool" = fio ] || echo --refill_buffers)
		iops=$(fio_field iops 2>/dev/null)
		secs=$(fio_field runtime 2>/dev/null | awk '{ printf "%.3f", $1 / 1000 }')
	else
		check "round $r: guac write --iodepth 32, $mib MiB on $dev" guac_run "$dev"
		secs=$(guac_field seconds 2>/dev/null)
		[ -z "$secs" ] || iops=$(awk -v b="$(guac_field bytes_written)" -v s="$secs" \
			'BEGIN { printf "%.1f", b / s / 4096 }')
		grep -q '"engine":"io_uring"' /tmp/guac.json 2>/dev/null ||
			bench "note: guac's engine was $(sed -n 's/.*"engine":"\([^"]*\)".*/\1/p' /tmp/guac.json 2>/dev/null)"
	fi
	[ -z "$iops" ] || [ -z "$secs" ] || bench "run $r ${dev##*/} $tool $iops $secs"
}

load_null_blk() {
	mod_load null_blk nr_devices=1 queue_mode=2 irqmode=0 gb=1 memory_backed=0 &&
		[ -b /dev/nullb0 ]
}

load_brd() {
	mod_load brd rd_nr=1 rd_size=$((256 * 1024)) && [ -b /dev/ram0 ]
}

bench "guest: Linux $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo), $(fio --version), io_uring_disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo absent)"
check "insmod null_blk nr_devices=1 queue_mode=2 irqmode=0 gb=1 memory_backed=0: /dev/nullb0" \
	load_null_blk
check "insmod brd rd_nr=1 rd_size=$((256 * 1024)) (a 256 MiB RAM disk): /dev/ram0" load_brd
bench "devices: $(for d in $devices; do echo "${d##*/}: scheduler $(cat /sys/block/${d##*/}/queue/scheduler 2>/dev/null || echo none), $(cat /sys/block/${d##*/}/queue/logical_block_size)-byte sectors;"; done | tr '\n' ' ')"

# What generating the data alone costs in this guest: TCG emulates vector
# instructions one helper call at a time, so guac's generator, which fio has
# no counterpart of (it fills its buffers once), is slowed far more than the
# I/O path is. MB/s of `guac gen` to /dev/null, one thread, per implementation.
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}
bench "guest CPU flags: $(grep -o -w -e sse2 -e avx2 -e avx512f /proc/cpuinfo | sort -u | tr '\n' ' ')"
for impl in generic auto; do
	t0=$(uptime_s)
	guac gen --impl $impl --length "$length" >/dev/null
	bench "gen $impl $(awk -v t0="$t0" -v t1="$(uptime_s)" -v b="$length" \
		'BEGIN { printf "%.1f MB/s (%.2f s for the %d bytes)", b / (t1 - t0) / 1e6, t1 - t0, b }')"
done

# fio's io_uring engine tried first on 4 KiB: where it cannot run, its error is
# kept and libaio, labelled, takes its place.
if ! fio_run /dev/nullb0 4k >/tmp/fio.err 2>&1; then
	bench "fio --ioengine=io_uring failed: $(tr '\n' ' ' </tmp/fio.err) $(cat /tmp/fio.json 2>/dev/null | tr '\n' ' ' | cut -c 1-300)"
	engine=libaio
fi
bench "fio engine: $engine"

# Both devices written once first (brd allocates its pages on the first write).
for dev in $devices; do
	check "a first sequential fill of $mib MiB on $dev" \
		guac write --force --bs 1M --direct --length "$length" --progress none "$dev"
done

# Round 1 in order, round 2 backwards, and so on: load that comes and goes
# hits both tools alike.
forward= backward=
for dev in $devices; do
	for tool in fio guac fio-refill; do
		forward="$forward $dev:$tool"
		backward="$dev:$tool $backward"
	done
done
r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then order=$forward; else order=$backward; fi
	for step in $order; do
		one "$r" "${step%:*}" "${step#*:}"
	done
	r=$((r + 1))
done
rmmod brd
rmmod null_blk
