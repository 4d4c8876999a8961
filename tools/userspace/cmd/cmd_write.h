/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac write's two steps before the target is opened for writing
 * (cmd_write.c): its command line into a fill's options, and the fill's
 * plan with its refusals worded. Exported for tests/fuzz/fuzz_opts_write.c;
 * neither exits: both return an exit status.
 */
#ifndef GUAC_CMD_WRITE_H
#define GUAC_CMD_WRITE_H

#include <stdbool.h>
#include "fill.h"
#include "parse_options.h"

struct write_args {
	struct guac_fill_options fill;
	/* The options given, which a fill's own values default or resume without. */
	bool offset_given, length_given, origin_given, seek_given, bs_given;
	bool dry_run;			/* check everything, print the plan, write nothing */
	bool json;			/* the report as one JSON object on standard output */
	const char *shard_arg, *shards_arg;
	const char *host_arg;		/* --host, else GUAC_HOST, else gethostname() */
	const char *run_arg;		/* --run, else GUAC_RUN, else none */
	const char *impl_arg;		/* --impl: checked after the table */
	const char *pattern_arg;	/* --pattern: checked after the table */
	uint64_t passes;		/* --passes: checked after the table */
	bool passes_given, seed_given;
	const char *backlog_on_error_arg;	/* --verify-backlog-on-error: checked after the table */
	uint64_t iodepth;		/* --iodepth: checked after the table */
	const char *bs_split_arg;	/* --bs-split: checked after the table */
	bool uring_off;			/* GUAC_IO_URING=off: pwrite whatever the depth */
	uint64_t crash_window;		/* --crash-window: checked after the table */
	bool flush_interval_given, crash_window_given;
	char host[sizeof(((struct guac_manifest *)0)->host)];
	char run[sizeof(((struct guac_manifest *)0)->run)];
};

/*
 * @argc/@argv into @a (zeroed or not, it is reset): GUAC_EXIT_OK, then
 * a->fill is ready for a plan; GUAC_PARSE_DONE after --help or --version;
 * else GUAC_EXIT_ERROR after a message.
 */
int write_parse_args(struct write_args *a, int argc, char **argv);

/*
 * The plan of @a's fill into @f (zeroed by the caller), a refusal worded,
 * and what the target holds judged (--force); the engine chosen (f->iodepth:
 * --iodepth, or 1 where io_uring cannot write, said on stderr); with
 * --dry-run the plan is printed first. GUAC_EXIT_OK when the write may go ahead, else
 * GUAC_EXIT_ERROR. Nothing is opened for writing.
 */
int write_plan_fill(const struct write_args *a, struct guac_fill *f);

#endif /* GUAC_CMD_WRITE_H */
