# SPDX-License-Identifier: GPL-2.0
#
# AVX-512 and RDSEED executed inside a running kernel. QEMU's TCG has neither
# and the host's CPU varies, so this suite boots its kernels in Bochs (Debian
# 12's bochs 2.7, cpu model corei7_skylake_x, unpacked into the cache, never
# installed): scripts/bochs/check.sh, scenarios in tests/bochs/.
#
#   make check-avx512                      both parts: the KUnit suites in the
#                                          kcsan test kernel with impl=avx512,
#                                          and the module on Debian's 6.12
#   make check-avx512 BOCHS_PARTS=module   one part (kunit or module)

BOCHS_PARTS ?=

check-avx512: deps vm-tools
	scripts/bochs/check.sh $(BOCHS_PARTS)

CHECK_SUITES += check-avx512

.PHONY: check-avx512
