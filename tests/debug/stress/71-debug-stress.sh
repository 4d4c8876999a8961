# SPDX-License-Identifier: GPL-2.0
# Stress: 16 readers seeking and reading at random for a bounded time, with
# rmmod attempts (all refused: the device is open) and /dev/hwrng reads
# alongside; then /dev/hwrng readers racing real unloads and reloads. The
# host fails the run on any KASAN, lockdep, UBSAN, might-sleep or FPU report.

STRESS_SECONDS=20
RNG_CURRENT=/sys/class/misc/hw_random/rng_current

guac_loaded || check "insmod for the stress" guac_load
check "guacrng's hwrng is the current one" \
	sh -c "cat $RNG_CURRENT && ! grep -qx none $RNG_CURRENT"

exec 3</dev/guac
rm -f /tmp/stress.done
hwrng_reader /tmp/stress.done >/tmp/hwrng.count &
hwrng_pid=$!
(
	refused=0
	while [ ! -e /tmp/stress.done ]; do
		if rmmod guacrng 2>/dev/null; then
			echo "rmmod succeeded while /dev/guac was open"
			exit 1
		fi
		refused=$((refused + 1))
		sleep 0.2
	done
	echo "$refused"
) >/tmp/rmmod.count &
rmmod_pid=$!
check "16 readers, ${STRESS_SECONDS} s of random reads, preads, seeks and origins" \
	guac-vmtest stress 16 "$STRESS_SECONDS"
touch /tmp/stress.done
wait "$rmmod_pid"
rmmod_status=$?
wait "$hwrng_pid"
exec 3<&-
check "every rmmod during the stress refused ($(cat /tmp/rmmod.count) attempts)" \
	test "$rmmod_status" = 0
check "/dev/hwrng reads during the stress returned data ($(cat /tmp/hwrng.count))" \
	test "$(cat /tmp/hwrng.count)" -gt 0

# Unload and reload while /dev/hwrng is being read.
rm -f /tmp/race.done
for i in 1 2; do
	hwrng_reader /tmp/race.done >/dev/null &
done
race_ok=0
for round in 1 2 3 4 5; do
	guac_unload && guac_load && race_ok=$((race_ok + 1))
	sleep 0.3
done
touch /tmp/race.done
wait
check "5 rmmod/insmod rounds while /dev/hwrng is read" test "$race_ok" = 5
check_bytes "bytes right after the races" 4096 \
	"dd if=/dev/guac bs=4096 count=1 status=none" "guac gen --length 4096"
