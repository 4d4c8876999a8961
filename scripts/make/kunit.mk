# SPDX-License-Identifier: GPL-2.0
#
# The test kernels (Debian's linux-source, built once into /var/cache/guacrng)
# and the suites that run on them, through the VM harness of scripts/vm/:
#   debug   gcc; KUnit, KASAN, lockdep, kmemleak, UBSAN, fail_usercopy...
#   kcsan   clang (LLVM=1); KUnit, KCSAN, lockdep (KCSAN excludes KASAN)
#   arm64   gcc, cross-built (ARCH=arm64); KUnit, lockdep, might-sleep, in
#           qemu-system-aarch64 -M virt (Debian's arm64 kernels have no KUnit)
#
#   make debug-kernel   build (or find cached) the debug kernel
#   make kcsan-kernel   build (or find cached) the kcsan kernel
#   make arm64-kernel   build (or find cached) the arm64 kernel
#   make kunit          tests/kunit/ suites on the debug kernel, every case reported
#   make kunit-kcsan    the same on the kcsan kernel
#   make check-debug    the VM scenarios plus tests/debug/ under the debug checkers
#   make check-kcsan    the stress scenarios of tests/debug/stress/ under KCSAN
#   make check-kunit-arm64  tests/kunit/ suites on the arm64 kernel: -cpu max
#                       (NEON, RNDR/RNDRRS), then -cpu cortex-a57 (NEON, no
#                       RNDR: the real-instruction cases skip)

debug-kernel: deps
	scripts/kernel/build-kernel.sh >/dev/null

kcsan-kernel: deps
	scripts/kernel/build-kernel.sh --variant kcsan >/dev/null

arm64-kernel: deps
	scripts/kernel/build-kernel.sh --variant arm64 >/dev/null

kunit: deps vm-tools
	scripts/kernel/run-debug.sh kunit

kunit-kcsan: deps vm-tools
	scripts/kernel/run-debug.sh --variant kcsan kunit

check-debug: deps vm-tools
	scripts/kernel/run-debug.sh check

check-kcsan: deps vm-tools
	scripts/kernel/run-debug.sh --variant kcsan check

# guac-arm64 (arm64.mk): the guest's aarch64 guac and guac-vmtest. In make
# check: warm, both runs take 12 s; cold, the kernel's build adds 192 s
# (-j2, 2026-11-26).
check-kunit-arm64: deps guac-arm64
	VM_CPU= scripts/kernel/run-debug.sh --variant arm64 kunit
	VM_CPU=cortex-a57 scripts/kernel/run-debug.sh --variant arm64 kunit

# make check starts with the test kernels, each build a suite of its own (a
# second on a warm cache; cold, its time is in the summary), and each in the
# group of the suites that boot it, listed right after it: they start as soon
# as it is built, never before (and a kernel's suites build the module into
# one build/vm/LABEL). Cold, the debug kernel and its suites are the longest
# chain (about 26 minutes on 2 vCPUs), so they go first.
# The KCSAN kernel's suites are make check-all's: its build is the costliest
# of make check's cold start (about 14 minutes of both CPUs, docs/testing.md);
# the debug kernel's (KASAN, lockdep, UBSAN) stay, and check-clang builds the
# module with clang.
CHECK_FIRST_SUITES += debug-kernel@debug kunit@debug check-debug@debug
CHECK_FIRST_SUITES += arm64-kernel@arm64 check-kunit-arm64@arm64
CHECK_ALL_SUITES += kcsan-kernel@kcsan kunit-kcsan@kcsan check-kcsan@kcsan

.PHONY: debug-kernel kcsan-kernel arm64-kernel kunit kunit-kcsan check-debug check-kcsan check-kunit-arm64
