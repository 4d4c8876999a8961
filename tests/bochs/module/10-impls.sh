# SPDX-License-Identifier: GPL-2.0
# Every implementation forced with impl=, avx512 among them: named by sysfs
# and by GUAC_IOC_GET_INFO, and serving the bytes `guac gen --impl generic`
# gives, at odd offsets and lengths that are not multiples of 64: 1 MiB less
# 3 bytes at 1000 MiB + 13, reads of 4097 bytes past 2^50, and the last 807
# bytes before the end (2^63-64).

pos_max=9223372036854775744
at=$(((1000 << 20) + 13))
len=$(((1 << 20) - 3))

for impl in generic sse2 avx2 avx512; do
	dmesg_mark
	check "insmod impl=$impl" guac_load impl="$impl"
	check "impl=$impl: load log has no guacrng error" fails dmesg_guac_errors
	check "impl=$impl: sysfs implementation is $impl" \
		sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = $impl ]"
	check "impl=$impl: implementation_reason is 'impl=$impl'" \
		sh -c "cat ${GUAC_SYSFS_IMPL}_reason && [ \"\$(cat ${GUAC_SYSFS_IMPL}_reason)\" = impl=$impl ]"
	check "impl=$impl: GUAC_IOC_GET_INFO reports $impl" guac-vmtest info "$impl"
	check_bytes "impl=$impl: dd iflag=skip_bytes,count_bytes skip=1000M+13 count=1M-3" "$len" \
		"dd if=/dev/guac bs=64K iflag=skip_bytes,count_bytes skip=$at count=$len status=none" \
		"guac gen --impl generic --offset $at --length $len"
	check_bytes "impl=$impl: dd bs=4097 iflag=skip_bytes skip=2^50+4093 count=3" $((3 * 4097)) \
		"dd if=/dev/guac bs=4097 iflag=skip_bytes skip=$(((1 << 50) + 4093)) count=3 status=none" \
		"guac gen --impl generic --offset $(((1 << 50) + 4093)) --length $((3 * 4097))"
	check_bytes "impl=$impl: dd iflag=skip_bytes skip=end-807 reads 807 bytes to end of file" 807 \
		"dd if=/dev/guac iflag=skip_bytes skip=$((pos_max - 807)) bs=4096 count=2 status=none" \
		"guac gen --impl generic --offset $((pos_max - 807)) --length 807"
	check "rmmod after impl=$impl" guac_unload
done
