# SPDX-License-Identifier: GPL-2.0
#
# A real Debian 12 guest, installed the way users do (tests/guest/README.md):
#
#   make guest-image          the guest's disk image, in the cache (made once)
#   make check-guest          apt install the .debs of make deb, reboot, use
#                             /dev/guac and rngd, apt purge, reboot (6.1)
#   make check-guest-upgrade  the same across a kernel upgrade to Debian's
#                             6.12, and the DKMS-from-source path
#   make guest-shell          the guest with a root shell on the console
#   make guest-image-arm64    the arm64 guest's image (debootstrap through
#                             qemu-user in a user namespace of its own)
#   make check-guest-arm64    the arm64 .debs of make deb-arm64 in that
#                             guest, under qemu-system-aarch64 (TCG): DKMS
#                             builds the module, modprobe, /dev/guac equal
#                             to guac gen, the RNDR hwrng, apt purge
#                             (in make check)
#   make guest-shell-arm64    that guest with a root shell on the console
#   make check-all            (vm.mk) includes check-guest-upgrade

GUEST_BUILD := $(BUILD)/guest

guest-image: deps
	scripts/guest/make-image.sh

check-guest: deb
	tests/guest/check-guest.sh

check-guest-upgrade: deb
	tests/guest/check-guest.sh --upgrade

guest-shell: guest-image
	set -e; img=$$(scripts/guest/make-image.sh); kver=$$(cat $$img/kver); \
	mkdir -p $(GUEST_BUILD)/shell; rm -f $(GUEST_BUILD)/shell/disk.qcow2; \
	qemu-img create -q -f qcow2 -F raw -b $$img/root.img $(GUEST_BUILD)/shell/disk.qcow2; \
	scripts/guest/run-guest.sh --shell $(GUEST_BUILD)/shell/disk.qcow2 \
		$$img/boot/vmlinuz-$$kver $$img/boot/initrd.img-$$kver

guest-image-arm64: deps
	scripts/guest/make-image.sh arm64

check-guest-arm64: deb-arm64
	tests/guest/check-guest.sh --arch arm64

guest-shell-arm64: guest-image-arm64
	set -e; img=$$(scripts/guest/make-image.sh arm64); kver=$$(cat $$img/kver); \
	mkdir -p $(GUEST_BUILD)/shell-arm64; rm -f $(GUEST_BUILD)/shell-arm64/disk.qcow2; \
	qemu-img create -q -f qcow2 -F raw -b $$img/root.img $(GUEST_BUILD)/shell-arm64/disk.qcow2; \
	GUEST_ARCH=arm64 scripts/guest/run-guest.sh --shell $(GUEST_BUILD)/shell-arm64/disk.qcow2 \
		$$img/boot/vmlinuz-$$kver $$img/boot/initrd.img-$$kver

# In make check: 4 minutes warm on an idle 2-core machine, 11 at a load
# average of 7 (tests/guest/README.md has the measurements).
CHECK_SUITES += check-guest@deb

# The arm64 guest, in make check-all: 170 to 347 s warm on the shared 2-vCPU
# machine (the DKMS build under TCG 115 to 192 s of it), and its image 464 s
# cold, which kept make check from a cold cache above an hour
# (tests/guest/README.md). make check cross-builds the same packages and runs
# lintian on them (lintian-arm64), and boots the module on arm64 (vm-check-arm64).
CHECK_ALL_SUITES += check-guest-arm64@deb-arm64

# make check-all (scripts/make/vm.mk: make check on the whole VM matrix) runs
# the kernel-upgrade scenario too.
CHECK_ALL_SUITES += check-guest-upgrade@deb

.PHONY: guest-image check-guest check-guest-upgrade guest-shell guest-image-arm64 check-guest-arm64 \
	guest-shell-arm64
