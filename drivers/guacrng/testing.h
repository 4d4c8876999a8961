/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only hooks. The module users build has none of these parameters:
 * only test builds (Kbuild with GUAC_TEST=y, implied by GUAC_KUNIT=y) compile
 * testing.c; everywhere else the hooks are constants the compiler folds away.
 */
#ifndef GUACRNG_TESTING_H
#define GUACRNG_TESTING_H

struct guac_insn_ops;

#ifdef GUAC_TEST
/*
 * hwrng_fault=: the instructions the hwrng reads, @cpu or the double named in
 * its place; NULL (logged) for a name that is no double.
 */
const struct guac_insn_ops *guac_test_hwrng_insn(const struct guac_insn_ops *cpu);
/* selftest_fault=: the implementation whose self-test output to corrupt. */
const char *guac_test_selftest_fault(void);
/* init_fault=: -ECANCELED where @step (simd, hwrng, device) is to fail. */
int guac_test_init_fault(const char *step);
#else
static inline const struct guac_insn_ops *
guac_test_hwrng_insn(const struct guac_insn_ops *cpu)
{
	return cpu;
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

/*
 * What the KUnit suites (GUAC_KUNIT builds) drive directly, as the kernel's
 * VISIBLE_IF_KUNIT does (which 5.10 and 6.1 lack, and which would follow the
 * kernel's CONFIG_KUNIT rather than the variant): static in every other build.
 */
#ifdef GUAC_KUNIT
#include <linux/fs.h>
#define GUAC_STATIC_UNLESS_KUNIT
extern const struct file_operations guac_fops;
#else
#define GUAC_STATIC_UNLESS_KUNIT static
#endif

#endif /* GUACRNG_TESTING_H */
