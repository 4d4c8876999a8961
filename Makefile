# SPDX-License-Identifier: GPL-2.0
#
# guacrng: kernel module, userspace tools and their test suites.
#
#   make              build the module for the running kernel (KDIR=...) and the tools
#   make demo         end to end in a VM: install deps, build, boot a Debian kernel, show it
#   make check        every test suite (userspace, VM on Debian 6.1 and 6.12, KUnit, debug kernel)
#   make install      modules_install + depmod (run as root on the target machine)
#   make guac-arm64   static aarch64 guac and guac-vmtest in build/arm64/ (cross-built on amd64);
#                     make check-user-arm64 tests them under qemu-aarch64 (part of make check)
#   make vm-check-arm64  the VM suite on Debian's arm64 6.1 and 6.12 in qemu-system-aarch64
#                     (and 6.12 on a CPU without RNDR; part of make check; check-all adds
#                     5.10 and latest; scripts/make/vm.mk, tests/vm/README.md)

KDIR  ?= /lib/modules/$(shell uname -r)/build
TOP   := $(CURDIR)
BUILD := $(TOP)/build

all: module tools

module:
	$(MAKE) -C $(KDIR) M=$(TOP) modules

module-clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean

# The release the module is built for, as the kernel reports it (Debian's 6.1
# headers carry a different string in include/config/kernel.release).
KRELEASE = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h)

install: module
	$(MAKE) -C $(KDIR) M=$(TOP) KERNELRELEASE=$(KRELEASE) modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KRELEASE)

tools:
	$(MAKE) -C tools/userspace

deps:
	scripts/install-deps.sh

check-user: tools
	$(MAKE) -C tests/userspace run

# The house style, enforced: checkpatch --strict on every kernel source.
checkpatch: deps
	scripts/checkpatch.sh

# `make check` runs every suite of CHECK_SUITES (each fragment adds its own,
# in include order; the Makefile's three come last) through
# scripts/check-suites.sh: all of them even when one fails, then one summary
# of each suite's result, time and retried boots. They run between a record
# and a verify of the host's kernels and /boot: testing must not change what
# this machine boots. Meanwhile scripts/prefetch.sh fills the cache
# (downloads, chroots, the guest image) in the background while the suites
# compile; it never outlives make check.
#
# A suite is named NAME@GROUP when it shares what it builds with others of
# GROUP: scripts/check-suites.sh runs two suites at a time (GUAC_CHECK_JOBS),
# never two of one group. The tools all of them use are built first;
# CHECK_FIRST_SUITES start first (the test kernels' builds, at the suites'
# priority: GUAC_BUILD_NICE=0, each followed by the suites of its group that
# boot it). CHECK_KERNELS: what the prefetch prepares in the background (the
# clang tree).
HOST_STATE := $(BUILD)/host-state
PREFETCH   := $(BUILD)/prefetch.log
CHECK_FIRST_SUITES :=
CHECK_SUITES :=
CHECK_KERNELS :=
# make check-all adds these (the fragments fill them) after make check's own.
CHECK_ALL_SUITES :=
CHECK_ALL_KERNELS :=
CHECK_EXTRA ?=
CHECK_KERNELS_EXTRA ?=

check:
	tests/host/host-guard.sh record $(HOST_STATE)
	$(MAKE) --no-print-directory deps
	GUAC_PREFETCH_KERNELS="$(CHECK_KERNELS) $(CHECK_KERNELS_EXTRA)" scripts/prefetch.sh start $(PREFETCH)
	$(MAKE) --no-print-directory tools vm-tools
	GUAC_BUILD_NICE=0 MAKE="$(MAKE)" scripts/check-suites.sh $(CHECK_FIRST_SUITES) $(CHECK_SUITES) \
		$(CHECK_EXTRA) --last host-unchanged

# make check's last suite: the prefetch is done, and the host's kernels and
# /boot are as they were before make check.
host-unchanged:
	scripts/prefetch.sh wait $(PREFETCH)
	tests/host/host-guard.sh verify $(HOST_STATE)

# The suites alone, without the host guard and the prefetch.
check-suites: deps
	MAKE="$(MAKE)" scripts/check-suites.sh $(CHECK_FIRST_SUITES) $(CHECK_SUITES) $(CHECK_EXTRA)

# Host-side tests of the harness itself: the host guard, the triage of the
# KCSAN run's reports, docs/device.md's edges table against the VM suite's
# expectations (guac-vmtest, built by vm.mk, prints them), and the VM
# harness's retry of a boot that died before guacrng loaded.
check-host:
	TESTS="$(TOP)/tests/host/test_host_guard.sh $(TOP)/tests/debug/test_kcsan_triage.sh \
		$(TOP)/tests/host/test_device_doc.sh $(TOP)/tests/host/test_boot_fault.sh \
		$(TOP)/tests/host/test_check_suites.sh $(TOP)/tests/host/test_log_replay.sh" \
		scripts/run-suites.sh host

clean:
	rm -rf $(BUILD)
	-$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null

# Each suite's targets live in its own fragment.
include $(sort $(wildcard scripts/make/*.mk))
CHECK_SUITES += check-user@loop checkpatch check-host

.PHONY: all module module-clean install tools deps check-user checkpatch check check-suites check-host host-unchanged clean \
	guac-arm64 check-user-arm64
