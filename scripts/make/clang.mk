# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The shared core must build with clang as well as GCC (the SIMD steps use no
# GCC-only builtin): the userspace library and tool built with clang into
# build/clang/, with the same -Wall -Wextra -Werror, and the core's cmocka
# suite run against that library. The module too: the module users install,
# its test variant and its KUnit build, compiled with clang (LLVM=1) and W=1,
# no warning allowed, against Debian's 6.12 source configured for clang and
# prepared for external modules (build-kernel.sh --variant clang: seconds,
# not a kernel). Debian's own headers name gcc-12 and its flags, which clang
# refuses. That tree has no Module.symvers, so modpost only warns about the
# kernel's symbols (KBUILD_MODPOST_WARN): linking against a real kernel is
# what the gcc builds of every VM suite check.

CLANG_BUILD := $(BUILD)/clang

check-clang: deps
	$(MAKE) -C tools/userspace O=$(CLANG_BUILD) CC=clang
	$(MAKE) -C tests/userspace O=$(CLANG_BUILD) CC=clang $(CLANG_BUILD)/tests/test_core
	TESTS=$(CLANG_BUILD)/tests/test_core scripts/run-suites.sh clang
	set -e; kdir=$$(scripts/kernel/build-kernel.sh --variant clang); \
	kver=$$(make -s --no-print-directory -C "$$kdir" kernelrelease); \
	for kunit in n y; do \
		GUAC_KDIR=$$kdir GUAC_VM_BUILD=$(CLANG_BUILD)/module-kunit-$$kunit \
		GUAC_MODULE_MAKEFLAGS="LLVM=1 KBUILD_MODPOST_WARN=1 GUAC_KUNIT=$$kunit" \
			scripts/vm/build-module.sh "$$kver"; \
	done; \
	echo "clang-module: PASS, guacrng.ko, its test and KUnit variants with clang and W=1 against $$kver"

CHECK_SUITES += check-clang
# The prefetch prepares its tree first (kunit.mk adds the kernels after it).
CHECK_KERNELS += clang

.PHONY: check-clang
