#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: make-image.sh [ARCH]       (ARCH: amd64, the default, or arm64)
#
# The guest of `make check-guest` (amd64) and `make check-guest-arm64`: a
# Debian 12 (bookworm) system as a user has it, in a disk image kept in the
# cache, $GUAC_VM_CACHE/guest-bookworm/ (amd64) or guest-bookworm-arm64/:
#
#   root.img     ext4 file system (no partition table), the guest's /dev/vda
#   boot/        its vmlinuz-KVER and initrd.img-KVER, for QEMU's direct boot
#   kver         KVER: amd64, Debian's current 6.1 kernel (scripts/vm/
#                fetch-kernel.sh 6.1); arm64, what bookworm's linux-image-arm64
#                and linux-headers-arm64 (6.1) install
#   arch         ARCH
#   recipe       what the image was made from; a different one rebuilds it
#
# Made on first use: debootstrap (minbase) into a directory, then apt in that
# chroot installs systemd, udev, dbus, kmod, dkms, build-essential (gcc-12),
# rng-tools5, openssl, dwarves and the kernel's image and headers (amd64: the
# .debs the VM harness fetched, and what they depend on, from Debian's
# archive); then mke2fs -d packs the directory into root.img. Nothing is
# installed into the host, and its apt is not used (the chroot has its own).
# The guest has no network: its apt lists are dropped at the end, so `apt
# install ./x.deb` resolves against what is installed, as on an offline
# machine.
#
# arm64 on the amd64 host: debootstrap --foreign unpacks the system, then its
# second stage and the chroot's apt run arm64 programs through qemu-user
# (qemu-user-static), registered in a binfmt_misc instance of a user
# namespace of their own (Linux 6.7 and later): the host's binfmt_misc is
# neither mounted nor changed, and nothing outside that namespace runs arm64
# programs. The user namespace maps every uid and gid to itself, so the
# files keep their owners; /proc and /sys are bind mounts there (a user
# namespace may not mount new ones).
#
# Guest-specific settings, each for the test harness: root on /dev/vda, root
# logs in on the serial console (ttyS0; arm64: ttyAMA0) without a password
# (make guest-shell), the timers that would start apt or dpkg mid-test are
# masked, and guac-guest.service runs the scenario from the payload disk when
# the kernel command line has guacguest.stages= (tests/guest/README.md).
# Prints the image directory.
set -eu
. "$(dirname "$0")/../vm/lib.sh"

arch=${1:-amd64}
case "$arch" in
amd64) dir=$GUAC_VM_CACHE/guest-bookworm console=ttyS0 ;;
arm64) dir=$GUAC_VM_CACHE/guest-bookworm-arm64 console=ttyAMA0 ;;
*) guac_die "unknown architecture '$arch' (amd64 or arm64)" ;;
esac
size=${GUEST_IMAGE_SIZE:-8G}
# The Debian packages of the guest, besides what debootstrap's minbase has.
# dwarves (pahole): what the 6.12 kernel's linux-kbuild depends on, which
# the offline guest could not fetch when check-guest-upgrade installs it.
# liburing2: guacrng-tools depends on it (guac write --iodepth links liburing).
packages="systemd-sysv udev dbus kmod procps e2fsprogs dkms build-essential gcc-12 make
	rng-tools5 openssl xz-utils zstd initramfs-tools dwarves liburing2"

command -v debootstrap >/dev/null || guac_die "no debootstrap (run scripts/install-deps.sh)"
command -v mke2fs >/dev/null || guac_die "no mke2fs (e2fsprogs; run scripts/install-deps.sh)"

if [ "$arch" = amd64 ]; then
	kver=$("$GUAC_TOP/scripts/vm/fetch-kernel.sh" 6.1)
	kdebs=$GUAC_VM_CACHE/debs/$kver
	kernel="$kver: $(cd "$kdebs" && ls linux-image-* linux-headers-* linux-kbuild-* | tr '\n' ' ')"
else
	binfmt=/usr/lib/binfmt.d/qemu-aarch64.conf
	[ -f "$binfmt" ] && [ -x /usr/bin/qemu-aarch64-static ] ||
		guac_die "no qemu-aarch64-static or $binfmt (qemu-user-static; run scripts/install-deps.sh)"
	grep -q '^nodev[[:space:]]*binfmt_misc$' /proc/filesystems ||
		guac_die "this kernel has no binfmt_misc: no arm64 programs through qemu-user"
	# The kernel of bookworm's meta-packages when the image is made (6.1):
	# the image is made again when this script changes, not when Debian
	# moves its kernel on.
	packages="$packages linux-image-arm64 linux-headers-arm64"
	kernel="linux-image-arm64 linux-headers-arm64 of bookworm"
fi
recipe=$( {
	echo "arch $arch"
	echo "kernel $kernel"
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
guac_log "building the $arch guest image in $dir (debootstrap bookworm and apt: several minutes; log: $dir/build.log)"

fail() {
	tail -n 25 "$log" >&2
	guac_die "$1 (log: $log)"
}

# foreign COMMAND...: COMMAND as it is (amd64), or (arm64) in a user
# namespace mapping every uid and gid to itself, with a mount namespace and a
# binfmt_misc instance of its own in which qemu-aarch64 runs arm64 programs.
# The map is written from here, once the child is in its namespace; a fifo
# holds the child until then.
foreign() {
	if [ "$arch" = amd64 ]; then
		"$@"
		return
	fi
	rm -f "$tmp/userns.go"
	mkfifo "$tmp/userns.go"
	# shellcheck disable=SC2016
	unshare --user --mount --propagation private sh -c '
		set -e
		read -r _ <"$1"
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		printf "%s" "$(grep -v "^#" "$2")" >/proc/sys/fs/binfmt_misc/register
		shift 2
		exec "$@"' sh "$tmp/userns.go" "$binfmt" "$@" &
	pid=$!
	while [ "$(readlink "/proc/$pid/ns/user")" = "$(readlink /proc/$$/ns/user)" ]; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "0 0 4294967295" >"/proc/$pid/uid_map" && echo "0 0 4294967295" >"/proc/$pid/gid_map" ||
		{ kill "$pid"; wait "$pid" || true; return 1; }
	echo go >"$tmp/userns.go"
	status=0
	wait "$pid" || status=$?
	rm -f "$tmp/userns.go"
	return "$status"
}

# In a private mount namespace: the mounts debootstrap and the chroot's apt
# make go away with it, even on failure. In arm64's user namespace /proc and
# /sys are bind mounts of the host's.
in_chroot() {
	# shellcheck disable=SC2016
	foreign unshare --mount --propagation private sh -c '
		set -e
		root=$1 arch=$2
		shift 2
		if [ "$arch" = amd64 ]; then
			mount -t proc proc "$root/proc"
			mount -t sysfs sysfs "$root/sys"
		else
			mount --rbind /proc "$root/proc"
			mount --rbind /sys "$root/sys"
		fi
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"' sh "$root" "$arch" "$@"
}

if [ "$arch" = amd64 ]; then
	nice unshare --mount --propagation private debootstrap --variant=minbase --arch=amd64 \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		bookworm "$root" "$GUAC_DEBIAN_MIRROR" >"$log" 2>&1 || fail "debootstrap of bookworm failed"
else
	# The first stage only downloads and unpacks (and makes /dev's nodes,
	# which a user namespace could not); the second runs arm64's dpkg.
	# container=lxc: its check that the target allows device nodes (a mknod)
	# is not made, as in an LXC container.
	nice unshare --mount --propagation private debootstrap --foreign --variant=minbase --arch=arm64 \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		bookworm "$root" "$GUAC_DEBIAN_MIRROR" >"$log" 2>&1 || fail "debootstrap --foreign (arm64) of bookworm failed"
	in_chroot env container=lxc nice /debootstrap/debootstrap --second-stage >>"$log" 2>&1 ||
		fail "debootstrap --second-stage (arm64, through qemu-user) failed"
fi

guac_apt_suites bookworm | while read -r uri suite; do
	echo "deb $uri $suite main"
done >"$root/etc/apt/sources.list"
# Services do not start inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
# No resume partition to look for when the kernel's initramfs is made.
mkdir -p "$root/etc/initramfs-tools/conf.d"
echo RESUME=none >"$root/etc/initramfs-tools/conf.d/resume"
if [ "$arch" = arm64 ]; then
	# mkinitramfs runs a few programs per module, each a new qemu-user
	# process here: with Debian's MODULES=most it had copied 625 of arm64's
	# modules after 10 minutes. The initramfs holds what the root on QEMU
	# virt's virtio disk needs (and what those modules depend on).
	echo MODULES=list >"$root/etc/initramfs-tools/conf.d/guac-modules"
	printf '%s\n' virtio_pci virtio_mmio virtio_blk ext4 >>"$root/etc/initramfs-tools/modules"
fi
mkdir -p "$root/tmp/kdebs"
[ "$arch" != amd64 ] ||
	cp "$kdebs"/linux-image-"$kver"_*.deb "$kdebs"/linux-headers-*.deb "$kdebs"/linux-kbuild-*.deb \
		"$root/tmp/kdebs/"
apt="apt-get -q -y -o DPkg::Lock::Timeout=3600 --no-install-recommends"
# shellcheck disable=SC2086
{
	in_chroot $apt update &&
		in_chroot $apt install $packages &&
		{ [ "$arch" != amd64 ] || in_chroot sh -c "$apt install /tmp/kdebs/*.deb"; }
} >>"$log" 2>&1 || fail "apt-get install in the guest chroot failed"
if [ "$arch" != amd64 ]; then
	kver=$(cd "$root/boot" && ls vmlinuz-* 2>/dev/null | sed 's/^vmlinuz-//')
	[ "$(echo "$kver" | wc -w)" = 1 ] || fail "not one kernel in the guest's /boot: '$kver'"
fi
[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/boot/initrd.img-$kver" ] ||
	fail "no /boot/vmlinuz-$kver or initrd.img-$kver in the guest"
in_chroot dpkg-query -W -f='${Package} ${Version}\n' >"$tmp/packages.txt"

# The guest's configuration.
echo guac-guest >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tguac-guest\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 errors=remount-ro 0 1' >"$root/etc/fstab"
mkdir -p "$root/etc/systemd/system/serial-getty@$console.service.d"
cat >"$root/etc/systemd/system/serial-getty@$console.service.d/autologin.conf" <<'EOF'
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
echo "$arch" >"$tmp/arch"
rootsize=$(du -sh "$root" | cut -f1)
mke2fs -q -t ext4 -L guacroot -d "$root" "$tmp/root.img" "$size" >>"$log" 2>&1 ||
	fail "mke2fs -d of the guest root failed"
rm -rf "$root"
echo "$recipe" >"$tmp/recipe"
echo "$(($(date +%s) - start))" >"$tmp/seconds"
touch "$tmp/.ready"
rm -rf "$dir"
mv "$tmp" "$dir"
guac_log "$arch guest image ready in $(cat "$dir/seconds") s: $rootsize of files, kernel $kver"
echo "$dir"
