# SPDX-License-Identifier: GPL-2.0
#
# The test kernels (Debian's linux-source, built once into /var/cache/guacrng)
# and the suites that run on them, through the VM harness of scripts/vm/:
#   debug   gcc; KUnit, KASAN, lockdep, kmemleak, UBSAN, fail_usercopy...
#   kcsan   clang (LLVM=1); KUnit, KCSAN, lockdep (KCSAN excludes KASAN)
#
#   make debug-kernel   build (or find cached) the debug kernel
#   make kcsan-kernel   build (or find cached) the kcsan kernel
#   make kunit          tests/kunit/ suites on both kernels, every case reported
#   make check-debug    the VM scenarios plus tests/debug/ under the debug checkers
#   make check-kcsan    the stress scenarios of tests/debug/stress/ under KCSAN

debug-kernel: deps
	scripts/kernel/build-kernel.sh >/dev/null

kcsan-kernel: deps
	scripts/kernel/build-kernel.sh --variant kcsan >/dev/null

kunit: deps vm-tools
	scripts/kernel/run-debug.sh kunit
	scripts/kernel/run-debug.sh --variant kcsan kunit

check-debug: deps vm-tools
	scripts/kernel/run-debug.sh check

check-kcsan: deps vm-tools
	scripts/kernel/run-debug.sh --variant kcsan check

check-suites: kunit check-debug check-kcsan

.PHONY: debug-kernel kcsan-kernel kunit check-debug check-kcsan
