// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac report: one report for a fleet's disks from their manifests (a table,
 * JSON, an SVG picture); storage/fleet.c does the work (docs/fleet.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "fleet.h"
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

int guac_cmd_report(int argc, char **argv)
{
	static struct guac_fleet fleet;
	const char *expect = NULL, *svg = NULL, *jobs = NULL;
	bool json = false, bad;
	const struct guac_option opts[] = {
		GUAC_OPT_STRING('e', "expect", &expect, "FILE",
				"the disks expected, one \"HOST TARGET\" a line (TARGET: the path, "
				"serial or WWN the manifest records): each one no manifest describes "
				"is reported MISSING; HOST is the manifest's host, or its short name "
				"or FQDN (guacn1, guacn1.lab.example) when that names one host"),
		GUAC_OPT_STRING(0, "run", &fleet.run, "ID",
				"report run ID alone (what guac write --run or GUAC_RUN recorded): a "
				"disk whose manifest is of another run is MISSING, saying which; "
				"without it, every manifest counts and the table shows each one's "
				"run and age"),
		GUAC_OPT_FLAG(0, "whole", &fleet.whole,
			      "a disk is OK only when its fills cover all of it (its recorded "
			      "size): one filled in part is PARTIAL, saying how much is covered"),
		GUAC_OPT_STRING(0, "jobs", &jobs, "FILE",
				"the fill jobs' end states, one \"HOST STATE [WHY]\" a line (from "
				"sacct, or the files the jobs left): each disk of HOST that is not OK "
				"says its job's state"),
		GUAC_OPT_FLAG(0, "json", &json, "print JSON instead of the table"),
		GUAC_OPT_STRING(0, "svg", &svg, "FILE",
				"also draw the fleet as an SVG picture: a row per disk, its bad "
				"sectors placed along it, coloured by class"),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	char tmp[4200];
	unsigned int notok;
	int n, i, ret = GUAC_EXIT_OK;
	FILE *out;

	n = guac_parse_options(argc, argv, opts, &report_usage, 0);
	if (n < 0)
		return guac_parse_exit(n);
	if (!n) {
		guac_err("no manifest given (MANIFEST or DIR...; try 'guac report --help')");
		return GUAC_EXIT_ERROR;
	}
	for (i = 0; i < n; i++)
		if (!guac_fleet_add(&fleet, argv[i]))
			ret = GUAC_EXIT_ERROR;
	if (ret == GUAC_EXIT_OK && expect && !guac_fleet_expect(&fleet, expect))
		ret = GUAC_EXIT_ERROR;
	if (ret != GUAC_EXIT_OK) {
		guac_fleet_free(&fleet);
		return ret;
	}
	if (!guac_fleet_judge(&fleet, &notok) || (jobs && !guac_fleet_jobs(&fleet, jobs))) {
		guac_fleet_free(&fleet);
		return GUAC_EXIT_ERROR;
	}
	if (json)
		guac_fleet_json(stdout, &fleet);
	else
		guac_fleet_table(stdout, &fleet);
	if (svg) {
		/* Written whole or not at all: a temporary file renamed into place. */
		snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", svg, (long)getpid());
		out = fopen(tmp, "w");
		bad = !out;
		if (out) {
			guac_fleet_svg(out, &fleet);
			bad = ferror(out) != 0;
			bad = fclose(out) != 0 || bad;
		}
		if (bad || rename(tmp, svg)) {
			guac_err("cannot write the picture '%s': %s", svg, strerror(errno));
			unlink(tmp);
			ret = GUAC_EXIT_ERROR;
		}
	}
	if (fflush(stdout)) {
		guac_err("cannot write the report: %s", strerror(errno));
		ret = GUAC_EXIT_ERROR;
	}
	if (ret == GUAC_EXIT_OK && (notok || !fleet.n))
		ret = GUAC_EXIT_FAIL;
	guac_fleet_free(&fleet);
	return ret;
}
