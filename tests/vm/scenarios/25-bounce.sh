# SPDX-License-Identifier: GPL-2.0
# The same reads through the other path: with direct=N every read copies
# through a bounce page instead of generating into pinned user pages.

param=/sys/module/guacrng/parameters/direct
check "direct= is on by default" sh -c "[ \"\$(cat $param)\" = Y ]"
echo N >$param
check "direct=N: the parameter took" sh -c "[ \"\$(cat $param)\" = N ]"
check_bytes "direct=N: dd bs=1M skip=3 count=5 equals guac gen" 5242880 \
	"dd if=/dev/guac bs=1M skip=3 count=5" "guac gen --offset 3M --length 5M"
check "direct=N: pread at small, odd and huge offsets" guac-vmtest pread
check "direct=N: preadv with odd and empty iovecs" guac-vmtest preadv
check "direct=N: unmapped tail page: exact count" guac-vmtest tail-fault
check "direct=N: huge read interrupted by a signal" guac-vmtest signal
check "direct=N: 8 concurrent readers" guac-vmtest concurrent 8
echo Y >$param
check "direct=Y again" sh -c "[ \"\$(cat $param)\" = Y ]"
