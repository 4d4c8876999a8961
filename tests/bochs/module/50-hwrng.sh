# SPDX-License-Identifier: GPL-2.0
# The hwrng on a CPU with RDSEED: it reads RDSEED (source, name), /dev/hwrng
# delivers, the bytes counter rises by what was read, the health tests pass.

hw=/sys/module/guacrng/hwrng
rng=/sys/class/misc/hw_random

dmesg_mark
check "insmod guacrng.ko" guac_load
check "load log has 'guacrng: hwrng self-tests: pass'" dmesg_has "guacrng: hwrng self-tests: pass"
check "load log has 'hwrng guacrng-rdseed registered'" dmesg_has "guacrng: hwrng guacrng-rdseed registered"
check "the hwrng reads RDSEED: $hw/source is rdseed" \
	sh -c "cat $hw/source && [ \"\$(cat $hw/source)\" = rdseed ]"
check "rng_available lists guacrng-rdseed" \
	sh -c "cat $rng/rng_available && grep -qw guacrng-rdseed $rng/rng_available"
check "rng_current can select guacrng-rdseed" \
	sh -c "echo guacrng-rdseed >$rng/rng_current && [ \"\$(cat $rng/rng_current)\" = guacrng-rdseed ]"

before=$(cat $hw/bytes)
check "dd reads 64 KiB from /dev/hwrng, of more than 200 distinct byte values" sh -c "
	dd if=/dev/hwrng of=/tmp/hwrng bs=4K count=16 iflag=fullblock status=none &&
	[ \$(wc -c </tmp/hwrng) = 65536 ] &&
	[ \$(od -An -v -tx1 /tmp/hwrng | tr -s ' ' '\n' | grep . | sort -u | wc -l) -gt 200 ]"
check "a second 64 KiB read gives other bytes" sh -c "
	dd if=/dev/hwrng of=/tmp/hwrng.2 bs=4K count=16 iflag=fullblock status=none &&
	[ \$(wc -c </tmp/hwrng.2) = 65536 ] && ! cmp -s /tmp/hwrng /tmp/hwrng.2"
rm -f /tmp/hwrng /tmp/hwrng.2
check "the RDSEED bytes counter rose by at least the 128 KiB read" sh -c "
	after=\$(cat $hw/bytes); echo \"$before -> \$after bytes\"
	[ \$((after - $before)) -ge 131072 ]"
check "health is ok, no failures, no health failures" sh -c "
	cd $hw && grep . health failures health_failures &&
	[ \"\$(cat health failures health_failures)\" = \"ok
0
0\" ]"
