# SPDX-License-Identifier: GPL-2.0
# The system-call fuzzer (issue 26): random opens, seeks, reads of every
# shape into memory of every kind, splice, sendfile, ioctls, mmap, poll,
# writes and forks on /dev/guac, every byte and every result checked against
# the stream and the device's contract (docs/device.md). A new seed each run,
# named in the test line: `guac-vmtest sysfuzz SEED SECONDS THREADS` repeats
# each thread's sequence of calls.

SYSFUZZ_SECONDS=${SYSFUZZ_SECONDS:-10}
seed=$(( $(date +%s) % 1000000 ))
guac_loaded || check "insmod for the system-call fuzzer" guac_load
check "sysfuzz seed $seed: 4 threads, ${SYSFUZZ_SECONDS} s of random calls on /dev/guac, every byte and result as documented" \
	guac-vmtest sysfuzz "$seed" "$SYSFUZZ_SECONDS" 4
