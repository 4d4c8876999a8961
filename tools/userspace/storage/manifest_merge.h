/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Merging the manifests the shards of one fill wrote (guac write --shard
 * K/N) into one manifest of the whole fill: the parts must be of one fill
 * (guac_manifest_same_fill()), complete, and cover it with no gap and no
 * overlap. The merge says why it refuses; guac manifest merge words it.
 */
#ifndef GUAC_MANIFEST_MERGE_H
#define GUAC_MANIFEST_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include "manifest.h"

enum guac_merge_refusal {
	GUAC_MERGE_OK,
	GUAC_MERGE_UNLOADABLE,		/* a part does not load (the loader said why) */
	GUAC_MERGE_INCOMPLETE,		/* a part's fill is not complete */
	GUAC_MERGE_OUT_IS_PART,		/* OUT is one of the parts */
	GUAC_MERGE_OUT_IS_TARGET,	/* OUT is the parts' target, the data */
	GUAC_MERGE_OUT_NOT_MANIFEST,	/* OUT exists and is no manifest */
	GUAC_MERGE_OTHER_FILL,		/* a part is of another fill than the first */
	GUAC_MERGE_SHARD_TWICE,		/* a shard in two parts */
	GUAC_MERGE_TOO_MANY_RANGES,	/* more ranges than a manifest holds */
	GUAC_MERGE_SHARD_MISSING,	/* a shard in no part */
	GUAC_MERGE_GAP,			/* device bytes in no part */
	GUAC_MERGE_OVERLAP,		/* device bytes in two parts */
};

/* Why a merge refused, with what the message needs. */
struct guac_merge_refused {
	enum guac_merge_refusal why;
	int part;			/* the part concerned (its index in @parts) */
	unsigned int shard_index, shard_count;
	enum guac_fill_status status;	/* GUAC_MERGE_INCOMPLETE: the part's */
	uint64_t done, length;		/* GUAC_MERGE_INCOMPLETE: the part's bytes */
	struct guac_fill_diff diff;	/* GUAC_MERGE_OTHER_FILL: against the first part */
	uint64_t first, last;		/* GUAC_MERGE_GAP, _OVERLAP: the device bytes */
};

/*
 * Merge the @nparts manifests at @parts into @whole, the manifest of the
 * whole fill (complete, shard 0/1, unverified; not saved), checking that
 * @out may take it. False with @r saying why not.
 */
bool guac_manifest_merge(const char *out, int nparts, char **parts, struct guac_manifest *whole,
			 struct guac_merge_refused *r);

#endif /* GUAC_MANIFEST_MERGE_H */
