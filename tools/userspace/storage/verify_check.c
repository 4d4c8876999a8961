// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's check (verify_run.h): the I/O engine's use, the plan, the
 * progress saved for --resume, and the verdict.
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

#define VERIFY_DEFAULT_BS (256u << 10)	/* one read; stays in L2 until compared */
#define VERIFY_SLICE (32u << 10)	/* generated then compared while in L1 */
#define VERIFY_EXIT_INTERRUPTED 130

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

/*
 * The diagnosis config, from diag.h: the pass being verified and the
 * manifest's history, newest first. Set once the plan is made, before the
 * reads, so every job classifies its bad sectors as it finds them.
 */
void verify_diag_setup(struct verify_run *run)
{
	struct guac_diag_pass pass;
	size_t i;

	run->classify = run->sector % 64 == 0 && run->sector >= 128;
	if (run->manifest) {
		pass = (struct guac_diag_pass){ run->origin, run->manifest->stream_offset,
						run->manifest->device_offset,
						run->manifest->length };
	} else {
		pass = (struct guac_diag_pass){ run->origin, run->offset, run->seek,
						run->length + run->skip };
	}
	guac_diag_config_init(&run->diag_cfg, (enum guac_impl)run->impl, run->sector, &pass);
	run->diag_cfg.stop = &run->stop;	/* Ctrl-C ends the search, never the report */
	if (run->manifest) {
		/* The manifest keeps the oldest first; diag wants the newest first. */
		for (i = 0; i < run->manifest->nhistory && i < VERIFY_HISTORY; i++) {
			const struct guac_manifest_history *h =
				&run->manifest->history[run->manifest->nhistory - 1 - i];

			run->diag_history[i] = (struct guac_diag_pass){ h->origin, h->stream_offset,
									h->device_offset, h->length };
		}
		run->diag_cfg.history = run->diag_history;
		run->diag_cfg.nhistory = i;
		/* Each range of the manifest is one writer's, written in address order. */
		for (i = 0; i < run->manifest->nranges; i++)
			run->diag_parts[i] = (struct guac_diag_part){
				run->manifest->range[i].device_offset, run->manifest->range[i].length };
		run->diag_cfg.parts = run->diag_parts;
		run->diag_cfg.nparts = run->manifest->nranges;
	}
	/* --origins: single origins are checked like the history, with the pass's mapping. */
	i = run->diag_cfg.nhistory;
	for (size_t k = 0; k < run->nnamed_origins; k++) {
		run->diag_history[i] = pass;
		run->diag_history[i++].origin = run->named_origin[k];
	}
	run->diag_cfg.history = run->diag_history;
	run->diag_cfg.nhistory = i;
	run->diag_cfg.nhistory_named = run->nnamed_origins;
	run->diag_cfg.origin_ranges = run->origin_range;
	run->diag_cfg.norigin_ranges = run->norigin_ranges;
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

/* Add a bad range to @rec, merged with the latest when they touch and match. */
static void verify_record_add(struct verify_record *rec, const struct guac_manifest_bad *b)
{
	struct guac_manifest_bad *last = &rec->last;

	if (rec->have_last && last->unreadable == b->unreadable && !strcmp(last->cls, b->cls) &&
	    last->device_offset + last->length == b->device_offset) {
		last->length += b->length;
		if (rec->last_kept)
			rec->list[rec->n - 1].length += b->length;
		return;
	}
	rec->nranges++;
	rec->last = *b;
	rec->have_last = true;
	rec->last_kept = rec->n < GUAC_MANIFEST_MAX_BAD;
	if (rec->last_kept)
		rec->list[rec->n++] = *b;
}

/* Append a job's record (all later than @rec's ranges) to @rec. */
static void verify_record_merge(struct verify_record *rec, const struct verify_record *part)
{
	unsigned int i;

	for (i = 0; i < part->n; i++)
		verify_record_add(rec, &part->list[i]);
	if (part->nranges > part->n) {
		/* Ranges the part counted but did not keep: counted here, never merged. */
		rec->nranges += part->nranges - part->n;
		rec->last = part->last;
		rec->last_kept = false;
	}
	for (i = 0; i < GUAC_MANIFEST_NCLASSES; i++)
		rec->classes[i] += part->classes[i];
}

/* A job's bad sectors per class, in the order of guac_manifest_class_names[]. */
static void verify_record_classes(struct verify_record *rec, const struct verify_classes *c)
{
	static const enum guac_diag_class order[] = {
		GUAC_DIAG_ALL_ZERO, GUAC_DIAG_ALL_ONES, GUAC_DIAG_TORN, GUAC_DIAG_STALE_ORIGIN,
		GUAC_DIAG_MISDIRECTED, GUAC_DIAG_WRAPPED, GUAC_DIAG_PARTIAL_MATCH, GUAC_DIAG_UNKNOWN,
	};
	size_t i;

	_Static_assert(sizeof(order) / sizeof(order[0]) == GUAC_MANIFEST_NCLASSES - 1,
		       "a diag class for every manifest class but unclassified");

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		rec->classes[i] += c->cls[order[i]];
	rec->classes[GUAC_MANIFEST_NCLASSES - 1] += c->unclassified;
}

/*
 * The class the search gave the OTHER sector at device byte @dev: its name
 * (STALE_ORIGIN, MISDIRECTED, WRAPPED), or NULL when it was not searched or
 * stayed UNKNOWN. The samples are sorted by position (verify_diagnose()).
 */
static const char *verify_searched_class(const struct verify_run *run, size_t i)
{
	enum guac_diag_class c = run->diag[i].cls;

	if (!run->sample[i].other || (c != GUAC_DIAG_STALE_ORIGIN && c != GUAC_DIAG_MISDIRECTED &&
				      c != GUAC_DIAG_WRAPPED))
		return NULL;
	return guac_diag_class_name(c);
}

/* The first sample at or after device byte @dev. */
static size_t verify_sample_at(const struct verify_run *run, uint64_t dev)
{
	size_t lo = 0, hi = run->ndiag;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (run->sample[mid].device_offset < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Split the OTHER range [@a, @b) where the search named sectors: @emit gets
 * the pieces in order, each OTHER or the searched class (adjacent pieces of
 * one class are the caller's to merge).
 */
static void verify_split_other(const struct verify_run *run, uint64_t a, uint64_t b,
			       void (*emit)(void *ctx, uint64_t a, uint64_t b, const char *cls),
			       void *ctx)
{
	size_t i;

	for (i = verify_sample_at(run, a); i < run->ndiag && run->sample[i].device_offset < b;
	     i++) {
		const char *cls = verify_searched_class(run, i);
		uint64_t d = run->sample[i].device_offset;

		if (!cls || d + run->sector > b)
			continue;
		if (d > a)
			emit(ctx, a, d, "OTHER");
		emit(ctx, d, d + run->sector, cls);
		a = d + run->sector;
	}
	/* The incident continued past the search's bound (after every sample). */
	if (run->other_extended && a < run->extend_end && b > run->extend_start) {
		uint64_t ea = a > run->extend_start ? a : run->extend_start;
		uint64_t eb = b < run->extend_end ? b : run->extend_end;

		if (ea > a)
			emit(ctx, a, ea, "OTHER");
		emit(ctx, ea, eb, guac_diag_class_name(run->extend_cls));
		a = eb;
	}
	if (a < b)
		emit(ctx, a, b, "OTHER");
}

static void verify_record_piece(void *ctx, uint64_t a, uint64_t b, const char *cls)
{
	struct guac_manifest_bad piece = { a, b - a, false, "" };

	snprintf(piece.cls, sizeof(piece.cls), "%s", cls);
	verify_record_add(ctx, &piece);
}

/*
 * The sectors of the incident continued past the search's bound, within
 * what the manifest's ranges have verified, move from OTHER to its class in
 * the record's counts. True when there were any.
 */
static bool verify_record_extended(struct verify_run *run)
{
	struct verify_record *rec = &run->record;
	const struct guac_manifest *m = run->manifest;
	uint64_t n = 0, *other = &rec->classes[GUAC_MANIFEST_NCLASSES - 2];
	const char *cls = guac_diag_class_name(run->extend_cls);
	unsigned int r, k;

	for (r = 0; run->other_extended && r < m->nranges; r++) {
		uint64_t a = m->range[r].device_offset, b = a + m->range[r].verified;

		a = a > run->extend_start ? a : run->extend_start;
		b = b < run->extend_end ? b : run->extend_end;
		if (a < b)
			n += (b - a) / run->sector;
	}
	n = n < *other ? n : *other;
	if (!n)
		return false;
	for (k = 0; strcmp(guac_manifest_class_names[k], cls); k++)
		;
	*other -= n;
	rec->classes[k] += n;
	return true;
}

/*
 * After the search: the OTHER sectors of the record it named take their
 * class (STALE_ORIGIN, MISDIRECTED, WRAPPED), in the counts and in the kept
 * ranges, split where they change. Ranges past the kept ones are counted as
 * the local checks merged them. True when the record changed.
 */
bool verify_record_searched(struct verify_run *run)
{
	struct verify_record *rec = &run->record;
	const struct guac_manifest *m = run->manifest;
	struct verify_record old;
	bool changed = false;
	unsigned int k, r;
	size_t i;

	if (!run->diag_ran || !m || rec->unknown || run->subrange || !run->recorded_target)
		return false;
	for (i = 0; i < run->ndiag; i++) {
		const char *cls = verify_searched_class(run, i);
		uint64_t d = run->sample[i].device_offset;

		if (!cls)
			continue;
		/* In the record: within what a manifest range has verified. */
		for (r = 0; r < m->nranges; r++)
			if (d >= m->range[r].device_offset &&
			    d + run->sector <= m->range[r].device_offset + m->range[r].verified)
				break;
		if (r == m->nranges || !rec->classes[GUAC_MANIFEST_NCLASSES - 2])
			continue;
		for (k = 0; strcmp(guac_manifest_class_names[k], cls); k++)
			;
		rec->classes[GUAC_MANIFEST_NCLASSES - 2]--;	/* OTHER */
		rec->classes[k]++;
		changed = true;
	}
	changed |= verify_record_extended(run);
	if (!changed)
		return false;
	old = *rec;
	memset(rec, 0, sizeof(*rec));
	memcpy(rec->classes, old.classes, sizeof(rec->classes));
	for (k = 0; k < old.n; k++) {
		const struct guac_manifest_bad *b = &old.list[k];

		if (!b->unreadable && !strcmp(b->cls, "OTHER"))
			verify_split_other(run, b->device_offset, b->device_offset + b->length,
					   verify_record_piece, rec);
		else
			verify_record_add(rec, b);
	}
	if (old.nranges > old.n) {
		rec->nranges += old.nranges - old.n;
		rec->last = old.last;
		rec->have_last = old.have_last;
		rec->last_kept = false;
	}
	return true;
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

	if (!run->max_errors || !n)
		return n;
	before = atomic_fetch_add(&run->errors, n);
	if (before + n >= run->max_errors) {
		run->max_reached = true;
		atomic_store(&run->stop, true);
	}
	if (before >= run->max_errors)
		return 0;
	return n < run->max_errors - before ? n : run->max_errors - before;
}

/* Sectors [first, last] that @log has not counted yet (it counts in order). */
static uint64_t verify_new_sectors(const struct guac_badlog *log, uint64_t first, uint64_t last)
{
	if (log->have_sector && first <= log->last_sector)
		first = log->last_sector + 1;
	return last >= first ? last - first + 1 : 0;
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
		uint64_t rel = dev + off - ctx->seg->device_offset;
		struct guac_spos at = guac_spos_add(ctx->seg->stream, rel);

		if (n > len - off)
			n = len - off;
		guac_spos_fill(run->impl, vj->want, run->origin, at, n);
		if (!memcmp(got + off, vj->want, n)) {
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

		if (n > len - off)
			n = len - off;
		guac_spos_fill(run->impl, scratch, run->origin, at, n);
		if (memcmp(got + off, scratch, n))
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
	for (i = 0; i < VERIFY_HISTORY; i++)
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

/* Check one segment; false when the run must end (EOF, interrupt, fatal error). */
bool verify_segment(struct verify_run *run, struct verify_segment *seg)
{
	static struct guac_io io;
	static struct verify_job vj[GUAC_IO_MAX_JOBS];
	static struct verify_job_ctx ctx[GUAC_IO_MAX_JOBS];
	uint64_t prefix = 0, bad_in_prefix = 0, unread_in_prefix = 0;
	bool prefix_open = true, more = true;
	unsigned int i;
	int ret;

	memset(&io, 0, sizeof(io));
	io.target = &run->target;
	io.base = seg->device_offset + seg->resume;
	io.length = seg->length - seg->resume;
	io.bs = (size_t)run->bs;
	io.jobs = (unsigned int)run->jobs;
	io.hooks.consume = verify_consume;
	io.hooks.unreadable = verify_unreadable;
	io.hooks.check = verify_check_clean;
	io.check_scratch = VERIFY_SLICE;
	run->progress.label = "verify";
	run->progress.target = run->path;
	run->progress.note = verify_progress_note;
	run->progress.note_arg = run;
	io.progress = &run->progress;
	io.progress_before = run->progress_done + seg->resume;
	io.progress_total = run->planned;
	io.stop = &run->stop;
	if (run->target.kind == GUAC_TARGET_STREAM) {
		io.jobs = 1;
		io.job[0] = (struct guac_io_job){ .io = &io, .start = 0, .end = io.length };
		if (!verify_discard(run, io.base))
			return false;
	} else {
		verify_split(&io, run);
	}
	for (i = 0; i < io.jobs; i++) {
		memset(&vj[i], 0, sizeof(vj[i]));
		atomic_init(&vj[i].live_bad, 0);
		atomic_init(&vj[i].live_unreadable, 0);
		guac_badlog_init(&vj[i].mismatch, vj[i].mismatch_kept, VERIFY_SHOWN_RANGES);
		guac_badlog_init(&vj[i].unreadable, vj[i].unreadable_kept, VERIFY_SHOWN_RANGES);
		vj[i].want = guac_alloc(VERIFY_SLICE);
		vj[i].scratch = guac_alloc(run->sector);
		if (run->bad_list_path) {
			vj[i].bad_list = tmpfile();
			if (!vj[i].bad_list) {
				guac_err("cannot create a temporary file for --bad-list: %s",
					 strerror(errno));
				exit(GUAC_EXIT_ERROR);
			}
		}
		ctx[i] = (struct verify_job_ctx){ run, seg, &vj[i] };
		io.job[i].priv = &ctx[i];
	}
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

	for (i = 0; i < io.jobs; i++) {
		const struct guac_io_job *j = &io.job[i];
		uint64_t done = atomic_load(&j->done);

		run->checked += done;
		verify_merge_findings(run, &vj[i]);
		if (j->error && !run->fatal) {
			run->fatal = true;
			run->fatal_errno = j->error;
			run->fatal_pos = io.base + j->error_pos;
		}
		verify_list_flush(run, &vj[i]);
		/*
		 * What --resume may skip: whole parts from the start, then the first
		 * partial one; their findings (all within what each part took) go
		 * to the manifest's record.
		 */
		if (prefix_open) {
			prefix += done;
			bad_in_prefix += vj[i].mismatch.bad_sectors;
			unread_in_prefix += vj[i].unreadable.bad_sectors;
			prefix_open = done == j->end - j->start;
			verify_record_classes(&vj[i].record, &vj[i].classes);
			/* A partial check's findings may be recorded too (verify_save_partial). */
			if (seg->range >= 0 || run->subrange)
				verify_record_merge(&run->record, &vj[i].record);
		}
		if (vj[i].bad_list) {
			run->job_lists = realloc(run->job_lists,
						 (run->njob_lists + 1) * sizeof(*run->job_lists));
			if (!run->job_lists) {
				guac_err("out of memory");
				exit(GUAC_EXIT_ERROR);
			}
			run->job_lists[run->njob_lists++] = vj[i].bad_list;
		}
		free(vj[i].want);
		free(vj[i].scratch);
	}
	if (seg->range >= 0) {
		run->manifest->range[seg->range].verified = seg->resume + prefix;
		run->prior_bad += bad_in_prefix;
		run->prior_unreadable += unread_in_prefix;
	}
	if (io.eof) {
		run->short_data = true;
		run->short_at = io.base + io.eof_pos;
		more = false;
	}
	if (run->fatal || atomic_load(&run->stop))
		more = false;
	return more;
}

/* --bad-list's lines as they are written: the latest range, merged while it can be. */
struct verify_bl {
	const struct verify_run *run;
	FILE *out;
	char kind[16], cls[32];
	uint64_t a, b;			/* its first and last byte */
};

static void verify_bl_put(struct verify_bl *bl)
{
	if (bl->kind[0])
		fprintf(bl->out, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
			bl->kind, bl->a, bl->b, bl->a / bl->run->sector, bl->b / bl->run->sector,
			bl->cls);
}

/* Bytes [@a, @b) of @kind and @cls: merged with the latest range, or after it. */
static void verify_bl_add(struct verify_bl *bl, const char *kind, uint64_t a, uint64_t b,
			  const char *cls)
{
	if (bl->kind[0] && !strcmp(kind, bl->kind) && !strcmp(cls, bl->cls) && bl->b + 1 == a) {
		bl->b = b - 1;
		return;
	}
	verify_bl_put(bl);
	snprintf(bl->kind, sizeof(bl->kind), "%s", kind);
	snprintf(bl->cls, sizeof(bl->cls), "%s", cls);
	bl->a = a;
	bl->b = b - 1;
}

static void verify_bl_piece(void *ctx, uint64_t a, uint64_t b, const char *cls)
{
	verify_bl_add(ctx, "mismatch", a, b, cls);
}

/*
 * --bad-list: the jobs' parts in order, ranges touching across parts merged
 * when their kind and class are the same; OTHER sectors the search named
 * take its class (verify_diagnose() runs first).
 */
bool verify_write_bad_list(struct verify_run *run)
{
	char kind[16], cls[32];
	uint64_t a, b, la, lb;
	FILE *out = fopen(run->bad_list_path, "w");
	struct verify_bl bl = { .run = run, .out = out };
	size_t i;
	bool ok;

	if (!out) {
		guac_err("cannot write --bad-list '%s': %s", run->bad_list_path, strerror(errno));
		return false;
	}
	fprintf(out, "# guac verify bad sectors of '%s' (%u-byte sectors): "
		"KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS\n", run->path, run->sector);
	for (i = 0; i < run->njob_lists; i++) {
		FILE *f = run->job_lists[i];

		rewind(f);
		while (fscanf(f, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %31s", kind,
			      &a, &b, &la, &lb, cls) == 6) {
			if (!strcmp(kind, "mismatch") && !strcmp(cls, "OTHER"))
				verify_split_other(run, a, b + 1, verify_bl_piece, &bl);
			else
				verify_bl_add(&bl, kind, a, b + 1, cls);
		}
		fclose(f);
	}
	verify_bl_put(&bl);
	ok = !ferror(out);
	if (fclose(out) || !ok) {
		guac_err("cannot write --bad-list '%s': %s", run->bad_list_path, strerror(errno));
		return false;
	}
	return true;
}

static void verify_add_segment(struct verify_run *run, uint64_t dev, struct guac_spos stream,
			       uint64_t len, uint64_t resume, int range)
{
	struct verify_segment *seg;

	run->seg = realloc(run->seg, (run->nseg + 1) * sizeof(*run->seg));
	if (!run->seg) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	seg = &run->seg[run->nseg++];
	*seg = (struct verify_segment){ dev, len, stream, resume, range };
	run->planned += len;
}

/*
 * Without --sector: a block device's physical sector (BLKPBSZGET), the unit
 * its writes land or tear in, so that a torn 4 KiB write on a 512e disk is
 * one TORN sector, not a head of good 512-byte sectors and a tail of stale
 * ones (issue 36, U8); else @fallback, named @why in the report.
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
 * The manifest's written bytes within the range asked for, as segments: this
 * manifest's part of the fill, or of it --shard K/N's part (of a whole-fill
 * manifest), or [--skip, --skip + --length) of the fill, the part's start and
 * end standing in for what is not given. A range outside the part is refused;
 * bytes in it the manifest does not record as written are INCOMPLETE, never OK.
 */
bool verify_plan_manifest(struct verify_run *run)
{
	struct guac_manifest *m = run->manifest;
	struct guac_spos fill = guac_spos_of(m->stream_offset);
	uint64_t lo, hi, i;
	uint64_t part_start = m->range[0].device_offset - m->device_offset;
	uint64_t part_len = guac_manifest_ranges_length(m);

	run->origin = m->origin;
	run->offset = m->stream_offset;
	run->seek = m->device_offset;
	if (!run->bs)
		run->bs = m->block_size < VERIFY_DEFAULT_BS ? m->block_size : VERIFY_DEFAULT_BS;
	if (!run->sector)
		verify_default_sector(run, m->sector_size, "the manifest's");
	lo = part_start;
	hi = part_start + part_len;
	if (run->shard.count > 1 && m->shard_count > 1 &&
	    (run->shard.index != m->shard_index || run->shard.count != m->shard_count)) {
		guac_err("the manifest is shard %u/%u of the fill; %s asks for %u/%u",
			 m->shard_index, m->shard_count, run->shard.source, run->shard.index,
			 run->shard.count);
		return false;
	}
	if (run->shard.count > 1 && m->shard_count == 1) {
		/* Exactly the part guac write --shard K/N writes (shard.c, the fill's sectors). */
		if (!guac_shard_fits(&run->shard, m->length, m->sector_size, "refusing to verify"))
			return false;
		guac_shard_range(&run->shard, m->length, m->sector_size, &lo, &hi);
		run->subrange = true;
	}
	if (run->skip_given || run->length_given) {
		uint64_t a = run->skip_given ? run->skip : lo, b;

		if (a >= m->length) {
			guac_err("--skip %" PRIu64 " is past the end of the fill (%" PRIu64 " bytes)",
				 a, m->length);
			return false;
		}
		if (run->length_given && run->length > m->length - a) {
			guac_err("--skip + --length go past the end of the fill (%" PRIu64 " bytes)",
				 m->length);
			return false;
		}
		b = run->length_given ? a + run->length : hi;
		if (a < lo || b > hi || a >= b) {
			guac_err("bytes %" PRIu64 "-%" PRIu64 " of the fill are not all in this "
				 "manifest's part, shard %u/%u: bytes %" PRIu64 "-%" PRIu64 " (--skip "
				 "counts from the fill's start; use the manifest of the part that holds "
				 "them)", a, (b > a ? b : a + 1) - 1, m->shard_index, m->shard_count,
				 lo, hi - 1);
			return false;
		}
		lo = a;
		hi = b;
		run->subrange = true;
	}
	for (i = 0; i < m->nranges; i++) {
		struct guac_manifest_range *r = &m->range[i];
		uint64_t a = r->device_offset - m->device_offset, b = a + r->done;
		uint64_t ua = b, ub = a + r->length;	/* never written */

		/* A fresh whole check starts its progress afresh; a resumed one keeps it. */
		if (!run->trust_progress && !run->subrange)
			r->verified = 0;
		/* Only what the range asked for counts as incomplete. */
		ua = ua > lo ? ua : lo;
		ub = ub < hi ? ub : hi;
		if (ua < ub)
			run->incomplete += ub - ua;
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		if (a >= b) {
			verify_add_segment(run, m->device_offset + a, guac_spos_add(fill, a), 0, 0,
					   (int)i);
			continue;
		}
		/* --resume starts after what the last run verified. */
		verify_add_segment(run, m->device_offset + a, guac_spos_add(fill, a), b - a,
				   run->trust_progress ? (r->verified < b - a ? r->verified : b - a) :
				   0, (int)i);
	}
	run->skip = lo;
	run->end = m->device_offset + hi;
	return true;
}

bool verify_plan_plain(struct verify_run *run)
{
	uint64_t avail, start = run->seek + run->skip;
	struct guac_spos data = guac_spos_of(run->offset);

	if (!run->bs)
		run->bs = VERIFY_DEFAULT_BS;
	if (!run->sector)
		verify_default_sector(run, 512, "a file's default");
	if (run->target.kind == GUAC_TARGET_STREAM && !run->length_given) {
		/* `ssh host cat /dev/sdX | guac verify -` would pass if cat died early. */
		guac_err("a pipe needs --length (the bytes it must hold) or a --manifest: without "
			 "one, an input that ends early could not be told from a whole one");
		return false;
	}
	/* A pipe is the data from byte 0: the bytes before --seek + --skip are dropped. */
	if (run->target.kind != GUAC_TARGET_STREAM && !run->length_given) {
		avail = run->target.size > start ? run->target.size - start : 0;
		run->length = avail;
	}
	verify_add_segment(run, start, guac_spos_add(data, run->skip), run->length, 0, -1);
	run->end = start + run->length;
	if (run->shard.count > 1) {
		/* Like guac write --shard K/N --length L: part K of the L bytes. */
		uint64_t a, b;

		if (!guac_shard_fits(&run->shard, run->length, run->target.sector,
				     "refusing to verify"))
			return false;
		guac_shard_range(&run->shard, run->length, run->target.sector, &a, &b);
		run->seg[0] = (struct verify_segment){ start + a, b - a, guac_spos_add(data, a), 0,
						       -1 };
		run->planned = b - a;
		run->skip = a;
		run->end = start + b;
	}
	return true;
}

/*
 * Whether this run's progress belongs in the manifest: a check of the whole
 * (not of a sub-range) of the recorded target (not of a copy) that has work
 * to do.
 */
static bool verify_records_progress(const struct verify_run *run)
{
	return run->manifest && !run->subrange && run->recorded_target && !run->already_complete;
}

/*
 * The manifest's verify record: @status, the counts, the target's stamp when
 * the check began, and where the bad sectors are with their classes
 * (version 4: unknown for good once a count came without places).
 */
static void verify_set_record(struct verify_run *run, enum guac_fill_status status, uint64_t bad,
			      uint64_t unreadable)
{
	struct guac_manifest *m = run->manifest;

	m->have_verify = true;
	m->verify_status = status;
	m->verify_bad_sectors = bad;
	m->verify_unreadable_sectors = unreadable;
	snprintf(m->verify_stamp, sizeof(m->verify_stamp), "%s", run->stamp);
	m->verify_places = !run->record.unknown;
	m->verify_bad_ranges = m->verify_places ? run->record.nranges : 0;
	m->nverify_bad = m->verify_places ? run->record.n : 0;
	memcpy(m->verify_bad, run->record.list, sizeof(m->verify_bad));
	memcpy(m->verify_classes, run->record.classes, sizeof(m->verify_classes));
	if (!m->verify_places)
		memset(m->verify_classes, 0, sizeof(m->verify_classes));
}

/*
 * Save the verify progress in the manifest, for --resume; a warning if
 * impossible. "running" before the first read and while the check goes on,
 * so that a check killed mid-way (SIGKILL, OOM, power loss) leaves that and
 * never an earlier "complete"; at the end "complete" when every done byte of
 * every range was verified, else "interrupted". The target's stamp, taken
 * before the first read, goes with it: a --resume that finds the target
 * changed since starts afresh.
 */
void verify_save_progress(struct verify_run *run, bool running)
{
	struct guac_manifest *m = run->manifest;
	bool complete = true;
	unsigned int i;

	if (!verify_records_progress(run))
		return;
	for (i = 0; i < m->nranges; i++)
		complete = complete && m->range[i].verified == m->range[i].done;
	verify_set_record(run, running ? GUAC_STATUS_RUNNING : complete ? GUAC_STATUS_COMPLETE :
			  GUAC_STATUS_INTERRUPTED, run->prior_bad, run->prior_unreadable);
	/*
	 * A manifest from before identities (version 5 and older): the target
	 * this whole check reads, from its start, is the one its record is of.
	 */
	if (!m->identity[0])
		snprintf(m->identity, sizeof(m->identity), "%s", run->ident);
	if (!guac_manifest_save(run->manifest_path, m))
		guac_err("warning: the verify progress is not saved in '%s'", run->manifest_path);
}

/*
 * A check of part of the fill (--shard, --skip, --length) makes no record of
 * the whole, but one that finds damage must not leave an earlier clean
 * record standing, or guac report would still say OK (issue 35, F6): its
 * findings replace the record as "partial" (manifest version 7), which the
 * report shows as MISMATCH or UNREADABLE until a whole check replaces it,
 * and which --resume does not continue. A clean one leaves the record as it
 * was: it contradicts nothing.
 */
void verify_save_partial(struct verify_run *run)
{
	struct guac_manifest *m = run->manifest;

	if (!m || !run->subrange || !run->recorded_target ||
	    (!run->mismatch.bad_sectors && !run->unreadable.bad_sectors))
		return;
	verify_set_record(run, GUAC_STATUS_PARTIAL, run->mismatch.bad_sectors,
			  run->unreadable.bad_sectors);
	if (guac_manifest_save(run->manifest_path, m))
		guac_err("note: the findings of this check of part of the fill are recorded in "
			 "'%s' (verify status \"partial\"): they stand until a whole check",
			 run->manifest_path);
	else
		guac_err("warning: the findings are not saved in '%s'", run->manifest_path);
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
		run->restart_why = "the last check recorded was of part of the fill (--shard, "
				   "--skip or --length), which a whole check cannot continue";
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
	return !run->manifest && !run->checked && !run->short_data && !run->length_given &&
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
