/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac report in two steps (cmd/cmd_report.c), for callers other than
 * guac_cmd_report() (the fuzz targets): its arguments parsed, then the
 * report made from them.
 */
#ifndef GUAC_CMD_REPORT_H
#define GUAC_CMD_REPORT_H

#include <stdbool.h>

struct guac_report_args {
	const char *expect, *jobs, *svg, *run;
	bool json, whole;
	int npaths;
	char **paths;			/* the manifests and directories, in argv */
};

/*
 * Parse guac report's @argc/@argv (reordered) into @a: GUAC_EXIT_OK,
 * GUAC_PARSE_DONE after --help or --version, or an exit status after a
 * message.
 */
int guac_report_parse(int argc, char **argv, struct guac_report_args *a);

/* Make and print the report @a asks for; its exit status. */
int guac_report_run(const struct guac_report_args *a);

#endif /* GUAC_CMD_REPORT_H */
