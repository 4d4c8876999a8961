#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing guacrng needs, from Debian's packages.
# Idempotent and quick when everything is present: apt runs only for what is
# missing. No kernel image or headers are among them (those come into the
# project's cache, see scripts/vm/apt.sh), and apt waits for the dpkg lock
# (unattended-upgrades may hold it) instead of failing.
set -eu

packages="
	build-essential bc bison flex kmod cpio rsync xz-utils zstd xxd python3
	libelf-dev libssl-dev libblkid-dev dwarves
	clang lld llvm sparse libclang-rt-14-dev
	libcmocka-dev strace liburing-dev
	qemu-system-x86 busybox-static coreutils
	dieharder rng-tools5 gnuplot-nox dmsetup fio
	linux-source-6.12
	debhelper dh-dkms debootstrap e2fsprogs qemu-utils
	slurmctld slurmd slurm-client munge iproute2 python3-venv
	ovmf mtools dosfstools fdisk openssl
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm qemu-user-static
"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
lock="-o DPkg::Lock::Timeout=3600"
# shellcheck disable=SC2086
apt-get update -q $lock
# --no-upgrade: a package named here that the host already has keeps its
# version (apt may still raise a shared library a new package needs).
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends --no-upgrade $lock $missing
