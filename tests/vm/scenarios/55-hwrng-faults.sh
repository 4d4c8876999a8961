# SPDX-License-Identifier: GPL-2.0
# The hwrng's failure paths in a running kernel, over the test-only doubles
# that hwrng_fault= puts in place of RDRAND/RDSEED: a dead or misbehaving
# instruction makes every read of /dev/hwrng fail with EIO, delivering
# nothing, and is logged once and counted; intermittent failure is ridden out
# by retries. Where the hwrng reads the seed instruction (RDSEED; arm64's
# RNDRRS), a dead one (cf0) is a source that stays dry, which is not a
# failure there (hwrng.c: -EAGAIN, the hw_random core asks again): readers
# wait, non-blocking ones get EAGAIN, nothing is delivered or counted as a
# failure.

hw=/sys/module/guacrng/hwrng
case "$(guac_hwrng_insn)" in
rdseed | rndrrs) seed=1 ;;
*) seed=0 ;;
esac

# logged_once TEXT: exactly one kernel log line since dmesg_mark has TEXT.
logged_once() {
	dmesg_new | grep -F -- "$1"
	[ "$(dmesg_new | grep -c -F -- "$1")" = 1 ]
}

# hwrng_fault=NAME: the health state and the log line it must lead to.
for case in cf0:start-up:"tries in a row" \
	stuck:repetition:"health test failed (repetition)" \
	ones:all-ones:"health test failed (all-ones)" \
	zeros:all-zeros:"health test failed (all-zeros)" \
	cycle:proportion:"health test failed (proportion)" \
	stuckbit:stuck-bit:"health test failed (stuck-bit)"; do
	fault=${case%%:*}
	state=${case#*:}
	log=${state#*:}
	state=${state%%:*}
	counter=health_failures
	[ "$fault" = cf0 ] && counter=failures

	guac_loaded && guac_unload
	dmesg_mark
	check "insmod hwrng_fault=$fault" guac_load_test hwrng_fault="$fault"
	check "hwrng_fault=$fault: the log warns that a test double is in use" \
		dmesg_has "replaced by the '$fault' double"
	if [ "$fault" = cf0 ] && [ "$seed" = 1 ]; then
		insn=$(guac_hwrng_insn)
		dd if=/dev/hwrng of=/dev/null bs=64 count=1 iflag=nonblock 2>/dev/null
		check "hwrng_fault=cf0 ($insn stays dry): three non-blocking reads of /dev/hwrng get EAGAIN, 0 bytes" sh -c '
			for i in 1 2 3; do
				/bin/dd if=/dev/hwrng of=/tmp/hwrng.out bs=64 count=1 iflag=nonblock 2>/tmp/hwrng.err && exit 1
				cat /tmp/hwrng.err
				grep -q "Resource temporarily unavailable" /tmp/hwrng.err && [ ! -s /tmp/hwrng.out ] || exit 1
			done'
		/bin/dd if=/dev/hwrng of=/tmp/hwrng.out bs=64 count=1 2>/dev/null &
		reader=$!
		sleep 2
		check "hwrng_fault=cf0 ($insn stays dry): a blocking read still waits after 2 s, with nothing read" \
			sh -c "kill -0 $reader && [ ! -s /tmp/hwrng.out ]"
		kill $reader 2>/dev/null
		wait $reader 2>/dev/null
		check "hwrng_fault=cf0 ($insn stays dry): nothing delivered, retries counted, no failure" sh -c "
			cd $hw && grep . health bytes retries failures health_failures &&
			[ \$(cat bytes) = 0 ] && [ \$(cat retries) -gt 0 ] &&
			[ \$(cat failures) = 0 ] && [ \$(cat health_failures) = 0 ]"
		check "hwrng_fault=cf0 ($insn stays dry): nothing logged as a failure" fails dmesg_has "$log"
		continue
	fi
	# rng-core keeps what a reader of /dev/hwrng left of its last 64-byte
	# fetch for the next reader, whichever hwrng is current by then: one
	# 64-byte read takes those bytes of the previous source, or fails.
	dd if=/dev/hwrng of=/dev/null bs=64 count=1 2>/dev/null
	check "hwrng_fault=$fault: three reads of /dev/hwrng fail with EIO, 0 bytes" sh -c '
		for i in 1 2 3; do
			dd if=/dev/hwrng of=/tmp/hwrng.out bs=64 count=1 2>/tmp/hwrng.err && exit 1
			cat /tmp/hwrng.err
			grep -q "Input/output error" /tmp/hwrng.err && [ ! -s /tmp/hwrng.out ] || exit 1
		done'
	check "hwrng_fault=$fault: health is $state, $counter counted them" sh -c "
		cd $hw && grep . health bytes failures health_failures &&
		[ \"\$(cat health)\" = $state ] && [ \$(cat bytes) = 0 ] &&
		[ \$(cat $counter) -ge 3 ]"
	check "hwrng_fault=$fault: logged once: '$log'" logged_once "$log"
done
rm -f /tmp/hwrng.out /tmp/hwrng.err

# Three failed tries before each word: every read succeeds, and the retries
# are exactly three per word fetched: the start-up window's 512, and 512 for
# each window, collected whole before any of it is delivered (the last one
# maybe not delivered in full).
guac_unload
check "insmod hwrng_fault=intermittent" guac_load_test hwrng_fault=intermittent
check "hwrng_fault=intermittent: dd reads 4 KiB from /dev/hwrng" sh -c "
	[ \$(dd if=/dev/hwrng bs=4K count=1 iflag=fullblock status=none | wc -c) = 4096 ]"
check "hwrng_fault=intermittent: retries = 3 * 512 * (1 + the 4 KiB windows bytes took), no failures" sh -c "
	cd $hw && grep . health bytes retries failures health_failures &&
	[ \$(cat retries) = \$((3 * 512 * (1 + (\$(cat bytes) + 4095) / 4096))) ] &&
	[ \"\$(cat health failures health_failures)\" = \"ok
0
0\" ]"

guac_unload
check "reload without hwrng_fault" guac_load
