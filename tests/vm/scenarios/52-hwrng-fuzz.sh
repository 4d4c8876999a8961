# SPDX-License-Identifier: GPL-2.0
# /dev/hwrng against the hw_random core's contract on this kernel (issue 26):
# guac-vmtest hwrng-fuzz, 2 threads for HWRNG_FUZZ_SECONDS, read, readv,
# pread, preadv, poll, lseek and write of every shape, blocking and
# O_NONBLOCK, interrupted by signals, with guacrng's hwrng current. The
# debug and KCSAN runs add rng_current switches and unloads
# (tests/debug/stress/72-debug-sysfuzz.sh).

HWRNG_FUZZ_SECONDS=${HWRNG_FUZZ_SECONDS:-5}
RNG=/sys/class/misc/hw_random
name=guacrng-$(guac_hwrng_insn)
seed=$(( $(date +%s) % 1000000 ))

guac_loaded || check "insmod for hwrng-fuzz" guac_load
echo "$name" >$RNG/rng_current
check "rng_current is $name" sh -c "cat $RNG/rng_current && grep -qx $name $RNG/rng_current"
check "hwrng-fuzz seed $seed: 2 threads, ${HWRNG_FUZZ_SECONDS} s on /dev/hwrng, every result as the hw_random core documents, at least 20 reads with data" \
	guac-vmtest hwrng-fuzz "$seed" "$HWRNG_FUZZ_SECONDS" 2 20
