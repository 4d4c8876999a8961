// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's record (verify_run.h): what the check leaves behind. The
 * bad ranges merged for the manifest's verify record, the classes the
 * search gave OTHER sectors, the progress saved in the manifest for a
 * resumed check (and a partial check's findings), and the list of every
 * bad range, assembled from the jobs' temporary files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "manifest.h"
#include "util.h"
#include "verify_run.h"


/* Add a bad range to @rec, merged with the latest when they touch and match. */
void verify_record_add(struct verify_record *rec, const struct guac_manifest_bad *b)
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
void verify_record_merge(struct verify_record *rec, const struct verify_record *part)
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
void verify_record_classes(struct verify_record *rec, const struct verify_classes *c)
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

	if (!run->diag_ran || !m || rec->unknown || run->subrange || !run->recorded_target ||
	    run->random.on)
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

static bool verify_list_unwritable(struct verify_run *run)
{
	run->reason = (struct verify_reason){ .kind = VERIFY_BAD_LIST_UNWRITABLE,
					      .text = run->req.bad_list_path, .err = errno };
	return false;
}

/*
 * The list of every bad range: the jobs' parts in order, ranges touching across parts merged
 * when their kind and class are the same; OTHER sectors the search named
 * take its class (verify_diagnose() runs first).
 */
bool verify_write_bad_list(struct verify_run *run)
{
	char kind[16], cls[32];
	uint64_t a, b, la, lb;
	FILE *out = fopen(run->req.bad_list_path, "w");
	struct verify_bl bl = { .run = run, .out = out };
	size_t i;
	bool ok;

	if (!out)
		return verify_list_unwritable(run);
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
	run->njob_lists = 0;	/* all closed */
	verify_bl_put(&bl);
	ok = !ferror(out);
	if (fclose(out) || !ok)
		return verify_list_unwritable(run);
	return true;
}

/*
 * Whether this run's progress belongs in the manifest: a check of the whole
 * (not of a sub-range) of the recorded target (not of a copy) that has work
 * to do.
 */
static bool verify_records_progress(const struct verify_run *run)
{
	/* A random fill cut short: its ranges' progress counts steps (verify_plan_random()). */
	return run->manifest && !run->subrange && run->recorded_target && !run->already_complete &&
	       !run->random.on;
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
	if (!guac_manifest_save(run->req.manifest_path, m))
		guac_err("warning: the verify progress is not saved in '%s'",
			 run->req.manifest_path);
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

	if (!m || !run->subrange || !run->recorded_target || run->random.on ||
	    (!run->mismatch.bad_sectors && !run->unreadable.bad_sectors))
		return;
	verify_set_record(run, GUAC_STATUS_PARTIAL, run->mismatch.bad_sectors,
			  run->unreadable.bad_sectors);
	if (guac_manifest_save(run->req.manifest_path, m))
		guac_err("note: the findings of this check of part of the fill are recorded in "
			 "'%s' (verify status \"partial\"): they stand until a whole check",
			 run->req.manifest_path);
	else
		guac_err("warning: the findings are not saved in '%s'", run->req.manifest_path);
}

