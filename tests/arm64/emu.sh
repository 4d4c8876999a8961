# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Sourced by tests/arm64/test_*.sh: run_arm64 PROGRAM [ARGS...] runs an
# aarch64 program built by make check-user-arm64 under $GUAC_RUN
# (qemu-aarch64-static on amd64; empty on an arm64 host, where it runs
# natively). The cmocka programs are dynamic: under qemu the cross libc
# (/usr/aarch64-linux-gnu) loads them and $ARM64_SYSROOT has libcmocka.

GUAC_RUN=${GUAC_RUN-qemu-aarch64-static}
# The cmocka programs of tests/userspace built for aarch64.
GUAC_TEST_DIR=${GUAC_TEST_DIR:-build/arm64/userspace/tests}

if [ -n "$GUAC_RUN" ]; then
	QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
	export QEMU_LD_PREFIX
	if [ -n "${ARM64_SYSROOT:-}" ]; then
		LD_LIBRARY_PATH=$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
	fi
fi

run_arm64() {
	$GUAC_RUN "$@"
}
