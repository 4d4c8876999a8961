/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac manifest in two steps (cmd/cmd_manifest.c), for callers other than
 * guac_cmd_manifest() (the fuzz targets): its action parsed, then run.
 */
#ifndef GUAC_CMD_MANIFEST_H
#define GUAC_CMD_MANIFEST_H

enum guac_manifest_action { GUAC_MANIFEST_SHOW, GUAC_MANIFEST_MERGE };

struct guac_manifest_args {
	enum guac_manifest_action action;
	const char *path;		/* show: the manifest; merge: OUT */
	int nparts;			/* merge: the parts, in argv */
	char **parts;
};

/*
 * Parse guac manifest's @argc/@argv (reordered) into @a: GUAC_EXIT_OK,
 * GUAC_PARSE_DONE after --help or --version, or an exit status after a
 * message.
 */
int guac_manifest_cmd_parse(int argc, char **argv, struct guac_manifest_args *a);

/* Show or merge, as @a says; the exit status. */
int guac_manifest_cmd_run(const struct guac_manifest_args *a);

#endif /* GUAC_CMD_MANIFEST_H */
