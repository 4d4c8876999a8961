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

FUZZ_OPTS_PARSE_RUN_TARGET(struct guac_manifest_args, guac_manifest_cmd_parse,
			   guac_manifest_cmd_run, "guac manifest", 0, 1, 2)
