/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac bench in three steps (cmd/cmd_bench.c), for callers other than
 * guac_cmd_bench() (the fuzz targets): its options parsed, the run planned
 * (every check that needs no measurement: the suite, --impl's and --plot's
 * reach, the memory the buffers need), then the suites measured and
 * reported.
 */
#ifndef GUAC_CMD_BENCH_H
#define GUAC_CMD_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include "bench.h"

#define BENCH_MAX_LIST 32		/* sizes or thread counts in one list */

struct guac_bench_args {
	const char *suite;		/* core, dev, hwrng, nonce, kpath, small, parallel or all */
	const char *plot;		/* --plot's PNG, or NULL */
	bool csv, json;
	enum bench_format format;	/* small and parallel's, from --csv and --json (the plan) */
	double seconds;			/* per trial */
	unsigned int trials;
	size_t sizes[BENCH_MAX_LIST], nsizes;
	unsigned int threads[BENCH_MAX_LIST];
	size_t nthreads;
	bool sizes_given;		/* --sizes, which overrides every suite's default */
	bool threads_given;
	int impl;			/* --impl, or -1 for the best one */
};

/*
 * Parse guac bench's @argc/@argv (reordered) into @a (any contents: it is
 * reset): GUAC_EXIT_OK, GUAC_PARSE_DONE after --help or --version, or an
 * exit status after a message.
 */
int guac_bench_parse(int argc, char **argv, struct guac_bench_args *a);

/*
 * Check what @a asks for before anything is measured (the small and
 * parallel suites get their default sizes): GUAC_EXIT_OK, or an exit status
 * after a message. Reads only this machine's memory size.
 */
int guac_bench_plan(struct guac_bench_args *a);

/* Measure and report the suites @a (planned) asks for; the exit status. */
int guac_bench_run(const struct guac_bench_args *a);

#endif /* GUAC_CMD_BENCH_H */
