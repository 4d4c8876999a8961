# SPDX-License-Identifier: GPL-2.0
# GNU dd, tail and head on /dev/guac give the bytes `guac gen --offset` gives:
# small, odd and huge offsets, up to the end of file at 2^63-64.

# 2^63 - 64, the device's end of file (GUAC_DEV_END).
pos_max=9223372036854775744

check "dd is GNU coreutils dd" sh -c '/bin/dd --version | grep "coreutils"'

check_bytes "dd bs=1M skip=3 count=4" $((4 << 20)) \
	"dd if=/dev/guac bs=1M skip=3 count=4 status=none" \
	"guac gen --offset 3M --length 4M"
check_bytes "dd bs=1 skip=12345 count=777" 777 \
	"dd if=/dev/guac bs=1 skip=12345 count=777 status=none" \
	"guac gen --offset 12345 --length 777"
check_bytes "dd bs=4097 skip=5 count=3" $((3 * 4097)) \
	"dd if=/dev/guac bs=4097 skip=5 count=3 status=none" \
	"guac gen --offset $((5 * 4097)) --length $((3 * 4097))"
check_bytes "dd bs=64K skip=2^40 blocks count=16" $((16 << 16)) \
	"dd if=/dev/guac bs=64K skip=1099511627776 count=16 status=none" \
	"guac gen --offset $((1099511627776 << 16)) --length $((16 << 16))"
check_bytes "dd iflag=skip_bytes,count_bytes skip=123456789 count=99999" 99999 \
	"dd if=/dev/guac bs=64K iflag=skip_bytes,count_bytes skip=123456789 count=99999 status=none" \
	"guac gen --offset 123456789 --length 99999"
check_bytes "dd iflag=skip_bytes skip=end-3000-333 bs=1000 count=3" 3000 \
	"dd if=/dev/guac iflag=skip_bytes skip=$((pos_max - 3333)) bs=1000 count=3 status=none" \
	"guac gen --offset $((pos_max - 3333)) --length 3000"
# The last MiB-aligned block ends 64 bytes past the end of file.
check_bytes "dd bs=1M skip=2^43-1: the last MiB is 2^20-64 bytes" $(((1 << 20) - 64)) \
	"dd if=/dev/guac bs=1M skip=8796093022207 count=1 status=none" \
	"guac gen --offset $((8796093022207 << 20)) --length $(((1 << 20) - 64))"
check_bytes "dd iflag=skip_bytes skip=end-807 reads 807 bytes to end of file" 807 \
	"dd if=/dev/guac iflag=skip_bytes skip=$((pos_max - 807)) bs=4096 count=2 status=none" \
	"guac gen --offset $((pos_max - 807)) --length 807"
check_bytes "tail -c +1001 | head -c 5000" 5000 \
	"tail -c +1001 /dev/guac | head -c 5000" \
	"guac gen --offset 1000 --length 5000"
