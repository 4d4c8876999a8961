# SPDX-License-Identifier: GPL-2.0
# The hwrng registers under the name of the instruction that feeds it and
# /dev/hwrng reads from it.

rng=/sys/class/misc/hw_random
name=guacrng-$(guac_hwrng_insn)

check "the guest CPU has $(guac_cpu_rng_feature) (qemu -cpu max)" guac_cpu_has_rng
check "rng_available lists $name" \
	sh -c "cat $rng/rng_available && grep -qw $name $rng/rng_available"
check "rng_current can select $name" \
	sh -c "echo $name >$rng/rng_current && [ \"\$(cat $rng/rng_current)\" = $name ]"
check "dd reads 64 KiB from /dev/hwrng, not all one byte" sh -c "
	dd if=/dev/hwrng of=/tmp/hwrng bs=4K count=16 iflag=fullblock status=none &&
	[ \$(wc -c </tmp/hwrng) = 65536 ] && [ \$(od -An -v -tx1 /tmp/hwrng | tr -s ' ' '\n' | sort -u | wc -l) -gt 200 ]"
rm -f /tmp/hwrng
