# SPDX-License-Identifier: GPL-2.0
# KCSAN kernel, last: KCSAN was still on and watching accesses (its
# watchpoint counter moved), and the kernel log has no data-race report.
# The host scans the whole console log for reports as well; this puts them
# into the TAP too.

KCSAN=/sys/kernel/debug/kcsan

check "KCSAN still enabled, watchpoints were set up" \
	sh -c "cat $KCSAN && grep -qx 'enabled: 1' $KCSAN &&
		[ \"\$(sed -n 's/^setup_watchpoints: //p' $KCSAN)\" -gt 0 ]"
kcsan_reports() {
	dmesg | grep -A 30 -E 'BUG: KCSAN: '
}
check "kernel log has no KCSAN report" fails kcsan_reports
