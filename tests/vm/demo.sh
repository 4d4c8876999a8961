#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: load the module and show the main job,
# /dev/guac serving exactly the stream `guac gen` computes, at any offset.

# Debian's busybox prefers its own applets: only a path reaches GNU dd.
dd() {
	/bin/dd "$@"
}

# show COMMAND: print it as typed at a prompt, then run it.
show() {
	echo "# $*"
	eval "$@"
	echo
}

# same A B: run two pipelines ending in sha256sum and say whether they agree.
same() {
	a=$(eval "$1" | cut -d' ' -f1)
	b=$(eval "$2" | cut -d' ' -f1)
	echo "# $1"
	echo "$a"
	echo "# $2"
	echo "$b"
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		echo "=> identical"
	else
		echo "=> DIFFERENT"
	fi
	echo
}

echo
echo "=== guacrng demo on Debian's $(uname -r) (qemu -cpu max, TCG) ==="
echo
show insmod /lib/modules/guacrng.ko
show "dmesg | grep guacrng: | sed 's/^\[[ 0-9.]*\] //'"
show ls -l /dev/guac
show cat /sys/class/misc/guac/implementation
show "dd if=/dev/guac bs=16 count=4 status=none | od -An -tx1"

echo "--- dd with skip= gives the bytes guac gen computes for that offset ---"
echo
same "dd if=/dev/guac bs=1M skip=1000 count=16 status=none | sha256sum" \
	"guac gen --offset 1000M --length 16M | sha256sum"
same "dd if=/dev/guac iflag=skip_bytes skip=9223372036000000000 bs=4096 count=4 status=none | sha256sum" \
	"guac gen --offset 9223372036000000000 --length 16K | sha256sum"
same "tail -c +12346 /dev/guac | head -c 100000 | sha256sum" \
	"guac gen --offset 12345 --length 100000 | sha256sum"

echo "--- guac verify checks a device or file against the stream, storing nothing ---"
echo
show "guac verify --length 64M /dev/guac"

echo "--- the CPU's RDRAND as a hwrng (qemu -cpu max has no RDSEED) ---"
echo
show cat /sys/class/misc/hw_random/rng_available
show cat /sys/class/misc/hw_random/rng_current
show "dd if=/dev/hwrng bs=32 count=1 status=none | od -An -tx1"
show "rngtest -c 1000 </dev/hwrng 2>&1 | grep -E 'successes|failures'"
show "grep . /sys/module/guacrng/hwrng/*"

echo "--- throughput (TCG emulation: compare the ratios, not the figures) ---"
echo
sh /tests/bench.sh | sed 's/^# bench: //'
echo
