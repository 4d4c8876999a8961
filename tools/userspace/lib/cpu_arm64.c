// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CPU feature detection on arm64: the kernel's hwcaps. AdvSIMD (NEON) is
 * architectural on arm64 Linux, but the hwcap says so all the same;
 * FEAT_RNG (RNDR and RNDRRS) is HWCAP2_RNG, set only when every CPU has it.
 */
#ifndef __aarch64__
#error "cpu_arm64.c is for arm64 (aarch64) only"
#endif
#include <sys/auxv.h>
#include "libguac.h"

/* <asm/hwcap.h> values, for a libc whose headers predate them. */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP2_RNG
#define HWCAP2_RNG (1UL << 16)
#endif

const unsigned int guac_impl_needs[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = 0,
	[GUAC_IMPL_NEON] = GUAC_CPU_NEON,
};

unsigned int guac_cpu_detect(void)
{
	unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
	unsigned int features = 0;

	if (hwcap & HWCAP_ASIMD)
		features |= GUAC_CPU_NEON;
	if (hwcap2 & HWCAP2_RNG)
		features |= GUAC_CPU_RNDR;
	return features;
}
