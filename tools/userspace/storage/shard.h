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
 * The batch systems' word on the shard, as the caller read it from the
 * environment (cmd/shard_env.c): each NULL or "" when not set.
 */
struct guac_shard_env {
	const char *job_index;		/* JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) */
	const char *shards;		/* GUAC_SHARDS: the Job's completions */
	const char *task_id;		/* SLURM_ARRAY_TASK_ID (Slurm job arrays) */
	const char *task_count;		/* SLURM_ARRAY_TASK_COUNT */
	const char *task_min;		/* SLURM_ARRAY_TASK_MIN: the first task's ID */
	const char *task_step;		/* SLURM_ARRAY_TASK_STEP: between two tasks' IDs */
};

/*
 * Parse "K/N" (0 <= K < N); false after a message. An empty @arg means
 * "from @env if set there, else 0/1": JOB_COMPLETION_INDEX with
 * @count_arg (--shards) or GUAC_SHARDS, else SLURM_ARRAY_TASK_ID with
 * SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MIN as the first index,
 * SLURM_ARRAY_TASK_STEP as the distance between indexes).
 */
bool guac_shard_choose(struct guac_shard *s, const char *arg, const char *count_arg,
		       const struct guac_shard_env *env);

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
