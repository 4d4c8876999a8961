# SPDX-License-Identifier: GPL-2.0
# A load that fails at any step leaves nothing behind and never showed
# /dev/guac: parameters and self-tests are checked before anything is
# registered, the hwrng comes next, and the device last (main.c). The
# failing steps come from bad parameters and, in the test variant, from the
# test-only selftest_fault=, hwrng_fault= and init_fault=. The debug kernel's
# closing kmemleak scan covers leaks.

rng=/sys/class/misc/hw_random

# nothing_left: no device node, no misc device, no hwrng, no module.
nothing_left() {
	[ ! -e /dev/guac ] || { echo "/dev/guac exists"; return 1; }
	[ ! -e /sys/class/misc/guac ] || { echo "/sys/class/misc/guac exists"; return 1; }
	! grep guacrng $rng/rng_available 2>/dev/null || { echo "a guacrng hwrng is registered"; return 1; }
	[ ! -e /sys/module/guacrng ] || { echo "/sys/module/guacrng exists"; return 1; }
}

guac_loaded && guac_unload
for load in "$GUAC_KO impl=bogus" \
	"$GUAC_KO quality=2000" \
	"$GUAC_KO_TEST selftest_fault=generic" \
	"$GUAC_KO_TEST hwrng_fault=bogus" \
	"$GUAC_KO_TEST init_fault=simd" \
	"$GUAC_KO_TEST init_fault=hwrng" \
	"$GUAC_KO_TEST init_fault=device"; do
	what="insmod ${load##*/}"
	# shellcheck disable=SC2086
	check "$what: fails, and /dev/guac was never announced" guac-vmtest load-unseen insmod $load
	check "$what: leaves no device, hwrng or module behind" nothing_left
done
check "reload without a fault" guac_load
