// SPDX-License-Identifier: GPL-2.0
/*
 * The hwrng's read path and health tests, the kernel's own
 * drivers/guacrng/hwrng_read.c and hwrng_health.c built unchanged over
 * kshim.h, driven as the hw_random core drives them: 64-byte reads, waiting
 * (khwrngd, blocking readers) or not (O_NONBLOCK). The source is a scripted
 * double that logs every word it hands out, so each delivered word can be
 * traced to the try that produced it.
 *
 * Issue 38: H1, a fault that starts inside a window must not be delivered;
 * H2, a source repeating a cycle (up to the duplicate test's span) or mixing
 * a short cycle into good words must fail and deliver no word twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hwrng.h"

#define WINDOW GUAC_HEALTH_WINDOW
#define READ_BYTES 64		/* what the hw_random core asks for */
#define READ_WORDS (READ_BYTES / sizeof(u64))
#define MAX_TRIES (512 * WINDOW)
#define WORD_A 0x5555aaaa3c3cc3c3ULL
#define WORD_B 0x0f0ff0f01248edb7ULL

unsigned int kshim_warnings, kshim_infos;
int kshim_alloc_budget = -1;

/* What hwrng_read.c takes from hwrng_insn*.c. */
const struct guac_insn_name guac_insn_names[2] = {
	{ "RDRAND", "rdrand", "guacrng-rdrand", 0 },
	{ "RDSEED", "rdseed", "guacrng-rdseed", 0 },
};

void guac_insn_init(struct guac_insn *insn, const struct guac_insn_ops *ops)
{
	insn->ops = ops;
	insn->tries = 0;
}

/* splitmix64: a bijection of the try number, so fresh words never repeat. */
static u64 fresh(u64 n)
{
	u64 z = n * 0x9e3779b97f4a7c15ULL + 0x243f6a8885a308d3ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

enum fault {
	F_NONE,
	F_STUCK,	/* one word for ever */
	F_ALTERNATE,	/* A, B, A, B, ... */
	F_ZEROS,
	F_ONES,
	F_STUCKBIT,	/* fresh words with bit 17 set */
	F_CYCLE,	/* fresh(t mod period) from the start */
	F_INTERLEAVE,	/* fresh words with A and B between them */
	F_DRY,		/* CF=0 for @period tries, then fresh again */
};

struct hw {
	struct guac_hwrng_src src;
	enum fault fault;
	u64 onset;		/* first faulty try */
	u64 period;
	u64 produced[MAX_TRIES];
	u64 delivered_upto;	/* tries before this one were passed over */
};

static u64 hw_word(const struct hw *hw, u64 t)
{
	u64 k = t - hw->onset;

	if (hw->fault == F_CYCLE)
		return fresh(t % hw->period);
	if (t < hw->onset || hw->fault == F_DRY)
		return fresh(t);
	switch (hw->fault) {
	case F_STUCK:
		return WORD_A;
	case F_ALTERNATE:
		return k & 1 ? WORD_B : WORD_A;
	case F_ZEROS:
		return 0;
	case F_ONES:
		return ~0ULL;
	case F_STUCKBIT:
		return fresh(t) | (1ULL << 17);
	case F_INTERLEAVE:
		return !(k & 1) ? fresh(t) : (k & 2) ? WORD_B : WORD_A;
	default:
		return fresh(t);
	}
}

static bool hw_try(struct guac_insn *insn, u64 *v)
{
	struct hw *hw = (struct hw *)((char *)insn - offsetof(struct hw, src.insn));
	u64 t = insn->tries++;

	assert_true(t < MAX_TRIES);
	if (hw->fault == F_DRY && t >= hw->onset && t < hw->onset + hw->period) {
		hw->produced[t] = 0;
		*v = 0;
		return false;
	}
	*v = hw->produced[t] = hw_word(hw, t);
	return true;
}

static const struct guac_insn_ops hw_ops = {
	.name = "harness",
	.drbg64 = hw_try,
	.seed64 = hw_try,
};

static struct hw *hw_new(enum fault fault, u64 onset, u64 period, bool seed)
{
	struct hw *hw = calloc(1, sizeof(*hw));

	assert_non_null(hw);
	hw->fault = fault;
	hw->onset = onset;
	hw->period = period;
	kshim_warnings = kshim_infos = 0;
	assert_int_equal(guac_hwrng_src_init(&hw->src, &hw_ops, seed, true), 0);
	return hw;
}

static void hw_free(struct hw *hw)
{
	guac_hwrng_src_free(&hw->src);
	free(hw);
}

/*
 * The try that produced @word: words leave in the order they came, so it is
 * the first try after the last word traced that produced it.
 */
static u64 hw_trace(struct hw *hw, u64 word)
{
	u64 t;

	for (t = hw->delivered_upto; t < hw->src.insn.tries; t++)
		if (hw->produced[t] == word && !(hw->fault == F_DRY && !word))
			break;
	assert_true(t < hw->src.insn.tries);
	hw->delivered_upto = t + 1;
	return t;
}

struct tally {
	unsigned int reads, eio, zero;
	u64 words, faulty;
	u64 first_try, last_try;
};

/* @reads 64-byte reads; every delivered word traced to its try. */
static struct tally hw_read(struct hw *hw, unsigned int reads, bool wait)
{
	struct tally t = { .first_try = UINT64_MAX };
	u8 buf[READ_BYTES];

	for (; t.reads < reads; t.reads++) {
		int ret;
		size_t i;

		memset(buf, 0xcc, sizeof(buf));
		ret = guac_hwrng_fill(&hw->src, buf, sizeof(buf), wait);
		assert_true(ret >= -EIO && ret <= READ_BYTES);
		assert_true(ret <= 0 || ret % sizeof(u64) == 0);
		if (ret < 0) {
			assert_int_equal(ret, -EIO);
			t.eio++;
		} else if (!ret) {
			t.zero++;
		}
		for (i = 0; ret > 0 && i < (size_t)ret; i += sizeof(u64)) {
			u64 word, at;

			memcpy(&word, buf + i, sizeof(word));
			at = hw_trace(hw, word);
			if (t.first_try == UINT64_MAX)
				t.first_try = at;
			t.last_try = at;
			t.words++;
			if (hw->fault != F_NONE && hw->fault != F_DRY && at >= hw->onset)
				t.faulty++;
		}
		/* Nothing past what the call returned (on -EIO the core reads none). */
		for (i = ret; ret >= 0 && i < sizeof(buf); i++)
			assert_int_equal(buf[i], 0xcc);
	}
	return t;
}

/* ============================ the clean source ============================ */

/*
 * Every word of every window after start-up is delivered, once, in order:
 * holding back loses nothing. Start-up costs one window, and each read that
 * finds no passed word left collects exactly one window.
 */
static void clean_delivers_every_word(void **state)
{
	struct hw *hw = hw_new(F_NONE, 0, 0, true);
	unsigned int n = 4 * WINDOW / READ_WORDS;
	struct tally t = hw_read(hw, n, true);

	assert_int_equal(t.eio + t.zero, 0);
	assert_int_equal(t.words, n * READ_WORDS);
	assert_int_equal(t.first_try, WINDOW);
	assert_int_equal(t.last_try, WINDOW + n * READ_WORDS - 1);
	assert_int_equal(hw->src.insn.tries, 5 * WINDOW);
	assert_int_equal(hw->src.stats.bytes.counter, n * READ_BYTES);
	assert_int_equal(hw->src.stats.health_failures.counter, 0);
	assert_true(guac_health_ok(&hw->src.health));
	/* One more read: the next window is collected whole before it delivers. */
	t = hw_read(hw, 1, false);
	assert_int_equal(t.words, READ_WORDS);
	assert_int_equal(hw->src.insn.tries, 6 * WINDOW);
	hw_free(hw);
}

/* Far more windows than the span, clean: no false alarm, all delivered. */
static void clean_many_windows(void **state)
{
	struct hw *hw = hw_new(F_NONE, 0, 0, false);
	unsigned int n = (MAX_TRIES - 2 * WINDOW) / READ_WORDS;
	struct tally t = hw_read(hw, n, true);

	assert_int_equal(t.eio + t.zero, 0);
	assert_int_equal(t.words, n * READ_WORDS);
	assert_int_equal(kshim_warnings, 0);
	hw_free(hw);
}

/* A read of 13 bytes takes two words; the rest of the second is dropped. */
static void short_read_drops_the_rest(void **state)
{
	struct hw *hw = hw_new(F_NONE, 0, 0, false);
	u8 buf[16];
	u64 word;

	assert_int_equal(guac_hwrng_fill(&hw->src, buf, 13, true), 13);
	assert_int_equal(guac_hwrng_fill(&hw->src, buf, 8, true), 8);
	memcpy(&word, buf, sizeof(word));
	assert_true(word == fresh(WINDOW + 2));
	assert_int_equal(hw->src.stats.bytes.counter, 21);
	hw_free(hw);
}

/* A read returns what is left of the passed window and collects no more. */
static void window_end_is_a_short_read(void **state)
{
	struct hw *hw = hw_new(F_NONE, 0, 0, false);
	u8 buf[READ_BYTES];
	unsigned int i;

	assert_int_equal(guac_hwrng_fill(&hw->src, buf, 5 * sizeof(u64), true), 40);
	for (i = 0; i < WINDOW / READ_WORDS - 1; i++)
		assert_int_equal(guac_hwrng_fill(&hw->src, buf, sizeof(buf), true), 64);
	assert_int_equal(guac_hwrng_fill(&hw->src, buf, sizeof(buf), true), 24);
	assert_int_equal(hw->src.insn.tries, 2 * WINDOW);
	hw_free(hw);
}

/*
 * RDSEED dry mid-window: a read without wait returns 0, the window's words so
 * far stay held, and the window goes on where it stopped: no word is lost or
 * delivered from an untested window.
 */
static void dry_spell_keeps_the_window(void **state)
{
	struct hw *hw = hw_new(F_DRY, WINDOW + 100, 50, true);
	struct tally t;

	t = hw_read(hw, 1, false);
	assert_int_equal(t.zero, 1);
	assert_int_equal(hw->src.insn.tries, WINDOW + 100 + GUAC_SEED_TRIES_NOWAIT);
	assert_int_equal(hw->src.health.window_words, 100);
	t = hw_read(hw, 3, false);
	assert_int_equal(t.zero, 3);
	t = hw_read(hw, 2, true);
	assert_int_equal(t.zero + t.eio, 0);
	assert_int_equal(t.first_try, WINDOW);
	assert_int_equal(t.words, 2 * READ_WORDS);
	assert_int_equal(hw->src.stats.retries.counter, 50);
	hw_free(hw);
}

/* RDRAND dead mid-window: -EIO, and the words before it still come after. */
static void rdrand_gap_keeps_the_window(void **state)
{
	struct hw *hw = hw_new(F_DRY, WINDOW + 7, GUAC_DRBG_TRIES, false);
	struct tally t = hw_read(hw, 2, true);

	assert_int_equal(t.eio, 1);
	assert_int_equal(t.first_try, WINDOW);
	assert_int_equal(hw->src.stats.failures.counter, 1);
	hw_free(hw);
}

/* Out of memory: init says so and leaves nothing to free twice. */
static void init_out_of_memory(void **state)
{
	int budget;

	for (budget = 0; budget < 2; budget++) {
		struct guac_hwrng_src src;

		kshim_alloc_budget = budget;
		assert_int_equal(guac_hwrng_src_init(&src, &hw_ops, true, false), -ENOMEM);
		assert_null(src.held);
		assert_null(src.health.span);
		guac_hwrng_src_free(&src);
	}
	kshim_alloc_budget = -1;
}

/* ============================ H1: faults mid-window ============================ */

struct h1_case {
	const char *name;
	enum fault fault;
};

static const struct h1_case h1_cases[] = {
	{ "stuck word", F_STUCK },
	{ "alternation of two words", F_ALTERNATE },
	{ "all zeros", F_ZEROS },
	{ "all ones", F_ONES },
};

/*
 * The fault starts at each of several places inside the second delivered
 * window (and on its edges) and lasts: not one faulty word may be delivered,
 * the reads after it fail, and the failure is logged once.
 */
static void h1_fault_mid_window(void **state)
{
	static const unsigned int at[] = { 0, 1, 2, 100, 240, 300, 506, 509 };
	u64 faulty = 0, mismatches = 0;
	size_t c, i;

	for (c = 0; c < ARRAY_SIZE(h1_cases); c++) {
		for (i = 0; i < ARRAY_SIZE(at); i++) {
			u64 onset = 2 * WINDOW + at[i];
			struct hw *hw = hw_new(h1_cases[c].fault, onset, 0, true);
			struct tally t = hw_read(hw, 200, true);

			print_message("[   INFO   ] %s from word %u of a window: %llu faulty words delivered of %llu\n",
				      h1_cases[c].name, at[i],
				      (unsigned long long)t.faulty,
				      (unsigned long long)t.words);
			faulty += t.faulty;
			/* The window before the fault, and nothing after it. */
			mismatches += t.words != WINDOW ||
				      t.eio != 200 - WINDOW / READ_WORDS ||
				      guac_health_ok(&hw->src.health) ||
				      kshim_warnings != 1;
			hw_free(hw);
		}
	}
	assert_int_equal(faulty, 0);
	assert_int_equal(mismatches, 0);
}

/*
 * A fault shows from its first repeated word on: an alternation that starts
 * on a window's last two words gives two words never seen before, which pass
 * with that window (and are delivered); the next window fails.
 */
static void h1_fault_visible_from_first_repeat(void **state)
{
	struct hw *hw = hw_new(F_ALTERNATE, 3 * WINDOW - 2, 0, true);
	struct tally t = hw_read(hw, 200, true);

	assert_int_equal(t.faulty, 2);
	assert_int_equal(t.words, 2 * WINDOW);
	assert_false(guac_health_ok(&hw->src.health));
	hw_free(hw);
}

/*
 * A bit that sticks at a window's start fails that window: nothing of it is
 * delivered. One that sticks inside a window is seen only at the end of the
 * next (the test needs a whole window of it): the words of the first from the
 * onset on are delivered, and no more. docs/hwrng.md says so.
 */
static void h1_stuck_bit(void **state)
{
	static const unsigned int at[] = { 0, 1, 300, 511 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		struct hw *hw = hw_new(F_STUCKBIT, 2 * WINDOW + at[i], 0, false);
		struct tally t = hw_read(hw, 300, true);
		u64 limit = at[i] ? WINDOW - at[i] : 0;

		print_message("[   INFO   ] stuck bit from word %u of a window: %llu faulty words delivered\n",
			      at[i], (unsigned long long)t.faulty);
		/* At most the onset window's rest; nothing of a later window. */
		assert_true(t.faulty <= limit);
		assert_true(!t.words || t.last_try < 3 * WINDOW);
		assert_int_equal(hw->src.health.state, GUAC_HEALTH_STUCK_BIT);
		hw_free(hw);
	}
}

/* ============================ H2: cycles ============================ */

/* The source must end up failing, for good: the last reads deliver nothing. */
static void h2_expect_caught(struct hw *hw, u64 words, bool duplicate,
			     const char *name)
{
	struct tally t;

	print_message("[   INFO   ] %s: %llu words delivered, health %s\n", name,
		      (unsigned long long)words,
		      guac_health_state_name(hw->src.health.state));
	if (duplicate)
		assert_int_equal(hw->src.health.state, GUAC_HEALTH_DUPLICATE);
	assert_false(guac_health_ok(&hw->src.health));
	assert_true(hw->src.stats.health_failures.counter > 0);
	t = hw_read(hw, 20, true);
	assert_int_equal(t.words, 0);
	assert_int_equal(t.eio, 20);
}

/* Every delivered word's value, to find one delivered twice. */
static u64 h2_delivered[MAX_TRIES];

static struct tally h2_read(struct hw *hw, unsigned int reads)
{
	struct tally t = { 0 };
	u8 buf[READ_BYTES];
	unsigned int r;
	u64 n = 0, i, j;

	for (r = 0; r < reads; r++) {
		int ret = guac_hwrng_fill(&hw->src, buf, sizeof(buf), true);

		for (i = 0; ret > 0 && i < (u64)ret; i += sizeof(u64))
			memcpy(&h2_delivered[n++], buf + i, sizeof(u64));
		t.eio += ret == -EIO;
	}
	t.words = n;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			assert_false(h2_delivered[i] == h2_delivered[j]);
	return t;
}

/*
 * Cycles of 2 to 2047 words (the span less one) fail; every word delivered
 * is the first time the source gave it. Below 256 words the adaptive
 * proportion test may fire first; from 256 on only the duplicate test can.
 */
static void h2_cycles(void **state)
{
	static const u64 periods[] = { 2, 3, 100, 255, 256, 257, 511, 512, 513,
				       1000, 1024, 1535, 2047 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		struct hw *hw = hw_new(F_CYCLE, 0, periods[i], true);
		struct tally t = h2_read(hw, 400);
		char name[40];

		snprintf(name, sizeof(name), "cycle of %llu words",
			 (unsigned long long)periods[i]);
		assert_true(t.words <= (periods[i] > WINDOW ? periods[i] - WINDOW : 0));
		h2_expect_caught(hw, t.words, periods[i] >= 256, name);
		hw_free(hw);
	}
}

/* A 2-word cycle between good words, starting anywhere: nothing of it leaves. */
static void h2_interleaved(void **state)
{
	static const unsigned int at[] = { 0, 5, 300, 505 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		struct hw *hw = hw_new(F_INTERLEAVE, 2 * WINDOW + at[i], 0, true);
		struct tally t = hw_read(hw, 300, true);

		assert_int_equal(t.faulty, 0);
		assert_int_equal(t.words, WINDOW);
		h2_expect_caught(hw, t.words, true, "2-word cycle between good words");
		hw_free(hw);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_delivers_every_word),
		cmocka_unit_test(clean_many_windows),
		cmocka_unit_test(short_read_drops_the_rest),
		cmocka_unit_test(window_end_is_a_short_read),
		cmocka_unit_test(dry_spell_keeps_the_window),
		cmocka_unit_test(rdrand_gap_keeps_the_window),
		cmocka_unit_test(init_out_of_memory),
		cmocka_unit_test(h1_fault_mid_window),
		cmocka_unit_test(h1_fault_visible_from_first_repeat),
		cmocka_unit_test(h1_stuck_bit),
		cmocka_unit_test(h2_cycles),
		cmocka_unit_test(h2_interleaved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
