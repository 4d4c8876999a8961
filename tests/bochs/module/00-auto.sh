# SPDX-License-Identifier: GPL-2.0
# The module users install, on Debian's 6.12 kernel in Bochs, whose CPU
# (model corei7_skylake_x, family 6 model 0x55) has AVX-512 and RDSEED. First
# the default, impl=auto: Skylake-X is a CPU whose clock drops under 512-bit
# code, so auto must choose avx2 and say why (the policy of simd.c, in a real
# kernel on the CPU it is for).

cpu_has() {
	grep -m 1 '^flags' /proc/cpuinfo | grep -qw "$1"
}

for flag in avx512f avx2 rdseed rdrand; do
	check "the guest CPU has $flag" cpu_has "$flag"
done
check "the guest CPU is Intel family 6 model 85 (0x55, Skylake-X)" sh -c "
	grep -E '^(vendor_id|cpu family|model)\s' /proc/cpuinfo | head -n 3
	grep -m 1 '^cpu family' /proc/cpuinfo | grep -qw 6 &&
	grep -m 1 '^model\s' /proc/cpuinfo | grep -qw 85"

dmesg_mark
check "insmod guacrng.ko (impl=auto)" guac_load
check "load log has 'guacrng: core self-tests: pass'" dmesg_has "guacrng: core self-tests: pass"
check "load log has no guacrng error" fails dmesg_guac_errors
check "auto: sysfs implementation is avx2, not avx512, on Skylake-X" \
	sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = avx2 ]"
check "auto: implementation_reason says avx512 lowers the clock of this CPU (model 0x55)" \
	sh -c "cat ${GUAC_SYSFS_IMPL}_reason &&
		grep -q 'avx512 lowers the clock of this CPU (family 6 model 0x55)' ${GUAC_SYSFS_IMPL}_reason"
check "auto: GUAC_IOC_GET_INFO reports avx2" guac-vmtest info avx2
check_bytes "auto: dd iflag=skip_bytes,count_bytes skip=1000M+13 count=1M-3" $(((1 << 20) - 3)) \
	"dd if=/dev/guac bs=64K iflag=skip_bytes,count_bytes skip=$(((1000 << 20) + 13)) count=$(((1 << 20) - 3)) status=none" \
	"guac gen --impl generic --offset $(((1000 << 20) + 13)) --length $(((1 << 20) - 3))"
check "rmmod after impl=auto" guac_unload
