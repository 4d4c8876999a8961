/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDRAND and RDSEED behind an ops table, so that tests can put doubles in
 * their place: the real table runs the instructions, the doubles run none and
 * script the failures a CPU can show (CF=0 forever, intermittent CF=0, stuck
 * or all-ones or all-zeros output). The doubles are for tests only: KUnit,
 * the load-time self-tests and the hwrng_fault= module parameter.
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
