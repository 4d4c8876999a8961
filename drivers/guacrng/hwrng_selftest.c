// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time self-tests of the hwrng's failure paths: the data path runs over
 * the instruction doubles, so the results are the same on every CPU, and
 * each path must end with the return value, health state and counters it is
 * meant to. The sources here are quiet: only a mismatch is logged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/string.h>
#include "hwrng.h"

#define GUAC_ST_BYTES 64
#define GUAC_ST_WORDS (GUAC_ST_BYTES / sizeof(u64))
#define GUAC_ST_WINDOW GUAC_HEALTH_WINDOW

struct guac_st_expect {
	int ret;
	enum guac_health_state state;
	u64 retries;
	u64 failures;
	u64 health_failures;
};

struct guac_st_case {
	const char *fault;	/* the double, by its hwrng_fault= name */
	bool rdseed;
	bool wait;
	struct guac_st_expect want;
};

static const struct guac_st_case guac_st_cases[] = {
	/* Healthy: delivers once a start-up window has passed. */
	{ "clean", false, true, { GUAC_ST_BYTES, GUAC_HEALTH_OK } },
	{ "clean", true, false, { GUAC_ST_BYTES, GUAC_HEALTH_OK } },
	/* Retries ride out intermittent failure: three before every word. */
	{ "intermittent", false, true,
	  { GUAC_ST_BYTES, GUAC_HEALTH_OK,
	    3 * (GUAC_ST_WINDOW + GUAC_ST_WORDS) } },
	{ "intermittent", true, false,
	  { GUAC_ST_BYTES, GUAC_HEALTH_OK,
	    3 * (GUAC_ST_WINDOW + GUAC_ST_WORDS) } },
	/* Dead RDRAND: -EIO when the tries run out. A dry RDSEED says 0. */
	{ "cf0", false, true,
	  { -EIO, GUAC_HEALTH_STARTUP, GUAC_RDRAND_TRIES, 1 } },
	{ "cf0", false, false,
	  { -EIO, GUAC_HEALTH_STARTUP, GUAC_RDRAND_TRIES, 1 } },
	{ "cf0", true, true,
	  { 0, GUAC_HEALTH_STARTUP, GUAC_RDSEED_TRIES_WAIT, 0 } },
	{ "cf0", true, false,
	  { 0, GUAC_HEALTH_STARTUP, GUAC_RDSEED_TRIES_NOWAIT, 0 } },
	/* Bad data: -EIO at the first word that shows it. */
	{ "stuck", false, true, { -EIO, GUAC_HEALTH_REPETITION, 0, 0, 1 } },
	{ "ones", true, true, { -EIO, GUAC_HEALTH_ALL_ONES, 0, 0, 1 } },
	{ "zeros", true, true, { -EIO, GUAC_HEALTH_ALL_ZEROS, 0, 0, 1 } },
	{ "cycle", false, true, { -EIO, GUAC_HEALTH_PROPORTION, 0, 0, 1 } },
	{ "stuckbit", true, false, { -EIO, GUAC_HEALTH_STUCK_BIT, 0, 0, 1 } },
};

static bool guac_st_check(const char *name, const struct guac_hwrng_src *src,
			  int ret, const struct guac_st_expect *want)
{
	const struct guac_hwrng_stats *stats = &src->stats;
	u64 bytes = max(want->ret, 0);

	if (ret == want->ret && src->health.state == want->state &&
	    atomic64_read(&stats->bytes) == bytes &&
	    atomic64_read(&stats->retries) == want->retries &&
	    atomic64_read(&stats->failures) == want->failures &&
	    atomic64_read(&stats->health_failures) == want->health_failures)
		return true;

	pr_err("hwrng self-test %s: got %d, %s, %lld bytes, %lld retries, %lld failures, %lld health failures; want %d, %s, %llu, %llu, %llu, %llu\n",
	       name, ret, guac_health_state_name(src->health.state),
	       (long long)atomic64_read(&stats->bytes),
	       (long long)atomic64_read(&stats->retries),
	       (long long)atomic64_read(&stats->failures),
	       (long long)atomic64_read(&stats->health_failures),
	       want->ret, guac_health_state_name(want->state), bytes,
	       want->retries, want->failures, want->health_failures);
	return false;
}

/* Whether @buf holds the doubles' words from number @first on. */
static bool guac_st_words_from(const u8 *buf, size_t len, u64 first)
{
	size_t i;

	for (i = 0; i < len; i += sizeof(u64)) {
		u64 word = guac_insn_test_word(first + i / sizeof(u64));

		if (memcmp(buf + i, &word, min(len - i, sizeof(word))))
			return false;
	}
	return true;
}

static bool guac_st_table(void)
{
	u8 buf[GUAC_ST_BYTES];
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(guac_st_cases); i++) {
		const struct guac_st_case *c = &guac_st_cases[i];
		const struct guac_insn_ops *ops = guac_insn_ops_lookup(c->fault);
		struct guac_hwrng_src src;
		char name[48];
		int ret;

		snprintf(name, sizeof(name), "%s/%s/%s", c->fault,
			 c->rdseed ? "rdseed" : "rdrand",
			 c->wait ? "wait" : "nowait");
		if (!ops) {
			pr_err("hwrng self-test %s: no such double\n", name);
			ok = false;
			continue;
		}
		guac_hwrng_src_init(&src, ops, c->rdseed, false);
		ret = guac_hwrng_fill(&src, buf, sizeof(buf), c->wait);
		if (!guac_st_check(name, &src, ret, &c->want)) {
			ok = false;
		} else if (ret > 0 && !guac_st_words_from(buf, ret,
							  GUAC_ST_WINDOW)) {
			pr_err("hwrng self-test %s: delivered the wrong words\n",
			       name);
			ok = false;
		}
	}
	return ok;
}

/* Clean through start-up and three words more, then CF=0 for good. */
static bool guac_st_dries_up(struct guac_insn *insn, u64 *v)
{
	u64 try = insn->tries++;

	if (try >= GUAC_ST_WINDOW + 3) {
		*v = 0;
		return false;
	}
	*v = guac_insn_test_word(try);
	return true;
}

/* Clean through start-up and three words more, then the last one forever. */
static bool guac_st_sticks(struct guac_insn *insn, u64 *v)
{
	*v = guac_insn_test_word(min_t(u64, insn->tries++, GUAC_ST_WINDOW + 2));
	return true;
}

/* Stuck for three tries, clean from then on. */
static bool guac_st_unsticks(struct guac_insn *insn, u64 *v)
{
	u64 try = insn->tries++;

	*v = guac_insn_test_word(try < 3 ? 0 : try);
	return true;
}

static const struct guac_insn_ops guac_st_dries_up_ops = {
	.name = "dries-up",
	.rdrand64 = guac_st_dries_up,
	.rdseed64 = guac_st_dries_up,
};

static const struct guac_insn_ops guac_st_sticks_ops = {
	.name = "sticks",
	.rdrand64 = guac_st_sticks,
	.rdseed64 = guac_st_sticks,
};

static const struct guac_insn_ops guac_st_unsticks_ops = {
	.name = "unsticks",
	.rdrand64 = guac_st_unsticks,
	.rdseed64 = guac_st_unsticks,
};

/* A source that fails mid-call hands over the words it had: 3 of them. */
static bool guac_st_partial(void)
{
	static const struct guac_st_expect want = {
		3 * sizeof(u64), GUAC_HEALTH_OK, GUAC_RDRAND_TRIES, 1
	};
	struct guac_hwrng_src src;
	u8 buf[GUAC_ST_BYTES];
	int ret;

	guac_hwrng_src_init(&src, &guac_st_dries_up_ops, false, false);
	ret = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	return guac_st_check("partial", &src, ret, &want) &&
	       guac_st_words_from(buf, ret, GUAC_ST_WINDOW);
}

/* A health failure mid-call drops the words the call had, and says -EIO. */
static bool guac_st_drop(void)
{
	static const struct guac_st_expect want = {
		-EIO, GUAC_HEALTH_REPETITION, 0, 0, 1
	};
	struct guac_hwrng_src src;
	u8 buf[GUAC_ST_BYTES];
	int ret;

	memset(buf, 0xaa, sizeof(buf));
	guac_hwrng_src_init(&src, &guac_st_sticks_ops, true, false);
	ret = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	if (!guac_st_check("drop", &src, ret, &want))
		return false;
	if (memchr_inv(buf, 0, 3 * sizeof(u64))) {
		pr_err("hwrng self-test drop: the dropped words are still in the buffer\n");
		return false;
	}
	return true;
}

/*
 * After a failure nothing is delivered until a whole window passes: the
 * third call, which tests that window, is the first to deliver.
 */
static bool guac_st_recovery(void)
{
	static const struct guac_st_expect want = {
		GUAC_ST_BYTES, GUAC_HEALTH_OK, 0, 0, 2
	};
	struct guac_hwrng_src src;
	u8 buf[GUAC_ST_BYTES];
	int ret[3];
	size_t i;

	guac_hwrng_src_init(&src, &guac_st_unsticks_ops, false, false);
	for (i = 0; i < ARRAY_SIZE(ret); i++)
		ret[i] = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	if (ret[0] != -EIO || ret[1] != -EIO) {
		pr_err("hwrng self-test recovery: delivered %d, %d while stuck\n",
		       ret[0], ret[1]);
		return false;
	}
	/* Words 3 to 514 made the window, 515 on were delivered. */
	return guac_st_check("recovery", &src, ret[2], &want) &&
	       guac_st_words_from(buf, ret[2], 3 + GUAC_ST_WINDOW);
}

bool guac_hwrng_selftest(void)
{
	bool ok = guac_st_table();

	ok &= guac_st_partial();
	ok &= guac_st_drop();
	ok &= guac_st_recovery();
	return ok;
}
