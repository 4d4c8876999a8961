#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/demo.sh      (or: make demo)
#
# From a fresh Debian 12 machine: install what is needed, build the module
# and the tools, boot Debian's current 6.12 kernel in QEMU (TCG), load the
# module and show /dev/guac serving exactly the bytes `guac gen` computes,
# with throughput figures. Needs root (or sudo) for the package installs.
set -eu
GUAC_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$GUAC_TOP/scripts/vm/lib.sh"
cd "$GUAC_TOP"

step() {
	printf '\n==> %s\n' "$*"
}

step "Installing build and test dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh || guac_as_root scripts/install-deps.sh

step "Building the static guac tools for the VM"
make -s vm-tools 2>&1 | grep -v 'statically linked' | grep -v 'in function' || true
[ -x "$GUAC_VM_BUILD/guac-vmtest" ] || guac_die "building the VM tools failed"

step "Fetching Debian's current 6.12 kernel and its headers"
kver=$(scripts/vm/fetch-kernel.sh 6.12)
echo "kernel $kver"

step "Building guacrng.ko for $kver"
scripts/vm/build-module.sh "$kver"

step "Packing the initramfs"
scripts/vm/make-initramfs.sh "$kver"

step "Booting $kver in qemu-system-x86_64 -cpu max (a minute or so under TCG)"
scripts/vm/run-kernel.sh --run demo "$kver" |
	sed -n -e '/reboot: Power down/d' -e '/=== guacrng demo/,$p'
