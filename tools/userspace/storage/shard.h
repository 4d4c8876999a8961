/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Shards: a fill split over N hosts or processes, each taking one of N
 * disjoint contiguous sector-aligned parts, chosen by --shard K/N or by the
 * batch system's environment (Kubernetes Indexed Jobs, Slurm job arrays).
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
	const char *source;		/* "--shard", "JOB_COMPLETION_INDEX", ... */
};

/*
 * Parse "K/N" (0 <= K < N); false after a message. An empty @arg means
 * "from the environment if set there, else 0/1": JOB_COMPLETION_INDEX with
 * @count_arg (--shards) or GUAC_SHARDS, else SLURM_ARRAY_TASK_ID with
 * SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MIN as the first index,
 * SLURM_ARRAY_TASK_STEP as the distance between indexes).
 */
bool guac_shard_parse(struct guac_shard *s, const char *arg, const char *count_arg);

/*
 * Shard @s's part [*start, *end) of [0, @length): sector counts differ by at
 * most one between shards, so every boundary is a multiple of @sector.
 */
void guac_shard_range(const struct guac_shard *s, uint64_t length, unsigned int sector,
		      uint64_t *start, uint64_t *end);

/*
 * Whether @s's count can split @length bytes of @sector-byte sectors: more
 * shards than sectors cannot be meant (every shard past the last sector would
 * be empty, and the others would write one sector each), so that is refused
 * for every shard alike, naming both numbers; false after a message that
 * starts with @verb ("refusing to write", ...).
 */
bool guac_shard_fits(const struct guac_shard *s, uint64_t length, unsigned int sector,
		     const char *verb);

#endif /* GUAC_SHARD_H */
