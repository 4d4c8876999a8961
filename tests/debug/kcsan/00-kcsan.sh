# SPDX-License-Identifier: GPL-2.0
# KCSAN kernel, first (after 00-debugfs.sh): the race detector passed its
# boot self-test, is on, and filters no function out of its reports. Then it
# samples denser than its default for the tests: KCSAN sets a watchpoint on
# one access in CONFIG_KCSAN_SKIP_WATCH (4000, randomised) per CPU, which
# under TCG leaves too few for a run of seconds; skip_watch=SKIP gives the
# tests' accesses many times the default's chance to be watched.

KCSAN=/sys/kernel/debug/kcsan
SKIP=100
SKIP_WATCH=/sys/module/kcsan/parameters/skip_watch

check "KCSAN boot self-test: all passed" \
	sh -c "dmesg | grep 'kcsan: selftest: ' && dmesg | grep -qE 'kcsan: selftest: ([0-9]+)/\1 tests passed'"
check "KCSAN enabled, no report filter" \
	sh -c "cat $KCSAN && grep -qx 'enabled: 1' $KCSAN && grep -qx 'blacklisted functions: none' $KCSAN"
check "KCSAN watches one access in $SKIP (skip_watch, default $(cat $SKIP_WATCH))" \
	sh -c "echo $SKIP >$SKIP_WATCH && [ \"\$(cat $SKIP_WATCH)\" = $SKIP ]"
