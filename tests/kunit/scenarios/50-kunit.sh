# SPDX-License-Identifier: GPL-2.0
# KUnit: this guacrng.ko was built with its suites (GUAC_KUNIT=y), and
# loading it runs them. Each suite's KTAP goes to the console, where the host
# reports every case (scripts/kernel/ktap-report.py); here, one test point per
# suite.

check "insmod guacrng.ko runs the KUnit suites" guac_load
suites=0
for dir in /sys/kernel/debug/kunit/guacrng-*; do
	[ -f "$dir/results" ] || continue
	suites=$((suites + 1))
	cat "$dir/results" >/dev/console
	check "KUnit suite ${dir##*/}: no case failed" \
		fails grep -q '^ *not ok' "$dir/results"
done
check "KUnit suites in debugfs: $suites" test "$suites" -gt 0
check "rmmod after the suites" guac_unload
