# SPDX-License-Identifier: GPL-2.0
# Test kernels (debug and kcsan), first: debugfs, where KUnit, kmemleak,
# fail_usercopy and KCSAN keep their controls and results.

mount -t debugfs debugfs /sys/kernel/debug
check "debugfs mounted" grep -q ' /sys/kernel/debug debugfs ' /proc/mounts
