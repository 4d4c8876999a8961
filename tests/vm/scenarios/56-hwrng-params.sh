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
check "quality=1024: rng_quality is 1024" \
	sh -c "cat $rng/rng_quality && [ \"\$(cat $rng/rng_quality)\" = 1024 ]"
guac_unload

check "insmod quality=1025 is refused" fails guac_load quality=1025
dmesg_mark
check "insmod hwrng_fault=bogus is refused" fails guac_load hwrng_fault=bogus
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
