# SPDX-License-Identifier: GPL-2.0
#
# The QEMU harness: Debian's 6.1 and 6.12 kernels booted under TCG, running
# the scenarios in tests/vm/ (see tests/vm/README.md).
#
#   make vm-check                   both kernels
#   make vm-check VM_KERNELS=6.12   one of them (6.1 or 6.12)
#   make vm-shell VM_KERNELS=6.12   boot to a shell with the module and tools
#   make demo                       scripts/demo.sh, from a fresh machine up

VM_KERNELS ?= 6.1 6.12
VM_BUILD   := $(BUILD)/vm
VM_USER    := $(VM_BUILD)/userspace
VMTEST_DIR := $(TOP)/tests/vm/vmtest
VMTEST_SRCS := $(wildcard $(VMTEST_DIR)/*.c)

# The guest has no shared libraries: guac and guac-vmtest are static.
vm-guac:
	$(MAKE) -C tools/userspace O=$(VM_USER) CC="$(CC) -static"

$(VM_BUILD)/guac-vmtest: $(VMTEST_SRCS) $(VMTEST_DIR)/vmtest.h vm-guac
	$(CC) -static -O2 -g -std=c11 -Wall -Wextra -Werror -pthread \
		-I$(TOP)/tools/userspace/include -I$(TOP)/include -I$(TOP)/tools/userspace \
		-o $@ $(VMTEST_SRCS) $(VM_USER)/util.o $(VM_USER)/libguac.a

vm-tools: vm-guac $(VM_BUILD)/guac-vmtest

vm-check: deps vm-tools
	scripts/vm/check.sh $(VM_KERNELS)

vm-shell: deps vm-tools
	set -e; for s in $(VM_KERNELS); do \
		kver=$$(scripts/vm/fetch-kernel.sh $$s); \
		scripts/vm/build-module.sh $$kver >/dev/null; \
		scripts/vm/make-initramfs.sh $$kver >/dev/null; \
		scripts/vm/run-kernel.sh --run shell $$kver; \
	done

demo:
	tests/host/host-guard.sh record $(BUILD)/host-state-demo
	scripts/demo.sh
	tests/host/host-guard.sh verify $(BUILD)/host-state-demo

check-suites: vm-check

.PHONY: vm-guac vm-tools vm-check vm-shell demo
