// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's check (verify_run.h): the I/O engine's use, the
 * classification of what it finds, and the verdict.
 *
 * The work is a list of segments (one without a manifest, one per manifest
 * range with it), each read by the I/O engine with --jobs threads on
 * contiguous parts. Each thread logs its own findings; they are merged in
 * position order after each segment, so the ranges come out sorted and
 * merged, and memory stays at a few buffers per thread plus the bad sectors
 * kept for the diagnosis (the first VERIFY_DIAG_MAX, and the first
 * VERIFY_DIAG_MAX of class OTHER). Every bad sector is classified where it is
 * found, from what is local to it (diag.h's guac_diag_local(): zeros, ones,
 * torn, stale origin, scattered damage, or OTHER, which needs the
 * misdirection search), so the class counts cover all of them. The complete
 * list, with each range's class, goes to --bad-list through one temporary
 * file per thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "io_engine.h"
#include "identity.h"
#include "manifest.h"
#include "shard.h"
#include "util.h"
#include "verify.h"
#include "verify_run.h"

#define VERIFY_SLICE (32u << 10)	/* generated then compared while in L1 */
#define VERIFY_EXIT_INTERRUPTED 130
#define VERIFY_SAVE_SECONDS 10		/* between progress saves in a long check */

/* Per engine job: its own findings, merged in order after the segment. */
struct verify_job {
	struct guac_badlog mismatch, unreadable;
	struct guac_range mismatch_kept[VERIFY_SHOWN_RANGES];
	struct guac_range unreadable_kept[VERIFY_SHOWN_RANGES];
	int first_errno;
	uint64_t first_error_pos;
	FILE *bad_list;			/* this job's part of --bad-list */
	char pending_kind;		/* 'm' or 'u': the bad-list range not yet written */
	const char *pending_class;	/* its class (a static string) */
	uint64_t pending_start, pending_end;
	uint8_t *want;
	uint8_t *scratch;		/* one sector, for the local checks */
	struct verify_classes classes;
	struct verify_record record;	/* its bad ranges, for the manifest's record */
	/* Its bad and unreadable sectors so far, for the progress line on another thread. */
	atomic_uint_fast64_t live_bad, live_unreadable;
};

/* The jobs of the segment being checked, whose findings the progress line adds up. */
static struct {
	struct verify_job *vj;
	unsigned int n;
} verify_live;

/*
 * The progress line's note: the bad and unreadable sectors found so far, the
 * earlier run's (--resume) and earlier segments' included, as the report
 * counts them. On guac_io_run's thread: the jobs' own counts are atomic.
 */
static void verify_progress_note(void *arg, char *buf, size_t size)
{
	const struct verify_run *run = arg;
	uint64_t bad = run->earlier_bad + run->mismatch.bad_sectors;
	uint64_t unreadable = run->earlier_unreadable + run->unreadable.bad_sectors;
	unsigned int i;

	for (i = 0; i < verify_live.n; i++) {
		bad += atomic_load_explicit(&verify_live.vj[i].live_bad, memory_order_relaxed);
		unreadable += atomic_load_explicit(&verify_live.vj[i].live_unreadable,
						   memory_order_relaxed);
	}
	snprintf(buf, size, "%" PRIu64 " bad sector%s, %" PRIu64 " unreadable", bad,
		 bad == 1 ? "" : "s", unreadable);
}


static int verify_sample_cmp(const void *a, const void *b)
{
	const struct verify_sample *x = a, *y = b;

	return x->device_offset < y->device_offset ? -1 : x->device_offset > y->device_offset;
}

/*
 * The diagnosis lines, and the misdirection search: the sectors kept (the
 * first VERIFY_DIAG_MAX bad ones, and the first VERIFY_DIAG_MAX OTHER ones),
 * sorted by position, in one batch, because the search sweeps the pass range once for all of them.
 * Kept behind this function and verify_classify() so the rest of verify
 * knows nothing of how the classification works.
 */
void verify_diagnose(struct verify_run *run)
{
	struct guac_diag_sector *sectors;
	size_t i, n = 0;

	qsort(run->sample, run->nsample, sizeof(run->sample[0]), verify_sample_cmp);
	if (!run->nsample || !run->classify)
		return;
	sectors = calloc(run->nsample, sizeof(*sectors));
	if (!sectors)
		return;
	for (i = 0; i < run->nsample; i++)
		sectors[n++] = (struct guac_diag_sector){ run->sample[i].stream_offset,
							  run->sample[i].data };
	if (!guac_diag_run(&run->diag_cfg, sectors, n, run->diag, &run->search)) {
		run->ndiag = n;
		run->diag_ran = true;
		for (i = 0; i < n; i++) {
			if (!run->sample[i].other)
				continue;
			run->other_searched++;
			run->searched[run->diag[i].cls]++;
		}
		verify_incidents(run);
	}
	free(sectors);
}

/*
 * The kept sector of one set (@other: the OTHER ones) furthest on the
 * device; call under @run->sample_lock.
 */
static size_t verify_sample_last(const struct verify_run *run, bool other)
{
	size_t i, last = run->nsample;

	for (i = 0; i < run->nsample; i++) {
		const struct verify_sample *s = &run->sample[i];

		if ((other ? s->in_other : s->in_first) &&
		    (last == run->nsample || s->device_offset > run->sample[last].device_offset))
			last = i;
	}
	return last;
}

/* Take sector @i out of one set; drop it when in neither. Under the lock. */
static void verify_sample_drop(struct verify_run *run, size_t i, bool other)
{
	struct verify_sample *s = &run->sample[i];

	if (other) {
		s->in_other = false;
		run->nother--;
	} else {
		s->in_first = false;
		run->nfirst--;
	}
	if (s->in_first || s->in_other)
		return;
	free(s->data);
	*s = run->sample[--run->nsample];
}

/* After a change under the lock: where each full set ends, for the fast path. */
static void verify_sample_bounds(struct verify_run *run)
{
	size_t f = verify_sample_last(run, false), o = verify_sample_last(run, true);

	atomic_store(&run->first_last, run->nfirst < VERIFY_DIAG_MAX ? UINT64_MAX :
			 run->sample[f].device_offset);
	atomic_store(&run->other_last, run->nother < VERIFY_DIAG_MAX ? UINT64_MAX :
			 run->sample[o].device_offset);
}

/*
 * Keep a whole bad sector for the diagnosis if it is one of the first
 * VERIFY_DIAG_MAX bad sectors by position (their diagnosis lines), or of the
 * first VERIFY_DIAG_MAX OTHER ones (the search's bound). The jobs find them
 * in any order, so a sector further on gives way to one before it: the sets
 * are the same in every run, whatever the jobs' timing (issue 36, U5).
 */
static void verify_sample(struct verify_run *run, uint64_t dev, uint64_t stream_off,
			  const uint8_t *data, bool other)
{
	bool first, in_other;
	uint8_t *copy;

	if (dev > atomic_load(&run->first_last) &&
	    (!other || dev > atomic_load(&run->other_last)))
		return;
	copy = malloc(run->sector);
	if (!copy)
		return;
	memcpy(copy, data, run->sector);
	pthread_mutex_lock(&run->sample_lock);
	first = dev < atomic_load(&run->first_last);
	in_other = other && dev < atomic_load(&run->other_last);
	if (first || in_other) {
		if (first && run->nfirst == VERIFY_DIAG_MAX)
			verify_sample_drop(run, verify_sample_last(run, false), false);
		if (in_other && run->nother == VERIFY_DIAG_MAX)
			verify_sample_drop(run, verify_sample_last(run, true), true);
		run->sample[run->nsample++] = (struct verify_sample){ dev, stream_off, copy, other,
								      first, in_other };
		run->nfirst += first;
		run->nother += in_other;
		copy = NULL;
		verify_sample_bounds(run);
	}
	pthread_mutex_unlock(&run->sample_lock);
	free(copy);
}

/* The class of a whole bad sector, from what is local to it; its --bad-list name. */
static const char *verify_classify(struct verify_run *run, struct verify_job *vj,
				   uint64_t stream_off, const uint8_t *got, const uint8_t *want)
{
	struct guac_diag_result r;
	size_t i;

	if (!run->classify) {
		vj->classes.unclassified++;
		return "-";
	}
	if (!guac_diag_local(&run->diag_cfg, stream_off, got, want, vj->scratch, &r)) {
		vj->classes.cls[GUAC_DIAG_UNKNOWN]++;
		return "OTHER";
	}
	vj->classes.cls[r.cls]++;
	if (r.cls == GUAC_DIAG_STALE_ORIGIN) {
		for (i = 0; i < run->diag_cfg.nhistory; i++) {
			if (run->diag_history[i].origin == r.found_origin) {
				vj->classes.stale[i]++;
				break;
			}
		}
	}
	return guac_diag_class_name(r.cls);
}
static void verify_list_flush(struct verify_run *run, struct verify_job *vj)
{
	struct guac_manifest_bad b;

	if (!vj->pending_kind)
		return;
	b = (struct guac_manifest_bad){ vj->pending_start, vj->pending_end - vj->pending_start,
					vj->pending_kind == 'u', "" };
	snprintf(b.cls, sizeof(b.cls), "%s", vj->pending_class);
	verify_record_add(&vj->record, &b);
	if (!vj->bad_list) {
		vj->pending_kind = 0;
		return;
	}
	fprintf(vj->bad_list, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
		vj->pending_kind == 'm' ? "mismatch" : "unreadable", vj->pending_start,
		vj->pending_end - 1, vj->pending_start / run->sector,
		(vj->pending_end - 1) / run->sector, vj->pending_class);
	vj->pending_kind = 0;
}

/*
 * A bad range for --bad-list, merged with the previous one when they touch
 * and have the same kind and class (@cls: a static string).
 */
static void verify_list_add(struct verify_run *run, struct verify_job *vj, char kind,
			    const char *cls, uint64_t start, uint64_t end)
{
	if (vj->pending_kind == kind && vj->pending_end == start &&
	    !strcmp(vj->pending_class, cls)) {
		vj->pending_end = end;
		return;
	}
	verify_list_flush(run, vj);
	vj->pending_kind = kind;
	vj->pending_class = cls;
	vj->pending_start = start;
	vj->pending_end = end;
}

/*
 * Take @n more bad sectors from the --max-errors budget: returns how many may
 * still be logged, so the run stops at exactly N, not at the end of the read
 * (or of every thread's read) that crossed it.
 */
static uint64_t verify_take_errors(struct verify_run *run, uint64_t n)
{
	uint64_t before;

	if (!run->req.max_errors || !n)
		return n;
	before = atomic_fetch_add(&run->errors, n);
	if (before + n >= run->req.max_errors) {
		run->max_reached = true;
		atomic_store(&run->stop, true);
	}
	if (before >= run->req.max_errors)
		return 0;
	return n < run->req.max_errors - before ? n : run->req.max_errors - before;
}

/* Sectors [first, last] that @log has not counted yet (it counts in order). */
static uint64_t verify_new_sectors(const struct guac_badlog *log, uint64_t first, uint64_t last)
{
	if (log->have_sector && first <= log->last_sector)
		first = log->last_sector + 1;
	return last >= first ? last - first + 1 : 0;
}

uint64_t verify_origin_at(const struct verify_run *run, uint64_t dev, size_t *n, uint64_t *alt)
{
	const struct verify_random *r = &run->random;
	const struct guac_manifest *m = run->manifest;
	uint64_t rel, step, in;
	unsigned int i;

	*alt = run->origin;
	if (!r->on)
		return run->origin;
	rel = dev - r->fill_dev;
	in = r->bs - rel % r->bs;
	if (*n > in)
		*n = (size_t)in;	/* the block's end: the next one may hold the other origin */
	step = guac_unpermute(&r->perm, rel / r->bs);
	for (i = 0; i < m->nranges; i++) {
		const struct guac_manifest_range *g = &m->range[i];
		uint64_t first = (g->device_offset - m->device_offset) / r->bs;

		if (step - first >= g->length / r->bs)
			continue;
		if (step - first < g->done / r->bs)
			return *alt = r->origin_new;
		/*
		 * Past the record: a writer killed after its last checkpoint may
		 * have written the block already (as a sequential fill's bytes past
		 * its done), so the pass's data stands there too.
		 */
		*alt = r->origin_new;
		return r->origin_old;
	}
	return r->origin_old;	/* not reached: the ranges tile the steps (manifest.c) */
}

/*
 * Whether the @n bytes @got at @at match the stream of @origin, or else of
 * @alt (a random fill's block past the record, verify_origin_at()); @want
 * ends holding @origin's unless @alt's matched.
 */
static bool verify_slice_matches(const struct verify_run *run, const uint8_t *got,
				 uint8_t *want, uint64_t origin, uint64_t alt,
				 struct guac_spos at, size_t n)
{
	guac_spos_fill(run->req.impl, want, origin, at, n);
	if (!memcmp(got, want, n))
		return true;
	if (alt == origin)
		return false;
	guac_spos_fill(run->req.impl, want, alt, at, n);
	if (!memcmp(got, want, n))
		return true;
	guac_spos_fill(run->req.impl, want, origin, at, n);
	return false;
}

struct verify_job_ctx {
	struct verify_run *run;
	const struct verify_segment *seg;
	struct verify_job *vj;
};

/*
 * Compare what was read at run position @pos with the stream, device sector by
 * sector. Returns the bytes compared: fewer than @len when --max-errors left
 * no room for a bad sector, which then ends the job before it, uncounted.
 */
static size_t verify_consume(struct guac_io_job *job, const uint8_t *got, uint64_t pos,
			     size_t len)
{
	struct verify_job_ctx *ctx = job->priv;
	struct verify_run *run = ctx->run;
	struct verify_job *vj = ctx->vj;
	uint64_t dev = job->io->base + pos;
	size_t off = 0;

	while (off < len) {
		/* Slices end on VERIFY_SLICE boundaries of the device: sector-aligned. */
		size_t n = VERIFY_SLICE - (size_t)((dev + off) % VERIFY_SLICE), s;
		uint64_t rel = dev + off - ctx->seg->device_offset, origin, alt;
		struct guac_spos at = guac_spos_add(ctx->seg->stream, rel);

		if (n > len - off)
			n = len - off;
		origin = verify_origin_at(run, dev + off, &n, &alt);
		if (verify_slice_matches(run, got + off, vj->want, origin, alt, at, n)) {
			off += n;
			continue;
		}
		for (s = 0; s < n;) {
			uint64_t d = dev + off + s;
			size_t k = run->sector - (size_t)(d % run->sector);

			if (k > n - s)
				k = n - s;
			if (memcmp(got + off + s, vj->want + s, k)) {
				/* 0 for the second piece of a sector already counted. */
				uint64_t fresh = verify_new_sectors(&vj->mismatch, d / run->sector,
								    d / run->sector);
				uint64_t soff = guac_spos_low64(guac_spos_add(at, s));
				const char *cls = "-";

				if (fresh && !verify_take_errors(run, fresh))
					return off + s;	/* --max-errors reached */
				guac_badlog_scan(&vj->mismatch, got + off + s, vj->want + s, k, d,
						 run->sector);
				atomic_store_explicit(&vj->live_bad, vj->mismatch.bad_sectors,
						      memory_order_relaxed);
				if (k == run->sector) {
					/* Classified here, with the expected bytes at hand. */
					cls = verify_classify(run, vj, soff, got + off + s,
							      vj->want + s);
					verify_sample(run, d, soff, got + off + s,
						      !strcmp(cls, "OTHER"));
				} else if (fresh) {
					/* Part of a sector: the rest is outside the range. */
					vj->classes.unclassified++;
				}
				verify_list_add(run, vj, 'm', cls, d, d + k);
			}
			s += k;
		}
		off += n;
	}
	return len;
}

/*
 * The engine's check hook: whether the @len bytes read at @pos match the
 * stream, in the slices verify_consume() uses, generated into @scratch (a
 * slice, the calling thread's own). No state: either of a job's two threads
 * runs it, at once; a block that passes needs no consume (it would record
 * nothing), any other goes to verify_consume() in order.
 */
static bool verify_check_clean(struct guac_io_job *job, const uint8_t *got, uint64_t pos,
			       size_t len, uint8_t *scratch)
{
	const struct verify_job_ctx *ctx = job->priv;
	const struct verify_run *run = ctx->run;
	uint64_t dev = job->io->base + pos;
	size_t off = 0;

	while (off < len) {
		size_t n = VERIFY_SLICE - (size_t)((dev + off) % VERIFY_SLICE);
		struct guac_spos at = guac_spos_add(ctx->seg->stream,
						    dev + off - ctx->seg->device_offset);
		uint64_t origin, alt;

		if (n > len - off)
			n = len - off;
		origin = verify_origin_at(run, dev + off, &n, &alt);
		if (!verify_slice_matches(run, got + off, scratch, origin, alt, at, n))
			return false;
		off += n;
	}
	return true;
}

/* Unreadable sectors, as many as --max-errors allows: returns the bytes taken. */
static size_t verify_unreadable(struct guac_io_job *job, uint64_t pos, size_t len, int err)
{
	struct verify_job_ctx *ctx = job->priv;
	struct verify_job *vj = ctx->vj;
	unsigned int sector = ctx->run->sector;
	uint64_t dev = job->io->base + pos, end = dev + len, first = dev / sector;
	uint64_t n = verify_new_sectors(&vj->unreadable, first, (end - 1) / sector);
	uint64_t allowed = verify_take_errors(ctx->run, n);

	if (allowed < n) {
		/* --max-errors reached: log the sectors still allowed, no more. */
		uint64_t keep_end = (end - 1) / sector - (n - allowed) + 1;

		if (keep_end * sector <= dev)
			return 0;
		end = keep_end * sector < end ? keep_end * sector : end;
		len = (size_t)(end - dev);
	}
	if (!vj->first_errno) {
		vj->first_errno = err;
		vj->first_error_pos = dev;
	}
	guac_badlog_mark(&vj->unreadable, dev, end, sector);
	atomic_store_explicit(&vj->live_unreadable, vj->unreadable.bad_sectors, memory_order_relaxed);
	verify_list_add(ctx->run, vj, 'u', "-", dev, end);
	return len;
}

static void verify_merge_findings(struct verify_run *run, struct verify_job *vj)
{
	size_t i;

	guac_badlog_merge(&run->mismatch, &vj->mismatch);
	/* Unreadable sectors have no differing bytes to count. */
	guac_badlog_merge(&run->unreadable, &vj->unreadable);
	for (i = 0; i < GUAC_DIAG_CLASS_COUNT; i++)
		run->classes.cls[i] += vj->classes.cls[i];
	for (i = 0; i < VERIFY_PAST_ORIGINS; i++)
		run->classes.stale[i] += vj->classes.stale[i];
	run->classes.unclassified += vj->classes.unclassified;
	if (vj->first_errno && !run->first_errno) {
		run->first_errno = vj->first_errno;
		run->first_error_pos = vj->first_error_pos;
	}
}

/*
 * Split the segment into --jobs parts on boundaries of the report sector (and
 * of the target's, for O_DIRECT), counted from byte 0 of the device: a sector
 * split between two jobs, or between two reads of one job, would be counted
 * twice and diagnosed by neither. The reads are --bs, a multiple of both, from
 * each part's start; so when the segment starts mid-sector, that partial
 * sector is a part of its own and the others start aligned.
 */
static void verify_split(struct guac_io *io, const struct verify_run *run)
{
	uint64_t align = run->sector > run->target.sector ? run->sector : run->target.sector;
	uint64_t head = (align - io->base % align) % align, sectors, pos;
	unsigned int i, n = 0, jobs = io->jobs;

	if (head > io->length)
		head = io->length;
	if (head) {
		io->job[n] = (struct guac_io_job){ .io = io, .index = n, .start = 0, .end = head };
		n++;
	}
	pos = head;
	sectors = (io->length - head + align - 1) / align;
	if (jobs > GUAC_IO_MAX_JOBS - n)
		jobs = GUAC_IO_MAX_JOBS - n;
	for (i = 0; i < jobs && pos < io->length; i++) {
		/* Sector counts differ by at most one between parts. */
		uint64_t part = sectors / jobs + (i < sectors % jobs);
		uint64_t end = part > (io->length - pos) / align ? io->length : pos + part * align;

		if (end == pos)
			continue;
		io->job[n] = (struct guac_io_job){ .io = io, .index = n, .start = pos, .end = end };
		n++;
		pos = end;
	}
	io->jobs = n;
}

/*
 * A pipe is the device (or file) from its byte 0: read and drop what comes
 * before @dev, the first byte to check, so that `cat /dev/sdb | guac verify
 * -m sdb.json -` checks the fill where it lies. False at the end of the pipe
 * (short data) or on a read error.
 */
static bool verify_discard(struct verify_run *run, uint64_t dev)
{
	static uint8_t drop[1 << 16];

	while (run->stream_pos < dev && !atomic_load(&run->stop)) {
		uint64_t want = dev - run->stream_pos;
		ssize_t n = read(run->target.fd, drop, want < sizeof(drop) ? (size_t)want :
					      sizeof(drop));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			run->fatal = true;
			run->fatal_errno = errno;
			run->fatal_pos = run->stream_pos;
			return false;
		}
		if (!n) {
			run->short_data = true;
			run->short_at = run->stream_pos;
			return false;
		}
		run->stream_pos += (uint64_t)n;
	}
	if (atomic_load(&run->stop)) {
		run->interrupted = true;
		return false;
	}
	return true;
}

/* The engine's run of @seg's unchecked bytes: its hooks, progress and stop. */
static void verify_io_setup(struct guac_io *io, struct verify_run *run,
			    const struct verify_segment *seg)
{
	memset(io, 0, sizeof(*io));
	io->target = &run->target;
	io->base = seg->device_offset + seg->resume;
	io->length = seg->length - seg->resume;
	io->bs = (size_t)run->bs;
	io->jobs = (unsigned int)run->jobs;
	io->hooks.consume = verify_consume;
	io->hooks.unreadable = verify_unreadable;
	io->hooks.check = verify_check_clean;
	io->check_scratch = VERIFY_SLICE;
	run->progress.label = "verify";
	run->progress.target = run->path;
	run->progress.note = verify_progress_note;
	run->progress.note_arg = run;
	io->progress = &run->progress;
	io->progress_before = run->progress_done + seg->resume;
	io->progress_total = run->planned;
	io->stop = &run->stop;
	io->rate = run->req.rate;
}

/* A job's findings start empty; false (run->reason set) when its buffers are not to be had. */
static bool verify_job_init(struct verify_run *run, struct verify_job *vj)
{
	memset(vj, 0, sizeof(*vj));
	atomic_init(&vj->live_bad, 0);
	atomic_init(&vj->live_unreadable, 0);
	guac_badlog_init(&vj->mismatch, vj->mismatch_kept, VERIFY_SHOWN_RANGES);
	guac_badlog_init(&vj->unreadable, vj->unreadable_kept, VERIFY_SHOWN_RANGES);
	vj->want = guac_try_alloc(VERIFY_SLICE);
	vj->scratch = guac_try_alloc(run->sector);
	if (!vj->want || !vj->scratch) {
		run->reason = (struct verify_reason){ .kind = VERIFY_OUT_OF_MEMORY };
		return false;
	}
	if (run->req.bad_list_path) {
		vj->bad_list = tmpfile();
		if (!vj->bad_list) {
			run->reason = (struct verify_reason){ .kind = VERIFY_NO_TEMP_FILE,
							      .err = errno };
			return false;
		}
	}
	return true;
}

static void verify_job_free(struct verify_job *vj)
{
	free(vj->want);
	free(vj->scratch);
	if (vj->bad_list)
		fclose(vj->bad_list);
	vj->want = vj->scratch = NULL;
	vj->bad_list = NULL;
}

/* The bad-range list's part of job @vj joins the run's, in order (the run owns it now). */
static void verify_keep_job_list(struct verify_run *run, struct verify_job *vj)
{
	FILE **lists;

	if (!vj->bad_list)
		return;
	lists = realloc(run->job_lists, (run->njob_lists + 1) * sizeof(*run->job_lists));
	if (!lists) {
		run->reason = (struct verify_reason){ .kind = VERIFY_OUT_OF_MEMORY };
		atomic_store(&run->stop, true);
		return;
	}
	run->job_lists = lists;
	run->job_lists[run->njob_lists++] = vj->bad_list;
	vj->bad_list = NULL;
}

/* What --resume may skip, and whose findings the manifest's record takes. */
struct verify_prefix {
	uint64_t done, bad, unreadable;
	bool open;
};

/* Job @i's part of the segment joins the run: its bytes, findings and list. */
static void verify_join_job(struct verify_run *run, const struct verify_segment *seg,
			    const struct guac_io *io, unsigned int i, struct verify_job *vj,
			    struct verify_prefix *prefix)
{
	const struct guac_io_job *j = &io->job[i];
	uint64_t done = atomic_load(&j->done);

	run->checked += done;
	verify_merge_findings(run, vj);
	if (j->error && !run->fatal) {
		run->fatal = true;
		run->fatal_errno = j->error;
		run->fatal_pos = io->base + j->error_pos;
	}
	verify_list_flush(run, vj);
	/*
	 * What a resumed check may skip: whole parts from the start, then the
	 * first partial one; their findings (all within what each part took)
	 * go to the manifest's record.
	 */
	if (prefix->open) {
		prefix->done += done;
		prefix->bad += vj->mismatch.bad_sectors;
		prefix->unreadable += vj->unreadable.bad_sectors;
		prefix->open = done == j->end - j->start;
		verify_record_classes(&vj->record, &vj->classes);
		/* A partial check's findings may be recorded too (verify_save_partial). */
		if (seg->range >= 0 || run->subrange)
			verify_record_merge(&run->record, &vj->record);
	}
	verify_keep_job_list(run, vj);
	verify_job_free(vj);
}

/*
 * The jobs' state for @io's parts; false (run->reason set, nothing read)
 * when one cannot have it.
 */
static bool verify_jobs_init(struct verify_run *run, const struct verify_segment *seg,
			     struct guac_io *io, struct verify_job *vj, struct verify_job_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < io->jobs; i++) {
		if (!verify_job_init(run, &vj[i])) {
			do
				verify_job_free(&vj[i]);
			while (i--);
			return false;
		}
		ctx[i] = (struct verify_job_ctx){ run, seg, &vj[i] };
		io->job[i].priv = &ctx[i];
	}
	return true;
}

/* Check one segment; false when the run must end (EOF, interrupt, fatal error, a reason). */
bool verify_segment(struct verify_run *run, struct verify_segment *seg)
{
	static struct guac_io io;
	static struct verify_job vj[GUAC_IO_MAX_JOBS];
	static struct verify_job_ctx ctx[GUAC_IO_MAX_JOBS];
	struct verify_prefix prefix = { .open = true };
	unsigned int i;
	int ret;

	verify_io_setup(&io, run, seg);
	if (run->target.kind == GUAC_TARGET_STREAM) {
		io.jobs = 1;
		io.job[0] = (struct guac_io_job){ .io = &io, .start = 0, .end = io.length };
		if (!verify_discard(run, io.base))
			return false;
	} else {
		verify_split(&io, run);
	}
	if (!verify_jobs_init(run, seg, &io, vj, ctx))
		return false;
	verify_live.vj = vj;
	verify_live.n = io.jobs;
	ret = guac_io_run(&io);
	verify_live.n = 0;	/* their findings join the run's below */
	if (ret && !run->fatal) {
		/* A thread that cannot start leaves its part unchecked: an error, not a stop. */
		run->fatal = true;
		run->fatal_errno = ret;
		run->fatal_pos = io.base;
	}
	run->seconds += io.seconds;
	run->stream_pos = io.base + guac_io_done(&io);
	run->progress_done += seg->length;
	for (i = 0; i < io.jobs; i++)
		verify_join_job(run, seg, &io, i, &vj[i], &prefix);
	if (seg->range >= 0) {
		run->manifest->range[seg->range].verified = seg->resume + prefix.done;
		run->prior_bad += prefix.bad;
		run->prior_unreadable += prefix.unreadable;
	}
	if (io.eof) {
		run->short_data = true;
		run->short_at = io.base + io.eof_pos;
	}
	return !io.eof && !run->fatal && !atomic_load(&run->stop) && !run->reason.kind;
}

/*
 * Every segment in order, the progress saved before the first read and now
 * and then (a manifest of many ranges records its progress as it goes),
 * then once more at the end, when the stop's kind is known: a segment that
 * could not start (run->reason) leaves what the others verified saved.
 */
void verify_check_all(struct verify_run *run)
{
	double saved;
	unsigned int i;

	verify_save_progress(run, true);
	saved = guac_now();
	for (i = 0; i < run->nseg && !run->already_complete; i++) {
		if (run->seg[i].length == run->seg[i].resume) {
			run->progress_done += run->seg[i].length;
			continue;
		}
		if (!verify_segment(run, &run->seg[i]))
			break;
		if (guac_now() - saved >= VERIFY_SAVE_SECONDS) {
			verify_save_progress(run, true);
			saved = guac_now();
		}
	}
	guac_progress_finish(&run->progress);
	/* Stopped before every byte was compared (a stop that came later changes nothing). */
	if (atomic_load(&run->stop) && !run->max_reached && !run->fatal && !run->short_data &&
	    !run->reason.kind && verify_covered(run) < run->planned)
		run->interrupted = true;
	verify_save_progress(run, false);
}

/*
 * The verdict. One rule decides it, and with it the exit status: OK only when
 * every byte of the range described (by the arguments, or by the manifest and
 * --skip, --length or --shard) was compared, in this run or in the recorded
 * run it resumed, and matched; and the manifest records every byte of that
 * range as written. Every other outcome is a named state that is not OK:
 * error (read errors, unreadable sectors), interrupted, empty, mismatch
 * (bad, short or unwritten data, --max-errors), or unchecked, which no
 * known path reaches: it stands guard over the rule itself.
 */

/* Bytes of the described range compared: in this run, and in the run resumed. */
uint64_t verify_covered(const struct verify_run *run)
{
	uint64_t sum = run->checked;
	unsigned int i;

	for (i = 0; i < run->nseg; i++)
		sum += run->seg[i].resume;
	return sum;
}

/* Nothing to compare, and nobody asked for zero bytes: an empty file or device. */
bool verify_empty(const struct verify_run *run)
{
	return !run->manifest && !run->checked && !run->short_data && run->req.to_data_end &&
	       !run->unreadable.nranges && !run->fatal && !run->interrupted;
}

/* What this run found, and what the earlier run it resumed had found: one result. */
static bool verify_mismatch(const struct verify_run *run)
{
	return run->mismatch.nranges || run->short_data || run->incomplete || verify_empty(run) ||
	       run->earlier_bad || run->max_reached;
}

static bool verify_unreadable_any(const struct verify_run *run)
{
	return run->unreadable.nranges || run->earlier_unreadable;
}

const char *verify_result(const struct verify_run *run)
{
	if (run->fatal || verify_unreadable_any(run))
		return "error";
	if (run->interrupted)
		return "interrupted";
	if (verify_empty(run))
		return "empty";
	if (verify_mismatch(run))
		return "mismatch";
	if (verify_covered(run) != run->planned)
		return "unchecked";
	return "ok";
}

bool verify_ok(const struct verify_run *run)
{
	return !strcmp(verify_result(run), "ok");
}

int verify_exit_status(const struct verify_run *run)
{
	const char *r = verify_result(run);

	if (!strcmp(r, "ok"))
		return GUAC_EXIT_OK;
	/* A read error or unreadable sectors: the target's I/O; not memory or limits. */
	if (!strcmp(r, "error"))
		return !verify_unreadable_any(run) && guac_errno_local(run->fatal_errno) ?
		       GUAC_EXIT_ERROR : GUAC_EXIT_IO;
	if (!strcmp(r, "interrupted"))
		return VERIFY_EXIT_INTERRUPTED;
	return GUAC_EXIT_FAIL;
}
