/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hwrng's data path over RDRAND/RDSEED (arm64: RNDR/RNDRRS). Its state is explicit so that the
 * load-time self-tests and KUnit can drive it over the instruction doubles.
 */
#ifndef GUACRNG_HWRNG_H
#define GUACRNG_HWRNG_H

#include <linux/atomic.h>
#include <linux/types.h>
#include "hwrng_health.h"
#include "hwrng_insn.h"

/*
 * Tries per word. RDRAND fails ten times in a row only when it is broken
 * (Intel's guidance, and arch/x86's rdrand_long()). RDSEED runs dry under
 * load, so a reader that may wait gets many tries with a pause between them,
 * about a millisecond in all; one that may not gets a short burst. arm64's
 * RNDR and RNDRRS get the same budgets: RNDRRS, which reseeds for every read,
 * runs dry as RDSEED does.
 */
#define GUAC_DRBG_TRIES 10
#define GUAC_SEED_TRIES_WAIT 1000
#define GUAC_SEED_TRIES_NOWAIT 10

/* Counters; /sys/module/guacrng/hwrng/ shows them. */
struct guac_hwrng_stats {
	atomic64_t bytes;		/* delivered */
	atomic64_t retries;		/* tries that found CF clear */
	atomic64_t failures;		/* words given up after every try */
	atomic64_t health_failures;	/* words that failed a health test */
};

struct guac_hwrng_src {
	struct guac_insn insn;
	struct guac_health health;
	struct guac_hwrng_stats stats;
	bool seed;		/* RDSEED or RNDRRS, else RDRAND or RNDR */
	bool report;		/* log failures and recoveries */
	bool insn_failing;	/* the last word was given up */
	/*
	 * The window under test (its first health.window_words words); once
	 * it has passed, its last @ready words are still to be delivered.
	 */
	u64 *held;
	unsigned int ready;
};

/* Allocates the held window and the health tests' span: 0 or -ENOMEM. */
int guac_hwrng_src_init(struct guac_hwrng_src *src,
			const struct guac_insn_ops *ops, bool seed,
			bool report);
void guac_hwrng_src_free(struct guac_hwrng_src *src);

/*
 * The hwrng read op on @src (hwrng_read.c): up to @max bytes into @buf, each
 * from a word whose whole window passed the health tests. A call with no
 * passed words left collects the next window first. Returns how many bytes,
 * fewer when the passed window runs out; 0 when RDSEED stayed dry (for @wait,
 * about a millisecond a word); -EIO when RDRAND failed every try of a word,
 * or when the window failed a health test (its words are dropped, and
 * nothing of it was delivered).
 */
int guac_hwrng_fill(struct guac_hwrng_src *src, void *buf, size_t max,
		    bool wait);

/* hwrng_selftest.c: the failure paths, over the doubles. */
bool guac_hwrng_selftest(void);

#endif /* GUACRNG_HWRNG_H */
