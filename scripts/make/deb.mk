# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages (debian/): guacrng-dkms and guacrng-tools.
#
#   make deb         dpkg-buildpackage in a clean copy of the tree; the .debs,
#                    the source package and the .changes in build/deb/
#   make lintian     lintian on them (in a bookworm chroot), no warning allowed
#   make check-deb   the packages' host-side suite (tests/guest/test_deb.sh):
#                    lintian, their files, the DKMS kernel regex, the sources
#                    building against Debian's 6.1 and 6.12 headers, guac(1)
#   make deb-arm64   the arm64 packages, cross-built (dpkg-buildpackage
#                    -aarm64 -Pcross,nocheck in the bookworm chroot, where
#                    arm64 is a foreign architecture), in build/deb-arm64/
#   make lintian-arm64  lintian on them, as make lintian

deb: deps
	scripts/guest/build-deb.sh $(BUILD)/deb

lintian: deb
	scripts/guest/lintian.sh

deb-arm64: deps
	scripts/guest/build-deb.sh --arch arm64 $(BUILD)/deb-arm64

lintian-arm64: deb-arm64
	scripts/guest/lintian.sh $$(ls $(BUILD)/deb-arm64/guacrng_*_arm64.changes)

check-deb: deb
	TESTS=$(TOP)/tests/guest/test_deb.sh scripts/run-suites.sh deb

# deb: build/deb, remade by each of its suites.
CHECK_SUITES += check-deb@deb
# The arm64 packages' cross build and lintian: 18 s warm (make
# check-guest-arm64, in make check-all, installs them in an arm64 guest).
CHECK_SUITES += lintian-arm64@deb-arm64

.PHONY: deb lintian check-deb deb-arm64 lintian-arm64
