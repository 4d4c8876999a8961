# SPDX-License-Identifier: GPL-2.0
# Debug kernel, before the tests (after 00-debugfs.sh): a clean slate for
# kmemleak, so that only what the tests allocate counts.

KMEMLEAK=/sys/kernel/debug/kmemleak

check "kmemleak enabled" test -w "$KMEMLEAK"
# What boot left unreferenced is not ours: scan, then mark it all seen.
check "kmemleak: boot-time objects set aside" \
	sh -c "echo scan >$KMEMLEAK && echo clear >$KMEMLEAK"
