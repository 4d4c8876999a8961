# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac on arm64 (issue 25): the userspace library, tool and tests built for
# aarch64. tools/userspace/Makefile picks the core's implementations by the
# compiler's target ($(CC) -dumpmachine): on an arm64 host plain `make` builds
# the NEON guac; these targets cross-build from amd64.
#
#   make guac-arm64        static aarch64 binaries for the arm64 VM guest:
#                            build/arm64/guac         the tool (libcrypto linked in)
#                            build/arm64/guac-vmtest  tests/vm/vmtest/ (as vm.mk's for x86)
#                          objects and libguac.a in build/arm64/userspace/
#   make check-user-arm64  tests/arm64/: the cmocka programs of tests/userspace built
#                          for aarch64 (test_core with NEON required, the storage
#                          ones) and the tool's suite on build/arm64/guac; under
#                          qemu-aarch64-static on amd64, natively on arm64 (part of
#                          make check)
#
# On amd64: aarch64-linux-gnu-gcc and qemu-aarch64-static (scripts/install-deps.sh);
# libcrypto and libblkid (their .a for the static tool) and cmocka (shared only, for the
# tests) from Debian's arm64 .debs, which scripts/arm64/sysroot.sh fetches with
# the private apt and unpacks into a sysroot in the cache (nothing is installed
# and no architecture is added on the host). On arm64: the native cc and the
# installed libssl-dev, libblkid-dev and libcmocka-dev.

ARM64_BUILD := $(BUILD)/arm64
ARM64_USER  := $(ARM64_BUILD)/userspace
ARM64_VMTEST_SRCS := $(wildcard $(TOP)/tests/vm/vmtest/*.c)

ifeq ($(shell uname -m),aarch64)
ARM64_CC  ?= cc
ARM64_RUN :=
# Shell: sets inc and lib, the sysroot's -I and -L flags (none natively).
ARM64_FLAGS := inc=; lib=; sr=
else
ARM64_CC  ?= aarch64-linux-gnu-gcc
ARM64_RUN := qemu-aarch64-static
ARM64_FLAGS := sr=$$($(TOP)/scripts/arm64/sysroot.sh) && \
	inc="-I$$sr/usr/include -I$$sr/usr/include/aarch64-linux-gnu" && \
	lib="-L$$sr/usr/lib/aarch64-linux-gnu"
endif

guac-arm64:
	$(ARM64_FLAGS) && \
	$(MAKE) -C tools/userspace O=$(ARM64_USER) CC="$(ARM64_CC) -static" \
		CPPFLAGS="$$inc" LDFLAGS="$$lib"
	cp $(ARM64_USER)/guac $(ARM64_BUILD)/guac
	$(ARM64_CC) -static -O2 -g -std=c11 -Wall -Wextra -Werror -pthread \
		-I$(TOP)/tools/userspace/include -I$(TOP)/include -I$(TOP)/tools/userspace/lib \
		-o $(ARM64_BUILD)/guac-vmtest $(ARM64_VMTEST_SRCS) $(ARM64_USER)/util.o \
		$(ARM64_USER)/libguac.a

# The cmocka programs of tests/userspace (test_core, the storage ones) link
# cmocka, a shared library: dynamic, with the sysroot's libraries and the
# cross libc's loader (QEMU_LD_PREFIX) at run time (tests/arm64/emu.sh).
# guac-arm64 a prerequisite, not a recursive make: vm-check-arm64 (vm.mk)
# needs it too, and one make builds it once (make check runs deps first).
check-user-arm64: deps guac-arm64
	$(ARM64_FLAGS) && \
	$(MAKE) -C tests/userspace O=$(ARM64_USER) CC="$(ARM64_CC) $$inc" LDFLAGS="$$lib" all && \
	GUAC=$(ARM64_BUILD)/guac GUAC_RUN="$(ARM64_RUN)" GUAC_TEST_DIR=$(ARM64_USER)/tests \
		ARM64_SYSROOT="$$sr" TESTS="$(wildcard $(TOP)/tests/arm64/test_*.sh)" \
		scripts/run-suites.sh userspace-arm64

CHECK_SUITES += check-user-arm64@arm64

.PHONY: guac-arm64 check-user-arm64
