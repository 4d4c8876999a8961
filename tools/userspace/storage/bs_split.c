// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Block sizes from a small distribution (bs_split.h). The draw is a pure
 * function of its arguments, O(1) a block, so a placed (random) block
 * gets its size wherever and whenever it is written.
 */
#include <inttypes.h>
#include <stdio.h>
#include "bs_split.h"

enum guac_bs_split_problem guac_bs_split_check(const struct guac_bs_split *s, uint64_t bs,
					       unsigned int sector, unsigned int *which)
{
	unsigned int i, j, sum = 0;

	*which = 0;
	if (s->n > GUAC_BS_SPLIT_MAX)
		return GUAC_BS_SPLIT_TOO_MANY;
	for (i = 0; i < s->n; i++) {
		*which = i;
		if (!s->size[i])
			return GUAC_BS_SPLIT_ZERO_SIZE;
		if (!s->percent[i])
			return GUAC_BS_SPLIT_ZERO_PERCENT;
		for (j = 0; j < i; j++)
			if (s->size[j] == s->size[i])
				return GUAC_BS_SPLIT_DUPLICATE;
		/* At most 8 entries of at most 100 each: no overflow. */
		sum += s->percent[i] <= 100 ? s->percent[i] : 101;
	}
	if (s->n && sum != 100)
		return GUAC_BS_SPLIT_NOT_100;
	for (i = 0; i < s->n; i++) {
		*which = i;
		if (bs && bs % s->size[i])
			return GUAC_BS_SPLIT_NOT_DIVIDING;
		if (sector && s->size[i] % sector)
			return GUAC_BS_SPLIT_NOT_SECTORS;
	}
	return GUAC_BS_SPLIT_OK;
}

bool guac_bs_split_same(const struct guac_bs_split *a, const struct guac_bs_split *b)
{
	unsigned int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->size[i] != b->size[i] || a->percent[i] != b->percent[i])
			return false;
	return true;
}

/* splitmix64's step: a fixed, well-mixed function, easy to mirror in a test. */
static uint64_t guac_bs_split_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t guac_bs_split_draw(const struct guac_bs_split *s, uint64_t seed, unsigned int pass,
			    uint64_t index)
{
	uint64_t h = guac_bs_split_mix(guac_bs_split_mix(guac_bs_split_mix(seed) ^ pass) ^ index);
	unsigned int i, r = (unsigned int)(h % 100), sum = 0;

	for (i = 0; i < s->n; i++) {
		sum += s->percent[i];
		if (r < sum)
			return s->size[i];
	}
	return s->n ? s->size[s->n - 1] : 0;
}

const char *guac_bs_split_str(char *buf, size_t size, const struct guac_bs_split *s)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < s->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%" PRIu64 "/%u", i ? ":" : "",
					s->size[i], s->percent[i]);
	return buf;
}
