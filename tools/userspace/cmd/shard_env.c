// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shard a command runs as (shard_env.h): --shard K/N, or the batch
 * systems' variables read from the environment: Kubernetes Indexed Jobs'
 * JOB_COMPLETION_INDEX (with GUAC_SHARDS) and Slurm job arrays'
 * SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _STEP.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "shard_env.h"
#include "util.h"

static bool guac_shard_number(const char *what, const char *s, unsigned int *out)
{
	uint64_t v;

	if (!guac_parse_u64(what, s, &v))
		return false;
	if (v > GUAC_SHARD_MAX) {
		guac_err("invalid %s '%s': at most %u (the parts of a fill merge into one "
			 "manifest)", what, s, GUAC_SHARD_MAX);
		return false;
	}
	*out = (unsigned int)v;
	return true;
}

static bool guac_shard_check(struct guac_shard *s)
{
	if (!s->count || s->index >= s->count) {
		guac_err("invalid shard %u/%u from %s: expected K/N with 0 <= K < N", s->index,
			 s->count, s->source);
		return false;
	}
	return true;
}

static bool guac_shard_set(const char *v)
{
	return v && *v;
}

/* --shard K/N. */
static bool guac_shard_given(struct guac_shard *s, const char *arg)
{
	char buf[64], *slash;

	if (strlen(arg) >= sizeof(buf) || !(slash = strchr(strcpy(buf, arg), '/'))) {
		guac_err("invalid shard '%s': expected K/N, e.g. 3/10", arg);
		return false;
	}
	*slash = 0;
	if (!guac_shard_number("shard index", buf, &s->index) ||
	    !guac_shard_number("shard count", slash + 1, &s->count))
		return false;
	return guac_shard_check(s);
}

/* A Kubernetes Indexed Job's: JOB_COMPLETION_INDEX of --shards or GUAC_SHARDS. */
static bool guac_shard_indexed_job(struct guac_shard *s, const char *count_arg,
				   const struct guac_shard_env *env)
{
	const char *count = count_arg ? count_arg : env->shards;

	s->source = "JOB_COMPLETION_INDEX";
	if (!guac_shard_set(count)) {
		guac_err("JOB_COMPLETION_INDEX=%s is set but not the shard count: pass "
			 "--shards N or set GUAC_SHARDS (the Job's completions)", env->job_index);
		return false;
	}
	if (!guac_shard_number("JOB_COMPLETION_INDEX", env->job_index, &s->index) ||
	    !guac_shard_number("shard count", count, &s->count))
		return false;
	return guac_shard_check(s);
}

/* A Slurm job array's task: (SLURM_ARRAY_TASK_ID - MIN) / STEP of COUNT. */
static bool guac_shard_job_array(struct guac_shard *s, const struct guac_shard_env *env)
{
	unsigned int first = 0, step = 1;

	s->source = "SLURM_ARRAY_TASK_ID";
	if (!guac_shard_set(env->task_count)) {
		guac_err("SLURM_ARRAY_TASK_ID=%s is set but not SLURM_ARRAY_TASK_COUNT",
			 env->task_id);
		return false;
	}
	if (!guac_shard_number("SLURM_ARRAY_TASK_ID", env->task_id, &s->index) ||
	    !guac_shard_number("SLURM_ARRAY_TASK_COUNT", env->task_count, &s->count) ||
	    (guac_shard_set(env->task_min) &&
	     !guac_shard_number("SLURM_ARRAY_TASK_MIN", env->task_min, &first)) ||
	    (guac_shard_set(env->task_step) &&
	     !guac_shard_number("SLURM_ARRAY_TASK_STEP", env->task_step, &step)))
		return false;
	/* --array=1-10 numbers tasks from 1: shards count from 0. */
	if (s->index < first) {
		guac_err("SLURM_ARRAY_TASK_ID %u is below SLURM_ARRAY_TASK_MIN %u", s->index, first);
		return false;
	}
	/* --array=0-18:2 numbers tasks 0, 2, ... 18: shard (ID - MIN) / STEP. */
	if (!step || (s->index - first) % step) {
		guac_err("SLURM_ARRAY_TASK_ID %u is not SLURM_ARRAY_TASK_MIN %u plus a multiple "
			 "of SLURM_ARRAY_TASK_STEP %s", s->index, first, env->task_step);
		return false;
	}
	s->index = (s->index - first) / step;
	return guac_shard_check(s);
}

bool guac_shard_choose(struct guac_shard *s, const char *arg, const char *count_arg,
		       const struct guac_shard_env *env)
{
	s->index = 0;
	s->count = 1;
	s->source = "--shard";
	if (arg)
		return guac_shard_given(s, arg);
	if (guac_shard_set(env->job_index))
		return guac_shard_indexed_job(s, count_arg, env);
	if (guac_shard_set(env->task_id))
		return guac_shard_job_array(s, env);
	if (count_arg) {
		guac_err("--shards needs JOB_COMPLETION_INDEX in the environment (or use --shard K/N)");
		return false;
	}
	return true;
}

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

void guac_shard_say_too_many(const struct guac_shard *s, uint64_t length, unsigned int sector,
			     const char *verb)
{
	uint64_t sectors = guac_shard_sectors(length, sector);

	guac_err("%s: %u shards (shard %u/%u, from %s) but %" PRIu64 " bytes are only %" PRIu64
		 " sectors of %u bytes: more shards than sectors; use at most %" PRIu64
		 " shards or a longer --length", verb, s->count, s->index, s->count, s->source,
		 length, sectors, sector, sectors);
}
