# SPDX-License-Identifier: GPL-2.0
# dd on /dev/guac gives the bytes `guac gen --offset` gives, at odd offsets
# and lengths, and near the end of file at 2^63-64.

pos_max=9223372036854775744

check_bytes "dd bs=1 skip=12345 count=777" 777 \
	"dd if=/dev/guac bs=1 skip=12345 count=777 status=none" \
	"guac gen --offset 12345 --length 777"
check_bytes "dd bs=4097 skip=5 count=3" $((3 * 4097)) \
	"dd if=/dev/guac bs=4097 skip=5 count=3 status=none" \
	"guac gen --offset $((5 * 4097)) --length $((3 * 4097))"
check_bytes "dd iflag=skip_bytes,count_bytes skip=123456789 count=99999" 99999 \
	"dd if=/dev/guac bs=64K iflag=skip_bytes,count_bytes skip=123456789 count=99999 status=none" \
	"guac gen --offset 123456789 --length 99999"
check_bytes "dd iflag=skip_bytes skip=end-807 reads 807 bytes to end of file" 807 \
	"dd if=/dev/guac iflag=skip_bytes skip=$((pos_max - 807)) bs=4096 count=2 status=none" \
	"guac gen --offset $((pos_max - 807)) --length 807"
