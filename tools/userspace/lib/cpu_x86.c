// SPDX-License-Identifier: GPL-2.0 OR MIT
/* CPU feature detection on x86-64: cpuid, and xgetbv for the OS's support. */
#ifndef __x86_64__
#error "cpu_x86.c is for x86-64 only"
#endif
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
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

/* Whether the space-separated @flags names @flag. */
static bool guac_flags_have(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p;

	for (p = flags; (p = strstr(p, flag)); p += n)
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\t' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * The kernel withholds RDRAND and RDSEED from its own use where they are
 * known to return bad values (AMD Zen 5's RDSEED erratum, early AMD RDRAND
 * after resume, clearcpuid=), and then leaves them out of /proc/cpuinfo's
 * flags although cpuid still sets them. guacrng's hwrng follows the kernel,
 * so the tool does too: a flag missing from the first "flags" line of
 * @cpuinfo is taken away from @features. Without a readable flags line
 * (no /proc), cpuid's answer stands.
 */
unsigned int guac_cpu_kernel_filter(unsigned int features, FILE *cpuinfo)
{
	char line[4096];

	if (!cpuinfo)
		return features;
	while (fgets(line, sizeof(line), cpuinfo)) {
		if (strncmp(line, "flags", 5) || !strchr(line, ':'))
			continue;
		if (!guac_flags_have(line, "rdrand"))
			features &= ~GUAC_CPU_RDRAND;
		if (!guac_flags_have(line, "rdseed"))
			features &= ~GUAC_CPU_RDSEED;
		break;
	}
	return features;
}

static unsigned int guac_cpu_kernel_allows(unsigned int features)
{
	FILE *f;

	if (!(features & (GUAC_CPU_RDRAND | GUAC_CPU_RDSEED)))
		return features;
	f = fopen("/proc/cpuinfo", "re");
	features = guac_cpu_kernel_filter(features, f);
	if (f)
		fclose(f);
	return features;
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
		return guac_cpu_kernel_allows(features);

	__cpuid_count(7, 0, a, b, c, d);
	if (b & bit_RDSEED)
		features |= GUAC_CPU_RDSEED;
	if ((b & bit_AVX2) && (xcr0 & XCR0_SSE_YMM) == XCR0_SSE_YMM)
		features |= GUAC_CPU_AVX2;
	if ((b & bit_AVX512F) &&
	    (xcr0 & (XCR0_SSE_YMM | XCR0_AVX512)) == (XCR0_SSE_YMM | XCR0_AVX512))
		features |= GUAC_CPU_AVX512;
	return guac_cpu_kernel_allows(features);
}
