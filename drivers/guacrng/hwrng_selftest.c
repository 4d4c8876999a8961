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
	bool seed;
	bool wait;
	struct guac_st_expect want;
};

static const struct guac_st_case guac_st_cases[] = {
	/*
	 * Healthy: the start-up window is tested and dropped, the next one
	 * tested and held back, then delivered.
	 */
	{ "clean", false, true, { GUAC_ST_BYTES, GUAC_HEALTH_OK } },
	{ "clean", true, false, { GUAC_ST_BYTES, GUAC_HEALTH_OK } },
	/* Retries ride out intermittent failure: three before every word. */
	{ "intermittent", false, true,
	  { GUAC_ST_BYTES, GUAC_HEALTH_OK, 3 * 2 * GUAC_ST_WINDOW } },
	{ "intermittent", true, false,
	  { GUAC_ST_BYTES, GUAC_HEALTH_OK, 3 * 2 * GUAC_ST_WINDOW } },
	/* Dead RDRAND: -EIO when the tries run out. A dry RDSEED says 0. */
	{ "cf0", false, true,
	  { -EIO, GUAC_HEALTH_STARTUP, GUAC_DRBG_TRIES, 1 } },
	{ "cf0", false, false,
	  { -EIO, GUAC_HEALTH_STARTUP, GUAC_DRBG_TRIES, 1 } },
	{ "cf0", true, true,
	  { 0, GUAC_HEALTH_STARTUP, GUAC_SEED_TRIES_WAIT, 0 } },
	{ "cf0", true, false,
	  { 0, GUAC_HEALTH_STARTUP, GUAC_SEED_TRIES_NOWAIT, 0 } },
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
		const struct guac_insn_ops *ops = guac_insn_double(c->fault);
		struct guac_hwrng_src src;
		char name[48];
		int ret;

		snprintf(name, sizeof(name), "%s/%s/%s", c->fault,
			 c->seed ? "seed" : "drbg",
			 c->wait ? "wait" : "nowait");
		if (!ops) {
			pr_err("hwrng self-test %s: no such double\n", name);
			ok = false;
			continue;
		}
		if (guac_hwrng_src_init(&src, ops, c->seed, false))
			return false;
		ret = guac_hwrng_fill(&src, buf, sizeof(buf), c->wait);
		if (!guac_st_check(name, &src, ret, &c->want)) {
			ok = false;
		} else if (ret > 0 && !guac_st_words_from(buf, ret,
							  GUAC_ST_WINDOW)) {
			pr_err("hwrng self-test %s: delivered the wrong words\n",
			       name);
			ok = false;
		}
		guac_hwrng_src_free(&src);
	}
	return ok;
}

/* Clean through start-up and one window more, then CF=0 for good. */
static bool guac_st_dries_up(struct guac_insn *insn, u64 *v)
{
	u64 try = insn->tries++;

	if (try >= 2 * GUAC_ST_WINDOW) {
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

/* Fresh words, cycling every 256: only the duplicate test sees it. */
static bool guac_st_long_cycle(struct guac_insn *insn, u64 *v)
{
	*v = guac_insn_test_word(insn->tries++ % 256);
	return true;
}

static const struct guac_insn_ops guac_st_dries_up_ops = {
	.name = "dries-up",
	.drbg64 = guac_st_dries_up,
	.seed64 = guac_st_dries_up,
};

static const struct guac_insn_ops guac_st_sticks_ops = {
	.name = "sticks",
	.drbg64 = guac_st_sticks,
	.seed64 = guac_st_sticks,
};

static const struct guac_insn_ops guac_st_unsticks_ops = {
	.name = "unsticks",
	.drbg64 = guac_st_unsticks,
	.seed64 = guac_st_unsticks,
};

static const struct guac_insn_ops guac_st_long_cycle_ops = {
	.name = "long-cycle",
	.drbg64 = guac_st_long_cycle,
	.seed64 = guac_st_long_cycle,
};

/* A cycle the other tests admit fails its first window, at its end. */
static bool guac_st_duplicate(void)
{
	static const struct guac_st_expect want = {
		-EIO, GUAC_HEALTH_DUPLICATE, 0, 0, 1
	};
	struct guac_hwrng_src src;
	u8 buf[GUAC_ST_BYTES];
	bool ok;
	int ret;

	if (guac_hwrng_src_init(&src, &guac_st_long_cycle_ops, false, false))
		return false;
	ret = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	ok = guac_st_check("duplicate", &src, ret, &want) &&
	     src.insn.tries == GUAC_ST_WINDOW;
	guac_hwrng_src_free(&src);
	return ok;
}

/*
 * A call hands over what is left of the passed window, to the word: after 5
 * and 63 * 8 words, 3. The call after it has none left, collects, and finds
 * the source dead.
 */
static bool guac_st_partial(void)
{
	struct guac_hwrng_src src;
	u8 buf[GUAC_ST_BYTES];
	bool ok;
	int i, ret;

	if (guac_hwrng_src_init(&src, &guac_st_dries_up_ops, false, false))
		return false;
	ok = guac_hwrng_fill(&src, buf, 5 * sizeof(u64), true) == 5 * sizeof(u64);
	for (i = 0; i < 63; i++)
		ok &= guac_hwrng_fill(&src, buf, sizeof(buf), true) == sizeof(buf);
	ret = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	ok &= ret == 3 * sizeof(u64) &&
	      guac_st_words_from(buf, ret, 2 * GUAC_ST_WINDOW - 3);
	if (!ok)
		pr_err("hwrng self-test partial: the window's last 3 words did not come, alone\n");
	ret = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	if (ret != -EIO || atomic64_read(&src.stats.bytes) != GUAC_ST_WINDOW * sizeof(u64) ||
	    atomic64_read(&src.stats.failures) != 1) {
		pr_err("hwrng self-test partial: got %d after the window, %lld bytes in all; want %d, %zu\n",
		       ret, (long long)atomic64_read(&src.stats.bytes), -EIO,
		       GUAC_ST_WINDOW * sizeof(u64));
		ok = false;
	}
	guac_hwrng_src_free(&src);
	return ok;
}

/*
 * A health failure mid-window drops the window, its good first words too, and
 * says -EIO: none of it reaches the caller's buffer.
 */
static bool guac_st_drop(void)
{
	static const struct guac_st_expect want = {
		-EIO, GUAC_HEALTH_REPETITION, 0, 0, 1
	};
	struct guac_hwrng_src src;
	u8 buf[GUAC_ST_BYTES];
	bool ok;
	int ret;

	memset(buf, 0xaa, sizeof(buf));
	if (guac_hwrng_src_init(&src, &guac_st_sticks_ops, true, false))
		return false;
	ret = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	ok = guac_st_check("drop", &src, ret, &want);
	if (ok && memchr_inv(buf, 0xaa, sizeof(buf))) {
		pr_err("hwrng self-test drop: words of the failed window reached the buffer\n");
		ok = false;
	}
	guac_hwrng_src_free(&src);
	return ok;
}

/*
 * After a failure nothing is delivered until a whole window passes: the
 * third call tests that window, drops it, and delivers from the next.
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

	bool ok;

	if (guac_hwrng_src_init(&src, &guac_st_unsticks_ops, false, false))
		return false;
	for (i = 0; i < ARRAY_SIZE(ret); i++)
		ret[i] = guac_hwrng_fill(&src, buf, sizeof(buf), true);
	if (ret[0] != -EIO || ret[1] != -EIO) {
		pr_err("hwrng self-test recovery: delivered %d, %d while stuck\n",
		       ret[0], ret[1]);
		ok = false;
	} else {
		/* Words 3 to 514 made the recovery window, 515 on were delivered. */
		ok = guac_st_check("recovery", &src, ret[2], &want) &&
		     guac_st_words_from(buf, ret[2], 3 + GUAC_ST_WINDOW);
	}
	guac_hwrng_src_free(&src);
	return ok;
}

bool guac_hwrng_selftest(void)
{
	bool ok = guac_st_table();

	ok &= guac_st_partial();
	ok &= guac_st_drop();
	ok &= guac_st_recovery();
	ok &= guac_st_duplicate();
	return ok;
}
