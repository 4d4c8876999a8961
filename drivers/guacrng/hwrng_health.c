// SPDX-License-Identifier: GPL-2.0
/*
 * Continuous health tests on the raw 64-bit words, after NIST SP 800-90B.
 *
 * 90B sizes its tests from a false-alarm probability alpha and the source's
 * min-entropy H per sample. We take alpha = 2^-40 and H = 40 bits per word:
 * far below what either instruction claims (RDSEED: full entropy; RDRAND: the
 * output of an AES-CTR DRBG), so a working CPU all but never trips a test,
 * while the failures seen in the field trip one at once.
 *
 * - Repetition count test (4.4.1): cutoff 1 + ceil(-log2(alpha) / H) = 2,
 *   so any word equal to the one before it fails (for an ideal source, one
 *   pair in 2^64 does).
 * - Adaptive proportion test (4.4.2): windows of 512 words (90B's size for
 *   non-binary samples). The window's first word coming back twice more
 *   fails: for H = 40 that has a probability below C(511, 2) * 2^-80 < 2^-62,
 *   once more (about 511 * 2^-40) would be above alpha. It catches a source
 *   cycling through a few values, which the repetition test cannot see.
 * - Known failure signatures: a word of all zeros or all ones (2^-63 for an
 *   ideal source), and a bit that keeps one value through a whole window
 *   (2^-511 per bit), which a word-level test misses: a source whose top bit
 *   is stuck still has no repeated words.
 *
 * Start-up (90B 4.3) and recovery after a failure both need one whole window
 * to pass: nothing before that is delivered.
 */
#include <linux/kernel.h>
#include <linux/compiler.h>
#include "hwrng_health.h"

/* Failures when a word shows up this many times in a row. */
#define GUAC_HEALTH_RCT_CUTOFF 2
/* Failures when a window's first word shows up this many times in it. */
#define GUAC_HEALTH_APT_CUTOFF 3

void guac_health_init(struct guac_health *health)
{
	*health = (struct guac_health){ .state = GUAC_HEALTH_STARTUP };
}

static enum guac_health_state guac_health_check(struct guac_health *health,
						u64 word)
{
	if (word == 0)
		return GUAC_HEALTH_ALL_ZEROS;
	if (word == ~0ULL)
		return GUAC_HEALTH_ALL_ONES;

	if (health->repeats && word == health->prev) {
		if (++health->repeats >= GUAC_HEALTH_RCT_CUTOFF)
			return GUAC_HEALTH_REPETITION;
	} else {
		health->prev = word;
		health->repeats = 1;
	}

	if (!health->window_words) {
		health->window_first = word;
		health->window_hits = 1;
		health->window_or = word;
		health->window_and = word;
	} else {
		if (word == health->window_first &&
		    ++health->window_hits >= GUAC_HEALTH_APT_CUTOFF)
			return GUAC_HEALTH_PROPORTION;
		health->window_or |= word;
		health->window_and &= word;
	}
	if (++health->window_words == GUAC_HEALTH_WINDOW &&
	    (health->window_or != ~0ULL || health->window_and != 0))
		return GUAC_HEALTH_STUCK_BIT;
	return GUAC_HEALTH_OK;
}

enum guac_health_state guac_health_test(struct guac_health *health, u64 word)
{
	enum guac_health_state fault = guac_health_check(health, word);

	/* WRITE_ONCE: sysfs reads the state (READ_ONCE) while the source runs. */
	if (fault != GUAC_HEALTH_OK) {
		WRITE_ONCE(health->state, fault);
		health->window_words = 0;
		return fault;
	}
	if (health->window_words == GUAC_HEALTH_WINDOW) {
		/* A whole window passed: start-up or recovery is over. */
		WRITE_ONCE(health->state, GUAC_HEALTH_OK);
		health->window_words = 0;
	}
	return GUAC_HEALTH_OK;
}

const char *guac_health_state_name(enum guac_health_state state)
{
	static const char *const names[] = {
		[GUAC_HEALTH_OK] = "ok",
		[GUAC_HEALTH_STARTUP] = "start-up",
		[GUAC_HEALTH_ALL_ZEROS] = "all-zeros",
		[GUAC_HEALTH_ALL_ONES] = "all-ones",
		[GUAC_HEALTH_REPETITION] = "repetition",
		[GUAC_HEALTH_PROPORTION] = "proportion",
		[GUAC_HEALTH_STUCK_BIT] = "stuck-bit",
	};

	if ((unsigned int)state >= ARRAY_SIZE(names))
		return "unknown";
	return names[state];
}
