# SPDX-License-Identifier: GPL-2.0
#
# The debug test kernel (Debian's linux-source, KUnit, KASAN, lockdep,
# kmemleak, UBSAN, fail_usercopy...; built once into /var/cache/guacrng) and
# the suites that run on it, through the VM harness of scripts/vm/:
#
#   make debug-kernel   build (or find cached) the test kernel
#   make kunit          tests/kunit/ suites, every case reported
#   make check-debug    the VM scenarios plus tests/debug/ under the checkers

debug-kernel: deps
	scripts/kernel/build-kernel.sh >/dev/null

kunit: deps vm-tools
	scripts/kernel/run-debug.sh kunit

check-debug: deps vm-tools
	scripts/kernel/run-debug.sh check

check-suites: kunit check-debug

.PHONY: debug-kernel kunit check-debug
