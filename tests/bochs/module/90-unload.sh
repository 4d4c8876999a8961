# SPDX-License-Identifier: GPL-2.0
# Last: rmmod is clean, and the kernel logged no bug, warning or oops while
# the scenarios ran (Bochs' CPUID makes 6.12 warn once at boot, about the
# topology leaves: before the suite, so not counted here).

dmesg_mark
check "rmmod guacrng" guac_unload
check "/dev/guac gone after rmmod" fails test -e /dev/guac
check "unload log has no guacrng error" fails dmesg_guac_errors

kernel_trouble() {
	dmesg_suite | grep -B 3 -A 12 -E 'BUG:|WARNING:|Oops|Call Trace|general protection|soft lockup|hung task|rcu.*stall'
}
check "kernel log since the suite started has no BUG, WARNING, Oops, lockup or stall" \
	fails kernel_trouble
