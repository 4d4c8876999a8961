/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only hooks. The module users build has none of these parameters:
 * only test builds (Kbuild with GUAC_TEST=y, implied by GUAC_KUNIT=y) compile
 * testing.c; everywhere else the hooks are constants the compiler folds away.
 */
#ifndef GUACRNG_TESTING_H
#define GUACRNG_TESTING_H

#ifdef GUAC_TEST
/* hwrng_fault=: the double to put in place of RDRAND/RDSEED or RNDR/RNDRRS. */
const char *guac_test_hwrng_fault(void);
/* selftest_fault=: the implementation whose self-test output to corrupt. */
const char *guac_test_selftest_fault(void);
/* init_fault=: -ECANCELED where @step (simd, hwrng, device) is to fail. */
int guac_test_init_fault(const char *step);
#else
static inline const char *guac_test_hwrng_fault(void)
{
	return "none";
}

static inline const char *guac_test_selftest_fault(void)
{
	return "";
}

static inline int guac_test_init_fault(const char *step)
{
	return 0;
}
#endif

#endif /* GUACRNG_TESTING_H */
