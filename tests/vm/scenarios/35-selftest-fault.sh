# SPDX-License-Identifier: GPL-2.0
# A self-test failure, injected with the test-only selftest_fault= (one bit
# of that implementation's output flipped): a failing SIMD path is disabled
# and the next narrower one serves, asking for it by name is refused, and a
# failing portable path refuses the load.

supported=$(guac_cpu_impls)
best=$(echo "$supported" | tail -n 1)
next=$(echo "$supported" | tail -n 2 | head -n 1)

guac_loaded && guac_unload
dmesg_mark
check "insmod selftest_fault=$best" guac_load_test selftest_fault="$best"
check "selftest_fault=$best: the log says $best is disabled" \
	dmesg_has "$best self-test failed: implementation disabled"
check "selftest_fault=$best: no 'self-tests: pass' line" fails dmesg_has "core self-tests: pass"
check "selftest_fault=$best: $next serves instead" \
	sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = $next ]"
check_bytes "selftest_fault=$best: bytes still right" $((1 << 20)) \
	"dd if=/dev/guac bs=64K skip=3 count=16 status=none" "guac gen --offset 192K --length 1M"
check "rmmod after selftest_fault=$best" guac_unload
check "selftest_fault=$best impl=$best is refused" fails guac_load_test selftest_fault="$best" impl="$best"
dmesg_mark
check "selftest_fault=generic refuses the load" fails guac_load_test selftest_fault=generic
check "selftest_fault=generic: the log says why" dmesg_has "generic self-test failed: refusing to load"
check "reload without a fault" guac_load
