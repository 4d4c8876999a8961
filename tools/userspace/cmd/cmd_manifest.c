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
#include "cmd_manifest.h"
#include "cmds.h"
#include "parse_options.h"
#include "manifest.h"
#include "manifest_merge.h"
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

/* The manifest @m, loaded from @path: its summary line, then its fields. */
static void manifest_print(const char *path, const struct guac_manifest *m)
{
	uint64_t done, verified = 0;
	char human[32], check[192], split[GUAC_BS_SPLIT_STR];
	unsigned int i;

	done = guac_manifest_done(m);
	for (i = 0; i < m->nranges; i++)
		verified += m->range[i].verified;
	guac_fmt_bytes(human, sizeof(human), (double)m->length);
	/*
	 * "Verified" would read as "matched": say how many bytes the check
	 * compared and what it found in them (issue 36, U10).
	 */
	if (!m->have_verify)
		snprintf(check, sizeof(check), "never checked");
	else if (m->verify_bad_sectors || m->verify_unreadable_sectors)
		snprintf(check, sizeof(check), "%" PRIu64 " checked (%s), %" PRIu64 " bad and %"
			 PRIu64 " unreadable %u-byte sectors found", verified,
			 guac_fill_status_name(m->verify_status),
			 m->verify_bad_sectors, m->verify_unreadable_sectors, m->sector_size);
	else
		snprintf(check, sizeof(check), "%" PRIu64 " checked (%s), all matching", verified,
			 guac_fill_status_name(m->verify_status));
	printf("# %s: %s fill of %" PRIu64 " bytes (%s) of '%s' at device byte %" PRIu64
	       ", stream offset %" PRIu64 ", origin %" PRIu64 "; shard %u/%u, %" PRIu64
	       " of %" PRIu64 " bytes done, %s; %u earlier fill%s\n",
	       path, guac_fill_status_name(m->status), m->length, human, m->target_path,
	       m->device_offset, m->stream_offset,
	       m->origin, m->shard_index, m->shard_count, done, guac_manifest_ranges_length(m),
	       check, m->nhistory, m->nhistory == 1 ? "" : "s");
	/* A random fill's done bytes are its pass's steps: which pass, of how many. */
	if (m->random)
		printf("# random pattern, seed %" PRIu64 ": pass %u of %u (origin %" PRIu64 "), "
		       "%" PRIu64 " of its %" PRIu64 " blocks written\n", m->seed, m->pass + 1,
		       m->passes, guac_manifest_pass_origin(m, m->pass), done / m->block_size,
		       m->length / m->block_size);
	if (m->iodepth > 1)
		printf("# written with up to %u writes in flight a job (--iodepth)\n", m->iodepth);
	if (m->bs_split.n)
		printf("# each block written in equal writes of one size, SIZE/PERCENT %s "
		       "(--bs-split)\n", guac_bs_split_str(split, sizeof(split), &m->bs_split));
	guac_manifest_print(stdout, m);
}

static int manifest_show(const char *path)
{
	struct guac_manifest *m = calloc(1, sizeof(*m));	/* large: not on the stack */
	int ret = GUAC_EXIT_ERROR;

	if (!m)
		guac_err("out of memory");
	else if (guac_manifest_load(path, m)) {
		manifest_print(path, m);
		ret = GUAC_EXIT_OK;
	}
	free(m);
	return ret;
}

/* The name merge's messages give field @f of a fill. */
static const char *manifest_fill_field(enum guac_fill_field f)
{
	switch (f) {
	case GUAC_FILL_ORIGIN:		return "origin";
	case GUAC_FILL_STREAM_OFFSET:	return "stream_offset";
	case GUAC_FILL_DEVICE_OFFSET:	return "device_offset";
	case GUAC_FILL_LENGTH:		return "length";
	case GUAC_FILL_PATTERN:		return "workload pattern";
	case GUAC_FILL_SEED:		return "workload seed";
	case GUAC_FILL_PASSES:		return "workload passes";
	case GUAC_FILL_SECTOR_SIZE:	return "sector_size";
	case GUAC_FILL_BLOCK_SIZE:	return "block_size";
	case GUAC_FILL_TARGET_SIZE:	return "target size";
	case GUAC_FILL_TARGET_TYPE:	return "target type";
	case GUAC_FILL_SERIAL:		return "target serial";
	case GUAC_FILL_WWID:		return "target wwid";
	case GUAC_FILL_SHARD_COUNT:	return "shard count";
	case GUAC_FILL_SHARD_INDEX:	return "shard index";
	case GUAC_FILL_TARGET_PATH:	return "target path";
	case GUAC_FILL_MACHINE:		return "machine";
	case GUAC_FILL_IO_MODE:		return "I/O mode";
	case GUAC_FILL_IDENTITY:	return "target identity";
	default:			return "fill";
	}
}

/* Why the merge of @parts into @out was refused, in words; the exit status. */
static int manifest_merge_refused(const char *out, char **parts,
				  const struct guac_merge_refused *r)
{
	const char *part = parts[r->part];

	switch (r->why) {
	case GUAC_MERGE_UNLOADABLE:
		return GUAC_EXIT_ERROR;	/* the loader said why */
	case GUAC_MERGE_INCOMPLETE:
		guac_err("'%s' (shard %u/%u) is %s: %" PRIu64 " of %" PRIu64 " bytes done; "
			 "rerun that shard first", part, r->shard_index, r->shard_count,
			 guac_fill_status_name(r->status), r->done, r->length);
		return GUAC_EXIT_FAIL;
	case GUAC_MERGE_OUT_IS_PART:
		guac_err("refusing to merge into '%s': it is one of the parts", out);
		return GUAC_EXIT_ERROR;
	case GUAC_MERGE_OUT_IS_TARGET:
		guac_err("refusing to merge into '%s': it is the parts' target (the data)", out);
		return GUAC_EXIT_ERROR;
	case GUAC_MERGE_OUT_NOT_MANIFEST:
		guac_err("refusing to merge into '%s': it exists and is not a manifest (move it "
			 "away first)", out);
		return GUAC_EXIT_ERROR;
	case GUAC_MERGE_OTHER_FILL:
		if (r->diff.field == GUAC_FILL_IDENTITY)
			guac_err("'%s' is not of the same fill as '%s': its target identity (%s) "
				 "differs", part, parts[0], r->diff.why);
		else
			guac_err("'%s' is not of the same fill as '%s': its %s differs", part,
				 parts[0], manifest_fill_field(r->diff.field));
		return GUAC_EXIT_FAIL;
	case GUAC_MERGE_SHARD_TWICE:
		guac_err("overlap: shard %u/%u appears twice (again in '%s')", r->shard_index,
			 r->shard_count, part);
		return GUAC_EXIT_FAIL;
	case GUAC_MERGE_TOO_MANY_RANGES:
		guac_err("more than %d ranges in all (one per job of each part): the parts were "
			 "written with more --jobs than guac write allows for %u shards",
			 GUAC_MANIFEST_MAX_RANGES, r->shard_count);
		return GUAC_EXIT_FAIL;
	case GUAC_MERGE_SHARD_MISSING:
		guac_err("gap: shard %u/%u is missing", r->shard_index, r->shard_count);
		return GUAC_EXIT_FAIL;
	case GUAC_MERGE_GAP:
	case GUAC_MERGE_OVERLAP:
		guac_err("%s: device bytes %" PRIu64 "-%" PRIu64 " %s",
			 r->why == GUAC_MERGE_GAP ? "gap" : "overlap", r->first, r->last,
			 r->why == GUAC_MERGE_GAP ? "are in no part" : "are in two parts");
		return GUAC_EXIT_FAIL;
	default:
		return GUAC_EXIT_OK;
	}
}

static int manifest_merge(const char *out, int nparts, char **parts)
{
	struct guac_manifest *whole = calloc(1, sizeof(*whole));	/* large: not on the stack */
	struct guac_merge_refused r;
	int ret = GUAC_EXIT_ERROR;

	if (!whole)
		guac_err("out of memory");
	else if (!guac_manifest_merge(out, nparts, parts, whole, &r))
		ret = manifest_merge_refused(out, parts, &r);
	else if (guac_manifest_save(out, whole)) {
		printf("merged %d parts into '%s': %" PRIu64 " bytes at device byte %" PRIu64
		       " in %u ranges, complete\n", nparts, out, whole->length,
		       whole->device_offset, whole->nranges);
		ret = GUAC_EXIT_OK;
	}
	free(whole);
	return ret;
}

int guac_manifest_cmd_parse(int argc, char **argv, struct guac_manifest_args *a)
{
	static const struct guac_option opts[] = {
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n = guac_parse_options(argc, argv, opts, &manifest_usage, GUAC_PARSE_STOP_AT_OPERAND);

	*a = (struct guac_manifest_args){ 0 };
	if (n < 0)
		return n == GUAC_PARSE_DONE ? n : guac_parse_exit(n);
	if (n && !strcmp(argv[0], "show")) {
		if (n != 2) {
			guac_err("usage: guac manifest show FILE");
			return GUAC_EXIT_ERROR;
		}
		*a = (struct guac_manifest_args){ GUAC_MANIFEST_SHOW, argv[1], 0, NULL };
		return GUAC_EXIT_OK;
	}
	if (n && !strcmp(argv[0], "merge")) {
		if (n < 3) {
			guac_err("usage: guac manifest merge OUT PART...");
			return GUAC_EXIT_ERROR;
		}
		*a = (struct guac_manifest_args){ GUAC_MANIFEST_MERGE, argv[1], n - 2, argv + 2 };
		return GUAC_EXIT_OK;
	}
	if (n)
		guac_err("unknown action '%s' (show or merge)", argv[0]);
	else
		guac_err("missing action: show or merge");
	return GUAC_EXIT_ERROR;
}

int guac_manifest_cmd_run(const struct guac_manifest_args *a)
{
	if (a->action == GUAC_MANIFEST_SHOW)
		return manifest_show(a->path);
	return manifest_merge(a->path, a->nparts, a->parts);
}

int guac_cmd_manifest(int argc, char **argv)
{
	struct guac_manifest_args a;
	int ret = guac_manifest_cmd_parse(argc, argv, &a);

	if (ret != GUAC_EXIT_OK)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	return guac_manifest_cmd_run(&a);
}
