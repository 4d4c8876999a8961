// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64's random number instructions behind the hwrng: RDRAND, a DRBG, and
 * RDSEED, the conditioned entropy source. The ops run one instruction and
 * report CF, with no retries: how often to retry, and whether to pause, is
 * the caller's policy.
 */
#include <linux/types.h>
#include <uapi/linux/guacrng.h>
#include "hwrng_insn.h"

/*
 * CF as the asm's output, through the flag-output constraint "=@ccc" that
 * every compiler the supported kernels build with has (GCC 6+, clang 9+);
 * the kernel's own CC_SET()/CC_OUT() wrappers for it are gone in 7.x.
 */
static bool guac_cpu_rdrand64(struct guac_insn *insn, u64 *v)
{
	bool ok;

	asm volatile("rdrand %[out]"
		     : "=@ccc" (ok), [out] "=r" (*v));
	return ok;
}

static bool guac_cpu_rdseed64(struct guac_insn *insn, u64 *v)
{
	bool ok;

	asm volatile("rdseed %[out]"
		     : "=@ccc" (ok), [out] "=r" (*v));
	return ok;
}

const struct guac_insn_ops guac_insn_cpu = {
	.name = "cpu",
	.drbg64 = guac_cpu_rdrand64,
	.seed64 = guac_cpu_rdseed64,
};

const struct guac_insn_name guac_insn_names[2] = {
	[false] = { "RDRAND", "rdrand", "guacrng-rdrand", GUAC_FEAT_RDRAND },
	[true] = { "RDSEED", "rdseed", "guacrng-rdseed", GUAC_FEAT_RDSEED },
};
