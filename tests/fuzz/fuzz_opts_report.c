// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac report's options and arguments (cmd/cmd_report.c), fuzz_opts.h: its
 * parse (guac_report_parse) and run (guac_report_run) called directly, with
 * no exit() catcher: it reads manifests and an --expect list from the
 * private directory only, and writes no picture (fopen for writing is
 * refused): 0, 1 or 2.
 */
#define _GNU_SOURCE
#include "cmd_report.h"
#include "fuzz_opts.h"
#include "parse_options.h"
#include "util.h"

static int fuzz_report(int argc, char **argv)
{
	struct guac_report_args a;
	int ret = guac_report_parse(argc, argv, &a);

	if (ret != GUAC_EXIT_OK)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	return guac_report_run(&a);
}

FUZZ_OPTS_DIRECT_TARGET(fuzz_report, "guac report", 0, 1, 2)
