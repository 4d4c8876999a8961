# SPDX-License-Identifier: GPL-2.0
# KUnit in Bochs, whose CPU (model corei7_skylake_x) has AVX-512 and RDSEED,
# which QEMU's TCG lacks: guacrng.ko built with its suites (GUAC_KUNIT=y) and
# loaded with impl=avx512, so that the suites run with AVX-512 as the active
# implementation and the real-instruction cases read RDSEED and RDRAND. The
# host reports every case from the KTAP copied to the console below
# (scripts/kernel/ktap-report.py) and fails on any skip.

hw=/sys/module/guacrng/hwrng
kunit=/sys/kernel/debug/kunit

cpu_has() {
	grep -m 1 '^flags' /proc/cpuinfo | grep -qw "$1"
}

for flag in avx512f rdseed rdrand; do
	check "the guest CPU has $flag" cpu_has "$flag"
done
grep -qs debugfs /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug

# The kcsan test kernel: KCSAN on (its boot self-test passed), unless the host
# turned it off on the command line (BOCHS_KCSAN=0).
if grep -qw 'kcsan.early_enable=0' /proc/cmdline; then
	check "KCSAN is off, as the command line asks (kcsan.early_enable=0)" \
		sh -c "cat /sys/kernel/debug/kcsan && grep -qx 'enabled: 0' /sys/kernel/debug/kcsan"
else
	check "KCSAN boot self-test: all passed" \
		sh -c "dmesg | grep 'kcsan: selftest: ' && dmesg | grep -qE 'kcsan: selftest: ([0-9]+)/\\1 tests passed'"
	check "KCSAN is on" \
		sh -c "cat /sys/kernel/debug/kcsan && grep -qx 'enabled: 1' /sys/kernel/debug/kcsan"
fi

dmesg_mark
check "insmod guacrng.ko impl=avx512 runs the KUnit suites" guac_load impl=avx512
check "sysfs implementation is avx512" \
	sh -c "cat $GUAC_SYSFS_IMPL && [ \"\$(cat $GUAC_SYSFS_IMPL)\" = avx512 ]"
check "GUAC_IOC_GET_INFO reports avx512" guac-vmtest info avx512
check "the hwrng reads RDSEED: $hw/source is rdseed" \
	sh -c "cat $hw/source && [ \"\$(cat $hw/source)\" = rdseed ]"

suites=0
for dir in "$kunit"/guacrng-*; do
	[ -f "$dir/results" ] || continue
	suites=$((suites + 1))
	cat "$dir/results" >/dev/console
	check "KUnit suite ${dir##*/}: no case failed" fails grep -q '^ *not ok' "$dir/results"
done
check "KUnit suites in debugfs: $suites" test "$suites" -ge 3

# The cases this run is for: ran, passed, and were not skipped.
check "KUnit core_test_active_odd_offsets ran with avx512 active (impl=avx512)" sh -c "
	grep -F 'active implementation avx512 (impl=avx512)' $kunit/guacrng-core/results &&
	grep -E '^ *ok [0-9]+ core_test_active_odd_offsets\$' $kunit/guacrng-core/results"
for insn in RDSEED RDRAND; do
	check "KUnit hw_test_cpu_insn read the real $insn: passed, not skipped" sh -c "
		grep -F '$insn: 64 words via guac_insn_cpu' $kunit/guacrng-hwrng/results &&
		grep -E '^ *ok [0-9]+ $insn\$' $kunit/guacrng-hwrng/results"
done

# Kernel reports since the load (a KCSAN report's title is "BUG: KCSAN: ...").
kernel_reports() {
	dmesg_new | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection'
}
check "no BUG (KCSAN included), WARNING or Oops in the kernel log since the load" \
	fails kernel_reports
check "rmmod after the suites" guac_unload
