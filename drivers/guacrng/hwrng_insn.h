/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU's two random number instructions behind an ops table, so that
 * tests can put doubles in their place: the real table runs the
 * instructions, the doubles run none and script the failures a CPU can show
 * (CF=0 forever, intermittent CF=0, stuck or all-ones or all-zeros output).
 * The doubles are for tests only: KUnit, the load-time self-tests and the
 * hwrng_fault= module parameter; they are the same on every architecture.
 *
 * The two are named after x86's: "rdrand" is the one that reads a DRBG
 * (x86 RDRAND, arm64 RNDR), "rdseed" the one that reads the entropy source
 * through its conditioner, or a DRBG reseeded from it on every read (x86
 * RDSEED, arm64 RNDRRS). Their failure, CF=0 here, is NZCV.Z=1 on arm64.
 * hwrng_insn_x86.c and hwrng_insn_arm64.c have the real ones.
 */
#ifndef GUACRNG_HWRNG_INSN_H
#define GUACRNG_HWRNG_INSN_H

#include <linux/types.h>

struct guac_insn;

struct guac_insn_ops {
	const char *name;	/* as hwrng_fault= takes it */
	/* One try: true, with *v set, when the instruction set CF. */
	bool (*rdrand64)(struct guac_insn *insn, u64 *v);
	bool (*rdseed64)(struct guac_insn *insn, u64 *v);
};

/* An instruction source: its ops and the state the doubles script from. */
struct guac_insn {
	const struct guac_insn_ops *ops;
	u64 tries;	/* tries so far; the real instructions ignore it */
};

/* The real instructions; hwrng_fault=none. */
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

/* The real instructions or a double by name (hwrng_fault=); NULL if none. */
const struct guac_insn_ops *guac_insn_ops_lookup(const char *name);

/* Word @n of the well-behaved data every double delivers when it succeeds. */
u64 guac_insn_test_word(u64 n);

static inline bool guac_insn_rdrand64(struct guac_insn *insn, u64 *v)
{
	return insn->ops->rdrand64(insn, v);
}

static inline bool guac_insn_rdseed64(struct guac_insn *insn, u64 *v)
{
	return insn->ops->rdseed64(insn, v);
}

#endif /* GUACRNG_HWRNG_INSN_H */
