# SPDX-License-Identifier: GPL-2.0
# The RDRAND/RDSEED (arm64: RNDRRS) hwrng: registered under a name that says which
# instruction feeds it, fed to the pool by khwrngd with nobody reading,
# selectable, readable, FIPS 140-2 clean under rngtest, and read by rngd.

hw=/sys/module/guacrng/hwrng
rng=/sys/class/misc/hw_random

# What the driver must choose on this CPU (RDSEED or RDRAND, arm64's RNDRRS).
insn=$(guac_hwrng_insn)
name=guacrng-$insn

# The credit it claims by default: the least the hw_random core allows. Cores
# that read 0 as "the maximum" came with default_quality 1024 (6.12): there
# the least is 1. Older ones (6.1) read 0 as default_quality, itself 0.
default_quality=$(cat /sys/module/rng_core/parameters/default_quality)
if [ "$default_quality" = 1024 ]; then quality=1; else quality=0; fi
echo "# rng_core default_quality: $default_quality, so the least credit is $quality"

check "the guest CPU has $(guac_cpu_rng_feature) (qemu -cpu max)" guac_cpu_has_rng

guac_loaded && guac_unload
dmesg_mark
check "insmod guacrng.ko" guac_load
check "load log has 'guacrng: hwrng self-tests: pass'" \
	dmesg_has "guacrng: hwrng self-tests: pass"
check "load log has 'hwrng $name registered, entropy credit $quality per 1024 bits, the least ...'" \
	dmesg_has "guacrng: hwrng $name registered, entropy credit $quality per 1024 bits, the least the hw_random core allows"
check "rng_available lists $name" \
	sh -c "cat $rng/rng_available && grep -qw $name $rng/rng_available"
check "$hw/source is $insn" sh -c "cat $hw/source && [ \"\$(cat $hw/source)\" = $insn ]"

# The only hwrng in the guest becomes the current one at registration, and
# khwrngd reads it: nothing here has opened /dev/hwrng yet.
check "rng_current is $name, the only hwrng" \
	sh -c "cat $rng/rng_current && [ \"\$(cat $rng/rng_current)\" = $name ]"
# Before 5.18 the hw_random core had no rng_quality, and started khwrngd only
# for a hwrng with credit: with none (the default), khwrngd not running is
# what shows the credit is 0.
if kernel_before 5.18; then
	skip "rng_quality is $quality, the least the core allows (credit is opt-in)" \
		"no rng_quality before 5.18"
	check "khwrngd is not running: no credit, and before 5.18 the core starts it only for credit" \
		fails sh -c "ps | grep '\[hwrng\]' | grep -v grep"
	skip "khwrngd reads $name with no reader of /dev/hwrng: the bytes counter rises" \
		"no khwrngd for a hwrng without credit before 5.18"
else
	check "rng_quality is $quality, the least the core allows (credit is opt-in)" \
		sh -c "cat $rng/rng_quality && [ \"\$(cat $rng/rng_quality)\" = $quality ]"
	check "khwrngd is running" sh -c "ps | grep '\[hwrng\]' | grep -v grep"
	check "khwrngd reads $name with no reader of /dev/hwrng: the bytes counter rises" sh -c "
		for s in 1 2 3 4 5 6 7 8 9 10; do
			bytes=\$(cat $hw/bytes)
			[ \"\$bytes\" -gt 0 ] && { echo \"\$bytes bytes after \$s s\"; exit 0; }
			sleep 1
		done
		exit 1"
fi
check "health is ok, no failures" sh -c "
	cd $hw && grep . health failures health_failures &&
	[ \"\$(cat health failures health_failures)\" = \"ok
0
0\" ]"

check "rng_current can select $name" \
	sh -c "echo $name >$rng/rng_current && [ \"\$(cat $rng/rng_current)\" = $name ]"

before=$(cat $hw/bytes)
check "dd reads 64 KiB from /dev/hwrng" sh -c "
	dd if=/dev/hwrng of=/tmp/hwrng.1 bs=4K count=16 iflag=fullblock status=none &&
	[ \$(wc -c </tmp/hwrng.1) = 65536 ]"
check "a second 64 KiB read gives other bytes" sh -c "
	dd if=/dev/hwrng of=/tmp/hwrng.2 bs=4K count=16 iflag=fullblock status=none &&
	[ \$(wc -c </tmp/hwrng.2) = 65536 ] && ! cmp -s /tmp/hwrng.1 /tmp/hwrng.2"
check "the bytes counter counted both reads" sh -c "
	delivered=\$((\$(cat $hw/bytes) - $before))
	echo \"\$delivered bytes delivered\"
	[ \$delivered -ge 131072 ]"
rm -f /tmp/hwrng.1 /tmp/hwrng.2

# FIPS 140-2 flags about 0.8 blocks in 1000 of ideal data; allow up to 3.
/usr/bin/rngtest -c 1000 </dev/hwrng >/tmp/rngtest.out 2>&1
successes=$(sed -n 's/^rngtest: FIPS 140-2 successes: //p' /tmp/rngtest.out)
failures=$(sed -n 's/^rngtest: FIPS 140-2 failures: //p' /tmp/rngtest.out)
echo "# rngtest -c 1000: ${successes:-?} successes, ${failures:-?} failures"
# Ideal data fails about 1 block in 1000; more than 5 of 1000 happens to it with
# probability below 0.1% (the threshold scripts/rngtest.sh computes).
check "rngtest -c 1000 </dev/hwrng: 1000 blocks tested, at most 5 failures" sh -c "
	grep -E 'successes|failures|Monobit|Poker|Runs|Long run|Continuous' /tmp/rngtest.out
	[ \$((${successes:-0} + ${failures:-1000})) = 1000 ] && [ ${failures:-1000} -le 5 ]"
rm -f /tmp/rngtest.out

# rngd (-d 1: not its own RDRAND source) feeds the kernel from /dev/hwrng
# only; it exits with a message when its source fails FIPS tests.
before=$(cat $hw/bytes)
/usr/sbin/rngd -f -d 1 -r /dev/hwrng -p /tmp/rngd.pid >/tmp/rngd.out 2>&1 &
rngd=$!
sleep 10
check "rngd -f -d 1 -r /dev/hwrng is still running after 10 s" kill -0 $rngd
kill $rngd 2>/dev/null
{ wait $rngd; } 2>/dev/null
check "rngd printed no error" sh -c "cat /tmp/rngd.out; [ ! -s /tmp/rngd.out ]"
# It reads 2500-byte FIPS blocks, and feeds one before waiting for
# /dev/random to ask for more, which a seeded 6.x kernel never does; rng-core
# may have served up to 63 bytes of it from what an earlier reader left.
check "rngd read a block from $name in those 10 s: the bytes counter rose" sh -c "
	read=\$((\$(cat $hw/bytes) - $before))
	echo \"\$read bytes\"
	[ \$read -ge \$((2500 - 63)) ]"
rm -f /tmp/rngd.out /tmp/rngd.pid
