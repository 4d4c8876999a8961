# SPDX-License-Identifier: GPL-2.0
# The smoke set (make check runs it on the kernels it does not run the full
# suite on): the module loads, its self-tests pass, /dev/guac appears.

dmesg_mark
check "insmod guacrng.ko" guac_load
check "load log has 'guacrng: core self-tests: pass'" dmesg_has "guacrng: core self-tests: pass"
check "load log has no guacrng error" fails dmesg_guac_errors
check "/dev/guac is a character device with mode 0444" \
	sh -c '[ -c /dev/guac ] && [ "$(stat -c %a /dev/guac)" = 444 ]'
check "sysfs implementation is '$(guac_cpu_impls | tail -n 1)', the widest this CPU supports" \
	sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = $(guac_cpu_impls | tail -n 1) ]"
