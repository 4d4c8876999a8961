// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The manifest reader (storage/manifest.c: guac_manifest_load, the decoder,
 * the consistency check and the checksum) on any file content. Oracles: a
 * manifest that loads is consistent by guac_manifest_consistent(); printed
 * (the file's format, with a fresh checksum) it loads again, and printing
 * that gives the same text (the round trip guac manifest show and merge
 * rely on); its ranges lie inside 2^64 and tile its shard. The checksum: the
 * fuzz build takes "fuzz" for any (manifest.c), so a loaded manifest whose
 * "checksum" is anything else must carry exactly the one its fields give;
 * and any loaded manifest with one field changed (tool_version) loads with
 * the checksum of the changed fields, never with its own old one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "json.h"
#include "manifest.h"
#include "shard.h"

static struct guac_manifest m, again, changed;

/* The printed checksum ("sha256:" and 64 hex digits) in @text, or NULL. */
static char *fuzz_sum_in(char *text)
{
	char *p = strstr(text, ",\n  \"checksum\": \"");

	if (!p)
		return NULL;
	p += strlen(",\n  \"checksum\": \"");
	return strlen(p) > 71 && !strncmp(p, "sha256:", 7) && p[71] == '"' ? p : NULL;
}

/* The input's top-level "checksum" string (the first so named, as the decoder takes it). */
static bool fuzz_input_sum(const uint8_t *data, size_t size, char *out, size_t outsize)
{
	struct json *root = NULL;
	const struct json *v;
	char err[256];
	bool found = false;

	if (!json_parse((const char *)data, size, &root, err, sizeof(err)))
		fuzz_fail("a manifest loaded, yet its text does not parse: %s", err);
	for (v = root->child; v; v = v->next)
		if (v->key && !strcmp(v->key, "checksum")) {
			found = v->type == JSON_STRING;
			if (found)
				snprintf(out, outsize, "%s", v->str);
			break;
		}
	json_free(root);
	return found;
}

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
	char *t1, *t2, *sum1, *sum2, insum[128];
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
	sum1 = fuzz_sum_in(t1);
	if (!sum1)
		fuzz_fail("a loaded manifest prints no checksum:\n%s", t1);
	if (!fuzz_input_sum(data, size, insum, sizeof(insum)))
		fuzz_fail("a manifest without a \"checksum\" string loaded");
	if (strcmp(insum, "fuzz") && (strlen(insum) != 71 || strncmp(insum, sum1, 71)))
		fuzz_fail("loaded with checksum %s, but its fields give %.71s", insum, sum1);
	if (!fuzz_write_file("again.json", t1, l1))
		abort();
	if (!guac_manifest_load("again.json", &again))
		fuzz_fail("a loaded manifest, printed, does not load again:\n%s", t1);
	t2 = fuzz_print(&again, &l2);
	if (l1 != l2 || memcmp(t1, t2, l1))
		fuzz_fail("print(load(print(m))) differs from print(m):\n%s\n---\n%s", t1, t2);
	free(t2);
	/* One field changed: it loads with its fresh checksum, not with the old one. */
	changed = m;
	snprintf(changed.tool_version, sizeof(changed.tool_version), "%s",
		 strcmp(m.tool_version, "x") ? "x" : "y");
	t2 = fuzz_print(&changed, &l2);
	sum2 = fuzz_sum_in(t2);
	if (!sum2 || !strncmp(sum1, sum2, 71))
		fuzz_fail("tool_version \"%s\" changed to \"%s\", the checksum did not:\n%s",
			  m.tool_version, changed.tool_version, t2);
	if (!fuzz_write_file("changed.json", t2, l2))
		abort();
	if (!guac_manifest_load("changed.json", &again))
		fuzz_fail("tool_version changed, with the fields' checksum, does not load:\n%s", t2);
	memcpy(sum2, sum1, 71);
	if (!fuzz_write_file("changed.json", t2, l2))
		abort();
	if (guac_manifest_load("changed.json", &again))
		fuzz_fail("tool_version changed, with the old checksum, still loads:\n%s", t2);
	free(t1);
	free(t2);
	return 0;
}
