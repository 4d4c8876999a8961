#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test VM (busybox sh). Mounts the basics, loads the modules
# guacrng depends on, runs what guacvm.run= on the kernel command line names
# and powers off; the host reads the TAP from the second serial port
# (/dev/ttyS1; guacvm.tap=NAME on arm64: the virtio serial port named NAME)
# and the rest from the console.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox mkdir -p /dev /proc /sys /tmp /run
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox --install -s /bin		# keeps /bin/dd: GNU dd, not busybox's
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp

run=check
tap=ttyS1
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	guacvm.tap=*) tap=${arg#guacvm.tap=} ;;
	guacvm.run=*) run=${arg#guacvm.run=} ;;
	guacvm.bench=*) bench=${arg#guacvm.bench=} ;;
	esac
done

# Modules guacrng needs from the distro kernel, dependencies first.
if [ -f /lib/modules/deps.order ]; then
	while read -r ko; do
		insmod "/lib/modules/deps/$ko" || echo "init: insmod $ko failed"
	done </lib/modules/deps.order
fi

case "$run" in
check)
	# A virtio serial port (arm64) by its name: the device adds its ports
	# after the probe, and /dev/vportNpM appears with them. Wait for it
	# (up to 10 s).
	case "$tap" in
	ttyS*) ;;
	*)
		name=$tap
		i=0
		while [ $i -lt 100 ]; do
			for port in /sys/class/virtio-ports/*; do
				[ "$(cat "$port/name" 2>/dev/null)" = "$name" ] &&
					[ -c "/dev/${port##*/}" ] && tap=${port##*/} && break 2
			done
			sleep 0.1
			i=$((i + 1))
		done
		[ "$tap" != "$name" ] || echo "init: no virtio serial port named $name: the TAP is lost"
		;;
	esac
	stty -F /dev/$tap raw -echo 2>/dev/null
	# The benchmark proxy follows the suite unless guacvm.bench=0 (the
	# debug kernel's checkers make its figures meaningless).
	{ sh /tests/runner.sh; [ "${bench:-1}" = 0 ] || sh /tests/bench.sh; } 2>&1 |
		tee /dev/$tap
	;;
demo)
	sh /tests/demo.sh
	;;
shell)
	setsid cttyhack sh
	;;
*)
	echo "init: unknown guacvm.run=$run (check, demo or shell)"
	;;
esac
sync
poweroff -f
