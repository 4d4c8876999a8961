// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac report's options and arguments (cmd/cmd_report.c), fuzz_opts.h: it
 * reads manifests and an --expect list from the private directory only, and
 * writes no picture (fopen for writing is refused): 0, 1 or 2.
 */
#define _GNU_SOURCE
#include "fuzz_opts.h"

FUZZ_OPTS_TARGET(guac_cmd_report, "guac report", 0, 1, 2)
