// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac manifest's actions and arguments (cmd/cmd_manifest.c), fuzz_opts.h:
 * show reads a manifest, merge reads its parts (the output is not saved):
 * 0, 1 (the parts do not make a whole fill) or 2.
 */
#define _GNU_SOURCE
#include "fuzz_opts.h"

FUZZ_OPTS_TARGET(guac_cmd_manifest, "guac manifest", 0, 1, 2)
