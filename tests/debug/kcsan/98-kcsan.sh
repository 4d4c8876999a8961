# SPDX-License-Identifier: GPL-2.0
# KCSAN kernel, last: KCSAN was still on and watching accesses (its
# watchpoint counter moved), and the kernel log has no data-race report
# that involves guacrng.
# The host scans the whole console log for reports as well; this puts them
# into the TAP too.

KCSAN=/sys/kernel/debug/kcsan

check "KCSAN still enabled, watchpoints were set up" \
	sh -c "cat $KCSAN && grep -qx 'enabled: 1' $KCSAN &&
		[ \"\$(sed -n 's/^setup_watchpoints: //p' $KCSAN)\" -gt 0 ]"
# Races with a guacrng frame fail; races wholly inside the kernel under
# test (kcsan-triage.awk says how they are told apart) are counted here, and
# the host keeps them whole in kcsan-kernel-races.txt. What this echoes has
# its title renamed, so that the host's own scan of the console meets each
# report once, where the kernel printed it.
kcsan_reports() {
	dmesg | awk -v show="$1" -f /tests/kcsan-triage.awk |
		sed 's/BUG: KCSAN: /KCSAN report: /' | grep .
}
check "kernel log has no KCSAN report with a guacrng frame" fails kcsan_reports ours
echo "# KCSAN reports wholly in the kernel's own code, not guacrng's:" \
	"$(kcsan_reports others | grep -c 'KCSAN report: ')"
