// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac report: one report for a fleet's disks from their manifests (a table,
 * JSON, an SVG picture); storage/fleet.c does the work, report_print.c the outputs (docs/fleet.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd_report.h"
#include "cmds.h"
#include "fleet.h"
#include "report_print.h"
#include "parse_options.h"
#include "util.h"

static const struct guac_usage report_usage = {
	.synopsis = "Usage: guac report [OPTIONS] MANIFEST|DIR...\n",
	.about =
		"One report for many disks, from the manifests guac write and guac verify\n"
		"left (a directory: every *.json in it): per disk its host, target, serial or\n"
		"WWN, size, state, bytes written and verified, and bad sectors per class.\n"
		"A disk is OK only when its fill is complete and a check of all of it is\n"
		"recorded complete with no bad sector; every other state says why.\n",
	.after =
		"States: OK, MISMATCH, UNREADABLE, CHANGED (on this host, the target is another\n"
		"or changed since its check), GONE (its path is no more), SUPERSEDED (a later\n"
		"fill of the same disk wrote over part of this one), FAILED (the write\n"
		"failed), INTERRUPTED, UNFINISHED (the manifest says running), UNVERIFIED (also\n"
		"a check the trust rule rejects: docs/manifest.md), PARTIAL (--whole: the fill\n"
		"covers part of the disk), DUPLICATE (two manifests of one disk), INVALID (a\n"
		"manifest that does not load), MISSING.\n\n"
		"Exit status: 0 every disk OK, 1 a disk not OK (or no disk at all), 2 a usage\n"
		"error or an unreadable --expect list or directory.\n",
};

int guac_report_parse(int argc, char **argv, struct guac_report_args *a)
{
	const struct guac_option opts[] = {
		GUAC_OPT_STRING('e', "expect", &a->expect, "FILE",
				"the disks expected, one \"HOST TARGET\" a line (TARGET: the path, "
				"serial or WWN the manifest records): each one no manifest describes "
				"is reported MISSING; HOST is the manifest's host, or its short name "
				"or FQDN (guacn1, guacn1.lab.example) when that names one host"),
		GUAC_OPT_STRING(0, "run", &a->run, "ID",
				"report run ID alone (what guac write --run or GUAC_RUN recorded): a "
				"disk whose manifest is of another run is MISSING, saying which; "
				"without it, every manifest counts and the table shows each one's "
				"run and age"),
		GUAC_OPT_FLAG(0, "whole", &a->whole,
			      "a disk is OK only when its fills cover all of it (its recorded "
			      "size): one filled in part is PARTIAL, saying how much is covered"),
		GUAC_OPT_STRING(0, "jobs", &a->jobs, "FILE",
				"the fill jobs' end states, one \"HOST STATE [WHY]\" a line (from "
				"sacct, or the files the jobs left): each disk of HOST that is not OK "
				"says its job's state"),
		GUAC_OPT_FLAG(0, "json", &a->json, "print JSON instead of the table"),
		GUAC_OPT_STRING(0, "svg", &a->svg, "FILE",
				"also draw the fleet as an SVG picture: a row per disk, its bad "
				"sectors placed along it, coloured by class"),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n;

	*a = (struct guac_report_args){ 0 };
	n = guac_parse_options(argc, argv, opts, &report_usage, 0);
	if (n < 0)
		return n == GUAC_PARSE_DONE ? n : guac_parse_exit(n);
	if (!n) {
		guac_err("no manifest given (MANIFEST or DIR...; try 'guac report --help')");
		return GUAC_EXIT_ERROR;
	}
	a->npaths = n;
	a->paths = argv;
	return GUAC_EXIT_OK;
}

/* The rows of @a's manifests and lists, judged; an exit status (GUAC_EXIT_OK: go on). */
static int report_gather(struct guac_fleet *f, const struct guac_report_args *a,
			 unsigned int *notok)
{
	int i, ret = GUAC_EXIT_OK;

	for (i = 0; i < a->npaths; i++)
		if (!guac_fleet_add(f, a->paths[i]))
			ret = GUAC_EXIT_ERROR;
	if (ret == GUAC_EXIT_OK && a->expect && !guac_fleet_expect(f, a->expect))
		ret = GUAC_EXIT_ERROR;
	if (ret == GUAC_EXIT_OK &&
	    (!guac_fleet_judge(f, notok) || (a->jobs && !guac_fleet_jobs(f, a->jobs))))
		ret = GUAC_EXIT_ERROR;
	return ret;
}

/* The picture, written whole or not at all: a temporary file renamed into place. */
static bool report_svg(const struct guac_fleet *f, const char *svg)
{
	char tmp[4200];
	FILE *out;
	bool bad;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", svg, (long)getpid());
	out = fopen(tmp, "w");
	bad = !out;
	if (out) {
		guac_report_svg(out, f);
		bad = ferror(out) != 0;
		bad = fclose(out) != 0 || bad;
	}
	if (bad || rename(tmp, svg)) {
		guac_err("cannot write the picture '%s': %s", svg, strerror(errno));
		unlink(tmp);
		return false;
	}
	return true;
}

int guac_report_run(const struct guac_report_args *a)
{
	struct guac_fleet *fleet = calloc(1, sizeof(*fleet));
	unsigned int notok;
	int ret;

	if (!fleet) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	fleet->run = a->run;
	fleet->whole = a->whole;
	ret = report_gather(fleet, a, &notok);
	if (ret != GUAC_EXIT_OK)
		goto out;
	if (a->json)
		guac_report_json(stdout, fleet);
	else
		guac_report_table(stdout, fleet);
	if (a->svg && !report_svg(fleet, a->svg))
		ret = GUAC_EXIT_ERROR;
	if (fflush(stdout)) {
		guac_err("cannot write the report: %s", strerror(errno));
		ret = GUAC_EXIT_ERROR;
	}
	if (ret == GUAC_EXIT_OK && (notok || !fleet->n))
		ret = GUAC_EXIT_FAIL;
out:
	guac_fleet_free(fleet);
	free(fleet);
	return ret;
}

int guac_cmd_report(int argc, char **argv)
{
	struct guac_report_args a;
	int ret = guac_report_parse(argc, argv, &a);

	if (ret != GUAC_EXIT_OK)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	return guac_report_run(&a);
}
