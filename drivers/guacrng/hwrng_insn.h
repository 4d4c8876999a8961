/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU's two random number instructions behind an ops table, so that
 * tests can put doubles in their place: the real table (guac_insn_cpu) runs
 * the instructions, the doubles run none and script the failures a CPU can
 * show (CF=0 forever, intermittent CF=0, stuck or all-ones or all-zeros
 * output). The hwrng reads guac_insn_cpu; the doubles serve the load-time
 * self-test (hwrng_selftest.c) and the test builds (KUnit, hwrng_fault=).
 *
 * The two are named for what they read, the same on every architecture:
 * "drbg" reads a DRBG (x86 RDRAND, arm64 RNDR), "seed" the entropy source
 * through its conditioner, or a DRBG reseeded from it on every read (x86
 * RDSEED, arm64 RNDRRS). Their failure, CF=0 on x86, is NZCV.Z=1 on arm64.
 * hwrng_insn_x86.c and hwrng_insn_arm64.c have the real ones.
 */
#ifndef GUACRNG_HWRNG_INSN_H
#define GUACRNG_HWRNG_INSN_H

#include <linux/types.h>

struct guac_insn;

struct guac_insn_ops {
	const char *name;	/* "cpu", or the double's, as hwrng_fault= takes it */
	/* One try: true, with *v set, when the instruction succeeded. */
	bool (*drbg64)(struct guac_insn *insn, u64 *v);
	bool (*seed64)(struct guac_insn *insn, u64 *v);
};

/* An instruction source: its ops and the state the doubles script from. */
struct guac_insn {
	const struct guac_insn_ops *ops;
	u64 tries;	/* tries so far; the real instructions ignore it */
};

/* The real instructions: what the hwrng reads. */
extern const struct guac_insn_ops guac_insn_cpu;

/* What the architecture calls its two instructions, and what they need. */
struct guac_insn_name {
	const char *insn;	/* in the log: "RDSEED", "RNDRRS" */
	const char *source;	/* /sys/module/guacrng/hwrng/source */
	const char *hwrng;	/* the hwrng's name: "guacrng-rdseed" */
	u32 feature;		/* the GUAC_FEAT_* bit the CPU needs for it */
};

/* [false]: the DRBG one (RDRAND, RNDR); [true]: the seed one (RDSEED, RNDRRS). */
extern const struct guac_insn_name guac_insn_names[2];

void guac_insn_init(struct guac_insn *insn, const struct guac_insn_ops *ops);

/* The double of this name (hwrng_fault=, the self-tests); NULL if none. */
const struct guac_insn_ops *guac_insn_double(const char *name);

/* Word @n of the well-behaved data every double delivers when it succeeds. */
u64 guac_insn_test_word(u64 n);

static inline bool guac_insn_drbg64(struct guac_insn *insn, u64 *v)
{
	return insn->ops->drbg64(insn, v);
}

static inline bool guac_insn_seed64(struct guac_insn *insn, u64 *v)
{
	return insn->ops->seed64(insn, v);
}

#endif /* GUACRNG_HWRNG_INSN_H */
