# SPDX-License-Identifier: GPL-2.0
# Last: whatever the scenarios did, the kernel logged no bug, warning, oops or
# lockup while they ran (the boot before them is not ours to judge).

kernel_trouble() {
	dmesg_suite | grep -B 3 -A 12 -E 'BUG:|WARNING:|Oops|Call Trace|general protection|soft lockup|hung task|rcu.*stall'
}

check "kernel log since the suite started has no BUG, WARNING, Oops, lockup or stall" \
	fails kernel_trouble
