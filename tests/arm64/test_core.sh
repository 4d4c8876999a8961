#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The core's cmocka suite (tests/userspace/lib/test_core.c) built for aarch64
# by make check-user-arm64, run under qemu-aarch64 (natively on arm64) with
# NEON required: the published vectors, NEON against the portable
# implementation on thousands of (offset, length) pairs near the 2^32 and
# 2^64 wraps, the step function alone, and the feature masks.
set -u
. "$(dirname "$0")/emu.sh"

GUAC_TEST_REQUIRE=neon
export GUAC_TEST_REQUIRE
run_arm64 "$GUAC_TEST_DIR/test_core"
