# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The shared core must build with clang as well as GCC (the SIMD steps use no
# GCC-only builtin): the userspace library and tool built with clang into
# build/clang/, with the same -Wall -Wextra -Werror, and the core's cmocka
# suite run against that library.

CLANG_BUILD := $(BUILD)/clang

check-clang: deps
	$(MAKE) -C tools/userspace O=$(CLANG_BUILD) CC=clang
	$(MAKE) -C tests/userspace O=$(CLANG_BUILD) CC=clang $(CLANG_BUILD)/tests/test_core
	TESTS=$(CLANG_BUILD)/tests/test_core scripts/run-suites.sh clang

CHECK_SUITES += check-clang

.PHONY: check-clang
