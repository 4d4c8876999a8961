// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The tool's CPU features follow the kernel's (lib/cpu_x86.c): RDRAND and
 * RDSEED that cpuid reports but the kernel withholds (missing from
 * /proc/cpuinfo's flags, as on AMD Zen 5 with its RDSEED erratum) are not
 * used, as guacrng's hwrng does not use them; without a flags line cpuid's
 * answer stands, and a flag is matched as a whole word.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "libguac.h"

#ifdef __x86_64__
static unsigned int filter(unsigned int features, const char *cpuinfo)
{
	FILE *f = fmemopen((void *)cpuinfo, strlen(cpuinfo), "r");
	unsigned int out;

	assert_non_null(f);
	out = guac_cpu_kernel_filter(features, f);
	fclose(f);
	return out;
}

static void test_kernel_filter(void **state)
{
	const unsigned int all = GUAC_CPU_SSE2 | GUAC_CPU_AVX2 | GUAC_CPU_RDRAND | GUAC_CPU_RDSEED;
	const unsigned int hw = GUAC_CPU_RDRAND | GUAC_CPU_RDSEED;

	(void)state;
	/* Zen 5 with the erratum: rdseed withheld, rdrand kept, the rest untouched. */
	assert_int_equal(filter(all, "processor\t: 0\ncpu family\t: 26\n"
				"flags\t\t: fpu sse2 avx2 rdrand avx512f\nbugs\t\t: rdseed\n"),
			 all & ~GUAC_CPU_RDSEED);
	assert_int_equal(filter(all, "flags\t\t: fpu rdseed rdrand\n"), all);
	/* Both withheld; only the first flags line counts. */
	assert_int_equal(filter(all, "flags\t\t: fpu sse2\nflags\t\t: rdrand rdseed\n"), all & ~hw);
	/* A whole word: "rdrand_x" or "nordseed" are not the flag. */
	assert_int_equal(filter(all, "flags\t\t: rdrand_x nordseed\n"), all & ~hw);
	assert_int_equal(filter(all, "flags\t\t: rdseed\trdrand\n"), all);
	/* No flags line, or no cpuinfo at all: cpuid's answer stands. */
	assert_int_equal(filter(all, "processor\t: 0\n"), all);
	assert_int_equal(guac_cpu_kernel_filter(all, NULL), all);
	/* Features the CPU lacks are never added. */
	assert_int_equal(filter(GUAC_CPU_SSE2, "flags\t\t: rdrand rdseed\n"), GUAC_CPU_SSE2);
}
#else
static void test_kernel_filter(void **state)
{
	(void)state;
	skip();	/* x86-64 only: arm64 takes FEAT_RNG from the kernel's hwcaps already */
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
