// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's plan (verify_run.h): from the request, what is checked. The
 * range (the whole data, a sub-range, or a shard of it), the segments of a
 * manifest (one per range it records, with what a resumed check has done
 * already), the report sector and read size, the record a resumed check
 * continues, and the diagnosis config. A plan that cannot be made leaves
 * its reason in the run (enum verify_reason_kind); the command words it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include "diag.h"
#include "identity.h"
#include "manifest.h"
#include "shard.h"
#include "util.h"
#include "verify_run.h"

#define VERIFY_DEFAULT_BS (256u << 10)	/* one read; stays in L2 until compared */

/*
 * The diagnosis config, from diag.h: the pass being verified and the
 * manifest's history, newest first. Set once the plan is made, before the
 * reads, so every job classifies its bad sectors as it finds them.
 */
void verify_diag_setup(struct verify_run *run)
{
	struct guac_diag_pass pass;
	size_t i;

	run->classify = run->sector % 64 == 0 && run->sector >= 128 && !run->random.on;
	if (run->manifest) {
		pass = (struct guac_diag_pass){ run->origin, run->manifest->stream_offset,
						run->manifest->device_offset,
						run->manifest->length };
	} else {
		pass = (struct guac_diag_pass){ run->origin, run->offset, run->seek,
						run->length + run->skip };
	}
	guac_diag_config_init(&run->diag_cfg, (enum guac_impl)run->req.impl, run->sector, &pass);
	run->diag_cfg.stop = &run->stop;	/* Ctrl-C ends the search, never the report */
	if (run->manifest) {
		const struct guac_manifest *m = run->manifest;
		size_t n = 0;

		/*
		 * A random fill's earlier passes wrote every block too: a write
		 * of the last pass lost leaves the one before's data (newest
		 * first, the last VERIFY_PASS_ORIGINS of them).
		 */
		if (m->random && !run->random.on) {
			for (n = 0; n + 1 < m->passes && n < VERIFY_PASS_ORIGINS; n++) {
				run->diag_history[n] = pass;
				run->diag_history[n].origin =
					guac_manifest_pass_origin(m, m->passes - 2 - (unsigned int)n);
			}
		}
		run->diag_npasses = n;
		/* The manifest keeps the oldest first; diag wants the newest first. */
		for (i = 0; i < m->nhistory && i < VERIFY_HISTORY; i++) {
			const struct guac_manifest_history *h = &m->history[m->nhistory - 1 - i];

			run->diag_history[n + i] = (struct guac_diag_pass){
				h->origin, h->stream_offset, h->device_offset, h->length };
		}
		run->diag_cfg.history = run->diag_history;
		run->diag_cfg.nhistory = n + i;
		/* Each range of the manifest is one writer's, written in address order. */
		for (i = 0; i < run->manifest->nranges; i++)
			run->diag_parts[i] = (struct guac_diag_part){
				run->manifest->range[i].device_offset, run->manifest->range[i].length };
		run->diag_cfg.parts = run->diag_parts;
		run->diag_cfg.nparts = run->manifest->nranges;
		/* Its parts are then steps of the last pass, in its order. */
		if (m->random && !run->random.on) {
			guac_permutation_init(&run->diag_perm, m->length / m->block_size,
					      guac_permutation_pass_seed(m->seed, m->passes - 1));
			run->diag_order = (struct guac_diag_order){ &run->diag_perm,
								    m->block_size };
			run->diag_cfg.order = &run->diag_order;
		}
	}
	/* --origins: single origins are checked like the history, with the pass's mapping. */
	i = run->diag_cfg.nhistory;
	for (size_t k = 0; k < run->req.nnamed_origins; k++) {
		run->diag_history[i] = pass;
		run->diag_history[i++].origin = run->req.named_origin[k];
	}
	run->diag_cfg.history = run->diag_history;
	run->diag_cfg.nhistory = i;
	run->diag_cfg.nhistory_named = run->req.nnamed_origins;
	run->diag_cfg.origin_ranges = run->req.origin_range;
	run->diag_cfg.norigin_ranges = run->req.norigin_ranges;
}

/* Name why the plan stops: @kind and up to six numbers for the command's words. */
static bool verify_refuse(struct verify_run *run, enum verify_reason_kind kind, uint64_t n0,
			  uint64_t n1, uint64_t n2, uint64_t n3, uint64_t n4, uint64_t n5)
{
	run->reason = (struct verify_reason){ kind, { n0, n1, n2, n3, n4, n5 }, NULL, 0 };
	return false;
}

/*
 * The run made from @req, its defaults still open (the plan resolves them):
 * the state is large and often static, so every field starts afresh here.
 */
void verify_plan_start(struct verify_run *run, const struct verify_request *req)
{
	/* A run that stopped short leaves its bad-range list's parts open. */
	while (run->njob_lists)
		fclose(run->job_lists[--run->njob_lists]);
	free(run->seg);
	free(run->job_lists);
	memset(run, 0, sizeof(*run));
	run->req = *req;
	run->path = req->path;
	run->offset = req->offset;
	run->origin = req->origin;
	run->seek = req->seek;
	run->skip = req->skip;
	run->length = req->length;
	run->bs = req->bs;
	run->jobs = req->jobs;
	run->sector = req->sector;
	run->sector_source = req->sector_source;
	pthread_mutex_init(&run->sample_lock, NULL);
	run->first_last = UINT64_MAX;	/* no set is full yet */
	run->other_last = UINT64_MAX;
}

static bool verify_add_segment(struct verify_run *run, uint64_t dev, struct guac_spos stream,
			       uint64_t len, uint64_t resume, int range)
{
	struct verify_segment *seg = realloc(run->seg, (run->nseg + 1) * sizeof(*run->seg));

	if (!seg)
		return verify_refuse(run, VERIFY_OUT_OF_MEMORY, 0, 0, 0, 0, 0, 0);
	run->seg = seg;
	seg = &run->seg[run->nseg++];
	*seg = (struct verify_segment){ dev, len, stream, resume, range };
	run->planned += len;
	return true;
}

/*
 * Without a sector size asked for: a block device's physical sector
 * (BLKPBSZGET), the unit its writes land or tear in, so that a torn 4 KiB
 * write on a 512e disk is one TORN sector, not a head of good 512-byte
 * sectors and a tail of stale ones (issue 36, U8); else @fallback, named
 * @why in the report.
 */
static void verify_default_sector(struct verify_run *run, unsigned int fallback, const char *why)
{
	unsigned int phys = run->target.physical_sector;

	if (run->target.kind == GUAC_TARGET_BLOCK && phys >= fallback && phys % fallback == 0) {
		run->sector = phys;
		run->sector_source = "physical";
		return;
	}
	run->sector = fallback;
	run->sector_source = why;
}

/*
 * The part of the fill asked for, within the manifest's part [@lo, @hi): a
 * shard K/N of a whole-fill manifest, or the sub-range from the request's
 * skip and length, the part's start and end standing in for what is not
 * asked. A range outside the part is refused.
 */
static bool verify_manifest_range(struct verify_run *run, uint64_t *lo, uint64_t *hi)
{
	const struct guac_manifest *m = run->manifest;
	const struct guac_shard *shard = &run->req.shard;
	uint64_t a, b;

	if (shard->count > 1 && m->shard_count > 1 &&
	    (shard->index != m->shard_index || shard->count != m->shard_count)) {
		verify_refuse(run, VERIFY_OTHER_SHARD, m->shard_index, m->shard_count,
			      shard->index, shard->count, 0, 0);
		run->reason.text = shard->source;
		return false;
	}
	if (shard->count > 1 && m->shard_count == 1) {
		/* Exactly the part guac write writes of a shard (shard.c, the fill's sectors). */
		if (!guac_shard_fits(shard, m->length, m->sector_size))
			return verify_refuse(run, VERIFY_TOO_MANY_SHARDS, m->length,
					     m->sector_size, 0, 0, 0, 0);
		guac_shard_range(shard, m->length, m->sector_size, lo, hi);
		run->subrange = true;
	}
	if (run->req.from_data_start && run->req.to_data_end)
		return true;
	a = run->req.from_data_start ? *lo : run->skip;
	if (a >= m->length)
		return verify_refuse(run, VERIFY_SKIP_PAST_FILL, a, m->length, 0, 0, 0, 0);
	if (!run->req.to_data_end && run->length > m->length - a)
		return verify_refuse(run, VERIFY_RANGE_PAST_FILL, m->length, 0, 0, 0, 0, 0);
	b = run->req.to_data_end ? *hi : a + run->length;
	if (a < *lo || b > *hi || a >= b)
		return verify_refuse(run, VERIFY_RANGE_OUTSIDE_PART, a, (b > a ? b : a + 1) - 1,
				     m->shard_index, m->shard_count, *lo, *hi - 1);
	*lo = a;
	*hi = b;
	run->subrange = true;
	return true;
}

/*
 * One segment per manifest range: its written bytes within [@lo, @hi) of
 * the fill, after what a resumed check has verified; bytes there the
 * manifest does not record as written are INCOMPLETE, never OK.
 */
static bool verify_manifest_segments(struct verify_run *run, uint64_t lo, uint64_t hi)
{
	struct guac_manifest *m = run->manifest;
	struct guac_spos fill = guac_spos_of(m->stream_offset);
	unsigned int i;

	for (i = 0; i < m->nranges; i++) {
		struct guac_manifest_range *r = &m->range[i];
		uint64_t a = r->device_offset - m->device_offset, b = a + r->done;
		uint64_t ua = b, ub = a + r->length;	/* never written */
		uint64_t resume = 0;

		/* A fresh whole check starts its progress afresh; a resumed one keeps it. */
		if (!run->trust_progress && !run->subrange)
			r->verified = 0;
		/* Only what the range asked for counts as incomplete. */
		ua = ua > lo ? ua : lo;
		ub = ub < hi ? ub : hi;
		if (ua < ub)
			run->incomplete += ub - ua;
		a = a > lo ? a : lo;
		b = b < hi ? b : hi;
		if (a >= b)
			b = a;	/* nothing of it to check: an empty segment */
		else if (run->trust_progress)
			/* A resumed check starts after what the last run verified. */
			resume = r->verified < b - a ? r->verified : b - a;
		if (!verify_add_segment(run, m->device_offset + a, guac_spos_add(fill, a), b - a,
					resume, (int)i))
			return false;
	}
	return true;
}

/*
 * A random fill cut short in a later pass: every block holds one of two
 * origins, which its step says (verify_origin_at()). One segment, the whole
 * fill (the ranges count steps, not bytes from their start); no record is
 * kept of it (the record's progress is the ranges'), and no sector is
 * classified (the diagnosis knows one origin a pass).
 */
static void verify_plan_random(struct verify_run *run)
{
	const struct guac_manifest *m = run->manifest;
	struct verify_random *r = &run->random;

	r->on = true;
	r->fill_dev = m->device_offset;
	r->bs = m->block_size;
	r->pass = m->pass;
	r->passes = m->passes;
	r->origin_new = guac_manifest_pass_origin(m, m->pass);
	r->origin_old = guac_manifest_pass_origin(m, m->pass - 1);
	guac_permutation_init(&r->perm, m->length / m->block_size,
			      guac_permutation_pass_seed(m->seed, m->pass));
}

/*
 * The manifest's written bytes within the range asked for, as segments: this
 * manifest's part of the fill, or a shard's part (of a whole-fill manifest),
 * or a sub-range of the fill. False with run->reason set.
 */
bool verify_plan_manifest(struct verify_run *run)
{
	const struct guac_manifest *m = run->manifest;
	uint64_t lo = m->range[0].device_offset - m->device_offset;
	uint64_t hi = lo + guac_manifest_ranges_length(m);

	/*
	 * A random fill short of its end: its ranges count steps of a pass, not
	 * bytes from their start. In its first pass, the blocks not written yet
	 * hold nothing known: refused, never checked as a sequential fill's (that
	 * could say OK for bytes never compared). In a later pass every block
	 * holds one of two origins (verify_plan_random()); a complete fill is a
	 * sequential fill of its origin.
	 */
	if (m->random && m->status != GUAC_STATUS_COMPLETE && !m->pass)
		return verify_refuse(run, VERIFY_RANDOM_UNFINISHED, m->pass + 1, m->passes,
				     guac_manifest_done(m), m->length, 0, 0);
	if (m->random && m->status != GUAC_STATUS_COMPLETE)
		verify_plan_random(run);
	/* The origin the report names: a random fill cut short, its pass under way's. */
	run->origin = run->random.on ? run->random.origin_new : m->origin;
	run->offset = m->stream_offset;
	run->seek = m->device_offset;
	if (!run->bs)
		run->bs = m->block_size < VERIFY_DEFAULT_BS ? m->block_size : VERIFY_DEFAULT_BS;
	if (!run->sector)
		verify_default_sector(run, m->sector_size, "the manifest's");
	if (!verify_manifest_range(run, &lo, &hi))
		return false;
	if (run->random.on ? !verify_add_segment(run, m->device_offset + lo,
						 guac_spos_add(guac_spos_of(m->stream_offset), lo),
						 hi - lo, 0, -1) :
	    !verify_manifest_segments(run, lo, hi))
		return false;
	run->skip = lo;
	run->end = m->device_offset + hi;
	return true;
}

/*
 * Without a manifest: the request's length of SOURCE from seek + skip (to
 * its end when no length is asked), or of it a shard's part, as guac write
 * writes it. False with run->reason set.
 */
bool verify_plan_plain(struct verify_run *run)
{
	uint64_t start = run->seek + run->skip;
	struct guac_spos data = guac_spos_of(run->offset);

	if (!run->bs)
		run->bs = VERIFY_DEFAULT_BS;
	if (!run->sector)
		verify_default_sector(run, 512, "a file's default");
	/* `ssh host cat /dev/sdX | guac verify -` would pass if cat died early. */
	if (run->target.kind == GUAC_TARGET_STREAM && run->req.to_data_end)
		return verify_refuse(run, VERIFY_PIPE_NEEDS_LENGTH, 0, 0, 0, 0, 0, 0);
	/* A pipe is the data from byte 0: the bytes before seek + skip are dropped. */
	if (run->target.kind != GUAC_TARGET_STREAM && run->req.to_data_end)
		run->length = run->target.size > start ? run->target.size - start : 0;
	if (!verify_add_segment(run, start, guac_spos_add(data, run->skip), run->length, 0, -1))
		return false;
	run->end = start + run->length;
	if (run->req.shard.count > 1) {
		/* Like guac write of a shard of a length L: part K of the L bytes. */
		uint64_t a, b;

		if (!guac_shard_fits(&run->req.shard, run->length, run->target.sector))
			return verify_refuse(run, VERIFY_TOO_MANY_SHARDS, run->length,
					     run->target.sector, 0, 0, 0, 0);
		guac_shard_range(&run->req.shard, run->length, run->target.sector, &a, &b);
		run->seg[0] = (struct verify_segment){ start + a, b - a, guac_spos_add(data, a), 0,
						       -1 };
		run->planned = b - a;
		run->skip = a;
		run->end = start + b;
	}
	return true;
}

/*
 * The read size, once the sector is known: a whole number of report
 * sectors (or a sector is seen in two pieces), rounded up unless the
 * request's is exact, and of the target's sector for O_DIRECT. False with
 * run->reason set.
 */
bool verify_plan_reads(struct verify_run *run)
{
	if (run->bs % run->sector) {
		if (run->req.bs_exact) {
			verify_refuse(run, VERIFY_BS_OFF_SECTOR, run->bs, run->sector, 0, 0, 0, 0);
			run->reason.text = run->sector_source;
			return false;
		}
		run->bs = (run->bs + run->sector - 1) / run->sector * run->sector;
	}
	verify_first_byte(run);
	verify_diag_setup(run);
	if (run->target.direct && run->bs % run->target.sector)
		return verify_refuse(run, VERIFY_BS_OFF_DIRECT_SECTOR, run->bs, run->target.sector,
				     0, 0, 0, 0);
	return true;
}

/*
 * --resume: take the manifest's record of the last check, if the one trust
 * rule (guac_record_trust()) lets it stand for the target as it is now: a
 * record of this target's identity, with a trusted stamp that is still the
 * target's. Otherwise the check starts from the beginning and the report
 * says why.
 */
void verify_take_record(struct verify_run *run)
{
	static char why[1024];
	const struct guac_manifest *m = run->manifest;
	bool changed;

	if (!m->have_verify)
		return;
	if (m->verify_status == GUAC_STATUS_PARTIAL) {
		run->restart_partial = true;
		return;
	}
	if (guac_record_trust(m, run->ident, run->stamp, &changed, why, sizeof(why))) {
		run->restart_why = why;
		return;
	}
	run->trust_progress = true;
	run->prior_bad = run->earlier_bad = m->verify_bad_sectors;
	run->prior_unreadable = run->earlier_unreadable = m->verify_unreadable_sectors;
	/*
	 * The places of those findings: a version 3 record kept only their
	 * count (none to place when it found nothing).
	 */
	run->earlier.unknown = !m->verify_places && (m->verify_bad_sectors ||
						     m->verify_unreadable_sectors);
	if (m->verify_places) {
		run->earlier.nranges = m->verify_bad_ranges;
		run->earlier.n = m->nverify_bad;
		memcpy(run->earlier.list, m->verify_bad, sizeof(run->earlier.list));
		memcpy(run->earlier.classes, m->verify_classes, sizeof(run->earlier.classes));
		/* The latest range is known only when every one was kept. */
		run->earlier.have_last = run->earlier.last_kept = run->earlier.n &&
								 run->earlier.n == run->earlier.nranges;
		if (run->earlier.have_last)
			run->earlier.last = run->earlier.list[run->earlier.n - 1];
	}
	run->record = run->earlier;
	run->already_complete = m->verify_status == GUAC_STATUS_COMPLETE;
}

/*
 * Whether SOURCE is the file or device the manifest recorded (not a copy):
 * its path, and the identity recorded (identity.h). A path whose identity
 * differs is another target: @why says what differs and which one it is.
 */
bool verify_is_recorded_target(const struct verify_run *run, char *why, size_t size)
{
	const struct guac_manifest *m = run->manifest;
	struct stat a, b;
	char d[512], which[512];
	bool same;

	why[0] = '\0';
	if (run->target.kind == GUAC_TARGET_STREAM)
		return false;
	same = !strcmp(run->path, m->target_path);
	if (!same && !stat(m->target_path, &a) && !fstat(run->target.fd, &b))
		same = S_ISBLK(a.st_mode) && S_ISBLK(b.st_mode) ? a.st_rdev == b.st_rdev :
		       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (!same || !m->identity[0] || guac_ident_diff(m->identity, run->ident, d, sizeof(d)))
		return same;
	guac_ident_describe(run->ident, which, sizeof(which));
	snprintf(why, size, "'%s' is not the target the manifest recorded: %s; this is %s",
		 run->path, d, which);
	return false;
}

/* The first byte checked, device and stream, for the report (after --skip, --resume). */
void verify_first_byte(struct verify_run *run)
{
	unsigned int i;

	run->first_dev = run->nseg ? run->seg[0].device_offset : run->seek + run->skip;
	run->first_stream = run->nseg ? run->seg[0].stream :
			    guac_spos_add(guac_spos_of(run->offset), run->skip);
	for (i = 0; i < run->nseg; i++) {
		if (run->seg[i].length > run->seg[i].resume) {
			run->first_dev = run->seg[i].device_offset + run->seg[i].resume;
			run->first_stream = guac_spos_add(run->seg[i].stream, run->seg[i].resume);
			break;
		}
	}
}

