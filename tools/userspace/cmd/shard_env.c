// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The batch systems' shard variables, read from the environment for the
 * commands that take --shard (shard_env.h): Kubernetes Indexed Jobs'
 * JOB_COMPLETION_INDEX (with GUAC_SHARDS) and Slurm job arrays'
 * SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _STEP.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include "shard_env.h"

void guac_shard_env_read(struct guac_shard_env *env)
{
	*env = (struct guac_shard_env){
		.job_index = getenv("JOB_COMPLETION_INDEX"),
		.shards = getenv("GUAC_SHARDS"),
		.task_id = getenv("SLURM_ARRAY_TASK_ID"),
		.task_count = getenv("SLURM_ARRAY_TASK_COUNT"),
		.task_min = getenv("SLURM_ARRAY_TASK_MIN"),
		.task_step = getenv("SLURM_ARRAY_TASK_STEP"),
	};
}

bool guac_shard_parse(struct guac_shard *s, const char *arg, const char *count_arg)
{
	struct guac_shard_env env;

	guac_shard_env_read(&env);
	return guac_shard_choose(s, arg, count_arg, &env);
}
