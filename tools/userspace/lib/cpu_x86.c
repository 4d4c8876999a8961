// SPDX-License-Identifier: GPL-2.0 OR MIT
/* CPU feature detection and implementation choice for userspace. */
#include <cpuid.h>
#include <string.h>
#include "libguac.h"

#define XCR0_SSE_YMM 0x06u		/* XMM and YMM state */
#define XCR0_AVX512 0xe0u		/* opmask, ZMM_Hi256, Hi16_ZMM state */

static unsigned int guac_cpu_mask = ~0u;

static unsigned long long guac_xgetbv0(void)
{
	unsigned int lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

unsigned int guac_cpu_detect(void)
{
	unsigned int a, b, c, d, max_leaf, features = 0;
	unsigned long long xcr0 = 0;

	max_leaf = __get_cpuid_max(0, NULL);
	if (max_leaf < 1 || !__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (d & bit_SSE2)
		features |= GUAC_CPU_SSE2;
	if (c & bit_RDRND)
		features |= GUAC_CPU_RDRAND;
	if (c & bit_OSXSAVE)
		xcr0 = guac_xgetbv0();
	if (max_leaf < 7)
		return features;

	__cpuid_count(7, 0, a, b, c, d);
	if (b & bit_RDSEED)
		features |= GUAC_CPU_RDSEED;
	if ((b & bit_AVX2) && (xcr0 & XCR0_SSE_YMM) == XCR0_SSE_YMM)
		features |= GUAC_CPU_AVX2;
	if ((b & bit_AVX512F) &&
	    (xcr0 & (XCR0_SSE_YMM | XCR0_AVX512)) == (XCR0_SSE_YMM | XCR0_AVX512))
		features |= GUAC_CPU_AVX512;
	return features;
}

unsigned int guac_cpu_features(void)
{
	static unsigned int detected;
	static bool done;

	if (!done) {
		detected = guac_cpu_detect();
		done = true;
	}
	return detected & guac_cpu_mask;
}

void guac_cpu_restrict(unsigned int mask)
{
	guac_cpu_mask = mask;
}

bool guac_impl_usable(enum guac_impl impl, unsigned int features)
{
	static const unsigned int needs[GUAC_IMPL_COUNT] = {
		[GUAC_IMPL_GENERIC] = 0,
		[GUAC_IMPL_SSE2] = GUAC_CPU_SSE2,
		[GUAC_IMPL_AVX2] = GUAC_CPU_SSE2 | GUAC_CPU_AVX2,
		[GUAC_IMPL_AVX512] = GUAC_CPU_SSE2 | GUAC_CPU_AVX2 | GUAC_CPU_AVX512,
	};

	if ((unsigned int)impl >= GUAC_IMPL_COUNT)
		return false;
	return (features & needs[impl]) == needs[impl];
}

enum guac_impl guac_impl_best(void)
{
	unsigned int features = guac_cpu_features();
	int impl;

	for (impl = GUAC_IMPL_COUNT - 1; impl > GUAC_IMPL_GENERIC; impl--)
		if (guac_impl_usable(impl, features))
			return impl;
	return GUAC_IMPL_GENERIC;
}

int guac_impl_parse(const char *name)
{
	int impl;

	if (!strcmp(name, "auto"))
		return guac_impl_best();
	for (impl = 0; impl < GUAC_IMPL_COUNT; impl++)
		if (!strcmp(name, guac_impl_names[impl]))
			return impl;
	return -1;
}
