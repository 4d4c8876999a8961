#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: make-image.sh
#
# The guest of `make check-guest`: a Debian 12 (bookworm) system as a user has
# it, in a disk image kept in the cache, $GUAC_VM_CACHE/guest-bookworm/:
#
#   root.img     ext4 file system (no partition table), the guest's /dev/vda
#   boot/        its vmlinuz-KVER and initrd.img-KVER, for QEMU's direct boot
#   kver         KVER, Debian's current 6.1 kernel (scripts/vm/fetch-kernel.sh 6.1)
#   recipe       what the image was made from; a different one rebuilds it
#
# Made on first use: debootstrap (minbase) into a directory, then apt in that
# chroot installs systemd, udev, dbus, kmod, dkms, build-essential (gcc-12),
# rng-tools5, openssl, dwarves and the kernel's image and headers (the .debs
# the VM harness fetched, and what they depend on, from Debian's archive); then
# mke2fs -d packs the directory into root.img. Nothing is installed into the
# host, and its apt is not used (the chroot has its own). The guest has no
# network: its apt lists are dropped at the end, so `apt install ./x.deb`
# resolves against what is installed, as on an offline machine.
#
# Guest-specific settings, each for the test harness: root on /dev/vda, root
# logs in on the serial console without a password (make guest-shell), the
# timers that would start apt or dpkg mid-test are masked, and
# guac-guest.service runs the scenario from the payload disk when the kernel
# command line has guacguest.stages= (tests/guest/README.md). Prints the
# image directory.
set -eu
. "$(dirname "$0")/../vm/lib.sh"

dir=$GUAC_VM_CACHE/guest-bookworm
size=${GUEST_IMAGE_SIZE:-8G}
# The Debian packages of the guest, besides what debootstrap's minbase has.
# dwarves (pahole): what the 6.12 kernel's linux-kbuild depends on, which
# the offline guest could not fetch when check-guest-upgrade installs it.
packages="systemd-sysv udev dbus kmod procps e2fsprogs dkms build-essential gcc-12 make
	rng-tools5 openssl xz-utils zstd initramfs-tools dwarves"

command -v debootstrap >/dev/null || guac_die "no debootstrap (run scripts/install-deps.sh)"
command -v mke2fs >/dev/null || guac_die "no mke2fs (e2fsprogs; run scripts/install-deps.sh)"

kver=$("$GUAC_TOP/scripts/vm/fetch-kernel.sh" 6.1)
kdebs=$GUAC_VM_CACHE/debs/$kver
recipe=$( {
	echo "kernel $kver: $(cd "$kdebs" && ls linux-image-* linux-headers-* linux-kbuild-* | tr '\n' ' ')"
	echo "packages $(echo $packages)"
	echo "size $size"
	sed -n '/^# ---- recipe ----$/,$p' "$0" | cksum
} )

exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.ready" ] && [ "$(cat "$dir/recipe")" = "$recipe" ]; then
	echo "$dir"
	exit 0
fi

# ---- recipe ----
start=$(date +%s)
tmp=$dir.tmp
root=$tmp/root
rm -rf "$tmp"
mkdir -p "$root"
log=$tmp/build.log
guac_log "building the guest image in $dir (debootstrap bookworm and apt: several minutes; log: $dir/build.log)"

fail() {
	tail -n 25 "$log" >&2
	guac_die "$1 (log: $log)"
}

# In a private mount namespace: the mounts debootstrap and the chroot's apt
# make go away with it, even on failure.
in_chroot() {
	# shellcheck disable=SC2016
	unshare --mount --propagation private sh -c '
		set -e
		root=$1
		shift
		mount -t proc proc "$root/proc"
		mount -t sysfs sysfs "$root/sys"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"' sh "$root" "$@"
}

nice unshare --mount --propagation private debootstrap --variant=minbase --arch=amd64 \
	--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
	bookworm "$root" "$GUAC_DEBIAN_MIRROR" >"$log" 2>&1 || fail "debootstrap of bookworm failed"

guac_apt_suites bookworm | while read -r uri suite; do
	echo "deb $uri $suite main"
done >"$root/etc/apt/sources.list"
# Services do not start inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
# No resume partition to look for when the kernel's initramfs is made.
mkdir -p "$root/etc/initramfs-tools/conf.d"
echo RESUME=none >"$root/etc/initramfs-tools/conf.d/resume"
mkdir -p "$root/tmp/kdebs"
cp "$kdebs"/linux-image-"$kver"_*.deb "$kdebs"/linux-headers-*.deb "$kdebs"/linux-kbuild-*.deb \
	"$root/tmp/kdebs/"
apt="apt-get -q -y -o DPkg::Lock::Timeout=3600 --no-install-recommends"
# shellcheck disable=SC2086
{
	in_chroot $apt update &&
		in_chroot $apt install $packages &&
		in_chroot sh -c "$apt install /tmp/kdebs/*.deb"
} >>"$log" 2>&1 || fail "apt-get install in the guest chroot failed"
[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/boot/initrd.img-$kver" ] ||
	fail "no /boot/vmlinuz-$kver or initrd.img-$kver in the guest"
in_chroot dpkg-query -W -f='${Package} ${Version}\n' >"$tmp/packages.txt"

# The guest's configuration.
echo guac-guest >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tguac-guest\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 errors=remount-ro 0 1' >"$root/etc/fstab"
mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
cat >"$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'EOF'
# guacrng test guest: root logs in on the serial console (make guest-shell).
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,57600,38400,9600 %I $TERM
EOF
# Timers that would run apt or dpkg in the middle of a test (no network here).
for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$t"
done
cat >"$root/etc/systemd/system/guac-guest.service" <<'EOF'
# guacrng test guest: runs the scenario of tests/guest/ from the payload disk
# (label GUACPAYLOAD) when the kernel command line names its stages, then
# powers off, whatever the scenario did.
[Unit]
Description=guacrng guest scenario (payload disk)
ConditionKernelCommandLine=guacguest.stages
After=local-fs.target

[Service]
Type=simple
ExecStart=/bin/sh -c 'mkdir -p /run/guac-payload && mount LABEL=GUACPAYLOAD /run/guac-payload && exec /bin/bash /run/guac-payload/guest-run.sh'
ExecStopPost=/bin/systemctl --no-block poweroff
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/guac-guest.service \
	"$root/etc/systemd/system/multi-user.target.wants/guac-guest.service"

rm -f "$root/usr/sbin/policy-rc.d"
rm -rf "$root/tmp/kdebs" "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"*.bin \
	"$root/var/cache/apt/archives/"*.deb
mkdir -p "$root/var/lib/apt/lists/partial"

mkdir -p "$tmp/boot"
cp "$root/boot/vmlinuz-$kver" "$root/boot/initrd.img-$kver" "$tmp/boot/"
echo "$kver" >"$tmp/kver"
rootsize=$(du -sh "$root" | cut -f1)
mke2fs -q -t ext4 -L guacroot -d "$root" "$tmp/root.img" "$size" >>"$log" 2>&1 ||
	fail "mke2fs -d of the guest root failed"
rm -rf "$root"
echo "$recipe" >"$tmp/recipe"
echo "$(($(date +%s) - start))" >"$tmp/seconds"
touch "$tmp/.ready"
rm -rf "$dir"
mv "$tmp" "$dir"
guac_log "guest image ready in $(cat "$dir/seconds") s: $rootsize of files, kernel $kver"
echo "$dir"
