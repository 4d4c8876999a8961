// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac manifest: show a manifest, or merge the parts that the shards of one
 * fill wrote (guac write --shard K/N) into one manifest of the whole fill,
 * after checking that they describe the same fill and cover it exactly.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmds.h"
#include "parse_options.h"
#include "identity.h"
#include "manifest.h"
#include "shard.h"
#include "util.h"

static const struct guac_usage manifest_usage = {
	.synopsis =
		"Usage: guac manifest show FILE\n"
		"       guac manifest merge OUT PART...\n",
	.about =
		"show   check FILE and print it with a summary: the fill, its ranges, what\n"
		"       is done and verified, and the earlier fills of the target\n"
		"merge  combine the manifests written by `guac write --shard K/N` (one per\n"
		"       shard, K = 0 ... N-1) into OUT, the manifest of the whole fill. The\n"
		"       parts must be of the same fill (origin, offsets, length, sector and\n"
		"       block size, target size and identity: serial and WWN, or the path\n"
		"       where the target has neither), complete, and together cover the fill\n"
		"       with no gap and no overlap. OUT starts unverified (the parts' checks\n"
		"       are not carried over); it must not be a part, the target, or an\n"
		"       existing file that is not a manifest.\n",
	.after =
		"Exit status: 0 done, 1 the parts do not make a whole fill (gap, overlap,\n"
		"incomplete or different fills), 2 a usage error or an invalid manifest.\n",
};

static int manifest_show(const char *path)
{
	static struct guac_manifest m;
	uint64_t done, verified = 0;
	char human[32], check[192];
	unsigned int i;

	if (!guac_manifest_load(path, &m))
		return GUAC_EXIT_ERROR;
	done = guac_manifest_done(&m);
	for (i = 0; i < m.nranges; i++)
		verified += m.range[i].verified;
	guac_fmt_bytes(human, sizeof(human), (double)m.length);
	/*
	 * "Verified" would read as "matched": say how many bytes the check
	 * compared and what it found in them (issue 36, U10).
	 */
	if (!m.have_verify)
		snprintf(check, sizeof(check), "never checked");
	else if (m.verify_bad_sectors || m.verify_unreadable_sectors)
		snprintf(check, sizeof(check), "%" PRIu64 " checked (%s), %" PRIu64 " bad and %"
			 PRIu64 " unreadable %u-byte sectors found", verified, m.verify_status,
			 m.verify_bad_sectors, m.verify_unreadable_sectors, m.sector_size);
	else
		snprintf(check, sizeof(check), "%" PRIu64 " checked (%s), all matching", verified,
			 m.verify_status);
	printf("# %s: %s fill of %" PRIu64 " bytes (%s) of '%s' at device byte %" PRIu64
	       ", stream offset %" PRIu64 ", origin %" PRIu64 "; shard %u/%u, %" PRIu64
	       " of %" PRIu64 " bytes done, %s; %u earlier fill%s\n",
	       path, m.status, m.length, human, m.target_path, m.device_offset, m.stream_offset,
	       m.origin, m.shard_index, m.shard_count, done, guac_manifest_ranges_length(&m),
	       check, m.nhistory, m.nhistory == 1 ? "" : "s");
	guac_manifest_print(stdout, &m);
	return GUAC_EXIT_OK;
}

static int manifest_range_cmp(const void *a, const void *b)
{
	const struct guac_manifest_range *x = a, *y = b;

	return x->device_offset < y->device_offset ? -1 : x->device_offset > y->device_offset;
}

/* The fields every part of one fill shares; @why names the first that differs. */
static bool manifest_same_fill(const struct guac_manifest *a, const struct guac_manifest *b,
			       const char **why)
{
	static char ident[600];
	char d[512];

	*why = a->origin != b->origin ? "origin" :
	       a->stream_offset != b->stream_offset ? "stream_offset" :
	       a->device_offset != b->device_offset ? "device_offset" :
	       a->length != b->length ? "length" :
	       a->sector_size != b->sector_size ? "sector_size" :
	       a->block_size != b->block_size ? "block_size" :
	       /* A file's size is the one each part left: it grows as the parts land. */
	       a->target_size != b->target_size && strcmp(a->target_type, "file") ?
	       "target size" :
	       strcmp(a->target_type, b->target_type) ? "target type" :
	       strcmp(a->serial, b->serial) ? "target serial" :
	       strcmp(a->wwid, b->wwid) ? "target wwid" :
	       a->shard_count != b->shard_count ? "shard count" :
	       /*
		* A file is named by its path (its serial is its disk's); a block
		* device by its serial and WWN, or its path where it has neither.
		*/
	       (!strcmp(a->target_type, "file") || (!a->serial[0] && !a->wwid[0])) &&
	       strcmp(a->target_path, b->target_path) ? "target path" : NULL;
	/* Another target (identity.h): a part on another host's local file system, too. */
	if (!*why && a->identity[0] && b->identity[0] &&
	    !guac_ident_part_diff(a->identity, b->identity, d, sizeof(d))) {
		snprintf(ident, sizeof(ident), "target identity (%s)", d);
		*why = ident;
	}
	return !*why;
}

/* Whether @a and @b name one file (the same path, or one inode). */
static bool manifest_same_file(const char *a, const char *b)
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
static bool manifest_merge_out_ok(const char *out, const struct guac_manifest *first,
				  int nparts, char **parts)
{
	static struct guac_manifest old;
	struct stat st;
	int p;

	for (p = 0; p < nparts; p++) {
		if (manifest_same_file(out, parts[p])) {
			guac_err("refusing to merge into '%s': it is one of the parts", out);
			return false;
		}
	}
	if (manifest_same_file(out, first->target_path)) {
		guac_err("refusing to merge into '%s': it is the parts' target (the data)", out);
		return false;
	}
	if (stat(out, &st))
		return true;
	if (!S_ISREG(st.st_mode) || !guac_manifest_load(out, &old)) {
		guac_err("refusing to merge into '%s': it exists and is not a manifest (move it "
			 "away first)", out);
		return false;
	}
	return true;
}

static int manifest_history_cmp(const void *a, const void *b)
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
static void manifest_merge_history(struct guac_manifest *whole, const struct guac_manifest *part)
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

		for (j = i; j && manifest_history_cmp(&all[j - 1], &h) > 0; j--)
			all[j] = all[j - 1];
		all[j] = h;
	}
	i = n > GUAC_MANIFEST_MAX_HISTORY ? n - GUAC_MANIFEST_MAX_HISTORY : 0;
	whole->nhistory = n - i;
	memcpy(whole->history, all + i, whole->nhistory * sizeof(all[0]));
}

static int manifest_merge(const char *out, int nparts, char **parts)
{
	static struct guac_manifest part, whole;
	/* Static, not allocated: every return leaves nothing behind (the loader caps the count). */
	static unsigned char seen[GUAC_SHARD_MAX];
	uint64_t pos;
	const char *why;
	unsigned int i;
	int p;

	for (p = 0; p < nparts; p++) {
		if (!guac_manifest_load(parts[p], &part))
			return GUAC_EXIT_ERROR;
		if (strcmp(part.status, "complete")) {
			guac_err("'%s' (shard %u/%u) is %s: %" PRIu64 " of %" PRIu64 " bytes done; "
				 "rerun that shard first", parts[p], part.shard_index,
				 part.shard_count, part.status, guac_manifest_done(&part),
				 guac_manifest_ranges_length(&part));
			return GUAC_EXIT_FAIL;
		}
		if (!p) {
			if (!manifest_merge_out_ok(out, &part, nparts, parts))
				return GUAC_EXIT_ERROR;
			whole = part;
			whole.nranges = 0;
			memset(seen, 0, part.shard_count);
		} else if (!manifest_same_fill(&whole, &part, &why)) {
			guac_err("'%s' is not of the same fill as '%s': its %s differs", parts[p],
				 parts[0], why);
			return GUAC_EXIT_FAIL;
		}
		if (seen[part.shard_index]) {
			guac_err("overlap: shard %u/%u appears twice (again in '%s')",
				 part.shard_index, part.shard_count, parts[p]);
			return GUAC_EXIT_FAIL;
		}
		seen[part.shard_index] = 1;
		_Static_assert(GUAC_SHARD_MAX <= GUAC_MANIFEST_MAX_RANGES,
			       "every shard count guac write takes merges");
		if (whole.nranges + part.nranges > GUAC_MANIFEST_MAX_RANGES) {
			guac_err("more than %d ranges in all (one per job of each part): the "
				 "parts were written with more --jobs than guac write allows "
				 "for %u shards", GUAC_MANIFEST_MAX_RANGES, part.shard_count);
			return GUAC_EXIT_FAIL;
		}
		memcpy(&whole.range[whole.nranges], part.range, part.nranges * sizeof(part.range[0]));
		whole.nranges += part.nranges;
		if (p)
			manifest_merge_history(&whole, &part);
		if (strcmp(part.started, whole.started) < 0)
			memcpy(whole.started, part.started, sizeof(whole.started));
		if (strcmp(part.finished, whole.finished) > 0)
			memcpy(whole.finished, part.finished, sizeof(whole.finished));
		if (part.seconds > whole.seconds)
			whole.seconds = part.seconds;
		if (part.target_size > whole.target_size)
			whole.target_size = part.target_size;
		whole.direct = whole.direct && part.direct;
		whole.sync = whole.sync && part.sync;
		/* A part of unknown identity (before manifest version 6): the whole's unknown. */
		if (!part.identity[0])
			whole.identity[0] = '\0';
		/* Written from several hosts (a shared LUN): no one host. */
		if (strcmp(part.host, whole.host))
			whole.host[0] = '\0';
	}
	for (i = 0; i < whole.shard_count; i++) {
		if (!seen[i]) {
			guac_err("gap: shard %u/%u is missing", i, whole.shard_count);
			return GUAC_EXIT_FAIL;
		}
	}
	/* The coverage itself, whatever the shard numbers say. */
	qsort(whole.range, whole.nranges, sizeof(whole.range[0]), manifest_range_cmp);
	pos = whole.device_offset;
	for (i = 0; i < whole.nranges; i++) {
		if (whole.range[i].device_offset != pos) {
			guac_err("%s: device bytes %" PRIu64 "-%" PRIu64 " %s",
				 whole.range[i].device_offset > pos ? "gap" : "overlap", pos,
				 whole.range[i].device_offset - 1,
				 whole.range[i].device_offset > pos ? "are in no part" :
				 "are in two parts");
			return GUAC_EXIT_FAIL;
		}
		pos += whole.range[i].length;
	}
	if (pos != whole.device_offset + whole.length) {
		guac_err("gap: device bytes %" PRIu64 "-%" PRIu64 " are in no part", pos,
			 whole.device_offset + whole.length - 1);
		return GUAC_EXIT_FAIL;
	}
	whole.shard_index = 0;
	whole.shard_count = 1;
	/* The parts' checks are no check of the whole: it starts unverified. */
	whole.have_verify = false;
	for (i = 0; i < whole.nranges; i++)
		whole.range[i].verified = 0;
	snprintf(whole.status, sizeof(whole.status), "complete");
	if (!guac_manifest_save(out, &whole))
		return GUAC_EXIT_ERROR;
	printf("merged %d parts into '%s': %" PRIu64 " bytes at device byte %" PRIu64
	       " in %u ranges, complete\n", nparts, out, whole.length, whole.device_offset,
	       whole.nranges);
	return GUAC_EXIT_OK;
}

int guac_cmd_manifest(int argc, char **argv)
{
	static const struct guac_option opts[] = {
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n = guac_parse_options(argc, argv, opts, &manifest_usage, GUAC_PARSE_STOP_AT_OPERAND);

	if (n < 0)
		return guac_parse_exit(n);
	if (n && !strcmp(argv[0], "show")) {
		if (n != 2) {
			guac_err("usage: guac manifest show FILE");
			return GUAC_EXIT_ERROR;
		}
		return manifest_show(argv[1]);
	}
	if (n && !strcmp(argv[0], "merge")) {
		if (n < 3) {
			guac_err("usage: guac manifest merge OUT PART...");
			return GUAC_EXIT_ERROR;
		}
		return manifest_merge(argv[1], n - 2, argv + 2);
	}
	if (n)
		guac_err("unknown action '%s' (show or merge)", argv[0]);
	else
		guac_err("missing action: show or merge");
	return GUAC_EXIT_ERROR;
}
