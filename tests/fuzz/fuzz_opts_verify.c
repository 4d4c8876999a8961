// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's options, and the manifest it loads before it opens SOURCE
 * (cmd/cmd_verify.c), fuzz_opts.h: the open is refused, so 2, or 0 for
 * --help and --version.
 */
#define _GNU_SOURCE
#include "fuzz_opts.h"

FUZZ_OPTS_TARGET(guac_cmd_verify, "guac verify", 0, 2)
