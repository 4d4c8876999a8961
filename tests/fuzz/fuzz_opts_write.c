// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac write's options and every check it makes before the target is
 * opened for writing (cmd/cmd_write.c), fuzz_opts.h: the open is refused, so
 * 2, or 0 for --help and --version.
 */
#define _GNU_SOURCE
#include "fuzz_opts.h"

FUZZ_OPTS_TARGET(guac_cmd_write, "guac write", 0, 2)
