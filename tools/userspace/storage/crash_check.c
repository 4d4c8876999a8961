// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The check after a crash (crash_check.h): the fill read a chunk at a time,
 * the contents it may hold generated beside it, every piece judged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "crash_check.h"
#include "permutation.h"
#include "util.h"

#define CRASH_CHUNK (1u << 20)
/*
 * Bytes of a content at a piece's head or tail that name it: 16 bytes of
 * the stream match other data by chance once in 2^128.
 */
#define CRASH_MATCH_MIN 16u
#define CRASH_MAX_UNITS (CRASH_CHUNK / 512 + 1)	/* a chunk's, the first one maybe unaligned */

struct crash_state {
	struct guac_crash_check *c;
	const struct guac_journal_record *r;
	struct guac_permutation perm;	/* a random fill's pass under way */
	uint64_t step_block, step_of;	/* the last block unpermuted, and its step */
	uint8_t *data, *want_new, *want_old, *scratch;
	bool old_known;			/* pass p-1's, or the prior content named */
	uint64_t chunk;			/* the chunk's first run position */
	bool unreadable[CRASH_MAX_UNITS];	/* a failed chunk, read unit by unit */
	int unit_err[CRASH_MAX_UNITS];
	struct guac_crash_violation pending;
	bool have_pending;
};

/* ------------------------------------------------------------------------
 * What the journal says a piece may hold
 * ------------------------------------------------------------------------ */

/* The part holding step position @step: the parts are contiguous, in order. */
static const struct guac_journal_part *crash_part(const struct guac_journal_record *r,
						  uint64_t step)
{
	unsigned int lo = 0, hi = r->jobs - 1;

	while (lo < hi) {
		unsigned int mid = (lo + hi + 1) / 2;

		if (r->part[mid].start <= step)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &r->part[lo];
}

/*
 * The step position of run position @x: a random pass's block order, else
 * itself. A block's pieces come one after another: its step is worked out
 * once, not once a unit.
 */
static uint64_t crash_step(struct crash_state *st, uint64_t x)
{
	uint64_t bs = st->r->block_size;

	if (!st->r->random)
		return x;
	if (st->step_block != x / bs) {
		st->step_block = x / bs;
		st->step_of = guac_unpermute(&st->perm, st->step_block);
	}
	return st->step_of * bs + x % bs;
}

/* The expectation of the @len bytes at run position @x, all of one write. */
static enum guac_crash_expect crash_expect(struct crash_state *st, uint64_t x, uint64_t len)
{
	uint64_t step = crash_step(st, x);
	const struct guac_journal_part *p = crash_part(st->r, step);
	uint64_t rel = step - p->start;

	if (rel + len <= p->flushed)
		return GUAC_CRASH_MUST_NEW;
	/* A write is issued whole, at its block's start, once that is below the limit. */
	if (rel - rel % st->r->block_size >= p->limit)
		return GUAC_CRASH_MUST_OLD;
	return GUAC_CRASH_MAY;
}

/*
 * Where the write holding run position @x ends: its block's end, or with
 * --bs-split (bs_split.h) the end of the block's write of the size drawn for
 * it (a block starts at a multiple of bs from its job's part, or for a
 * random fill from the fill's start; the last one of a part may be short).
 */
static uint64_t crash_write_end(const struct crash_state *st, uint64_t x)
{
	const struct guac_journal_record *r = st->r;
	uint64_t bs = r->block_size, start, end, size;

	if (r->random) {
		start = x - x % bs;
		end = start + bs;
	} else {
		const struct guac_journal_part *p = crash_part(r, x);

		start = p->start + (x - p->start) / bs * bs;
		end = start + bs < p->end ? start + bs : p->end;
	}
	if (!r->split.n)
		return end;
	size = guac_bs_split_draw(&r->split, r->random ? r->seed : 0, r->pass, start / bs);
	start += (x - start) / size * size + size;
	return start < end ? start : end;
}

/* Where the piece at run position @x ends: a unit's end, a write's, the chunk's. */
static uint64_t crash_piece_end(const struct crash_state *st, uint64_t x, uint64_t chunk_end)
{
	const struct guac_journal_record *r = st->r;
	uint64_t unit = st->c->unit, end = ((r->seek + x) / unit + 1) * unit - r->seek;
	uint64_t write_end = crash_write_end(st, x);

	end = end < write_end ? end : write_end;
	return end < chunk_end ? end : chunk_end;
}

/* ------------------------------------------------------------------------
 * What a piece holds
 * ------------------------------------------------------------------------ */

static void crash_stream(const struct crash_state *st, uint8_t *buf, uint64_t origin, uint64_t x,
			 size_t len)
{
	guac_spos_fill(st->c->impl, buf, origin,
		       guac_spos_add(guac_spos_of(st->r->stream_offset), x), len);
}

static uint64_t crash_prefix(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && a[i] == b[i])
		i++;
	return i;
}

static uint64_t crash_suffix(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && a[len - 1 - i] == b[len - 1 - i])
		i++;
	return i;
}

/* A piece that is partly @want (its head or its tail), not whole: TORN. */
static bool crash_torn(struct guac_crash_violation *v, const uint8_t *got, const uint8_t *want,
		       size_t len, unsigned int pass, bool prior)
{
	uint64_t head = crash_prefix(got, want, len), tail;

	if (head >= CRASH_MATCH_MIN && head < len) {
		*v = (struct guac_crash_violation){ .cls = GUAC_CRASH_TORN, .pass = pass,
			.holds = GUAC_CRASH_HOLDS_HEAD, .head = head, .head_prior = prior };
		return true;
	}
	tail = crash_suffix(got, want, len);
	if (tail >= CRASH_MATCH_MIN && tail < len) {
		*v = (struct guac_crash_violation){ .cls = GUAC_CRASH_TORN, .pass = pass,
			.holds = GUAC_CRASH_HOLDS_TAIL, .head = tail, .head_prior = prior };
		return true;
	}
	return false;
}

/*
 * A piece that holds neither content it may: an older pass's or the prior
 * content (a flushed write lost), zeros, or what this fill never wrote.
 */
static void crash_name_other(struct crash_state *st, struct guac_crash_violation *v,
			     const uint8_t *got, uint64_t x, size_t len)
{
	const struct guac_journal_record *r = st->r;
	unsigned int q = r->pass;

	*v = (struct guac_crash_violation){ .cls = GUAC_CRASH_FOREIGN,
					     .holds = GUAC_CRASH_HOLDS_OTHER };
	while (q-- > 0) {
		crash_stream(st, st->scratch, guac_journal_pass_origin(r, q), x, len);
		if (!memcmp(got, st->scratch, len)) {
			*v = (struct guac_crash_violation){ .cls = GUAC_CRASH_LOST, .pass = q,
							     .holds = GUAC_CRASH_HOLDS_PASS };
			return;
		}
	}
	if (st->c->prior_known) {
		crash_stream(st, st->scratch, st->c->prior_origin, x, len);
		if (!memcmp(got, st->scratch, len)) {
			v->cls = GUAC_CRASH_LOST;
			v->holds = GUAC_CRASH_HOLDS_PRIOR;
			return;
		}
	}
	memset(st->scratch, 0, len);
	if (!memcmp(got, st->scratch, len))
		v->holds = GUAC_CRASH_HOLDS_ZEROS;
}

/*
 * The verdict on one piece: true when it holds what it may (counted), else
 * false with @v's class and content. @old is NULL where the old content is
 * not known (the first pass without a prior origin): then only what can be
 * told from the new data is judged.
 */
static bool crash_judge(struct crash_state *st, struct guac_crash_violation *v,
			enum guac_crash_expect e, uint64_t x, size_t len, const uint8_t *got,
			const uint8_t *want_new, const uint8_t *old)
{
	struct guac_crash_check *c = st->c;
	unsigned int p = st->r->pass;
	bool is_new = !memcmp(got, want_new, len);

	if (is_new && e != GUAC_CRASH_MUST_OLD)
		return c->held_new += len, true;
	if (old && e != GUAC_CRASH_MUST_NEW && !memcmp(got, old, len))
		return c->held_old += len, true;
	if (is_new) {
		*v = (struct guac_crash_violation){ .cls = GUAC_CRASH_UNISSUED, .pass = p,
						     .holds = GUAC_CRASH_HOLDS_PASS };
		return false;
	}
	if (old && e == GUAC_CRASH_MUST_NEW && !memcmp(got, old, len)) {
		*v = (struct guac_crash_violation){ .cls = GUAC_CRASH_LOST,
			.holds = p ? GUAC_CRASH_HOLDS_PASS : GUAC_CRASH_HOLDS_PRIOR, .pass = p - !!p };
		return false;
	}
	if (crash_torn(v, got, want_new, len, p, false)) {
		if (e == GUAC_CRASH_MUST_OLD)
			v->cls = GUAC_CRASH_UNISSUED;	/* part of a write never issued */
		return false;
	}
	if (old && crash_torn(v, got, old, len, p - !!p, !p))
		return false;
	if (!old && e != GUAC_CRASH_MUST_NEW)
		return c->unchecked += len, true;	/* the prior content, as far as is known */
	crash_name_other(st, v, got, x, len);
	return false;
}

/* ------------------------------------------------------------------------
 * Reporting, a range at a time
 * ------------------------------------------------------------------------ */

static void crash_flush_pending(struct crash_state *st)
{
	if (!st->have_pending)
		return;
	st->c->violations++;
	if (st->c->violation)
		st->c->violation(&st->pending, st->c->arg);
	st->have_pending = false;
}

/* Pieces of one class and content in a row are one range (a TORN piece stands alone). */
static void crash_violation(struct crash_state *st, struct guac_crash_violation *v, uint64_t x,
			    size_t len, enum guac_crash_expect e)
{
	struct guac_crash_violation *p = &st->pending;
	uint64_t first = st->r->seek + x;

	st->c->violating += len;
	v->first = first;
	v->last = first + len - 1;
	v->expect = e;
	if (st->have_pending && p->last + 1 == first && p->cls == v->cls && p->holds == v->holds &&
	    p->pass == v->pass && p->expect == e && v->cls != GUAC_CRASH_TORN && p->err == v->err) {
		p->last = v->last;
		return;
	}
	crash_flush_pending(st);
	st->pending = *v;
	st->have_pending = true;
}

/* ------------------------------------------------------------------------
 * The run
 * ------------------------------------------------------------------------ */

/*
 * Read the chunk; where that fails, a unit at a time (units of the device,
 * as the pieces' are), the failed ones marked.
 */
static void crash_read(struct crash_state *st, uint64_t x, size_t len)
{
	const struct guac_crash_check *c = st->c;
	uint64_t dev = st->r->seek + x, end = dev + len, at = dev;
	size_t i = 0;

	memset(st->unreadable, 0, sizeof(st->unreadable));
	if (pread(c->fd, st->data, len, (off_t)dev) == (ssize_t)len)
		return;
	for (; at < end; i++) {
		uint64_t next = (at / c->unit + 1) * c->unit;
		size_t ulen = (size_t)((next < end ? next : end) - at);
		ssize_t got;

		do
			got = pread(c->fd, st->data + (at - dev), ulen, (off_t)at);
		while (got < 0 && errno == EINTR);
		if (got != (ssize_t)ulen) {
			st->unreadable[i] = true;
			st->unit_err[i] = got < 0 ? errno : EIO;
		}
		at += ulen;
	}
}

/* Every piece of the chunk at run position @x, @len bytes. */
static void crash_chunk(struct crash_state *st, uint64_t x, size_t len)
{
	const struct guac_journal_record *r = st->r;
	const struct guac_crash_check *c = st->c;
	uint64_t end = x + len, pos = x, unit0 = (r->seek + x) / c->unit;

	crash_read(st, x, len);
	crash_stream(st, st->want_new, guac_journal_pass_origin(r, r->pass), x, len);
	if (st->old_known)
		crash_stream(st, st->want_old, r->pass ? guac_journal_pass_origin(r, r->pass - 1) :
			     c->prior_origin, x, len);
	while (pos < end) {
		uint64_t piece_end = crash_piece_end(st, pos, end), off = pos - x;
		size_t n = (size_t)(piece_end - pos), u = (size_t)((r->seek + pos) / c->unit - unit0);
		enum guac_crash_expect e = crash_expect(st, pos, n);
		struct guac_crash_violation v;

		st->c->expected[e] += n;
		if (st->unreadable[u]) {
			v = (struct guac_crash_violation){ .cls = GUAC_CRASH_UNREADABLE,
				.holds = GUAC_CRASH_HOLDS_NOTHING, .err = st->unit_err[u] };
			crash_violation(st, &v, pos, n, e);
		} else if (!crash_judge(st, &v, e, pos, n, st->data + off, st->want_new + off,
					st->old_known ? st->want_old + off : NULL)) {
			crash_violation(st, &v, pos, n, e);
		}
		pos = piece_end;
	}
}

int guac_crash_check_run(struct guac_crash_check *c)
{
	const struct guac_journal_record *r = c->rec;
	struct crash_state *st = calloc(1, sizeof(*st));
	uint64_t x = 0;
	int err = 0;

	if (!st)
		return ENOMEM;
	st->c = c;
	st->r = r;
	st->old_known = r->pass > 0 || c->prior_known;
	st->step_block = UINT64_MAX;	/* none yet */
	if (r->random)
		guac_permutation_init(&st->perm, r->length / r->block_size,
				      guac_permutation_pass_seed(r->seed, r->pass));
	st->data = guac_try_alloc(CRASH_CHUNK);
	st->want_new = guac_try_alloc(CRASH_CHUNK);
	st->want_old = guac_try_alloc(CRASH_CHUNK);
	st->scratch = guac_try_alloc(CRASH_CHUNK);
	if (!st->data || !st->want_new || !st->want_old || !st->scratch)
		err = ENOMEM;
	while (!err && x < r->length) {
		/* Chunks end at unit boundaries of the device: a unit is never split between two. */
		uint64_t end = (r->seek + x + CRASH_CHUNK) / c->unit * c->unit - r->seek;

		end = end < r->length ? end : r->length;
		crash_chunk(st, x, (size_t)(end - x));
		x = end;
		if (c->progress)
			c->progress(x, r->length, c->arg);
	}
	crash_flush_pending(st);
	free(st->data);
	free(st->want_new);
	free(st->want_old);
	free(st->scratch);
	free(st);
	return err;
}
