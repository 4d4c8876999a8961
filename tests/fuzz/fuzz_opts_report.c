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

FUZZ_OPTS_PARSE_RUN_TARGET(struct guac_report_args, guac_report_parse, guac_report_run,
			   "guac report", 0, 1, 2)
