# SPDX-License-Identifier: GPL-2.0
# A CPU without the hwrng's instruction (check.sh SERIES:nornd: qemu -cpu
# neoverse-n1 on arm64, an Armv8.2 core without FEAT_RNG; -cpu
# max,-rdrand,-rdseed on x86): the module loads, registers no hwrng and says
# why, and /dev/guac serves the stream as on any CPU.

hw=/sys/module/guacrng/hwrng
rng=/sys/class/misc/hw_random

check "the guest CPU has no $(guac_cpu_rng_feature)" fails guac_cpu_has_rng
guac_loaded && guac_unload
dmesg_mark
check "insmod guacrng.ko" guac_load
check "the load log says the hwrng is not registered, for want of the instruction" \
	dmesg_has "hwrng: not registered, the CPU has no "
check "load log has no guacrng error" fails dmesg_guac_errors
check "rng_available lists no guacrng hwrng" \
	sh -c "cat $rng/rng_available; ! grep guacrng $rng/rng_available"
check "no $hw" fails test -e $hw
check "sysfs implementation is '$(guac_cpu_impls | tail -n 1)', the widest this CPU supports" \
	sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = $(guac_cpu_impls | tail -n 1) ]"
check_bytes "dd bs=1M skip=5 count=2 after a load without hwrng" $((2 << 20)) \
	"dd if=/dev/guac bs=1M skip=5 count=2 status=none" \
	"guac gen --offset 5M --length 2M"
