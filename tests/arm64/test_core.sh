#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The core's cmocka suite (tests/userspace/lib/test_core.c) built for aarch64
# ($GUAC_TEST_CORE, make check-user-arm64), run under $GUAC_RUN
# (qemu-aarch64-static on amd64; empty on arm64) with NEON required: the
# published vectors, NEON against the portable implementation on thousands of
# (offset, length) pairs near the 2^32 and 2^64 wraps, the step function
# alone, and the feature masks. A dynamic binary: under qemu, the cross libc
# (/usr/aarch64-linux-gnu) loads it and $ARM64_SYSROOT has libcmocka.
set -u
test_core=${GUAC_TEST_CORE:-build/arm64/userspace/tests/test_core}
GUAC_RUN=${GUAC_RUN-qemu-aarch64-static}

if [ -n "$GUAC_RUN" ]; then
	QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
	export QEMU_LD_PREFIX
	if [ -n "${ARM64_SYSROOT:-}" ]; then
		LD_LIBRARY_PATH=$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
	fi
fi
GUAC_TEST_REQUIRE=neon exec $GUAC_RUN "$test_core"
