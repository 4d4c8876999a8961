/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shard a command runs as (--shard, --shards), with the batch systems'
 * environment read here, in the command's layer: storage/shard.c takes the
 * values and never reads the environment itself.
 */
#ifndef GUAC_SHARD_ENV_H
#define GUAC_SHARD_ENV_H

#include <stdbool.h>
#include "shard.h"

/* The batch systems' variables of this process's environment (getenv: borrowed). */
void guac_shard_env_read(struct guac_shard_env *env);

/* guac_shard_choose() of --shard @arg, --shards @count_arg and this environment. */
bool guac_shard_parse(struct guac_shard *s, const char *arg, const char *count_arg);

#endif /* GUAC_SHARD_ENV_H */
