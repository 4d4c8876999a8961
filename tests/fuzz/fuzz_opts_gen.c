// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac gen's options (cmd/cmd_gen.c), fuzz_opts.h: its parse
 * (guac_gen_parse, cmd_gen.h) called directly; the run, which only writes
 * the stream to standard output, is not. 0 for --help, --version or a
 * valid parse, else 2.
 */
#define _GNU_SOURCE
#include "cmd_gen.h"
#include "fuzz_opts.h"

/* The parse alone: its status, as guac_cmd_gen() would return it before writing. */
static int fuzz_gen_parse(int argc, char **argv)
{
	struct guac_gen_args a;
	int ret = guac_gen_parse(argc, argv, &a);

	return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
}

FUZZ_OPTS_TARGET(fuzz_gen_parse, "guac gen", 0, 2)
