// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac manifest's actions and arguments (cmd/cmd_manifest.c), fuzz_opts.h:
 * its parse (guac_manifest_cmd_parse) and run (guac_manifest_cmd_run)
 * called directly, with no exit() catcher: show reads a manifest, merge
 * reads its parts (the output is not saved): 0, 1 (the parts do not make a
 * whole fill) or 2.
 */
#define _GNU_SOURCE
#include "cmd_manifest.h"
#include "fuzz_opts.h"
#include "parse_options.h"
#include "util.h"

static int fuzz_manifest(int argc, char **argv)
{
	struct guac_manifest_args a;
	int ret = guac_manifest_cmd_parse(argc, argv, &a);

	if (ret != GUAC_EXIT_OK)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	return guac_manifest_cmd_run(&a);
}

FUZZ_OPTS_DIRECT_TARGET(fuzz_manifest, "guac manifest", 0, 1, 2)
