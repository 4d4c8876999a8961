# SPDX-License-Identifier: GPL-2.0
#
# AVX-512 and RDSEED executed inside a running kernel. QEMU's TCG has neither
# and the host's CPU varies, so this suite boots its kernels in Bochs (Debian
# 12's bochs 2.7, cpu model corei7_skylake_x, unpacked into the cache, never
# installed): scripts/bochs/check.sh, scenarios in tests/bochs/.
#
#   make check-avx512-module               make check's part (check-all adds
#                                          check-avx512-kunit)
#   make check-avx512                      both parts: the KUnit suites in the
#                                          kcsan test kernel with impl=avx512,
#                                          and the module on Debian's 6.12
#   make check-avx512 BOCHS_PARTS=module   one part (kunit or module)

BOCHS_PARTS ?=

check-avx512: deps vm-tools
	scripts/bochs/check.sh $(BOCHS_PARTS)

# make check boots the module users install (every impl=, the hwrng on
# RDSEED); the KUnit part, 570 s of Bochs since the hwrng's window and
# duplicate cases (which both QEMU test kernels run too), is check-all's.
check-avx512-module: deps vm-tools
	scripts/bochs/check.sh module

check-avx512-kunit: deps vm-tools
	scripts/bochs/check.sh kunit

CHECK_SUITES += check-avx512-module
CHECK_ALL_SUITES += check-avx512-kunit

.PHONY: check-avx512 check-avx512-module check-avx512-kunit
