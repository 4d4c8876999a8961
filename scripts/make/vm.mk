# SPDX-License-Identifier: GPL-2.0
#
# The QEMU harness: Debian's kernels booted under TCG, running the scenarios
# in tests/vm/ (see tests/vm/README.md). The series: 5.10 (bullseye), 6.1,
# 6.12, 6.12-rt (bookworm), latest (trixie-backports), next (sid).
#
#   make vm-check                   what make check runs: the full suite on 6.1,
#                                   6.12 and latest, the smoke set on 5.10 and
#                                   6.12-rt (scripts/vm/lib.sh, GUAC_CHECK_KERNELS)
#   make vm-check VM_KERNELS="5.10 latest"    the full suite on those
#   make vm-check VM_KERNELS=5.10:smoke       the smoke set on one
#   make vm-check VM_KERNELS=next   sid's kernel: by name only, never in make check
#   make check-all                  make check with the full suite on every
#                                   series but next (VM_MATRIX)
#   make vm-shell VM_KERNELS=6.12   boot to a shell with the module and tools
#   make demo                       scripts/demo.sh, from a fresh machine up
#
# arm64 (issue 25), the same scripts and scenarios with GUAC_ARCH=arm64:
# Debian's arm64 kernels in qemu-system-aarch64 -M virt -cpu max under TCG,
# the module cross-built, the tools from make guac-arm64 (arm64.mk):
#   make vm-check-arm64             what make check runs: the full suite on
#                                   6.1 and 6.12, and 6.12 on a CPU without
#                                   RNDR (6.12:nornd, -cpu neoverse-n1)
#   make vm-check-arm64 VM_KERNELS_ARM64="5.10 latest:smoke"
#   make vm-shell-arm64 VM_KERNELS_ARM64=6.12
#   make check-all                  adds 5.10 and latest (VM_ARM64_MATRIX)

# Empty: check.sh's default, the make check set.
VM_KERNELS ?=
VM_MATRIX  := 5.10 6.1 6.12 6.12-rt latest
# Empty: check.sh's default for GUAC_ARCH=arm64 (lib.sh).
VM_KERNELS_ARM64 ?=
VM_ARM64_MATRIX  := 5.10 6.1 6.12 latest 6.12:nornd
VM_BUILD   := $(BUILD)/vm
VM_USER    := $(VM_BUILD)/userspace
VMTEST_DIR := $(TOP)/tests/vm/vmtest
VMTEST_SRCS := $(wildcard $(VMTEST_DIR)/*.c)

# The guest has no shared libraries: guac and guac-vmtest are static.
vm-guac:
	$(MAKE) -C tools/userspace O=$(VM_USER) CC="$(CC) -static"

# Linked again only when a source or the library changed, and put in place by
# rename: make check's suites run side by side, each asking for it.
$(VM_BUILD)/guac-vmtest: $(VMTEST_SRCS) $(VMTEST_DIR)/vmtest.h vm-guac
	@if [ ! -e $@ ] || [ -n "$$(find $(VMTEST_SRCS) $(VMTEST_DIR)/vmtest.h $(VM_USER)/util.o \
		$(VM_USER)/libguac.a -newer $@ 2>/dev/null)" ]; then \
		echo "linking $@"; \
		$(CC) -static -O2 -g -std=c11 -Wall -Wextra -Werror -pthread \
			-I$(TOP)/tools/userspace/include -I$(TOP)/include -I$(TOP)/tools/userspace/lib \
			-o $@.$$$$ $(VMTEST_SRCS) $(VM_USER)/util.o $(VM_USER)/libguac.a && \
		mv -f $@.$$$$ $@; \
	fi

vm-tools: vm-guac $(VM_BUILD)/guac-vmtest

# check-host's test_device_doc.sh asks it for docs/device.md's edges table.
check-host: $(VM_BUILD)/guac-vmtest

vm-check: deps vm-tools
	scripts/vm/check.sh $(VM_KERNELS)

vm-shell: deps vm-tools
	set -e; for s in $(or $(VM_KERNELS),6.12); do \
		kver=$$(scripts/vm/fetch-kernel.sh $${s%:*}); \
		scripts/vm/build-module.sh $$kver >/dev/null; \
		scripts/vm/make-initramfs.sh $$kver >/dev/null; \
		scripts/vm/run-kernel.sh --run shell $$kver; \
	done

vm-check-arm64: deps guac-arm64
	GUAC_ARCH=arm64 scripts/vm/check.sh $(VM_KERNELS_ARM64)

vm-shell-arm64: deps guac-arm64
	set -e; export GUAC_ARCH=arm64; for s in $(or $(VM_KERNELS_ARM64),6.12); do \
		kver=$$(scripts/vm/fetch-kernel.sh $${s%:*}); \
		scripts/vm/build-module.sh $$kver >/dev/null; \
		scripts/vm/make-initramfs.sh $$kver >/dev/null; \
		scripts/vm/run-kernel.sh --run shell $$kver; \
	done

demo:
	tests/host/host-guard.sh record $(BUILD)/host-state-demo
	scripts/demo.sh
	tests/host/host-guard.sh verify $(BUILD)/host-state-demo

# The harness's retry of a boot that died before guacrng loaded, on a real
# kernel (tests/vm/test_boot_retry.sh: two or three boots of 6.12).
check-vm-retry: deps vm-tools
	TESTS=$(TOP)/tests/vm/test_boot_retry.sh scripts/run-suites.sh vm-retry

# Issue 35, F7 with two running kernels: this host and Debian's 6.12 in TCG
# write shards of "one" local file, of a cloned ext4 image and of a file
# shared over 9p (tests/vm/test_two_hosts.sh: one boot, about a minute).
check-vm-twohosts: deps vm-tools
	TESTS=$(TOP)/tests/vm/test_two_hosts.sh scripts/run-suites.sh vm-twohosts

# Issue 37, item 4 (tests/vm/storage-crash/, about 2 minutes a kernel): fills
# replayed from dm-log-writes' log to every entry of it, a lost and a torn
# write named: a --sync fill checked by guac verify (10-), crash-safe fills by
# verify --after-crash from their journal (20-: 1 sequential job, 2 random
# passes of 4 jobs); and a crash-safe fill through dm-flakey switched to
# drop_writes, then killed: LOST exactly where the journal's flushed blocks
# lack the new data. On Debian's 6.12 in make check, on the whole matrix in
# check-all.
# Its own build directory: it runs beside vm-check-6.12.
# check-all adds the other kernels as a suite of their own, in a directory of
# its own (the two may run side by side).
CRASH_KERNELS ?= 6.12
CRASH_BUILD ?= $(BUILD)/vm-crash
check-crash: deps vm-tools
	GUAC_VM_GUAC=$(VM_USER)/guac GUAC_VM_VMTEST=$(VM_BUILD)/guac-vmtest \
	GUAC_VM_BUILD=$(CRASH_BUILD) GUAC_VM_SCENARIOS=$(TOP)/tests/vm/storage-crash \
	GUAC_VM_APPEND=guacvm.bench=0 scripts/vm/check.sh $(CRASH_KERNELS)

check-crash-all:
	$(MAKE) check-crash CRASH_KERNELS="$(filter-out 6.12,$(VM_MATRIX))" \
		CRASH_BUILD=$(BUILD)/vm-crash-all

# make check runs the x86 matrix as one suite per kernel (vm-check-6.1,
# vm-check-5.10-smoke, ...: scripts/vm/lib.sh's GUAC_CHECK_KERNELS, ":" made
# "-"), so that scripts/check-suites.sh runs them side by side with the rest:
# each kernel builds and boots in build/vm/KVER of its own, and build-module.sh
# takes a lock per kernel for the suites that share one (6.12).
VM_CHECK_SERIES := $(shell GUAC_TOP=$(TOP) sh -c '. $(TOP)/scripts/vm/lib.sh && echo "$$GUAC_CHECK_KERNELS"')
vm-check-%: deps vm-tools
	scripts/vm/check.sh $(subst -smoke,:smoke,$*)

# Groups (two suites of one group never run at once): arm64 relinks
# build/arm64/.
CHECK_SUITES += $(addprefix vm-check-,$(subst :,-,$(VM_CHECK_SERIES))) check-vm-retry \
	check-vm-twohosts check-crash
CHECK_SUITES += vm-check-arm64@arm64
# check-all: the smoke kernels' full suites too.
CHECK_ALL_SUITES += vm-check-5.10 vm-check-6.12-rt check-crash-all

# Everything make check runs, with the full VM suite on the whole matrix.
check-all:
	$(MAKE) check VM_KERNELS="$(VM_MATRIX)" VM_KERNELS_ARM64="$(VM_ARM64_MATRIX)" \
		CHECK_EXTRA="$(CHECK_ALL_SUITES)" CHECK_KERNELS_EXTRA="$(CHECK_ALL_KERNELS)"

.PHONY: vm-guac vm-tools vm-check check-vm-retry check-vm-twohosts check-crash check-crash-all vm-shell demo check-all vm-check-arm64 vm-shell-arm64
