# SPDX-License-Identifier: GPL-2.0
# Last: rmmod is clean, takes the devices with it, and the kernel logged no
# bug, warning, oops or lockup while the scenarios ran.

rng=/sys/class/misc/hw_random

dmesg_mark
check "rmmod guacrng" guac_unload
check "/dev/guac gone after rmmod" fails test -e /dev/guac
check "rng_available lists no guacrng hwrng after rmmod" fails grep guacrng $rng/rng_available
check "unload log has no guacrng error" fails dmesg_guac_errors

kernel_trouble() {
	dmesg_suite | grep -B 3 -A 12 -E 'BUG:|WARNING:|Oops|Call Trace|general protection|soft lockup|hung task|rcu.*stall'
}

check "kernel log since the suite started has no BUG, WARNING, Oops, lockup or stall" \
	fails kernel_trouble
