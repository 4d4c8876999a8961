// SPDX-License-Identifier: GPL-2.0
/*
 * Test builds only (GUAC_TEST=y): parameters that put failures where the
 * VM scenarios and the debug kernels need them. The module users install
 * does not contain this file, so `modinfo -p` there lists none of these.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>
#include "hwrng_insn.h"
#include "testing.h"

static char *hwrng_fault = "none";
module_param(hwrng_fault, charp, 0444);
MODULE_PARM_DESC(hwrng_fault, "TEST ONLY: replace the CPU's instructions (RDRAND/RDSEED, RNDR/RNDRRS) with a double: none (default), clean, cf0, intermittent, stuck, ones, zeros, cycle, stuckbit");

static char *selftest_fault = "";
module_param(selftest_fault, charp, 0444);
MODULE_PARM_DESC(selftest_fault, "TEST ONLY: corrupt this implementation's output in its self-test, as a miscompiled path would");

static char *init_fault = "";
module_param(init_fault, charp, 0444);
MODULE_PARM_DESC(init_fault, "TEST ONLY: fail this step of the load: simd and hwrng once done, device instead of registering");

#ifdef GUAC_HAVE_HWRNG
const struct guac_insn_ops *guac_test_hwrng_insn(const struct guac_insn_ops *cpu)
{
	const struct guac_insn_ops *ops;

	if (sysfs_streq(hwrng_fault, "none"))
		return cpu;
	ops = guac_insn_double(hwrng_fault);
	if (!ops)
		pr_err("hwrng: unknown hwrng_fault=%s\n", hwrng_fault);
	return ops;
}
#endif

const char *guac_test_selftest_fault(void)
{
	return selftest_fault;
}

int guac_test_init_fault(const char *step)
{
	if (!sysfs_streq(init_fault, step))
		return 0;
	pr_warn("TEST ONLY: init_fault=%s: failing the load here\n", step);
	return -ECANCELED;
}
