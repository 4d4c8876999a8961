# SPDX-License-Identifier: GPL-2.0
# The read contract in the cases a user can reach beyond plain reads: memory
# a fork() shares while a read is in flight, a MAP_SHARED file mapping as the
# destination, threads sharing one open file, opens for writing.

check "fork() while 64 KiB reads are in flight: no read loses its data, no child's memory changes" \
	guac-vmtest fork-race 2000
check "a read into a MAP_SHARED file mapping reaches the file after msync" \
	guac-vmtest mmap-shared /tmp/guac-mapped.bin
rm -f /tmp/guac-mapped.bin
check "4 threads read() one open file: every 64 KiB range exactly once, position at the total" \
	guac-vmtest shared-fd 4
check "opens for writing fail at open with EPERM" guac-vmtest open-write
check "dd of=/dev/guac fails before writing anything" \
	sh -c '! /bin/dd if=/dev/zero of=/dev/guac bs=1 count=0 2>/tmp/dd.err && cat /tmp/dd.err && grep -q "not permitted" /tmp/dd.err'
rm -f /tmp/dd.err
