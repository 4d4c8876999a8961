// SPDX-License-Identifier: GPL-2.0
/*
 * The hwrng's read path: words from the instruction, the health tests, and
 * the window held back until it has passed them. Apart from hwrng.c so that
 * tests/userspace/hwrng builds this file unchanged, as the hw_random core
 * drives it.
 *
 * A word is delivered only once the whole window of 512 it belongs to has
 * passed every test, the window-wide ones (stuck bit, duplicates) included:
 * a fault that starts inside a window fails that window, and none of its
 * words leave. The cost: a read that finds no passed words collects a whole
 * window (512 words) before it returns any, and each source holds that window
 * (4 KiB) besides the health tests' span (16 KiB). Delivered words are wiped
 * from the window as they go.
 *
 * The hw_random core serialises calls of the read op (its reading_mutex), so
 * a source needs no lock of its own; the counters are atomic for sysfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "hwrng.h"

#define GUAC_HELD_BYTES (GUAC_HEALTH_WINDOW * sizeof(u64))

int guac_hwrng_src_init(struct guac_hwrng_src *src,
			const struct guac_insn_ops *ops, bool seed,
			bool report)
{
	int ret;

	*src = (struct guac_hwrng_src){ .seed = seed, .report = report };
	guac_insn_init(&src->insn, ops);
	ret = guac_health_init(&src->health);
	if (ret)
		return ret;
	src->held = kvmalloc(GUAC_HELD_BYTES, GFP_KERNEL);
	if (!src->held) {
		guac_health_free(&src->health);
		return -ENOMEM;
	}
	return 0;
}

void guac_hwrng_src_free(struct guac_hwrng_src *src)
{
	if (src->held)
		kvfree_sensitive(src->held, GUAC_HELD_BYTES);
	src->held = NULL;
	guac_health_free(&src->health);
}

static const char *guac_hwrng_insn_name(const struct guac_hwrng_src *src)
{
	return guac_insn_names[src->seed].insn;
}

static bool guac_hwrng_try(struct guac_hwrng_src *src, u64 *word)
{
	if (src->seed)
		return guac_insn_seed64(&src->insn, word);
	return guac_insn_drbg64(&src->insn, word);
}

/*
 * One word within its tries: 0, -EAGAIN when RDSEED stayed dry (the normal
 * state of a busy RDSEED, shared by every core and guest, not a failure: the
 * hw_random core calls again), or -EIO when RDRAND failed every try, which
 * only a broken RDRAND does.
 */
static int guac_hwrng_word(struct guac_hwrng_src *src, u64 *word, bool wait)
{
	bool pause = src->seed && wait;
	unsigned int tries, budget;

	if (!src->seed)
		budget = GUAC_DRBG_TRIES;
	else
		budget = wait ? GUAC_SEED_TRIES_WAIT : GUAC_SEED_TRIES_NOWAIT;

	for (tries = 0; tries < budget; tries++) {
		if (tries && pause) {
			/* Give the entropy source time to refill. */
			udelay(1);
			cond_resched();
		}
		if (guac_hwrng_try(src, word))
			break;
	}
	if (tries)
		atomic64_add(tries, &src->stats.retries);
	if (tries < budget) {
		if (src->insn_failing && src->report)
			pr_info_ratelimited("hwrng: %s works again\n",
					    guac_hwrng_insn_name(src));
		src->insn_failing = false;
		return 0;
	}
	if (src->seed)
		return -EAGAIN;

	atomic64_inc(&src->stats.failures);
	if (!src->insn_failing && src->report)
		pr_warn_ratelimited("hwrng: %s failed %u tries in a row\n",
				    guac_hwrng_insn_name(src), budget);
	src->insn_failing = true;
	return -EIO;
}

/*
 * Collect words into the held window until one passes that may be delivered
 * (src->ready set, 0), or until the instruction gives out (-EAGAIN, -EIO: the
 * window's words so far stay, the next call goes on from them), or a test
 * fails (-EIO: the window's words are dropped). A start-up or recovery window
 * is only tested, then dropped, and the next one collected.
 */
static int guac_hwrng_collect(struct guac_hwrng_src *src, bool wait)
{
	u64 word = 0;
	int ret;

	for (;;) {
		enum guac_health_state before = src->health.state;
		unsigned int at = src->health.window_words;
		enum guac_health_state fault;

		ret = guac_hwrng_word(src, &word, wait);
		if (ret)
			break;
		fault = guac_health_test(&src->health, word);
		if (fault != GUAC_HEALTH_OK) {
			atomic64_inc(&src->stats.health_failures);
			memzero_explicit(src->held, at * sizeof(word));
			if ((before == GUAC_HEALTH_OK || before == GUAC_HEALTH_STARTUP) &&
			    src->report)
				pr_warn_ratelimited("hwrng: health test failed (%s), output stopped until a window of %u words passes\n",
						    guac_health_state_name(fault),
						    GUAC_HEALTH_WINDOW);
			ret = -EIO;
			break;
		}
		src->held[at] = word;
		if (src->health.window_words)
			continue;
		/* A whole window passed. */
		if (before == GUAC_HEALTH_OK) {
			src->ready = GUAC_HEALTH_WINDOW;
			break;
		}
		memzero_explicit(src->held, GUAC_HELD_BYTES);
		if (before != GUAC_HEALTH_STARTUP && src->report)
			pr_info_ratelimited("hwrng: health tests pass again, output resumed\n");
		/* At most two windows of words in one call. */
		if (wait)
			cond_resched();
	}
	memzero_explicit(&word, sizeof(word));
	return ret;
}

int guac_hwrng_fill(struct guac_hwrng_src *src, void *buf, size_t max,
		    bool wait)
{
	u8 *out = buf;
	size_t done = 0;
	int ret = 0;

	/* Collect only with nothing left to deliver: one window at a time. */
	if (!src->ready && max)
		ret = guac_hwrng_collect(src, wait);
	while (done < max && src->ready) {
		u64 *word = &src->held[GUAC_HEALTH_WINDOW - src->ready--];
		size_t len = min(max - done, sizeof(*word));

		/* The rest of a word a read cuts short is dropped, never reused. */
		memcpy(out + done, word, len);
		memzero_explicit(word, sizeof(*word));
		done += len;
	}

	if (done) {
		atomic64_add(done, &src->stats.bytes);
		return done;
	}
	return ret == -EAGAIN ? 0 : ret;
}
