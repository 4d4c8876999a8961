// SPDX-License-Identifier: GPL-2.0
/*
 * The test doubles of the instructions behind the hwrng, the same on every
 * architecture; the real ones are in hwrng_insn_<arch>.c. Each double
 * plays one failure a CPU has been seen to (or could) show; when a double
 * succeeds it delivers the guacamole stream, read as 64-bit words, which is
 * well-behaved data that needs no CPU feature and is the same on every run.
 *
 * They ship in the module users install, on purpose: the load-time self-test
 * (hwrng_selftest.c) drives the health tests and the read path through them
 * before the hwrng registers, a power-on self-test of the failure paths as
 * FIPS 140-3 asks of a module's conditional tests, on this kernel's build
 * of the code. The hwrng itself never reads a double: it names guac_insn_cpu,
 * and only a test build (testing.c, hwrng_fault=) puts a double in its place.
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <guacrng/core.h>
#include "hwrng_insn.h"

u64 guac_insn_test_word(u64 n)
{
	u64 word;

	guac_fill(GUAC_IMPL_GENERIC, (u8 *)&word, n / 8, (n % 8) * sizeof(word),
		  sizeof(word));
	return word;
}

/* Always succeeds: a healthy source that needs no CPU feature. */
static bool guac_double_clean(struct guac_insn *insn, u64 *v)
{
	*v = guac_insn_test_word(insn->tries++);
	return true;
}

/* CF=0 forever; the CPU zeroes the destination when it fails. */
static bool guac_double_cf0(struct guac_insn *insn, u64 *v)
{
	insn->tries++;
	*v = 0;
	return false;
}

/*
 * Three failures before each success: under RDRAND's retry limit, so every
 * word arrives, but only after retries.
 */
static bool guac_double_intermittent(struct guac_insn *insn, u64 *v)
{
	u64 try = insn->tries++;

	if (try % 4 != 3) {
		*v = 0;
		return false;
	}
	*v = guac_insn_test_word(try / 4);
	return true;
}

/* Succeeds, always with the same word. */
static bool guac_double_stuck(struct guac_insn *insn, u64 *v)
{
	insn->tries++;
	*v = guac_insn_test_word(0);
	return true;
}

/* Succeeds with all ones, as some AMD CPUs' RDRAND has after resume. */
static bool guac_double_ones(struct guac_insn *insn, u64 *v)
{
	insn->tries++;
	*v = ~0ULL;
	return true;
}

/* Succeeds with all zeros, as the 32-bit RDSEED of some AMD Zen 5 does. */
static bool guac_double_zeros(struct guac_insn *insn, u64 *v)
{
	insn->tries++;
	*v = 0;
	return true;
}

/* Alternates two words: no word repeats back to back. */
static bool guac_double_cycle(struct guac_insn *insn, u64 *v)
{
	*v = guac_insn_test_word(insn->tries++ & 1);
	return true;
}

/* Fresh words with their top bit stuck at zero. */
static bool guac_double_stuckbit(struct guac_insn *insn, u64 *v)
{
	*v = guac_insn_test_word(insn->tries++) & ~BIT_ULL(63);
	return true;
}

#define GUAC_DOUBLE(double_name)					\
	{								\
		.name = #double_name,					\
		.drbg64 = guac_double_##double_name,			\
		.seed64 = guac_double_##double_name,			\
	}

static const struct guac_insn_ops guac_insn_doubles[] = {
	GUAC_DOUBLE(clean),
	GUAC_DOUBLE(cf0),
	GUAC_DOUBLE(intermittent),
	GUAC_DOUBLE(stuck),
	GUAC_DOUBLE(ones),
	GUAC_DOUBLE(zeros),
	GUAC_DOUBLE(cycle),
	GUAC_DOUBLE(stuckbit),
};

const struct guac_insn_ops *guac_insn_double(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(guac_insn_doubles); i++)
		if (sysfs_streq(name, guac_insn_doubles[i].name))
			return &guac_insn_doubles[i];
	return NULL;
}

void guac_insn_init(struct guac_insn *insn, const struct guac_insn_ops *ops)
{
	insn->ops = ops;
	insn->tries = 0;
}
