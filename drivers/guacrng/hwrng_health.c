// SPDX-License-Identifier: GPL-2.0
/*
 * Continuous health tests on the raw 64-bit words, after NIST SP 800-90B.
 *
 * 90B sizes its tests from a false-alarm probability alpha and the source's
 * min-entropy H per sample. We take alpha = 2^-40 and H = 40 bits per word:
 * far below what either instruction claims (RDSEED: full entropy; RDRAND: the
 * output of an AES-CTR DRBG), so a working CPU all but never trips a test,
 * while the failures seen in the field trip one at once. Nothing here can
 * measure H: a source with less passes as long as it does not repeat.
 *
 * - Repetition count test (4.4.1): cutoff 1 + ceil(-log2(alpha) / H) = 2,
 *   so any word equal to the one before it fails (for an ideal source, one
 *   pair in 2^64 does).
 * - Adaptive proportion test (4.4.2): windows of 512 words (90B's size for
 *   non-binary samples). The window's first word coming back twice more
 *   fails: for H = 40 that has a probability below C(511, 2) * 2^-80 < 2^-62,
 *   once more (about 511 * 2^-40) would be above alpha. The duplicate test
 *   below sees everything this one does, but only at the window's end.
 * - Known failure signatures: a word of all zeros or all ones (2^-63 for an
 *   ideal source), and a bit that keeps one value through a whole window
 *   (2^-511 per bit), which a word-level test misses: a source whose top bit
 *   is stuck still has no repeated words.
 * - Duplicates: any word equal to another of its window or of the three
 *   windows before (a span of 2048 words) fails, at the window's end. This
 *   catches a source cycling with any period up to 2047 words, or mixing a
 *   short cycle into good words, which the first two tests admit. Its false
 *   alarms cost more than alpha: each window is compared with itself and
 *   three others, C(512, 2) + 3 * 512^2 = 917248 pairs, each equal with a
 *   probability of at most 2^-H, so at most 917248 * 2^-40 = 2^-20.19
 *   (8.3e-7) per window for H = 40, and 2^-44.19 for an ideal source. A false
 *   alarm drops two windows (the failing one and the recovery window).
 *
 * Start-up (90B 4.3) and recovery after a failure both need one whole window
 * to pass: nothing before that is delivered.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include "hwrng_health.h"

/* Failures when a word shows up this many times in a row. */
#define GUAC_HEALTH_RCT_CUTOFF 2
/* Failures when a window's first word shows up this many times in it. */
#define GUAC_HEALTH_APT_CUTOFF 3

#define GUAC_HEALTH_SPAN_BYTES (GUAC_HEALTH_SPAN * sizeof(u64))

int guac_health_init(struct guac_health *health)
{
	/* 16 KiB: vmalloc if the page allocator has no four pages in a row. */
	u64 *span = kvmalloc_array(GUAC_HEALTH_SPAN, sizeof(u64), GFP_KERNEL);

	*health = (struct guac_health){ .state = GUAC_HEALTH_STARTUP };
	if (!span)
		return -ENOMEM;
	health->span = span;
	return 0;
}

void guac_health_free(struct guac_health *health)
{
	/* Past output: not left for the next owner of the memory. */
	if (health->span)
		kvfree_sensitive(health->span, GUAC_HEALTH_SPAN_BYTES);
	health->span = NULL;
}

static int guac_health_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Whether two sorted windows share a word. */
static bool guac_health_common(const u64 *a, const u64 *b)
{
	unsigned int i = 0, j = 0;

	while (i < GUAC_HEALTH_WINDOW && j < GUAC_HEALTH_WINDOW) {
		if (a[i] == b[j])
			return true;
		if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return false;
}

/*
 * The complete window in the current slot: sort it, look for a word twice in
 * it or in any window held before, and keep it for the next windows, passed
 * or not, so that a source cycling through failures is still seen.
 */
static bool guac_health_duplicates(struct guac_health *health)
{
	u64 *win = health->span + health->span_slot * GUAC_HEALTH_WINDOW;
	bool dup = false;
	unsigned int i;

	sort(win, GUAC_HEALTH_WINDOW, sizeof(*win), guac_health_cmp, NULL);
	for (i = 1; i < GUAC_HEALTH_WINDOW && !dup; i++)
		dup = win[i] == win[i - 1];
	for (i = 1; i <= health->span_done && !dup; i++) {
		unsigned int slot = (health->span_slot + GUAC_HEALTH_SPAN_WINDOWS - i) %
				    GUAC_HEALTH_SPAN_WINDOWS;

		dup = guac_health_common(win, health->span + slot * GUAC_HEALTH_WINDOW);
	}
	health->span_slot = (health->span_slot + 1) % GUAC_HEALTH_SPAN_WINDOWS;
	if (health->span_done < GUAC_HEALTH_SPAN_WINDOWS - 1)
		health->span_done++;
	return dup;
}

static enum guac_health_state guac_health_check(struct guac_health *health,
						u64 word)
{
	bool stuck;

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
	health->span[health->span_slot * GUAC_HEALTH_WINDOW +
		     health->window_words] = word;
	if (++health->window_words < GUAC_HEALTH_WINDOW)
		return GUAC_HEALTH_OK;

	stuck = health->window_or != ~0ULL || health->window_and != 0;
	if (guac_health_duplicates(health))
		return GUAC_HEALTH_DUPLICATE;
	return stuck ? GUAC_HEALTH_STUCK_BIT : GUAC_HEALTH_OK;
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
		[GUAC_HEALTH_DUPLICATE] = "duplicate",
	};

	if ((unsigned int)state >= ARRAY_SIZE(names))
		return "unknown";
	return names[state];
}
