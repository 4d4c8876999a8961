// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Shard ranges (shard.h); which shard a command runs as is cmd/shard_env.c's. */
#define _POSIX_C_SOURCE 200809L
#include "shard.h"

uint64_t guac_shard_sectors(uint64_t length, unsigned int sector)
{
	/* Not (length + sector - 1) / sector: within a sector of 2^64 that wraps to 0. */
	return length / sector + (length % sector != 0);
}

bool guac_shard_fits(const struct guac_shard *s, uint64_t length, unsigned int sector)
{
	return s->count <= guac_shard_sectors(length, sector);
}

void guac_shard_range(const struct guac_shard *s, uint64_t length, unsigned int sector,
		      uint64_t *start, uint64_t *end)
{
	uint64_t sectors = guac_shard_sectors(length, sector);
	uint64_t per = sectors / s->count, extra = sectors % s->count;
	uint64_t first = (uint64_t)s->index * per + (s->index < extra ? s->index : extra);
	uint64_t n = per + (s->index < extra);

	/* The last sector may be partial: a part that reaches it ends at @length. */
	*start = first < sectors ? first * sector : length;
	*end = first + n < sectors ? (first + n) * sector : length;
}
