// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac manifest merge's engine (manifest_merge.h): load the shards' parts,
 * check that they are one fill and cover it exactly, and build the whole
 * fill's manifest from them, its history the union of theirs.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "manifest_merge.h"
#include "shard.h"

static int merge_range_cmp(const void *a, const void *b)
{
	const struct guac_manifest_range *x = a, *y = b;

	return x->device_offset < y->device_offset ? -1 : x->device_offset > y->device_offset;
}

/* Whether @a and @b name one file (the same path, or one inode). */
static bool merge_same_file(const char *a, const char *b)
{
	struct stat x, y;

	if (!strcmp(a, b))
		return true;
	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/*
 * OUT must not be one of the parts, the parts' target, or anything that is
 * not a manifest already (the rename would put the manifest over it).
 */
static enum guac_merge_refusal merge_out_ok(const char *out, const struct guac_manifest *first,
					    int nparts, char **parts, int *part)
{
	static struct guac_manifest old;
	struct stat st;
	int p;

	for (p = 0; p < nparts; p++) {
		if (merge_same_file(out, parts[p])) {
			*part = p;
			return GUAC_MERGE_OUT_IS_PART;
		}
	}
	if (merge_same_file(out, first->target_path))
		return GUAC_MERGE_OUT_IS_TARGET;
	if (stat(out, &st))
		return GUAC_MERGE_OK;
	if (!S_ISREG(st.st_mode) || !guac_manifest_load(out, &old))
		return GUAC_MERGE_OUT_NOT_MANIFEST;
	return GUAC_MERGE_OK;
}

static int merge_history_cmp(const void *a, const void *b)
{
	const struct guac_manifest_history *x = a, *y = b;

	return strcmp(x->finished, y->finished);
}

/*
 * Each shard's write found (maybe) its own old manifest: the whole fill's
 * history is all of theirs, an earlier fill (same origin, offsets and
 * length) seen by several shards once, oldest first; past the limit the
 * oldest go, as in guac write.
 */
static void merge_history(struct guac_manifest *whole, const struct guac_manifest *part)
{
	static struct guac_manifest_history all[2 * GUAC_MANIFEST_MAX_HISTORY];
	unsigned int n = whole->nhistory, i, j;

	memcpy(all, whole->history, n * sizeof(all[0]));
	for (i = 0; i < part->nhistory; i++) {
		const struct guac_manifest_history *h = &part->history[i];

		for (j = 0; j < n; j++)
			if (all[j].origin == h->origin && all[j].stream_offset == h->stream_offset &&
			    all[j].device_offset == h->device_offset && all[j].length == h->length)
				break;
		/* Shards end their writes seconds apart: one fill, its latest time. */
		if (j == n)
			all[n++] = *h;
		else if (strcmp(h->finished, all[j].finished) > 0)
			all[j] = *h;
	}
	/* Insertion sort: stable, so equal times keep their order. */
	for (i = 1; i < n; i++) {
		struct guac_manifest_history h = all[i];

		for (j = i; j && merge_history_cmp(&all[j - 1], &h) > 0; j--)
			all[j] = all[j - 1];
		all[j] = h;
	}
	i = n > GUAC_MANIFEST_MAX_HISTORY ? n - GUAC_MANIFEST_MAX_HISTORY : 0;
	whole->nhistory = n - i;
	memcpy(whole->history, all + i, whole->nhistory * sizeof(all[0]));
}

/* What a further part adds to the whole: its ranges, history, times and target. */
static void merge_fold(struct guac_manifest *whole, const struct guac_manifest *part, bool first)
{
	memcpy(&whole->range[whole->nranges], part->range, part->nranges * sizeof(part->range[0]));
	whole->nranges += part->nranges;
	if (!first)
		merge_history(whole, part);
	if (strcmp(part->started, whole->started) < 0)
		memcpy(whole->started, part->started, sizeof(whole->started));
	if (strcmp(part->finished, whole->finished) > 0)
		memcpy(whole->finished, part->finished, sizeof(whole->finished));
	if (part->seconds > whole->seconds)
		whole->seconds = part->seconds;
	if (part->target_size > whole->target_size)
		whole->target_size = part->target_size;
	whole->direct = whole->direct && part->direct;
	whole->sync = whole->sync && part->sync;
	/* A part of unknown identity (before manifest version 6): the whole's unknown. */
	if (!part->identity[0])
		whole->identity[0] = '\0';
	/* Written from several hosts (a shared LUN): no one host. */
	if (strcmp(part->host, whole->host))
		whole->host[0] = '\0';
}

/*
 * Part @p, loaded into @part: complete, of the whole's fill, a shard not
 * seen yet (@seen, by index), and room for its ranges.
 */
static enum guac_merge_refusal merge_check_part(const char *out, int nparts, char **parts, int p,
						const struct guac_manifest *part,
						struct guac_manifest *whole, unsigned char *seen,
						struct guac_merge_refused *r)
{
	enum guac_merge_refusal why;

	r->shard_index = part->shard_index;
	r->shard_count = part->shard_count;
	if (part->status != GUAC_STATUS_COMPLETE) {
		r->status = part->status;
		r->done = guac_manifest_done(part);
		r->length = guac_manifest_ranges_length(part);
		return GUAC_MERGE_INCOMPLETE;
	}
	if (!p) {
		why = merge_out_ok(out, part, nparts, parts, &r->part);
		if (why != GUAC_MERGE_OK)
			return why;
		*whole = *part;
		whole->nranges = 0;
		memset(seen, 0, part->shard_count);
	} else if (!guac_manifest_same_fill(whole, part, GUAC_FILL_MERGE, &r->diff)) {
		return GUAC_MERGE_OTHER_FILL;
	}
	if (seen[part->shard_index])
		return GUAC_MERGE_SHARD_TWICE;
	seen[part->shard_index] = 1;
	_Static_assert(GUAC_SHARD_MAX <= GUAC_MANIFEST_MAX_RANGES,
		       "every shard count guac write takes merges");
	if (whole->nranges + part->nranges > GUAC_MANIFEST_MAX_RANGES)
		return GUAC_MERGE_TOO_MANY_RANGES;
	return GUAC_MERGE_OK;
}

/* Every shard given, and the coverage itself, whatever the shard numbers say. */
static enum guac_merge_refusal merge_coverage(struct guac_manifest *whole,
					      const unsigned char *seen,
					      struct guac_merge_refused *r)
{
	uint64_t pos;
	unsigned int i;

	for (i = 0; i < whole->shard_count; i++) {
		if (!seen[i]) {
			r->shard_index = i;
			r->shard_count = whole->shard_count;
			return GUAC_MERGE_SHARD_MISSING;
		}
	}
	qsort(whole->range, whole->nranges, sizeof(whole->range[0]), merge_range_cmp);
	pos = whole->device_offset;
	for (i = 0; i < whole->nranges; i++) {
		if (whole->range[i].device_offset != pos) {
			r->first = pos;
			r->last = whole->range[i].device_offset - 1;
			return whole->range[i].device_offset > pos ? GUAC_MERGE_GAP :
			       GUAC_MERGE_OVERLAP;
		}
		pos += whole->range[i].length;
	}
	if (pos != whole->device_offset + whole->length) {
		r->first = pos;
		r->last = whole->device_offset + whole->length - 1;
		return GUAC_MERGE_GAP;
	}
	return GUAC_MERGE_OK;
}

bool guac_manifest_merge(const char *out, int nparts, char **parts, struct guac_manifest *whole,
			 struct guac_merge_refused *r)
{
	static struct guac_manifest part;
	/* Static, not allocated: every return leaves nothing behind (the loader caps the count). */
	static unsigned char seen[GUAC_SHARD_MAX];
	unsigned int i;
	int p;

	memset(r, 0, sizeof(*r));
	for (p = 0; p < nparts; p++) {
		r->part = p;
		if (!guac_manifest_load(parts[p], &part)) {
			r->why = GUAC_MERGE_UNLOADABLE;
			return false;
		}
		r->why = merge_check_part(out, nparts, parts, p, &part, whole, seen, r);
		if (r->why != GUAC_MERGE_OK)
			return false;
		merge_fold(whole, &part, !p);
	}
	r->why = merge_coverage(whole, seen, r);
	if (r->why != GUAC_MERGE_OK)
		return false;
	whole->shard_index = 0;
	whole->shard_count = 1;
	/* The parts' checks are no check of the whole: it starts unverified. */
	whole->have_verify = false;
	for (i = 0; i < whole->nranges; i++)
		whole->range[i].verified = 0;
	whole->status = GUAC_STATUS_COMPLETE;
	return true;
}
