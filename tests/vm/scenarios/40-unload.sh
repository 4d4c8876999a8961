# SPDX-License-Identifier: GPL-2.0
# rmmod is refused while /dev/guac is open (idle, or mid-read) and clean
# after close; the device comes back on reload.

exec 3</dev/guac
check "rmmod refused while /dev/guac is open" fails guac_unload
check "module still loaded, device still reads" \
	sh -c 'grep "^guacrng " /proc/modules && dd if=/dev/guac bs=1K count=1 status=none | wc -c | grep -qx 1024'
exec 3<&-

/bin/dd if=/dev/guac of=/dev/null bs=1M count=1000000 2>/dev/null &
reader=$!
sleep 1
check "rmmod refused while a reader is mid-read" fails guac_unload
kill "$reader"
wait "$reader"

dmesg_mark
check "rmmod clean after close" guac_unload
check "/dev/guac gone after rmmod" fails test -e /dev/guac
check "reload" guac_load
check_bytes "bytes right after reload" 4096 \
	"dd if=/dev/guac bs=4096 count=1 status=none" "guac gen --length 4096"
