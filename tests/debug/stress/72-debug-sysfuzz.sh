# SPDX-License-Identifier: GPL-2.0
# The system-call fuzzer under the checkers (issue 26), while /dev/hwrng is
# read and rng_current switches between every hwrng, "none" and the best one;
# then /dev/hwrng readers and the switching go on while the module unloads
# and loads. The host fails the run on any KASAN, lockdep, UBSAN, KCSAN,
# might-sleep or FPU report; guac-vmtest fails it on any wrong byte or result.

SYSFUZZ_SECONDS=${SYSFUZZ_SECONDS:-15}
RNG=/sys/class/misc/hw_random
seed=$(( $(date +%s) % 1000000 ))

guac_loaded || check "insmod for the fuzzer" guac_load

# Write every available hwrng, "none" and "" (the best) to rng_current, in
# turn, until $1 exists; print how many writes the core took.
rng_switcher() {
	local n=0 r

	while [ ! -e "$1" ]; do
		for r in $(cat $RNG/rng_available 2>/dev/null) none ""; do
			echo "$r" >$RNG/rng_current 2>/dev/null && n=$((n + 1))
			sleep 0.05
		done
	done
	echo "$n"
}

rm -f /tmp/fuzz.done
hwrng_reader /tmp/fuzz.done >/tmp/fuzz-hwrng1.count &
hwrng_reader /tmp/fuzz.done >/tmp/fuzz-hwrng2.count &
rng_switcher /tmp/fuzz.done >/tmp/fuzz-switch.count &
check "sysfuzz seed $seed: 4 threads, ${SYSFUZZ_SECONDS} s on /dev/guac while /dev/hwrng is read and rng_current switches" \
	guac-vmtest sysfuzz "$seed" "$SYSFUZZ_SECONDS" 4
touch /tmp/fuzz.done
wait
check "rng_current took $(cat /tmp/fuzz-switch.count) switches; /dev/hwrng reads gave data $(cat /tmp/fuzz-hwrng1.count) + $(cat /tmp/fuzz-hwrng2.count) times" \
	test "$(cat /tmp/fuzz-switch.count)" -gt 0

# Unloads and loads under the same readers and switching.
rm -f /tmp/fuzz.done
hwrng_reader /tmp/fuzz.done >/dev/null &
hwrng_reader /tmp/fuzz.done >/dev/null &
rng_switcher /tmp/fuzz.done >/dev/null &
rounds=0
for i in 1 2 3 4; do
	guac_unload && guac_load && rounds=$((rounds + 1))
	sleep 0.3
done
touch /tmp/fuzz.done
wait
check "4 rmmod/insmod rounds while /dev/hwrng is read and rng_current switches" test "$rounds" = 4
echo "" >$RNG/rng_current 2>/dev/null
check_bytes "bytes right after the rounds" 4096 \
	"dd if=/dev/guac bs=4096 count=1 status=none" "guac gen --length 4096"
