# SPDX-License-Identifier: GPL-2.0
# Debug kernel, first: debugfs for kmemleak, fail_usercopy and KUnit, and a
# clean slate for kmemleak so that only what the tests allocate counts.

KMEMLEAK=/sys/kernel/debug/kmemleak

mount -t debugfs debugfs /sys/kernel/debug
check "debugfs mounted, kmemleak enabled" test -w "$KMEMLEAK"
# What boot left unreferenced is not ours: scan, then mark it all seen.
check "kmemleak: boot-time objects set aside" \
	sh -c "echo scan >$KMEMLEAK && echo clear >$KMEMLEAK"
