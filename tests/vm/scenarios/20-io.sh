# SPDX-License-Identifier: GPL-2.0
# System-call level behaviour, each checked by guac-vmtest against guac gen.

check "pread at small, odd and huge offsets" guac-vmtest pread
check "preadv with odd and empty iovecs" guac-vmtest preadv
check "SEEK_CUR chains up to the end (2^63-64)" guac-vmtest seek-cur
check "short read before the end (2^63-64), end of file at it" guac-vmtest eof
check "splice into a pipe, with and without an offset" guac-vmtest splice
check "origin ioctl: per open, 2^64 wrap, position kept" guac-vmtest origin
check "read into a buffer with an unmapped tail page: exact count" guac-vmtest tail-fault
check "huge read interrupted by a signal: short count, right bytes" guac-vmtest signal
check "8 concurrent readers, every byte checked" guac-vmtest concurrent 8
check "bad seeks give EINVAL and keep the position" guac-vmtest bad-seek
check "writes to a read-only open give EBADF and change nothing" guac-vmtest write
check "shell redirect into /dev/guac is refused" sh -c '[ -c /dev/guac ] && ! echo x 2>/dev/null >/dev/guac'
check "unknown ioctls give ENOTTY, bad pointers EFAULT" guac-vmtest ioctl
