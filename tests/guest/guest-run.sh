#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make check-guest: guac-guest.service (scripts/guest/
# make-image.sh) runs this from the payload disk, mounted at /run/guac-payload,
# when the kernel command line has guacguest.stages=STAGE[,STAGE...] and
# guacguest.boot=NAME. TAP goes to the second serial port, or to the device
# guacguest.tap= names (arm64: a virtio serial port), which the host reads
# (scripts/guest/run-guest.sh); a copy, the boot's journal and the
# kernels in /boot (for the host's next direct boot) go to the payload's out/.
# The service powers the guest off when this ends.
[ -n "${BASH_VERSION:-}" ] || exec /bin/bash "$0" "$@"
payload=/run/guac-payload
arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^guacguest\.$1=//p"
}
stages=$(arg stages)
boot=$(arg boot)
tap=$(arg tap)
tap=${tap:-/dev/ttyS1}
# udev makes a virtio port's link once its driver is loaded.
for _ in $(seq 60); do
	[ -e "$tap" ] && break
	sleep 1
done
export GUAC_PAYLOAD=$payload GUAC_OUT=$payload/out/$boot
mkdir -p "$GUAC_OUT"

main() {
	. "$payload/lib.sh"
	. "$payload/stages.sh"
	echo "# guest boot $boot: $(uname -r), $(nproc) CPUs, stages $stages, at $(cut -d' ' -f1 /proc/uptime) s uptime"
	start=$(cut -d' ' -f1 /proc/uptime)
	for s in ${stages//,/ }; do
		echo "# stage $s"
		t0=$(cut -d' ' -f1 /proc/uptime)
		if declare -F "stage_${s//-/_}" >/dev/null; then
			"stage_${s//-/_}"
		else
			tap_result 1 "stage $s exists"
		fi
		echo "# stage $s took $(echo "$t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{ printf "%.1f", $2 - $1 }') s"
	done
	echo "1..$tap_n"
	echo "# stages time $(echo "$start $(cut -d' ' -f1 /proc/uptime)" | awk '{ printf "%.1f", $2 - $1 }') s, boot to stages start $start s"
}

main 2>&1 | tee "$GUAC_OUT/tap.txt" >"$tap"

journalctl -b --no-pager >"$GUAC_OUT/journal.txt" 2>&1
# The kernels the next boot may use, with their initramfs as the guest made it.
mkdir -p "$payload/out/boot"
for f in /boot/vmlinuz-* /boot/initrd.img-*; do
	[ -f "$f" ] || continue
	cmp -s "$f" "$payload/out/boot/${f##*/}" || cp "$f" "$payload/out/boot/"
done
sync
