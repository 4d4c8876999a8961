// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac probe's engine (capacity.h): rounds of probe blocks written, read back
 * and judged, then every write undone in reverse order.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capacity.h"
#include "libguac.h"

#define CAP_FIRST_ROUND 128	/* places at least, in the first round */
#define CAP_ROUND 64		/* places added between the bounds a round */
#define CAP_MAX_ROUNDS 24	/* each divides the gap by CAP_ROUND: 2^64 needs 11 */

/* One place probed, in the order written. */
struct cap_block {
	uint64_t at;
	uint8_t *saved;		/* what it held before (not destructive) */
	bool write_failed;
	enum guac_cap_held held;
	uint64_t holds;		/* GUAC_CAP_ALIAS: the place whose data it holds */
};

/* A probe block's first 8 bytes, and its place: the alias index. */
struct cap_key {
	uint64_t key, at;
};

struct cap_run {
	struct guac_capacity *c;
	struct cap_block *b;
	size_t n, alloc;
	struct cap_key *keys;
	uint8_t *buf, *want;
	enum guac_impl impl;
};

static int cap_io(bool write, int fd, uint8_t *buf, size_t len, uint64_t at)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = write ? pwrite(fd, buf + done, len - done, (off_t)(at + done)) :
				    pread(fd, buf + done, len - done, (off_t)(at + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return EIO;	/* past the end the device reported */
		done += (size_t)r;
	}
	return 0;
}

static bool cap_stopped(const struct cap_run *r)
{
	return r->c->stop && *r->c->stop;
}

/* The probe data of place @at: the stream at that offset. */
static void cap_data(const struct cap_run *r, uint8_t *out, uint64_t at)
{
	guac_stream_fill(r->impl, out, r->c->origin, at, r->c->block);
}

static bool cap_has(const struct cap_run *r, uint64_t at)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->b[i].at == at)
			return true;
	return false;
}

static int cap_add(struct cap_run *r, uint64_t at)
{
	struct cap_block *nb;

	if (at + r->c->block > r->c->size || cap_has(r, at))
		return 0;
	if (r->n == r->alloc) {
		size_t alloc = r->alloc ? 2 * r->alloc : 512;

		nb = realloc(r->b, alloc * sizeof(*nb));
		if (!nb)
			return ENOMEM;
		r->b = nb;
		r->alloc = alloc;
	}
	r->b[r->n++] = (struct cap_block){ .at = at };
	return 0;
}

/* Write the places from @first on, each saved first; a write that fails is evidence. */
static int cap_write(struct cap_run *r, size_t first)
{
	struct guac_capacity *c = r->c;
	size_t i;

	for (i = first; i < r->n && !cap_stopped(r); i++) {
		struct cap_block *b = &r->b[i];

		c->blocks = (unsigned int)i + 1;
		if (!c->destructive) {
			if (posix_memalign((void **)&b->saved, 4096, c->block))
				return ENOMEM;
			/* Unreadable before the write: nothing to restore, nothing written. */
			if (cap_io(false, c->fd, b->saved, c->block, b->at)) {
				free(b->saved);
				b->saved = NULL;
				b->write_failed = true;
				continue;
			}
		}
		cap_data(r, r->want, b->at);
		b->write_failed = cap_io(true, c->fd, r->want, c->block, b->at) != 0;
	}
	/* The device's cache is not the medium; EINVAL: a file system without fdatasync. */
	if (fdatasync(c->fd) && errno != EINVAL)
		return errno;
	return 0;
}

static int cap_key_cmp(const void *a, const void *b)
{
	const struct cap_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int cap_index(struct cap_run *r)
{
	size_t i;

	free(r->keys);
	r->keys = malloc((r->n ? r->n : 1) * sizeof(*r->keys));
	if (!r->keys)
		return ENOMEM;
	for (i = 0; i < r->n; i++) {
		cap_data(r, r->want, r->b[i].at);
		memcpy(&r->keys[i].key, r->want, sizeof(uint64_t));
		r->keys[i].at = r->b[i].at;
	}
	qsort(r->keys, r->n, sizeof(*r->keys), cap_key_cmp);
	return 0;
}

/* The written place whose whole probe block @buf is, or false. */
static bool cap_alias(struct cap_run *r, const uint8_t *buf, uint64_t *holds)
{
	struct cap_key k = { 0 }, *hit;
	size_t i;

	memcpy(&k.key, buf, sizeof(uint64_t));
	hit = bsearch(&k, r->keys, r->n, sizeof(k), cap_key_cmp);
	if (!hit)
		return false;
	while (hit > r->keys && hit[-1].key == k.key)
		hit--;
	for (i = (size_t)(hit - r->keys); i < r->n && r->keys[i].key == k.key; i++) {
		cap_data(r, r->want, r->keys[i].at);
		if (!memcmp(r->want, buf, r->c->block)) {
			*holds = r->keys[i].at;
			return true;
		}
	}
	return false;
}

static bool cap_all(const uint8_t *buf, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != v)
			return false;
	return true;
}

static void cap_classify(struct cap_run *r, struct cap_block *b)
{
	size_t len = r->c->block;

	if (b->write_failed || cap_io(false, r->c->fd, r->buf, len, b->at)) {
		b->held = GUAC_CAP_IOERR;
		return;
	}
	cap_data(r, r->want, b->at);
	if (!memcmp(r->buf, r->want, len))
		b->held = GUAC_CAP_OWN;
	else if (cap_alias(r, r->buf, &b->holds))
		b->held = GUAC_CAP_ALIAS;
	else if (cap_all(r->buf, len, 0) || cap_all(r->buf, len, 0xff))
		b->held = GUAC_CAP_ZEROS;
	else if (b->saved && !memcmp(r->buf, b->saved, len))
		b->held = GUAC_CAP_UNCHANGED;
	else
		b->held = GUAC_CAP_OTHER;
}

static int cap_by_place(const void *a, const void *b)
{
	const struct cap_block *x = *(const struct cap_block *const *)a;
	const struct cap_block *y = *(const struct cap_block *const *)b;

	return x->at < y->at ? -1 : x->at > y->at;
}

static uint64_t cap_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * A wrap explains everything seen: with period @w, each place holds the data
 * of the last place written (in write order) that lies a multiple of @w from
 * it, its own when that is itself. The period: the greatest common divisor of
 * the distances the aliases show.
 */
static bool cap_wrap_fits(const struct cap_run *r, uint64_t w)
{
	size_t i, j, last;

	for (i = 0; i < r->n; i++) {
		const struct cap_block *b = &r->b[i];

		for (j = last = i; j < r->n; j++)
			if (r->b[j].at % w == b->at % w && !r->b[j].write_failed)
				last = j;
		if (last == i ? b->held != GUAC_CAP_OWN :
				b->held != GUAC_CAP_ALIAS || b->holds != r->b[last].at)
			return false;
	}
	return true;
}

static bool cap_judge_wrap(struct cap_run *r, struct cap_block **sorted)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct cap_block *b = sorted[i];

		if (b->held == GUAC_CAP_ALIAS)
			w = cap_gcd(w, b->holds > b->at ? b->holds - b->at : b->at - b->holds);
	}
	if (!w || w % r->c->block || !cap_wrap_fits(r, w))
		return false;
	r->c->verdict = GUAC_CAP_WRAPS;
	r->c->wrap = w;
	r->c->usable = w;
	for (i = 0; i < r->n; i++)
		if (sorted[i]->held != GUAC_CAP_OWN) {
			r->c->first_bad = sorted[i]->at;
			r->c->first_bad_held = sorted[i]->held;
			r->c->first_bad_holds = sorted[i]->holds;
			break;
		}
	return true;
}

/*
 * Judge the places read back; true when the verdict is in, false when a
 * loss's boundary is still wider than a block, with @lo and @hi its bounds.
 */
static bool cap_judge(struct cap_run *r, struct cap_block **sorted, uint64_t *lo, uint64_t *hi)
{
	struct guac_capacity *c = r->c;
	size_t i, bad = 0;

	for (i = 0; i < r->n; i++)
		sorted[i] = &r->b[i];
	qsort(sorted, r->n, sizeof(*sorted), cap_by_place);
	c->bad = 0;
	for (i = 0; i < r->n; i++)
		c->bad += sorted[i]->held != GUAC_CAP_OWN;
	c->blocks = (unsigned int)r->n;
	if (!c->bad) {
		c->verdict = GUAC_CAP_GENUINE;
		c->usable = c->size;
		return true;
	}
	if (cap_judge_wrap(r, sorted))
		return true;
	while (sorted[bad]->held == GUAC_CAP_OWN)
		bad++;
	c->first_bad = sorted[bad]->at;
	c->first_bad_held = sorted[bad]->held;
	c->first_bad_holds = sorted[bad]->holds;
	c->usable = c->first_bad;
	for (i = bad + 1; i < r->n; i++)
		if (sorted[i]->held == GUAC_CAP_OWN) {
			c->verdict = GUAC_CAP_DAMAGED;
			c->good_after = sorted[i]->at;
			return true;
		}
	c->verdict = GUAC_CAP_LIMIT;
	*lo = bad ? sorted[bad - 1]->at : 0;
	*hi = sorted[bad]->at;
	return *hi - *lo <= c->block || !bad;
}

/* Write back what every place held, last write first: that undoes aliased writes too. */
static void cap_restore(struct cap_run *r)
{
	struct guac_capacity *c = r->c;
	size_t i = r->n;

	c->restored = true;
	while (i--) {
		struct cap_block *b = &r->b[i];
		int err;

		if (!b->saved)
			continue;
		err = cap_io(true, c->fd, b->saved, c->block, b->at);
		if (err && !c->restore_err)
			c->restore_err = err;
	}
	if (fdatasync(c->fd) && errno != EINVAL && !c->restore_err)
		c->restore_err = errno;
	c->restored = !c->restore_err;
}

/* The first round's places: a power-of-two spacing, so that wraps land on places. */
static int cap_first_round(struct cap_run *r)
{
	uint64_t step = r->c->block, at;
	int err = 0;

	while (step <= r->c->size / CAP_FIRST_ROUND / 2)
		step *= 2;
	for (at = 0; !err && at + r->c->block <= r->c->size; at += step)
		err = cap_add(r, at);
	if (!err && r->c->size >= r->c->block)
		err = cap_add(r, (r->c->size - r->c->block) / r->c->block * r->c->block);
	return err;
}

static int cap_rounds(struct cap_run *r)
{
	struct cap_block **sorted = NULL;
	uint64_t lo = 0, hi = 0, step, at;
	size_t first = 0, i;
	int err = cap_first_round(r);

	for (r->c->rounds = 0; !err && r->c->rounds < CAP_MAX_ROUNDS; r->c->rounds++) {
		err = cap_write(r, first);
		if (!err)
			err = cap_index(r);
		free(sorted);
		sorted = err ? NULL : malloc(r->n * sizeof(*sorted));
		if (!err && !sorted)
			err = ENOMEM;
		for (i = 0; !err && i < r->n && !cap_stopped(r); i++)
			cap_classify(r, &r->b[i]);
		if (err || cap_stopped(r) || cap_judge(r, sorted, &lo, &hi))
			break;
		/* Narrow the loss: places between the last good one and the first bad. */
		first = r->n;
		step = r->c->block;
		while (step <= (hi - lo) / CAP_ROUND / 2)
			step *= 2;
		for (at = lo + step; !err && at < hi; at += step)
			err = cap_add(r, at);
	}
	free(sorted);
	if (!err && cap_stopped(r))
		r->c->verdict = GUAC_CAP_INTERRUPTED;
	return err;
}

int guac_capacity_probe(struct guac_capacity *c)
{
	struct cap_run r = { .c = c, .impl = guac_impl_best() };
	size_t i;
	int err;

	c->verdict = GUAC_CAP_INTERRUPTED;
	c->restored = false;
	c->restore_err = 0;
	if (c->size < c->block)
		return EINVAL;
	if (posix_memalign((void **)&r.buf, 4096, c->block) ||
	    posix_memalign((void **)&r.want, 4096, c->block)) {
		free(r.buf);
		return ENOMEM;
	}
	err = cap_io(false, c->fd, r.buf, c->block, 0);
	if (!err)
		err = cap_rounds(&r);
	if (!c->destructive)
		cap_restore(&r);
	for (i = 0; i < r.n; i++)
		free(r.b[i].saved);
	free(r.b);
	free(r.keys);
	free(r.buf);
	free(r.want);
	return err;
}

const char *guac_cap_held_name(enum guac_cap_held held)
{
	static const char *const names[] = {
		[GUAC_CAP_OWN] = "its own data",
		[GUAC_CAP_ALIAS] = "another place's data",
		[GUAC_CAP_UNCHANGED] = "what it held before: the write was dropped",
		[GUAC_CAP_ZEROS] = "nothing: all 0x00 or all 0xff",
		[GUAC_CAP_OTHER] = "data that is neither",
		[GUAC_CAP_IOERR] = "an I/O error",
	};

	return names[held];
}
