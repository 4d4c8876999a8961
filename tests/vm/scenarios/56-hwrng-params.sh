# SPDX-License-Identifier: GPL-2.0
# The hwrng's parameters and its removal: hwrng=0 leaves /dev/guac alone,
# quality= reaches rng_quality, bad values are refused at load, and
# rmmod with a reader of /dev/hwrng mid-read is clean.

hw=/sys/module/guacrng/hwrng
rng=/sys/class/misc/hw_random

guac_loaded && guac_unload
dmesg_mark
check "insmod hwrng=0" guac_load hwrng=0
check "hwrng=0: the log says the hwrng is disabled" \
	dmesg_has "guacrng: hwrng: disabled (hwrng=0)"
check "hwrng=0: rng_available lists no guacrng hwrng" \
	fails grep guacrng $rng/rng_available
check "hwrng=0: no $hw" fails test -e $hw
check "hwrng=0: /dev/guac still reads" \
	sh -c '[ $(dd if=/dev/guac bs=4K count=1 status=none | wc -c) = 4096 ]'
guac_unload

check "insmod quality=1024" guac_load quality=1024
if kernel_before 5.18; then
	skip "quality=1024: rng_quality is 1024" "no rng_quality before 5.18"
else
	check "quality=1024: rng_quality is 1024" \
		sh -c "cat $rng/rng_quality && [ \"\$(cat $rng/rng_quality)\" = 1024 ]"
fi
guac_unload

check "insmod quality=1025 is refused" fails guac_load quality=1025

# A test double delivers the public stream: it never earns credit, whatever
# quality= says.
if [ "$(cat /sys/module/rng_core/parameters/default_quality)" = 1024 ]; then least=1; else least=0; fi
check "insmod (test variant) hwrng_fault=clean quality=1024" \
	guac_load_test hwrng_fault=clean quality=1024
if kernel_before 5.18; then
	skip "hwrng_fault=clean quality=1024: rng_quality is $least, no credit for a double" \
		"no rng_quality before 5.18"
else
	check "hwrng_fault=clean quality=1024: rng_quality is $least, no credit for a double" \
		sh -c "cat $rng/rng_quality && [ \"\$(cat $rng/rng_quality)\" = $least ]"
fi
guac_unload

# The module users install has no test parameter: the kernel ignores it
# (and says so), and the real instruction serves.
dmesg_mark
check "insmod guacrng.ko hwrng_fault=stuck: loads, the parameter is unknown" \
	guac_load hwrng_fault=stuck
check "hwrng_fault=stuck: the kernel log says it was ignored" \
	dmesg_has "unknown parameter 'hwrng_fault' ignored"
check "hwrng_fault=stuck: no such parameter in sysfs" \
	fails test -e /sys/module/guacrng/parameters/hwrng_fault
check "hwrng_fault=stuck: /dev/hwrng reads fine (no double in place)" sh -c "
	[ \$(dd if=/dev/hwrng bs=64 count=4 iflag=fullblock status=none | wc -c) = 256 ]"
guac_unload
dmesg_mark
check "insmod hwrng_fault=bogus is refused" fails guac_load_test hwrng_fault=bogus
check "hwrng_fault=bogus: the log names the bad value" \
	dmesg_has "guacrng: hwrng: unknown hwrng_fault=bogus"

check "insmod guacrng.ko" guac_load
/bin/dd if=/dev/hwrng of=/dev/null bs=64K count=1000000 2>/tmp/hwrng.err &
reader=$!
sleep 1
check "rmmod with a reader of /dev/hwrng mid-read" guac_unload
check "the reader stops within 1 s" sh -c "sleep 1; ! kill -0 $reader 2>/dev/null"
kill $reader 2>/dev/null
wait $reader
check "the reader got ENODEV" sh -c "cat /tmp/hwrng.err; grep -q 'No such device' /tmp/hwrng.err"
check "rng_available lists no guacrng hwrng after rmmod" \
	fails grep guacrng $rng/rng_available
rm -f /tmp/hwrng.err
check "reload" guac_load
