// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The manifest reader (storage/manifest.c: guac_manifest_load, the decoder,
 * the consistency check and the checksum) on any file content. Oracles: a
 * manifest that loads is consistent by guac_manifest_consistent(); printed
 * (the file's format, with a fresh checksum) it loads again, and printing
 * that gives the same text (the round trip guac manifest show and merge
 * rely on); its ranges lie inside 2^64 and tile its shard.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "manifest.h"
#include "shard.h"

static struct guac_manifest m, again;

static char *fuzz_print(const struct guac_manifest *mf, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	guac_manifest_print(f, mf);
	fclose(f);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];
	char *t1, *t2;
	size_t l1, l2;
	uint64_t start, end;
	struct guac_shard shard;

	fuzz_init();
	if (!fuzz_write_file("in.json", data, size))
		abort();
	if (!guac_manifest_load("in.json", &m))
		return 0;
	if (!guac_manifest_consistent(&m, why, sizeof(why)))
		fuzz_fail("loaded, yet inconsistent: %s", why);
	shard = (struct guac_shard){ m.shard_index, m.shard_count, "fuzz" };
	guac_shard_range(&shard, m.length, m.sector_size, &start, &end);
	if (start > end || end > m.length)
		fuzz_fail("shard %u/%u of %llu bytes is [%llu, %llu)", m.shard_index, m.shard_count,
			  (unsigned long long)m.length, (unsigned long long)start,
			  (unsigned long long)end);
	if (guac_manifest_ranges_length(&m) != end - start)
		fuzz_fail("ranges hold %llu bytes, the shard %llu",
			  (unsigned long long)guac_manifest_ranges_length(&m),
			  (unsigned long long)(end - start));
	t1 = fuzz_print(&m, &l1);
	if (!fuzz_write_file("again.json", t1, l1))
		abort();
	if (!guac_manifest_load("again.json", &again))
		fuzz_fail("a loaded manifest, printed, does not load again:\n%s", t1);
	t2 = fuzz_print(&again, &l2);
	if (l1 != l2 || memcmp(t1, t2, l1))
		fuzz_fail("print(load(print(m))) differs from print(m):\n%s\n---\n%s", t1, t2);
	free(t1);
	free(t2);
	return 0;
}
