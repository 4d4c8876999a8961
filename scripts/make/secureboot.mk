# SPDX-License-Identifier: GPL-2.0
#
# UEFI Secure Boot (tests/secureboot/, scripts/secureboot/; issue 23):
#
#   make secureboot-disk   the GPT disk (ESP with Debian's signed shim and
#                          grub, the guest's root), made once into the cache
#   make check-secureboot  the .debs of make deb in a Debian 12 guest booted
#                          through shim, grub and the signed kernel on OVMF's
#                          Secure Boot firmware: the DKMS key not enrolled
#                          (the install's instruction, modprobe refused, guac
#                          doctor), then enrolled in MokList (loaded at boot,
#                          guac doctor OK loaded and not, dpkg-reconfigure
#                          without the note, unsigned and other-key copies
#                          refused, modprobe); 6.12 with a MOK-signed module

secureboot-disk: deps
	scripts/secureboot/make-disk.sh

check-secureboot: deb vm-guac
	tests/secureboot/check-secureboot.sh

# In make check. Warm on 2 vCPUs (Intel Xeon, family 6 model 167), 61 test
# points: 204 s at a load average of 1.5 (2026-11-27); 346 s at 5 and 683 s
# at 9 before (docs/testing.md, "Secure Boot").
CHECK_SUITES += check-secureboot@deb

.PHONY: secureboot-disk check-secureboot
