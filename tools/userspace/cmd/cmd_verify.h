/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac verify's steps (cmd/cmd_verify.c), for guac_cmd_verify() and the
 * fuzz targets that drive them one by one: parse the command line into a
 * request, plan the run for it, check, and the words for a reason storage
 * gave. None exits the process.
 */
#ifndef GUAC_CMD_VERIFY_H
#define GUAC_CMD_VERIFY_H

#include <stdio.h>
#include "manifest.h"
#include "verify_run.h"

/* What the user asked for, the request and the output (cmd_verify.c's own). */
struct verify_options;

/* A zeroed one, to free(); NULL when out of memory. */
struct verify_options *guac_verify_options_new(void);

/* guac_verify_parse(): the --after-crash check (verify_crash.h) was asked for. */
#define GUAC_PARSE_AFTER_CRASH (-3)

/*
 * Parse guac verify's command line into @o and the request @req storage
 * takes: GUAC_EXIT_OK, GUAC_PARSE_DONE after --help or --version,
 * GUAC_PARSE_AFTER_CRASH, or an exit status after a message.
 */
int guac_verify_parse(int argc, char **argv, struct verify_options *o, struct verify_request *req);

/*
 * Plan @run for @req: load the manifest into @manifest, open SOURCE, make
 * the plan. GUAC_EXIT_OK, or an exit status after a message.
 */
int guac_verify_prepare(struct verify_run *run, struct guac_manifest *manifest,
			const struct verify_request *req);

/*
 * The check of a prepared @run, the record and the report (text or JSON,
 * with the progress line, as @o says): the exit status.
 */
int guac_verify_check(struct verify_run *run, const struct verify_options *o);

/* The message for @run->reason (none for VERIFY_FINE or VERIFY_ALREADY_SAID). */
void guac_verify_say(const struct verify_run *run);

#endif /* GUAC_CMD_VERIFY_H */
