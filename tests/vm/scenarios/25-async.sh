# SPDX-License-Identifier: GPL-2.0
# io_uring, Linux AIO and RWF_NOWAIT (issue 28): a read of /dev/guac never
# waits, so the device advertises FMODE_NOWAIT. io_uring then reads inline,
# in submission order, and RWF_NOWAIT returns data; every read path gives the
# documented answer at the end of file and at negative offsets.

check "io_uring: 20 batches of 64 reads at offset -1 come back in order, none twice" \
	guac-vmtest uring-order 20 64
check "preadv2, AIO and io_uring with RWF_NOWAIT return the stream" guac-vmtest nowait
check "the edges: every read path at the end of file and at negative offsets, as documented" \
	guac-vmtest edges
