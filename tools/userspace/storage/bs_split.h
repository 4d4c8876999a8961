/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Block sizes from a small distribution (guac write --bs-split, fio's
 * bssplit): each block of a fill is written as a run of equal writes of one
 * size drawn from the split, chosen per block by a fixed hash of (seed,
 * pass, block index), so a fill and its resume draw the same sizes and a
 * test can work them out independently (docs/storage.md "Block sizes").
 */
#ifndef GUAC_BS_SPLIT_H
#define GUAC_BS_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUAC_BS_SPLIT_MAX 8		/* entries of a split */

/* The sizes and their percentages, in the order given; n 0: no split (whole blocks). */
struct guac_bs_split {
	unsigned int n;
	uint64_t size[GUAC_BS_SPLIT_MAX];
	unsigned int percent[GUAC_BS_SPLIT_MAX];
};

/* What is wrong with a split, first found in this order; the entry is the caller's to name. */
enum guac_bs_split_problem {
	GUAC_BS_SPLIT_OK,
	GUAC_BS_SPLIT_TOO_MANY,		/* more than GUAC_BS_SPLIT_MAX entries */
	GUAC_BS_SPLIT_ZERO_SIZE,
	GUAC_BS_SPLIT_ZERO_PERCENT,
	GUAC_BS_SPLIT_DUPLICATE,	/* a size given twice */
	GUAC_BS_SPLIT_NOT_100,		/* the percentages do not sum to 100 */
	GUAC_BS_SPLIT_NOT_DIVIDING,	/* a size does not divide the block size */
	GUAC_BS_SPLIT_NOT_SECTORS,	/* a size is not whole sectors */
};

/*
 * Check @s against block size @bs and sector @sector (either 0: not
 * checked, as when parsing before the plan knows them). *@which gets the
 * entry at fault (the second of a duplicate).
 */
enum guac_bs_split_problem guac_bs_split_check(const struct guac_bs_split *s, uint64_t bs,
					       unsigned int sector, unsigned int *which);

/* Whether @a and @b are one split: the same entries in the same order. */
bool guac_bs_split_same(const struct guac_bs_split *a, const struct guac_bs_split *b);

/*
 * The write size of block @index (a fill's --bs block, counted from its
 * first byte) in pass @pass of a fill seeded @seed:
 *   h = mix(mix(mix(seed) ^ pass) ^ index), mix being splitmix64's step
 *   (x += 0x9e3779b97f4a7c15, then its finalizer), and the entry where
 *   h mod 100 falls in the percentages' running sums.
 * 0 for no split.
 */
uint64_t guac_bs_split_draw(const struct guac_bs_split *s, uint64_t seed, unsigned int pass,
			    uint64_t index);

/*
 * @s as SIZE/PERCENT entries joined by ':' in bytes ("4096/50:65536/50"),
 * what --bs-split takes back; "" for none. 8 x 26 bytes are enough.
 */
#define GUAC_BS_SPLIT_STR 216
const char *guac_bs_split_str(char *buf, size_t size, const struct guac_bs_split *s);

#endif /* GUAC_BS_SPLIT_H */
