// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac report (cmd/cmd_report.c, storage/fleet.c) on hostile input: the
 * input, split at NUL bytes, is an --expect list and up to four manifests,
 * reported on by the command's run (guac_report_run, called directly, with
 * no exit() catcher: JSON and an SVG picture in the private directory).
 * Oracles: the exit status is 0, 1 or 2; and no wrong OK: the report exits
 * 0 only when every manifest given loads (guac_manifest_load), records a
 * complete fill of every byte and a complete check of it that found no bad
 * or unreadable sector.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd_report.h"
#include "fuzz_common.h"
#include "manifest.h"

#define FUZZ_DISKS 4

static bool fuzz_disk_ok(const char *path)
{
	static struct guac_manifest m;
	unsigned int i;

	if (!guac_manifest_load(path, &m))
		return false;
	if (m.status != GUAC_STATUS_COMPLETE || !m.have_verify ||
	    m.verify_status != GUAC_STATUS_COMPLETE ||
	    m.verify_bad_sectors || m.verify_unreadable_sectors)
		return false;
	for (i = 0; i < m.nranges; i++)
		if (m.range[i].done != m.range[i].length || m.range[i].verified != m.range[i].done)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char names[FUZZ_DISKS + 1][16];
	static char *paths[FUZZ_DISKS];
	struct guac_report_args a = { .json = true, .svg = "out.svg", .paths = paths };
	const uint8_t *p = data, *end = data + size, *nul;
	int n = 0, rc, i;

	fuzz_init();
	while (n <= FUZZ_DISKS && p <= end) {
		nul = memchr(p, 0, (size_t)(end - p));
		if (!nul)
			nul = end;
		snprintf(names[n], sizeof(names[n]), n ? "d%d.json" : "expect.txt", n);
		if (!fuzz_write_file(names[n], p, (size_t)(nul - p)))
			fuzz_fail("cannot write %s", names[n]);
		n++;
		p = nul + 1;
	}
	if (n < 2)
		return 0;
	/* The list only when it is not empty: an empty input is no list. */
	if (data[0])
		a.expect = names[0];
	for (i = 1; i < n; i++)
		paths[a.npaths++] = names[i];
	rc = guac_report_run(&a);
	fflush(stdout);
	if (rc < 0 || rc > 2)
		fuzz_fail("report exits %d", rc);
	if (!rc)
		for (i = 1; i < n; i++)
			if (!fuzz_disk_ok(names[i]))
				fuzz_fail("report says OK (exit 0), but %s is no complete, cleanly "
					  "checked fill", names[i]);
	return 0;
}
