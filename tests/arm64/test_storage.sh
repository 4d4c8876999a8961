#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The storage cmocka suites of tests/userspace/storage/ built for aarch64 by
# make check-user-arm64, run under qemu-aarch64 (natively on arm64):
# verification, read errors and the diagnosis, whose misdirection sweep runs
# at NEON's 4-lane width on arm64 (x86-64 has its own 8- and 16-lane ones).
# Fails if any fails.
set -u
. "$(dirname "$0")/emu.sh"

# test_verify runs guac ($GUAC) itself: through the emulator, a wrapper (and
# its memory bounds would measure the emulator: GUAC_TEST_EMULATED skips them).
if [ -n "$GUAC_RUN" ]; then
	wrapper=$(mktemp)
	trap 'rm -f "$wrapper"' EXIT
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$GUAC_RUN" "$(realpath "${GUAC:-build/arm64/guac}")" >"$wrapper"
	chmod +x "$wrapper"
	GUAC=$wrapper
	GUAC_TEST_EMULATED=1
	export GUAC GUAC_TEST_EMULATED
fi

status=0
for t in test_diag test_diag_origins test_verify test_verify_eio; do
	echo "--- $t"
	run_arm64 "$GUAC_TEST_DIR/$t" || status=1
done
exit $status
