// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the hwrng's data path and health tests, over a
 * scripted instruction double. A script is a list of steps (so many tries
 * giving fresh words, CF=0, a stuck word, all ones or all zeros, a stuck bit,
 * two alternating words, a cycle, a 2-word cycle between fresh words), the
 * last repeating forever; fresh words are guac_insn_test_word(try), so every
 * byte delivered can be traced to the try that produced it. These complement the
 * load-time self-test (hwrng_selftest.c), which runs the named doubles; all
 * of them are the same on every architecture. The last case runs the real
 * instructions where the CPU has them: RDSEED and RDRAND on x86-64, RNDRRS
 * and RNDR on arm64.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <uapi/linux/guacrng.h>
#include "../../drivers/guacrng/guacrng.h"
#include "../../drivers/guacrng/hwrng.h"

#define HW_WINDOW GUAC_HEALTH_WINDOW
#define HW_FOREVER 0

enum hw_action {
	HW_FRESH,	/* guac_insn_test_word(try) */
	HW_FLAKY,	/* CF=0 for all but the last of every RDRAND budget */
	HW_CF0,
	HW_STUCK,	/* guac_insn_test_word(0) */
	HW_ONES,
	HW_ZEROS,
	HW_STUCK_BIT,	/* fresh, with bit 17 set */
	HW_ALTERNATE,	/* two words, neither fresh, in turn */
	HW_CYCLE,	/* guac_insn_test_word(try % period) */
	HW_INTERLEAVE,	/* fresh words, the two HW_ALTERNATE ones between them */
};

struct hw_step {
	enum hw_action action;
	unsigned int tries;	/* HW_FOREVER: the rest of the run */
	unsigned int period;	/* HW_CYCLE's */
};

struct hw_double {
	struct guac_hwrng_src src;
	const struct hw_step *steps;
};

/* The step try number @try falls in. */
static const struct hw_step *hw_step_at(const struct hw_step *steps, u64 try)
{
	for (; steps->tries != HW_FOREVER; steps++) {
		if (try < steps->tries)
			return steps;
		try -= steps->tries;
	}
	return steps;
}

static bool hw_double_try(struct guac_insn *insn, u64 *v)
{
	struct hw_double *d = container_of(insn, struct hw_double, src.insn);
	u64 try = insn->tries++;
	const struct hw_step *step = hw_step_at(d->steps, try);

	switch (step->action) {
	case HW_FRESH:
		*v = guac_insn_test_word(try);
		return true;
	case HW_STUCK_BIT:
		*v = guac_insn_test_word(try) | BIT_ULL(17);
		return true;
	case HW_ALTERNATE:
		*v = ~guac_insn_test_word(try & 1);
		return true;
	case HW_CYCLE:
		*v = guac_insn_test_word(try % step->period);
		return true;
	case HW_INTERLEAVE:
		*v = try & 1 ? ~guac_insn_test_word((try >> 1) & 1) :
			       guac_insn_test_word(try);
		return true;
	case HW_FLAKY:
		/* Word n after try n's budget less one failures: words stay consecutive. */
		if (try % GUAC_DRBG_TRIES != GUAC_DRBG_TRIES - 1)
			break;
		*v = guac_insn_test_word(try / GUAC_DRBG_TRIES);
		return true;
	case HW_STUCK:
		*v = guac_insn_test_word(0);
		return true;
	case HW_ONES:
		*v = ~0ULL;
		return true;
	case HW_ZEROS:
		*v = 0;
		return true;
	case HW_CF0:
		break;
	}
	/* The CPU zeroes the destination when CF is clear. */
	*v = 0;
	return false;
}

static const struct guac_insn_ops hw_double_ops = {
	.name = "kunit-script",
	.drbg64 = hw_double_try,
	.seed64 = hw_double_try,
};

static void hw_src_free(void *src)
{
	guac_hwrng_src_free(src);
}

/* @src initialised, and freed when the test ends. */
static void hw_src_init(struct kunit *test, struct guac_hwrng_src *src,
			const struct guac_insn_ops *ops, bool seed)
{
	KUNIT_ASSERT_EQ(test, guac_hwrng_src_init(src, ops, seed, false), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hw_src_free, src), 0);
}

static struct hw_double *hw_new(struct kunit *test, const struct hw_step *steps,
				bool seed)
{
	struct hw_double *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	hw_src_init(test, &d->src, &hw_double_ops, seed);
	d->steps = steps;
	return d;
}

/* @len bytes at @buf must be the fresh words of tries @first, @first + 1, ... */
static void hw_expect_words(struct kunit *test, const u8 *buf, size_t len, u64 first)
{
	size_t i;

	for (i = 0; i < len; i += sizeof(u64)) {
		u64 word = guac_insn_test_word(first + i / sizeof(u64));

		KUNIT_EXPECT_MEMEQ_MSG(test, buf + i, &word, min(len - i, sizeof(word)),
				       "byte %zu is not from try %llu", i,
				       first + i / sizeof(u64));
	}
}

static s64 hw_stat(atomic64_t *counter)
{
	return atomic64_read(counter);
}

/* ============================ the data path ============================ */

/*
 * Healthy: the start-up window is tested and dropped, the next one tested
 * and held back; then exactly its words, in order.
 */
static void hw_test_startup_then_words(struct kunit *test)
{
	static const struct hw_step fresh[] = { { HW_FRESH, HW_FOREVER } };
	struct hw_double *d = hw_new(test, fresh, false);
	u8 buf[40];

	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, 13, true), 13);
	hw_expect_words(test, buf, 13, HW_WINDOW);
	/* The rest of the second word is dropped, never handed out later. */
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), 40);
	hw_expect_words(test, buf, sizeof(buf), HW_WINDOW + 2);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.bytes), 53);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.retries), 0);
	KUNIT_EXPECT_TRUE(test, guac_health_ok(&d->src.health));
}

/* CF=0 forever: RDRAND gives up after exactly its tries, wait or not. */
static void hw_test_cf0_forever(struct kunit *test)
{
	static const struct hw_step dead[] = { { HW_CF0, HW_FOREVER } };
	struct hw_double *d = hw_new(test, dead, false);
	u8 buf[16];

	memset(buf, 0xcc, sizeof(buf));
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), -EIO);
	KUNIT_EXPECT_EQ(test, d->src.insn.tries, GUAC_DRBG_TRIES);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), false), -EIO);
	KUNIT_EXPECT_EQ(test, d->src.insn.tries, 2 * GUAC_DRBG_TRIES);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 2);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.retries), 2 * GUAC_DRBG_TRIES);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.bytes), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0xcc, sizeof(buf)));
}

/*
 * Intermittent failure: one CF=0 short of the budget before every word still
 * delivers every word; a full budget of them is a failure, after which the
 * source works again.
 */
static void hw_test_intermittent(struct kunit *test)
{
	static const struct hw_step flaky[] = { { HW_FLAKY, HW_FOREVER } };
	static const struct hw_step gap[] = {
		{ HW_FRESH, HW_WINDOW }, { HW_CF0, GUAC_DRBG_TRIES }, { HW_FRESH, HW_FOREVER },
	};
	struct hw_double *d = hw_new(test, flaky, false);
	u8 buf[32];

	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), 32);
	hw_expect_words(test, buf, sizeof(buf), HW_WINDOW);
	/* Start-up and one window, collected whole before the first byte. */
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.retries),
			(GUAC_DRBG_TRIES - 1) * 2 * HW_WINDOW);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 0);

	d = hw_new(test, gap, false);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), -EIO);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 1);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), 32);
	hw_expect_words(test, buf, sizeof(buf), HW_WINDOW + GUAC_DRBG_TRIES);
}

/*
 * A call returns what is left of the passed window, to the byte, and
 * collects no more; the next call collects, and finds the source dead.
 */
static void hw_test_partial_counts(struct kunit *test)
{
	static const struct hw_step steps[] = {
		{ HW_FRESH, 2 * HW_WINDOW }, { HW_CF0, HW_FOREVER },
	};
	static const unsigned int words_left[] = { 1, 2, 5 };
	size_t big = HW_WINDOW * sizeof(u64);
	u8 *drain = kunit_kzalloc(test, big, GFP_KERNEL);
	u8 buf[64];
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, drain);
	for (i = 0; i < ARRAY_SIZE(words_left); i++) {
		struct hw_double *d = hw_new(test, steps, false);
		int first = (HW_WINDOW - words_left[i]) * sizeof(u64);
		int want = words_left[i] * sizeof(u64);

		KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, drain, first, true), first);
		memset(buf, 0xcc, sizeof(buf));
		KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), want);
		hw_expect_words(test, buf, want, 2 * HW_WINDOW - words_left[i]);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(buf + want, 0xcc, sizeof(buf) - want),
				      "wrote past the %d bytes it returned", want);
		KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 0);
		KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), -EIO);
		KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.bytes), big);
		KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 1);
	}
}

/*
 * `wait` is honoured for RDSEED: a dry spell shorter than the waiting budget
 * is waited out; without wait the call gives up after its short burst. A
 * longer one, wait or not, returns 0, which is no failure: the hw_random core
 * calls again, and rngd keeps the source. RDRAND's budget does not depend on
 * wait, and running out of it is a failure.
 */
static void hw_test_wait_honoured(struct kunit *test)
{
	static const struct hw_step dry_spell[] = {
		{ HW_FRESH, HW_WINDOW }, { HW_CF0, 50 }, { HW_FRESH, HW_FOREVER },
	};
	static const struct hw_step dry[] = { { HW_CF0, HW_FOREVER } };
	struct hw_double *d;
	u8 buf[8];

	d = hw_new(test, dry_spell, true);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), false), 0);
	KUNIT_EXPECT_EQ(test, d->src.insn.tries, HW_WINDOW + GUAC_SEED_TRIES_NOWAIT);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 0);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), 8);
	hw_expect_words(test, buf, sizeof(buf), HW_WINDOW + 50);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.retries), 50);

	d = hw_new(test, dry, true);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), false), 0);
	KUNIT_EXPECT_EQ(test, d->src.insn.tries, GUAC_SEED_TRIES_NOWAIT);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), true), 0);
	KUNIT_EXPECT_EQ(test, d->src.insn.tries,
			GUAC_SEED_TRIES_NOWAIT + GUAC_SEED_TRIES_WAIT);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.failures), 0);

	d = hw_new(test, dry, false);
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, sizeof(buf), false), -EIO);
	KUNIT_EXPECT_EQ(test, d->src.insn.tries, GUAC_DRBG_TRIES);
}

/* Bad data after a healthy start: -EIO, nothing delivered, then recovery. */
struct hw_bad_data_case {
	const char *name;
	enum hw_action action;
	enum guac_health_state state;
};

static const struct hw_bad_data_case hw_bad_data_cases[] = {
	{ "stuck word", HW_STUCK, GUAC_HEALTH_REPETITION },
	{ "all ones", HW_ONES, GUAC_HEALTH_ALL_ONES },
	{ "all zeros", HW_ZEROS, GUAC_HEALTH_ALL_ZEROS },
};

static void hw_bad_data_desc(const struct hw_bad_data_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hw_bad_data, hw_bad_data_cases, hw_bad_data_desc);

/* Each byte is 0 (dropped) or untouched: a failed call leaves no word behind. */
static void hw_expect_nothing_left(struct kunit *test, const u8 *buf, size_t len, u8 poison)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] && buf[i] != poison)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, len, "a failed call left byte %zu behind", i);
}

static void hw_test_bad_data(struct kunit *test)
{
	const struct hw_bad_data_case *c = test->param_value;
	/* Start-up and 200 words of a window, 4 bad tries, then healthy again. */
	const struct hw_step steps[] = {
		{ HW_FRESH, HW_WINDOW + 200 }, { c->action, 4 }, { HW_FRESH, HW_FOREVER },
	};
	/* A stuck word passes once, as nothing before it was the same. */
	int bad_calls = c->action == HW_STUCK ? 3 : 4;
	struct hw_double *d = hw_new(test, steps, true);
	u8 buf[64];
	int i, ret;

	/* The window's 200 good words go with it. */
	for (i = 0; i < bad_calls; i++) {
		memset(buf, 0xcc, sizeof(buf));
		ret = guac_hwrng_fill(&d->src, buf, sizeof(buf), true);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EIO, "call %d", i);
		KUNIT_EXPECT_EQ(test, d->src.health.state, c->state);
		hw_expect_nothing_left(test, buf, sizeof(buf), 0xcc);
	}
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.health_failures), bad_calls);
	KUNIT_EXPECT_EQ(test, hw_stat(&d->src.stats.bytes), 0);

	/* A whole window of healthy words passes before anything else is delivered. */
	KUNIT_EXPECT_EQ(test, guac_hwrng_fill(&d->src, buf, 8, true), 8);
	hw_expect_words(test, buf, 8, HW_WINDOW + 200 + 4 + HW_WINDOW);
	KUNIT_EXPECT_TRUE(test, guac_health_ok(&d->src.health));
}

/* ============================ the health tests ============================ */

static void hw_health_free(void *h)
{
	guac_health_free(h);
}

static struct guac_health *hw_health_started(struct kunit *test, u64 *next)
{
	struct guac_health *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, guac_health_init(h), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hw_health_free, h), 0);
	for (i = 0; i < HW_WINDOW; i++) {
		KUNIT_ASSERT_EQ(test, guac_health_test(h, guac_insn_test_word((*next)++)),
				GUAC_HEALTH_OK);
		if (i < HW_WINDOW - 1)
			KUNIT_ASSERT_EQ(test, h->state, GUAC_HEALTH_STARTUP);
	}
	KUNIT_ASSERT_TRUE(test, guac_health_ok(h));
	return h;
}

/* Repetition count test: one word twice in a row fails. */
static void hw_test_health_repetition(struct kunit *test)
{
	u64 next = 0, word;
	struct guac_health *h = hw_health_started(test, &next);

	word = guac_insn_test_word(next++);
	KUNIT_EXPECT_EQ(test, guac_health_test(h, word), GUAC_HEALTH_OK);
	KUNIT_EXPECT_EQ(test, guac_health_test(h, word), GUAC_HEALTH_REPETITION);
	KUNIT_EXPECT_FALSE(test, guac_health_ok(h));
}

/* Adaptive proportion test: a window's first word may come back once, not twice. */
static void hw_test_health_proportion(struct kunit *test)
{
	u64 next = 0, first;
	struct guac_health *h = hw_health_started(test, &next);
	unsigned int i;

	first = guac_insn_test_word(next++);
	KUNIT_EXPECT_EQ(test, guac_health_test(h, first), GUAC_HEALTH_OK);
	for (i = 0; i < 100; i++)
		guac_health_test(h, guac_insn_test_word(next++));
	KUNIT_EXPECT_EQ(test, guac_health_test(h, first), GUAC_HEALTH_OK);
	for (i = 0; i < 100; i++)
		guac_health_test(h, guac_insn_test_word(next++));
	KUNIT_EXPECT_TRUE(test, guac_health_ok(h));
	KUNIT_EXPECT_EQ(test, guac_health_test(h, first), GUAC_HEALTH_PROPORTION);
}

/* A bit that keeps its value through a whole window fails at the window's end. */
static void hw_test_health_stuck_bit(struct kunit *test)
{
	u64 next = 0;
	struct guac_health *h = hw_health_started(test, &next);
	enum guac_health_state state = GUAC_HEALTH_OK;
	unsigned int i;

	for (i = 0; i < HW_WINDOW && state == GUAC_HEALTH_OK; i++)
		state = guac_health_test(h, guac_insn_test_word(next++) | BIT_ULL(17));
	KUNIT_EXPECT_EQ(test, state, GUAC_HEALTH_STUCK_BIT);
	KUNIT_EXPECT_EQ(test, i, HW_WINDOW);
}

/* After any failure, one whole window of good words, no fewer, restores output. */
static void hw_test_health_recovery(struct kunit *test)
{
	u64 next = 0;
	struct guac_health *h = hw_health_started(test, &next);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, guac_health_test(h, 0), GUAC_HEALTH_ALL_ZEROS);
	for (i = 0; i < HW_WINDOW - 1; i++) {
		KUNIT_ASSERT_EQ(test, guac_health_test(h, guac_insn_test_word(next++)),
				GUAC_HEALTH_OK);
		KUNIT_ASSERT_FALSE_MSG(test, guac_health_ok(h), "recovered after %u words", i + 1);
	}
	KUNIT_EXPECT_EQ(test, guac_health_test(h, guac_insn_test_word(next++)), GUAC_HEALTH_OK);
	KUNIT_EXPECT_TRUE(test, guac_health_ok(h));
}

/*
 * Duplicates: a word seen again in its window, or in one of the three
 * windows before, fails at the window's end; four windows back it is out of
 * the span and passes.
 */
static void hw_test_health_duplicate(struct kunit *test)
{
	static const unsigned int back[] = { 0, 1, 2, 3, 4 };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(back); k++) {
		u64 next = 0, again;
		struct guac_health *h = hw_health_started(test, &next);
		enum guac_health_state state = GUAC_HEALTH_OK;
		unsigned int i;

		/* More clean windows, so that the span is full. */
		for (i = 0; i < 4 * HW_WINDOW; i++)
			KUNIT_ASSERT_EQ(test, guac_health_test(h, guac_insn_test_word(next++)),
					GUAC_HEALTH_OK);
		/* Word 200 of the window @back windows before this one, as its word 100. */
		again = guac_insn_test_word(next - back[k] * HW_WINDOW + 300 - 100);
		for (i = 0; i < HW_WINDOW && state == GUAC_HEALTH_OK; i++)
			state = guac_health_test(h, i == 100 ? again :
						 guac_insn_test_word(next + i));
		if (back[k] < GUAC_HEALTH_SPAN_WINDOWS) {
			KUNIT_EXPECT_EQ_MSG(test, state, GUAC_HEALTH_DUPLICATE,
					    "%u windows back", back[k]);
			KUNIT_EXPECT_EQ(test, i, HW_WINDOW);
			KUNIT_EXPECT_FALSE(test, guac_health_ok(h));
		} else {
			KUNIT_EXPECT_EQ(test, state, GUAC_HEALTH_OK);
		}
	}
}

/*
 * Issue 38 H1: a fault that starts inside a window (here at its word 200)
 * fails that window, and not one of its words is delivered: the reads give
 * the whole window before it, then -EIO and nothing more.
 */
struct hw_fault_case {
	const char *name;
	enum hw_action action;
	unsigned int period;
};

static const struct hw_fault_case hw_h1_cases[] = {
	{ "stuck word", HW_STUCK },
	{ "two alternating words", HW_ALTERNATE },
	{ "all zeros", HW_ZEROS },
	{ "all ones", HW_ONES },
	{ "3-word cycle", HW_CYCLE, 3 },
	{ "2-word cycle between fresh words", HW_INTERLEAVE },
};

static void hw_fault_desc(const struct hw_fault_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hw_h1, hw_h1_cases, hw_fault_desc);

#define HW_READS 300

/* @reads 64-byte reads into @out (room for 2 windows); the bytes they gave. */
static size_t hw_read_all(struct kunit *test, struct hw_double *d, u8 *out,
			  unsigned int reads, unsigned int *eio)
{
	size_t got = 0, room = 2 * HW_WINDOW * sizeof(u64);
	unsigned int i;

	*eio = 0;
	for (i = 0; i < reads; i++) {
		u8 buf[64];
		int ret = guac_hwrng_fill(&d->src, buf, sizeof(buf), true);

		if (ret == -EIO) {
			(*eio)++;
			continue;
		}
		KUNIT_ASSERT_GE(test, ret, 0);
		KUNIT_ASSERT_LE_MSG(test, got + ret, room, "more delivered than expected");
		memcpy(out + got, buf, ret);
		got += ret;
	}
	return got;
}

static void hw_test_h1_fault_mid_window(struct kunit *test)
{
	const struct hw_fault_case *c = test->param_value;
	const struct hw_step steps[] = {
		{ HW_FRESH, 2 * HW_WINDOW + 200 }, { c->action, HW_FOREVER, c->period },
	};
	struct hw_double *d = hw_new(test, steps, true);
	u8 *out = kunit_kzalloc(test, 2 * HW_WINDOW * sizeof(u64), GFP_KERNEL);
	unsigned int eio;
	size_t got;

	KUNIT_ASSERT_NOT_NULL(test, out);
	got = hw_read_all(test, d, out, HW_READS, &eio);
	/* Exactly the window before the fault: tries 512 to 1023. */
	KUNIT_EXPECT_EQ(test, got, HW_WINDOW * sizeof(u64));
	hw_expect_words(test, out, got, HW_WINDOW);
	KUNIT_EXPECT_EQ(test, eio, HW_READS - HW_WINDOW * sizeof(u64) / 64);
	KUNIT_EXPECT_FALSE(test, guac_health_ok(&d->src.health));
}

/*
 * Issue 38 H2: a source repeating a cycle of 256 words or more, which the
 * adaptive proportion test admits, or a 2-word cycle between fresh words:
 * health fails (duplicate) and stays failed, and no word is delivered twice.
 */
static const struct hw_fault_case hw_h2_cases[] = {
	{ "cycle of 256 words", HW_CYCLE, 256 },
	{ "cycle of 300 words", HW_CYCLE, 300 },
	{ "cycle of 1000 words", HW_CYCLE, 1000 },
	{ "cycle of 2047 words", HW_CYCLE, 2047 },
	{ "2-word cycle between fresh words", HW_INTERLEAVE },
};

KUNIT_ARRAY_PARAM(hw_h2, hw_h2_cases, hw_fault_desc);

static void hw_test_h2_cycles(struct kunit *test)
{
	const struct hw_fault_case *c = test->param_value;
	const struct hw_step steps[] = { { c->action, HW_FOREVER, c->period } };
	struct hw_double *d = hw_new(test, steps, false);
	u64 *out = kunit_kzalloc(test, 2 * HW_WINDOW * sizeof(u64), GFP_KERNEL);
	unsigned int eio, i, j;
	size_t words;

	KUNIT_ASSERT_NOT_NULL(test, out);
	words = hw_read_all(test, d, (u8 *)out, HW_READS, &eio) / sizeof(u64);
	for (i = 0; i < words; i++)
		for (j = i + 1; j < words; j++)
			KUNIT_ASSERT_NE_MSG(test, out[i], out[j],
					    "words %u and %u delivered are equal", i, j);
	KUNIT_EXPECT_EQ(test, d->src.health.state, GUAC_HEALTH_DUPLICATE);
	/* Failed for good: the last reads deliver nothing. */
	KUNIT_EXPECT_EQ(test, hw_read_all(test, d, (u8 *)out, 20, &eio), 0);
	KUNIT_EXPECT_EQ(test, eio, 20);
}

/* ====================== the real instructions ====================== */

/*
 * The CPU's instructions themselves, through the instruction layer the hwrng
 * reads (guac_insn_cpu), where the CPU has them: the doubles above prove the
 * logic, this proves the asm and the success flag (x86: CF; arm64: NZCV.Z
 * clear) on a real (or emulated) CPU. Each word must come within the budget
 * the hwrng gives it (RDSEED, RNDRRS: a waiting reader's, with the same pause
 * between tries), and the words must not all be equal. Then the whole data
 * path over the real instruction: start-up window, health tests, bytes. A
 * CPU without the instruction (QEMU's TCG has no RDSEED; arm64 CPUs before
 * FEAT_RNG) skips with the reason; the Bochs suite (make check-avx512) runs
 * RDSEED and RDRAND for real, QEMU's -cpu max RNDR and RNDRRS.
 */
#define HW_CPU_WORDS 64

struct hw_cpu_case {
	bool seed;		/* guac_insn_names[] index */
	unsigned int budget;
};

static const struct hw_cpu_case hw_cpu_cases[] = {
	{ true, GUAC_SEED_TRIES_WAIT },
	{ false, GUAC_DRBG_TRIES },
};

static void hw_cpu_desc(const struct hw_cpu_case *c, char *desc)
{
	strscpy(desc, guac_insn_names[c->seed].insn, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hw_cpu, hw_cpu_cases, hw_cpu_desc);

static void hw_test_cpu_insn(struct kunit *test)
{
	const struct hw_cpu_case *c = test->param_value;
	const char *name = guac_insn_names[c->seed].insn;
	u64 *words = kunit_kcalloc(test, HW_CPU_WORDS, sizeof(*words), GFP_KERNEL);
	struct guac_hwrng_src *src = kunit_kzalloc(test, sizeof(*src), GFP_KERNEL);
	unsigned int i, tries, retries = 0, most = 0, distinct = 0;
	struct guac_insn insn;
	u8 buf[64];
	int calls, got = 0;

	KUNIT_ASSERT_NOT_NULL(test, words);
	KUNIT_ASSERT_NOT_NULL(test, src);
	if (!(guac_cpu_features() & guac_insn_names[c->seed].feature))
		kunit_skip(test, "this CPU has no %s: the real instruction is untested here",
			   name);

	guac_insn_init(&insn, &guac_insn_cpu);
	for (i = 0; i < HW_CPU_WORDS; i++) {
		for (tries = 0; tries < c->budget; tries++) {
			if (tries && c->seed) {
				udelay(1);
				cond_resched();
			}
			if (c->seed ? guac_insn_seed64(&insn, &words[i]) :
					guac_insn_drbg64(&insn, &words[i]))
				break;
		}
		KUNIT_ASSERT_LT_MSG(test, tries, c->budget,
				    "%s word %u: failed all %u tries", name, i,
				    c->budget);
		retries += tries;
		most = max(most, tries);
	}
	for (i = 1; i < HW_CPU_WORDS; i++)
		if (words[i] != words[0])
			distinct++;
	KUNIT_EXPECT_GT_MSG(test, distinct, 0, "%s gave %u words all equal to %#llx",
			    name, HW_CPU_WORDS, words[0]);
	kunit_info(test, "%s: %u words via guac_insn_cpu, %u retries (at most %u for one word)\n",
		   name, HW_CPU_WORDS, retries, most);

	/*
	 * The hwrng's data path on the real instruction: a dry RDSEED or RNDRRS may
	 * return 0 (the hw_random core calls again), so a few calls, each
	 * with the waiting budget; none may fail or trip a health test.
	 */
	hw_src_init(test, src, &guac_insn_cpu, c->seed);
	for (calls = 0; calls < 16 && got < (int)sizeof(buf); calls++) {
		int ret = guac_hwrng_fill(src, buf + got, sizeof(buf) - got, true);

		KUNIT_ASSERT_GE_MSG(test, ret, 0, "%s: guac_hwrng_fill failed", name);
		got += ret;
	}
	KUNIT_EXPECT_EQ_MSG(test, got, (int)sizeof(buf), "%s: %d of %zu bytes in %d calls",
			    name, got, sizeof(buf), calls);
	KUNIT_EXPECT_EQ(test, hw_stat(&src->stats.failures), 0);
	KUNIT_EXPECT_EQ(test, hw_stat(&src->stats.health_failures), 0);
	KUNIT_EXPECT_TRUE(test, guac_health_ok(&src->health));
	KUNIT_EXPECT_NOT_NULL_MSG(test, memchr_inv(buf, buf[0], sizeof(buf)),
				  "%s: 64 bytes all %#x", name, buf[0]);
}

static struct kunit_case hw_test_cases[] = {
	KUNIT_CASE(hw_test_startup_then_words),
	KUNIT_CASE(hw_test_cf0_forever),
	KUNIT_CASE(hw_test_intermittent),
	KUNIT_CASE(hw_test_partial_counts),
	KUNIT_CASE(hw_test_wait_honoured),
	KUNIT_CASE_PARAM(hw_test_bad_data, hw_bad_data_gen_params),
	KUNIT_CASE(hw_test_health_repetition),
	KUNIT_CASE(hw_test_health_proportion),
	KUNIT_CASE(hw_test_health_stuck_bit),
	KUNIT_CASE(hw_test_health_recovery),
	KUNIT_CASE(hw_test_health_duplicate),
	KUNIT_CASE_PARAM(hw_test_h1_fault_mid_window, hw_h1_gen_params),
	KUNIT_CASE_PARAM(hw_test_h2_cycles, hw_h2_gen_params),
	KUNIT_CASE_PARAM(hw_test_cpu_insn, hw_cpu_gen_params),
	{}
};

static struct kunit_suite hw_test_suite = {
	.name = "guacrng-hwrng",
	.test_cases = hw_test_cases,
};

kunit_test_suite(hw_test_suite);
