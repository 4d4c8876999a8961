// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's random number instructions behind the hwrng (FEAT_RNG): RNDR, a
 * DRBG like RDRAND, and RNDRRS, which reseeds that DRBG from the entropy
 * source before every read, as close to RDSEED as the architecture comes.
 * Both set NZCV to 0b0100 (Z) and return 0 when they fail, otherwise NZCV
 * 0b0000. The ops run one instruction and report success, with no retries:
 * how often to retry, and whether to pause, is the caller's policy.
 *
 * The registers are read by their encodings, RNDR_EL0 s3_3_c2_c4_0 and
 * RNDRRS_EL0 s3_3_c2_c4_1, so that assemblers that predate the names take
 * them; asm/archrandom.h's helpers are not for modules, and its
 * arch_get_random_seed_longs() needs symbols the kernel does not export.
 */
#include <linux/types.h>
#include <uapi/linux/guacrng.h>
#include "hwrng_insn.h"

static bool guac_cpu_rndr(struct guac_insn *insn, u64 *v)
{
	unsigned long val;
	bool ok;

	asm volatile("mrs %0, s3_3_c2_c4_0\n\t"
		     "cset %w1, ne"
		     : "=r" (val), "=r" (ok) : : "cc");
	*v = val;
	return ok;
}

static bool guac_cpu_rndrrs(struct guac_insn *insn, u64 *v)
{
	unsigned long val;
	bool ok;

	asm volatile("mrs %0, s3_3_c2_c4_1\n\t"
		     "cset %w1, ne"
		     : "=r" (val), "=r" (ok) : : "cc");
	*v = val;
	return ok;
}

const struct guac_insn_ops guac_insn_cpu = {
	.name = "cpu",
	.drbg64 = guac_cpu_rndr,
	.seed64 = guac_cpu_rndrrs,
};

/* FEAT_RNG brings both. */
const struct guac_insn_name guac_insn_names[2] = {
	[false] = { "RNDR", "rndr", "guacrng-rndr", GUAC_FEAT_RNDR },
	[true] = { "RNDRRS", "rndrrs", "guacrng-rndrrs", GUAC_FEAT_RNDR },
};
