// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench's options (cmd/cmd_bench.c: size and thread lists, seconds,
 * trials, suites), fuzz_opts.h: every source reports itself absent and
 * nothing is measured or plotted, so 0, or 2 for a usage error.
 */
#define _GNU_SOURCE
#include "fuzz_opts.h"

FUZZ_OPTS_TARGET(guac_cmd_bench, "guac bench", 0, 2)
