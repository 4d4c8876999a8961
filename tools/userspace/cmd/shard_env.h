/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shard a command runs as (--shard, --shards), with the batch systems'
 * environment read here, in the command's layer: storage/shard.c takes the
 * values and never reads the environment itself.
 */
#ifndef GUAC_SHARD_ENV_H
#define GUAC_SHARD_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include "shard.h"

/*
 * The batch systems' word on the shard, as the caller read it from the
 * environment (guac_shard_env_read): each NULL or "" when not set.
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

/* The batch systems' variables of this process's environment (getenv: borrowed). */
void guac_shard_env_read(struct guac_shard_env *env);

/*
 * Parse "K/N" (0 <= K < N); false after a message. An empty @arg means
 * "from @env if set there, else 0/1": JOB_COMPLETION_INDEX with
 * @count_arg (--shards) or GUAC_SHARDS, else SLURM_ARRAY_TASK_ID with
 * SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MIN as the first index,
 * SLURM_ARRAY_TASK_STEP as the distance between indexes).
 */
bool guac_shard_choose(struct guac_shard *s, const char *arg, const char *count_arg,
		       const struct guac_shard_env *env);

/* guac_shard_choose() of --shard @arg, --shards @count_arg and this environment. */
bool guac_shard_parse(struct guac_shard *s, const char *arg, const char *count_arg);

/*
 * The refusal of a shard count beyond the sectors of @length (guac_shard_fits),
 * naming both numbers; @verb starts it ("refusing to write", ...).
 */
void guac_shard_say_too_many(const struct guac_shard *s, uint64_t length, unsigned int sector,
			     const char *verb);

#endif /* GUAC_SHARD_ENV_H */
