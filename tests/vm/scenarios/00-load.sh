# SPDX-License-Identifier: GPL-2.0
# Loading: the self-tests pass, /dev/guac appears read-only, auto picks the
# widest implementation the CPU has, GUAC_IOC_GET_INFO agrees with sysfs.

best=$(guac_cpu_impls | tail -n 1)

dmesg_mark
check "insmod guacrng.ko" guac_load
check "load log has 'guacrng: core self-tests: pass'" dmesg_has "guacrng: core self-tests: pass"
check "load log has no guacrng error" fails dmesg_guac_errors
check "/dev/guac is a character device with mode 0444" \
	sh -c '[ -c /dev/guac ] && [ "$(stat -c %a /dev/guac)" = 444 ]'
check "sysfs implementation is '$best', the widest this CPU supports" \
	sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = $best ]"
check "GUAC_IOC_GET_INFO reports version, '$best' and its CPU feature" guac-vmtest info "$best"
