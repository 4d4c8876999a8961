// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench's options (cmd/cmd_bench.c: size and thread lists, seconds,
 * trials, suites), fuzz_opts.h: its parse and plan (guac_bench_parse,
 * guac_bench_plan, cmd_bench.h: the suite, --impl's and --plot's reach, the
 * memory check) called directly; nothing is measured or plotted. 0 for
 * --help, --version or a plan made, else 2; a plan made has lists of
 * sizes and thread counts that are neither empty nor too long.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include "cmd_bench.h"
#include "fuzz_opts.h"

static int fuzz_bench_plan(int argc, char **argv)
{
	struct guac_bench_args *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		fuzz_fail("cannot allocate bench's arguments");
	ret = guac_bench_parse(argc, argv, a);
	if (ret == GUAC_EXIT_OK)
		ret = guac_bench_plan(a);
	if (ret == GUAC_EXIT_OK && (!a->nsizes || !a->nthreads || a->nsizes > BENCH_MAX_LIST ||
				    a->nthreads > BENCH_MAX_LIST))
		fuzz_fail("guac bench plans %zu sizes and %zu thread counts", a->nsizes,
			  a->nthreads);
	free(a);
	return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
}

FUZZ_OPTS_TARGET(fuzz_bench_plan, "guac bench", 0, 2)
