# SPDX-License-Identifier: GPL-2.0
# Every impl= the CPU supports serves the same bytes and is named in sysfs;
# the others of this architecture (guac_all_impls: generic, sse2, avx2,
# avx512 on x86; generic, neon on arm64) are refused at load with a clear log
# line.

supported=$(guac_cpu_impls)

check "unload for the impl= reloads" guac_unload
for impl in $(guac_all_impls); do
	if echo "$supported" | grep -qx "$impl"; then
		dmesg_mark
		check "insmod impl=$impl" guac_load impl="$impl"
		check "impl=$impl: sysfs names it" \
			sh -c "[ \"\$(cat $GUAC_SYSFS_IMPL)\" = $impl ]"
		check "impl=$impl: GUAC_IOC_GET_INFO names it" guac-vmtest info "$impl"
		# Small (portable path), odd and large reads.
		check_bytes "impl=$impl: dd bs=100 skip=7 count=5" 500 \
			"dd if=/dev/guac bs=100 skip=7 count=5 status=none" \
			"guac gen --impl generic --offset 700 --length 500"
		check_bytes "impl=$impl: dd iflag=skip_bytes skip=2^50+4093 bs=1M count=3" \
			$((3 << 20)) \
			"dd if=/dev/guac bs=1M iflag=skip_bytes skip=$(((1 << 50) + 4093)) count=3 status=none" \
			"guac gen --impl generic --offset $(((1 << 50) + 4093)) --length 3M"
		check "impl=$impl: pread/preadv" sh -c 'guac-vmtest pread && guac-vmtest preadv'
		check "impl=$impl: origin wrap" guac-vmtest origin
		check "rmmod after impl=$impl" guac_unload
	else
		dmesg_mark
		check "insmod impl=$impl is refused on this CPU" fails guac_load impl="$impl"
		check "impl=$impl: log says 'impl=$impl: not supported on this CPU'" \
			dmesg_has "guacrng: impl=$impl: not supported on this CPU"
		check "impl=$impl: no /dev/guac left behind" fails test -e /dev/guac
	fi
done

dmesg_mark
check "insmod impl=bogus is refused" fails guac_load impl=bogus
check "impl=bogus: log names the bad value" dmesg_has "guacrng: impl=bogus: unknown implementation"
check "reload with impl=auto" guac_load
