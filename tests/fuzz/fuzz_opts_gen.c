// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac gen's options (cmd/cmd_gen.c), fuzz_opts.h. The output is cut off by
 * a closed pipe after the first buffer: 0 unbounded, 2 with --length (a
 * reader gone early), 0 for --help.
 */
#define _GNU_SOURCE
#include "fuzz_opts.h"

FUZZ_OPTS_TARGET(guac_cmd_gen, "guac gen", 0, 2)
