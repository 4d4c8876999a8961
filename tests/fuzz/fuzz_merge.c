// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac manifest merge (cmd/cmd_manifest.c) on hostile parts: the input,
 * split at NUL bytes, is up to four manifest files, merged into out.json in
 * the private directory by the real command. Oracles: a merge that succeeds
 * (0) writes a manifest that loads, is complete, shard 0/1, unverified, and
 * whose ranges cover its length; one that fails (1 or 2, nothing else)
 * leaves no out.json behind.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "fuzz_common.h"
#include "manifest.h"

#define FUZZ_PARTS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct guac_manifest m;
	static char names[FUZZ_PARTS][16];
	char *argv[FUZZ_PARTS + 4];
	const uint8_t *p = data, *end = data + size, *nul;
	int argc = 0, n = 0, rc;

	fuzz_init();
	argv[argc++] = "guac manifest";
	argv[argc++] = "merge";
	argv[argc++] = "out.json";
	while (n < FUZZ_PARTS && p <= end) {
		nul = memchr(p, 0, (size_t)(end - p));
		if (!nul)
			nul = end;
		snprintf(names[n], sizeof(names[n]), "p%d.json", n);
		if (!fuzz_write_file(names[n], p, (size_t)(nul - p)))
			fuzz_fail("cannot write %s", names[n]);
		argv[argc++] = names[n++];
		p = nul + 1;
	}
	argv[argc] = NULL;
	unlink("out.json");
	rc = fuzz_run_cmd(guac_cmd_manifest, argc, argv);
	if (rc == 0) {
		if (!guac_manifest_load("out.json", &m))
			fuzz_fail("merge succeeded but out.json does not load");
		if (strcmp(m.status, "complete") || m.shard_index || m.shard_count != 1 ||
		    m.have_verify || guac_manifest_ranges_length(&m) != m.length ||
		    guac_manifest_done(&m) != m.length)
			fuzz_fail("merged manifest: status %s, shard %u/%u, verify record %d, ranges "
				  "%llu, done %llu of %llu", m.status, m.shard_index, m.shard_count,
				  m.have_verify,
				  (unsigned long long)guac_manifest_ranges_length(&m),
				  (unsigned long long)guac_manifest_done(&m),
				  (unsigned long long)m.length);
	} else if (rc != 1 && rc != 2) {
		fuzz_fail("merge exits %d", rc);
	} else if (!access("out.json", F_OK)) {
		fuzz_fail("merge failed (%d) but left out.json", rc);
	}
	return 0;
}
