# SPDX-License-Identifier: GPL-2.0
# The system-call fuzzer under the checkers (issue 26), while /dev/hwrng is
# fuzzed (guac-vmtest hwrng-fuzz: read, readv, pread, preadv, poll, lseek in
# every shape, blocking and O_NONBLOCK, interrupted by signals, each result
# checked against the hw_random core's contract) and rng_current switches
# between every hwrng, "none" and the best one, followed by two threads
# racing on one open of /dev/guac (sysfuzz-shared); then the same /dev/hwrng
# fuzzing and switching go on while the module unloads and loads. The host
# fails the run on any KASAN, lockdep, UBSAN, KCSAN, might-sleep or FPU
# report; guac-vmtest fails it on any wrong byte or result.

SYSFUZZ_SECONDS=${SYSFUZZ_SECONDS:-15}
# Reads that must return data in each phase, over both hwrng-fuzz threads.
HWRNG_MIN_READS=${HWRNG_MIN_READS:-20}
RNG=/sys/class/misc/hw_random
name=guacrng-$(guac_hwrng_insn)
seed=$(( $(date +%s) % 1000000 ))

guac_loaded || check "insmod for the fuzzer" guac_load
check "rng_available lists $name before the switching" \
	sh -c "cat $RNG/rng_available && grep -qw $name $RNG/rng_available"

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

# hwrng_fuzz PHASE SEED: guac-vmtest hwrng-fuzz, 2 threads, until
# /tmp/fuzz.done (at most 600 s); its summary in /tmp/hwrng-PHASE.out, its
# exit status in /tmp/hwrng-PHASE.status.
hwrng_fuzz() {
	guac-vmtest hwrng-fuzz "$2" 600 2 "$HWRNG_MIN_READS" /tmp/fuzz.done \
		>"/tmp/hwrng-$1.out" 2>&1
	echo $? >"/tmp/hwrng-$1.status"
}

# check_hwrng_fuzz PHASE DESCRIPTION: that run exited 0 (no violation, at
# least HWRNG_MIN_READS reads with data); its summary follows as comments.
check_hwrng_fuzz() {
	check "$2" sh -c "cat /tmp/hwrng-$1.out; exit \$(cat /tmp/hwrng-$1.status)"
}

rm -f /tmp/fuzz.done
hwrng_fuzz switch $((seed + 1)) &
rng_switcher /tmp/fuzz.done >/tmp/fuzz-switch.count &
check "sysfuzz seed $seed: 4 threads, ${SYSFUZZ_SECONDS} s on /dev/guac while /dev/hwrng is fuzzed and rng_current switches" \
	guac-vmtest sysfuzz "$seed" "$SYSFUZZ_SECONDS" 4
# One open shared: preads at explicit offsets against lseek, read and
# GET_INFO on the same file (its origin fixed), every byte checked.
check "sysfuzz-shared seed $seed: ${SYSFUZZ_SHARED_SECONDS:-10} s of pread vs lseek/read/GET_INFO on one open of /dev/guac" \
	guac-vmtest sysfuzz-shared "$seed" "${SYSFUZZ_SHARED_SECONDS:-10}"
touch /tmp/fuzz.done
wait
check_hwrng_fuzz switch "hwrng-fuzz seed $((seed + 1)) while rng_current switches: no violation, at least $HWRNG_MIN_READS reads with data"
check "rng_current took $(cat /tmp/fuzz-switch.count) switches during the sysfuzz run" \
	test "$(cat /tmp/fuzz-switch.count)" -gt 0

# Unloads and loads under the same fuzzing and switching.
rm -f /tmp/fuzz.done
hwrng_fuzz unload $((seed + 2)) &
rng_switcher /tmp/fuzz.done >/tmp/fuzz-switch.count &
rounds=0
for i in 1 2 3 4; do
	guac_unload && guac_load && rounds=$((rounds + 1))
	sleep 0.3
done
# The readers' last reads with guacrng back in place.
sleep 1
touch /tmp/fuzz.done
wait
check "4 rmmod/insmod rounds while /dev/hwrng is fuzzed and rng_current switches" test "$rounds" = 4
check_hwrng_fuzz unload "hwrng-fuzz seed $((seed + 2)) during the rounds: no violation, at least $HWRNG_MIN_READS reads with data"
check "rng_current took $(cat /tmp/fuzz-switch.count) switches during the rounds" \
	test "$(cat /tmp/fuzz-switch.count)" -gt 0
echo "" >$RNG/rng_current 2>/dev/null
check "rng_available lists $name after the rounds" \
	sh -c "cat $RNG/rng_available && grep -qw $name $RNG/rng_available"
check_bytes "bytes right after the rounds" 4096 \
	"dd if=/dev/guac bs=4096 count=1 status=none" "guac gen --length 4096"
