/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Continuous health tests on the raw 64-bit words of RDRAND or RDSEED, in
 * the spirit of NIST SP 800-90B 4.4, plus the known failure signatures and a
 * duplicate test over the last few windows. A failure stops delivery until a
 * whole window of later words passes; so does start-up, as 90B 4.3 asks.
 */
#ifndef GUACRNG_HWRNG_HEALTH_H
#define GUACRNG_HWRNG_HEALTH_H

#include <linux/types.h>

/* 90B's window for non-binary samples, in words. */
#define GUAC_HEALTH_WINDOW 512
/* Windows the duplicate test looks over, the one under test included. */
#define GUAC_HEALTH_SPAN_WINDOWS 4
#define GUAC_HEALTH_SPAN (GUAC_HEALTH_SPAN_WINDOWS * GUAC_HEALTH_WINDOW)

/* Why delivery is stopped, or GUAC_HEALTH_OK. */
enum guac_health_state {
	GUAC_HEALTH_OK,
	GUAC_HEALTH_STARTUP,	/* no whole window has passed yet */
	GUAC_HEALTH_ALL_ZEROS,	/* a word of zeros */
	GUAC_HEALTH_ALL_ONES,	/* a word of ones */
	GUAC_HEALTH_REPETITION,	/* a word equal to the one before */
	GUAC_HEALTH_PROPORTION,	/* a window's first word came back twice */
	GUAC_HEALTH_STUCK_BIT,	/* a bit kept its value for a whole window */
	GUAC_HEALTH_DUPLICATE,	/* a word seen before within the span */
};

struct guac_health {
	enum guac_health_state state;
	u64 prev;		/* the last word, for the repetition test */
	unsigned int repeats;	/* times in a row it came; 0: no word yet */
	u64 window_first;	/* the window's first word */
	unsigned int window_words;	/* words of the window so far */
	unsigned int window_hits;	/* of them equal to window_first */
	u64 window_or;		/* OR and AND of the window's words */
	u64 window_and;
	/*
	 * The duplicate test's words: GUAC_HEALTH_SPAN_WINDOWS slots of a
	 * window each; slot span_slot fills with the window under test, the
	 * others hold the last complete windows, sorted.
	 */
	u64 *span;
	unsigned int span_slot;
	unsigned int span_done;	/* complete windows held, at most SPAN_WINDOWS - 1 */
};

/* Allocates the span (GUAC_HEALTH_SPAN words): 0 or -ENOMEM. */
int guac_health_init(struct guac_health *health);
void guac_health_free(struct guac_health *health);

/*
 * Test one word and return the failure it shows, or GUAC_HEALTH_OK. The
 * window-wide tests (stuck bit, duplicates) run on a window's last word. A
 * failure starts a new window; the window after the last failure (or the
 * first one) passing in full makes guac_health_ok() true again.
 */
enum guac_health_state guac_health_test(struct guac_health *health, u64 word);

/* Whether words that pass may be delivered. */
static inline bool guac_health_ok(const struct guac_health *health)
{
	return health->state == GUAC_HEALTH_OK;
}

/* "ok", "start-up", "repetition", ... */
const char *guac_health_state_name(enum guac_health_state state);

#endif /* GUACRNG_HWRNG_HEALTH_H */
