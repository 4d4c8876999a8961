// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac manifest merge's engine (storage/manifest_merge.c) on hostile parts:
 * the input, split at NUL bytes, is up to four manifest files, merged by
 * guac_manifest_merge (called directly, with no exit() catcher) and saved
 * into out.json in the private directory as the command does. Oracles: a
 * merge that succeeds saves a manifest that loads, is complete, shard 0/1,
 * unverified, and whose ranges cover its length; one that refuses gives a
 * reason and writes no out.json.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "manifest.h"
#include "manifest_merge.h"

#define FUZZ_PARTS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct guac_manifest m, whole;
	static char names[FUZZ_PARTS][16];
	char *parts[FUZZ_PARTS];
	const uint8_t *p = data, *end = data + size, *nul;
	struct guac_merge_refused r;
	int n = 0;

	fuzz_init();
	while (n < FUZZ_PARTS && p <= end) {
		nul = memchr(p, 0, (size_t)(end - p));
		if (!nul)
			nul = end;
		snprintf(names[n], sizeof(names[n]), "p%d.json", n);
		if (!fuzz_write_file(names[n], p, (size_t)(nul - p)))
			fuzz_fail("cannot write %s", names[n]);
		parts[n] = names[n];
		n++;
		p = nul + 1;
	}
	unlink("out.json");
	if (!guac_manifest_merge("out.json", n, parts, &whole, &r)) {
		if (r.why == GUAC_MERGE_OK || r.part < 0 || r.part >= n)
			fuzz_fail("merge refused with reason %d, part %d of %d", r.why, r.part, n);
		if (!access("out.json", F_OK))
			fuzz_fail("merge refused (%d) but left out.json", r.why);
		return 0;
	}
	if (!guac_manifest_save("out.json", &whole))
		return 0;	/* an unsavable whole (not UTF-8): the command's exit 2 */
	if (!guac_manifest_load("out.json", &m))
		fuzz_fail("merge succeeded but out.json does not load");
	if (m.status != GUAC_STATUS_COMPLETE || m.shard_index || m.shard_count != 1 ||
	    m.have_verify || guac_manifest_ranges_length(&m) != m.length ||
	    guac_manifest_done(&m) != m.length)
		fuzz_fail("merged manifest: status %s, shard %u/%u, verify record %d, ranges "
			  "%llu, done %llu of %llu", guac_fill_status_name(m.status), m.shard_index,
			  m.shard_count, m.have_verify,
			  (unsigned long long)guac_manifest_ranges_length(&m),
			  (unsigned long long)guac_manifest_done(&m), (unsigned long long)m.length);
	return 0;
}
