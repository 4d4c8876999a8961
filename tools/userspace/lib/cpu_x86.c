// SPDX-License-Identifier: GPL-2.0 OR MIT
/* CPU feature detection on x86-64: cpuid, and xgetbv for the OS's support. */
#ifndef __x86_64__
#error "cpu_x86.c is for x86-64 only"
#endif
#include <cpuid.h>
#include "libguac.h"

#define XCR0_SSE_YMM 0x06u		/* XMM and YMM state */
#define XCR0_AVX512 0xe0u		/* opmask, ZMM_Hi256, Hi16_ZMM state */

/* An implementation needs its own feature and every narrower one. */
const unsigned int guac_impl_needs[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = 0,
	[GUAC_IMPL_SSE2] = GUAC_CPU_SSE2,
	[GUAC_IMPL_AVX2] = GUAC_CPU_SSE2 | GUAC_CPU_AVX2,
	[GUAC_IMPL_AVX512] = GUAC_CPU_SSE2 | GUAC_CPU_AVX2 | GUAC_CPU_AVX512,
};

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
