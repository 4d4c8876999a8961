/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Shards: a fill split over N hosts or processes, each taking one of N
 * disjoint contiguous sector-aligned parts. Which part a process takes is
 * its command's choice (cmd/shard_env.h: an option or a batch system's
 * environment).
 */
#ifndef GUAC_SHARD_H
#define GUAC_SHARD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The parts of a fill merge into one manifest (guac manifest merge), which
 * holds at most GUAC_MANIFEST_MAX_RANGES ranges, one per job of each part:
 * more shards than that could be written but never merged.
 */
#define GUAC_SHARD_MAX 4096

struct guac_shard {
	unsigned int index, count;	/* count 1: the whole range */
	const char *source;		/* where the choice came from, for messages */
};

/*
 * Shard @s's part [*start, *end) of [0, @length): sector counts differ by at
 * most one between shards, so every boundary is a multiple of @sector.
 */
void guac_shard_range(const struct guac_shard *s, uint64_t length, unsigned int sector,
		      uint64_t *start, uint64_t *end);

/* Sectors of @sector bytes that @length bytes span (the last one may be partial). */
uint64_t guac_shard_sectors(uint64_t length, unsigned int sector);

/*
 * Whether @s's count can split @length bytes of @sector-byte sectors: more
 * shards than sectors cannot be meant (every shard past the last sector would
 * be empty, and the others would write one sector each), so the commands
 * refuse that for every shard alike.
 */
bool guac_shard_fits(const struct guac_shard *s, uint64_t length, unsigned int sector);

#endif /* GUAC_SHARD_H */
