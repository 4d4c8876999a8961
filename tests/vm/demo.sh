#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: load the module and show the main job,
# /dev/guac serving exactly the stream `guac gen` computes, at any offset; and
# the storage job on a real kernel block device: fill it, damage it as disks
# fail, and have guac verify find and explain every bad sector.

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

# show_piped COMMAND: as show, with the output through a pipe as a script
# would take it, so the console (a terminal) gets no progress line.
show_piped() {
	echo "# $*"
	eval "$@" 2>&1 | cat
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
show_piped "guac verify --length 64M /dev/guac"

echo "--- the storage job: fill a disk, damage it as disks fail, find and explain every bad sector ---"
echo
# The disk: the kernel's own scsi_debug, 64 MiB in RAM, with what it needs
# (make-initramfs.sh packed them from Debian's image, dependencies first).
for ko in $(cat /lib/modules/extra.order); do
	case $ko in
	scsi_debug.ko) insmod /lib/modules/extra/$ko dev_size_mb=64 ;;
	*) insmod /lib/modules/extra/$ko ;;
	esac
done
for i in $(seq 100); do [ -b /dev/sda ] && break; sleep 0.2; done
show_piped "guac write --origin 1 --manifest /tmp/sda.json /dev/sda"
show_piped "guac write --origin 2 --manifest /tmp/sda.json /dev/sda"
echo "# (damage behind the page cache: zeros at 4 KiB sector 1000, sector 2000 still"
echo "#  holding the first fill, sector 5000's data over sector 3000, a torn write at 4000)"
dd if=/dev/zero of=/dev/sda bs=4096 seek=1000 count=1 oflag=direct conv=notrunc status=none
guac gen --origin 1 --offset $((2000 * 4096)) --length 4096 |
	dd of=/dev/sda bs=4096 seek=2000 count=1 oflag=direct conv=notrunc status=none
dd if=/dev/sda bs=4096 skip=5000 count=1 iflag=direct status=none |
	dd of=/dev/sda bs=4096 seek=3000 count=1 oflag=direct conv=notrunc status=none
{ guac gen --origin 2 --offset $((4000 * 4096)) --length 1024; head -c 3072 /dev/urandom; } |
	dd of=/dev/sda bs=4096 seek=4000 count=1 oflag=direct conv=notrunc iflag=fullblock status=none
show_piped "guac verify --manifest /tmp/sda.json --sector 4096"
rmmod scsi_debug

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
