// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Diagnosis of bad sectors (diag.h, docs/diagnosis.md): the misdirection
 * search, and guac_diag_run() and the batches around it. The local checks
 * (diag.c) come first; what they leave goes to the search, which finds which
 * sector of the pass, if any, a bad sector's bytes belong to: every candidate
 * sector is represented by 8 bytes of its first whole block (1/64 of a 4 KiB
 * sector's generation), the bad sectors' corresponding 8 bytes sit in one
 * small hash table, and one sweep of the pass range serves the whole batch. A
 * hit is then checked in full, so a false hit costs one sector and never a
 * wrong answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "diag_internal.h"
#include "util.h"

/*
 * The sweep's generator is the core's guac_heads(): the first 8 bytes of
 * blocks at a stride (one per candidate sector), in the core's SIMD steps,
 * without the feed-forward and transpose the other 56 bytes would cost.
 */

/* ---- misdirection search ---- */

/*
 * One slot per distinct key: many bad sectors may hold the same bytes (one
 * foreign block written over and over, a fill pattern), and duplicates in
 * the table itself would make one long probe run that every sweep key
 * landing in it must walk. Sectors sharing a key are chained instead.
 */
struct diag_slot {
	uint64_t key;
	uint32_t index;		/* first bad sector with this key + 1; 0: empty */
};

struct diag_search_state {
	const struct guac_diag_config *cfg;
	const struct guac_diag_sector *sectors;
	struct guac_diag_result *results;

	/* Candidates: device sectors (LBAs) [first_lba, end_lba) of the pass. */
	uint64_t first_lba, end_lba;
	unsigned int key_pos;		/* sector byte where the first whole block starts */
	uint64_t stride;		/* blocks per sector */

	struct diag_slot *table;
	uint32_t *next;			/* per batch sector: next one with its key + 1, or 0 */
	size_t mask;
	unsigned int shift;

	uint64_t max_lbas;		/* the sweep bound, in sectors */
	double deadline;

	atomic_uint_fast64_t next_chunk;
	atomic_uint_fast64_t swept_lbas;
	atomic_uint_fast64_t candidates;
	atomic_size_t unresolved;
	atomic_bool timed_out;
	atomic_bool *found;		/* per sector of the batch: explained by the search */
	pthread_mutex_t lock;		/* results of searched sectors */
};

#define DIAG_SWEEP_CHUNK 65536u	/* sectors per work item: 256 MiB at 4 KiB */
#define DIAG_SWEEP_BATCH 1024u	/* keys generated at once: 8 KiB, stays in L1 */
#define DIAG_TIME_CHECK_BATCHES 16u

/* Probes around each bad sector before the sweep: misdirection is often near. */
#define DIAG_NEAR_SECTORS 16

static uint64_t diag_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int b;

	for (b = 7; b >= 0; b--)
		v = v << 8 | p[b];
	return v;
}

/* Bad data may be anything (text, patterns), so mix before indexing. */
static size_t diag_hash(const struct diag_search_state *st, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> st->shift);
}

/* Stream offset and first key block of device sector @lba of the pass. */
static uint64_t diag_lba_stream(const struct diag_search_state *st, uint64_t lba)
{
	const struct guac_diag_pass *p = &st->cfg->pass;

	return p->stream_offset + (lba * st->cfg->sector - p->device_offset);
}

static uint64_t diag_lba_key_block(const struct diag_search_state *st, uint64_t lba)
{
	const struct guac_diag_pass *p = &st->cfg->pass;
	struct guac_spos at = guac_spos_add(guac_spos_of(p->stream_offset),
					    diag_lba_stream(st, lba) + st->key_pos - p->stream_offset);

	return p->origin + at.block;
}

/* Smallest power of two >= @v (v <= 2^63). */
static uint64_t diag_pow2_ceil(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Where the writer of device byte @dev stopped: the end of its part. */
static uint64_t diag_part_end(const struct guac_diag_config *cfg, uint64_t dev)
{
	size_t k;

	for (k = 0; k < cfg->nparts; k++)
		if (dev >= cfg->parts[k].device_offset &&
		    dev - cfg->parts[k].device_offset < cfg->parts[k].length)
			return cfg->parts[k].device_offset + cfg->parts[k].length;
	return cfg->pass.device_offset + cfg->pass.length;
}

/* The later steps of a permuted part looked at for a wrap's capacity, at most. */
#define DIAG_ORDER_STEPS 4096u

/*
 * A wrap's capacity in a permuted pass (guac_diag_order): the powers of two
 * 2^e, e from @lo to @hi, at which a block written after @found_dev's by its
 * writer aliases @found_dev's sector (overlaps it modulo 2^e) are ruled out,
 * as the later write would hold the place. The smallest left, or 0. Other
 * writers' steps interleave in no known order, and past DIAG_ORDER_STEPS the
 * rest go unexamined: both leave capacities in, never rule one out wrongly.
 */
static uint64_t diag_wrap_permuted(const struct guac_diag_config *cfg, uint64_t found_dev,
				   unsigned int lo, unsigned int hi)
{
	const struct guac_diag_order *o = cfg->order;
	uint64_t bs = o->block_size, end = cfg->pass.length / bs, step, t, ruled = 0;
	uint64_t all = (hi == 63 ? ~0ULL : (2ULL << hi) - 1) & ~((1ULL << lo) - 1);
	unsigned int e;
	size_t k;

	step = guac_unpermute(o->perm, (found_dev - cfg->pass.device_offset) / bs);
	for (k = 0; k < cfg->nparts; k++) {
		uint64_t p0 = (cfg->parts[k].device_offset - cfg->pass.device_offset) / bs;

		if (step >= p0 && step - p0 < cfg->parts[k].length / bs)
			end = p0 + cfg->parts[k].length / bs;
	}
	for (t = step + 1; t < end && t <= step + DIAG_ORDER_STEPS && ruled != all; t++) {
		uint64_t at = cfg->pass.device_offset + guac_permute(o->perm, t) * bs;

		for (e = lo; e <= hi; e++) {
			uint64_t mask = (1ULL << e) - 1;

			if (((found_dev - at) & mask) < bs || ((at - found_dev) & mask) < cfg->sector)
				ruled |= 1ULL << e;
		}
	}
	for (e = lo; e <= hi; e++)
		if (!(ruled & 1ULL << e))
			return 1ULL << e;
	return 0;
}

/*
 * The likeliest capacity of a device whose addresses wrap, if the data of
 * device byte @found_dev read @low_bit (the distance's lowest set bit) away
 * can be explained so, else 0. Both places alias one physical place if the
 * real capacity is a power of two dividing the distance (at most @low_bit);
 * and the data read is that of the last write to it, so no later write of
 * its writer's part aliases it. In address order that is the rest of the
 * part: capacity >= part_end - found_dev. The smallest capacity meeting
 * both is the likeliest. When none meets both, no wrap explains the copy (a
 * 4 KiB copy 200 MiB away on a 512 MiB disk is not an 8 MiB device).
 */
static uint64_t diag_wrap_capacity(const struct guac_diag_config *cfg, uint64_t found_dev,
				   uint64_t low_bit)
{
	uint64_t part_end, need, cap;

	if (low_bit < cfg->wrap_min)
		return 0;
	if (cfg->order)
		return diag_wrap_permuted(cfg, found_dev, (unsigned int)__builtin_ctzll(
						  diag_pow2_ceil(cfg->wrap_min)),
					  (unsigned int)__builtin_ctzll(low_bit));
	part_end = diag_part_end(cfg, found_dev);
	need = part_end > found_dev ? part_end - found_dev : 0;
	cap = diag_pow2_ceil(need > cfg->wrap_min ? need : cfg->wrap_min);
	return cap <= low_bit ? cap : 0;
}

/* Record that bad sector @i holds device sector @lba's data; call under @st->lock. */
static void diag_found(struct diag_search_state *st, size_t i, uint64_t lba)
{
	const struct guac_diag_config *cfg = st->cfg;
	struct guac_diag_result *r = &st->results[i];
	uint64_t found_dev = lba * cfg->sector, dist, low_bit, cap;

	r->found_stream_offset = diag_lba_stream(st, lba);
	r->found_device_offset = found_dev;
	r->found_origin = cfg->pass.origin;
	r->distance = (int64_t)(found_dev - r->device_offset);
	dist = r->distance < 0 ? -(uint64_t)r->distance : (uint64_t)r->distance;
	low_bit = dist & -dist;
	r->search_complete = true;
	cap = diag_wrap_capacity(cfg, found_dev, low_bit);
	if (cap) {
		r->cls = GUAC_DIAG_WRAPPED;
		r->capacity_max = low_bit;
		r->capacity = cap;
	} else {
		r->cls = GUAC_DIAG_MISDIRECTED;
	}
	atomic_fetch_sub(&st->unresolved, 1);
}

/*
 * Bad sector @i's key matched device sector @lba's: compare the whole sector.
 * @buf holds a sector.
 */
static void diag_check(struct diag_search_state *st, size_t i, uint64_t lba, uint8_t *buf)
{
	const struct guac_diag_config *cfg = st->cfg;

	atomic_fetch_add(&st->candidates, 1);
	if (atomic_load(&st->found[i]))
		return;		/* by another thread meanwhile */
	diag_pass_fill(cfg, &cfg->pass, buf, diag_lba_stream(st, lba), cfg->sector);
	if (memcmp(buf, st->sectors[i].data, cfg->sector))
		return;
	pthread_mutex_lock(&st->lock);
	if (!atomic_load(&st->found[i])) {
		diag_found(st, i, lba);
		atomic_store(&st->found[i], true);
	}
	pthread_mutex_unlock(&st->lock);
}

static void diag_lookup(struct diag_search_state *st, uint64_t key, uint64_t lba, uint8_t *buf)
{
	size_t h = diag_hash(st, key);

	uint32_t i;

	for (; st->table[h].index; h = (h + 1) & st->mask) {
		if (st->table[h].key != key)
			continue;
		for (i = st->table[h].index; i; i = st->next[i - 1])
			diag_check(st, i - 1, lba, buf);
		return;
	}
}

/*
 * Before the sweep, for each bad sector: the LBAs a power of two away
 * (a wrap, or one flipped address bit) and the nearest neighbours. A few
 * dozen blocks each, found whatever the sweep bound.
 */
static void diag_probe(struct diag_search_state *st, size_t i, uint64_t own_lba, uint8_t *buf)
{
	uint64_t cand[2 * 64 + 2 * DIAG_NEAR_SECTORS], keys[2 * 64 + 2 * DIAG_NEAR_SECTORS];
	const struct guac_diag_sector *s = &st->sectors[i];
	uint64_t want = diag_le64(s->data + st->key_pos);
	size_t n = 0, k;
	int b;

	for (b = 0; b < 64; b++) {
		uint64_t d = 1ULL << b;

		if (own_lba + d >= own_lba && own_lba + d < st->end_lba)
			cand[n++] = own_lba + d;
		if (own_lba >= d && own_lba - d >= st->first_lba)
			cand[n++] = own_lba - d;
	}
	for (b = 3; b <= DIAG_NEAR_SECTORS; b++) {	/* 1 and 2 are powers of two */
		if (b == 4 || b == 8 || b == 16)
			continue;
		if (own_lba + b < st->end_lba)
			cand[n++] = own_lba + b;
		if (own_lba >= st->first_lba + b)
			cand[n++] = own_lba - b;
	}
	for (k = 0; k < n; k++)
		guac_heads(st->cfg->impl, &keys[k], diag_lba_key_block(st, cand[k]), 0, 1);
	for (k = 0; k < n && !atomic_load(&st->found[i]); k++)
		if (keys[k] == want)
			diag_check(st, i, cand[k], buf);
}

static void *diag_sweep_worker(void *arg)
{
	struct diag_search_state *st = arg;
	const struct guac_diag_config *cfg = st->cfg;
	uint64_t keys[DIAG_SWEEP_BATCH];
	uint8_t *buf = malloc(cfg->sector);
	uint64_t limit = st->first_lba + st->max_lbas;
	unsigned int batches = 0;

	if (!buf)
		return (void *)1;
	if (limit > st->end_lba || limit < st->first_lba)
		limit = st->end_lba;
	while (!atomic_load(&st->timed_out) && atomic_load(&st->unresolved) &&
	       !(cfg->stop && atomic_load(cfg->stop))) {
		uint64_t c = atomic_fetch_add(&st->next_chunk, 1);
		uint64_t lba = st->first_lba + c * DIAG_SWEEP_CHUNK, end;

		if (c >= (limit - st->first_lba + DIAG_SWEEP_CHUNK - 1) / DIAG_SWEEP_CHUNK)
			break;
		end = limit - lba < DIAG_SWEEP_CHUNK ? limit : lba + DIAG_SWEEP_CHUNK;
		while (lba < end) {
			size_t n = end - lba < DIAG_SWEEP_BATCH ? (size_t)(end - lba) : DIAG_SWEEP_BATCH;
			size_t j;

			guac_heads(cfg->impl, keys, diag_lba_key_block(st, lba), st->stride, n);
			for (j = 0; j < n; j++)
				if (st->table[diag_hash(st, keys[j])].index)
					diag_lookup(st, keys[j], lba + j, buf);
			lba += n;
			atomic_fetch_add(&st->swept_lbas, n);
			if (++batches % DIAG_TIME_CHECK_BATCHES == 0 && guac_now() > st->deadline) {
				atomic_store(&st->timed_out, true);
				break;
			}
			/* One load per batch of 1024 keys: Ctrl-C is seen within microseconds. */
			if (cfg->stop && atomic_load(cfg->stop))
				break;
		}
	}
	free(buf);
	return NULL;
}

/* The candidates, the key's place in a sector and the bounds, for a search from @start. */
static void diag_search_bounds(struct diag_search_state *st, double start)
{
	const struct guac_diag_config *cfg = st->cfg;
	const struct guac_diag_pass *p = &cfg->pass;

	st->first_lba = (p->device_offset + cfg->sector - 1) / cfg->sector;
	st->end_lba = (p->device_offset + p->length) / cfg->sector;
	if (st->end_lba < st->first_lba)
		st->end_lba = st->first_lba;
	st->stride = cfg->sector / GUAC_BLOCK_SIZE;
	st->key_pos = (unsigned int)((GUAC_BLOCK_SIZE - (diag_lba_stream(st, st->first_lba) &
							 (GUAC_BLOCK_SIZE - 1))) & (GUAC_BLOCK_SIZE - 1));
	st->max_lbas = cfg->max_bytes / cfg->sector;
	st->deadline = start + (cfg->max_seconds > 0 ? cfg->max_seconds : 1e300);
}

/* The sweep on @jobs threads (here, if none can be had); -ENOMEM if one ran out. */
static int diag_sweep_threads(struct diag_search_state *st, unsigned int jobs)
{
	pthread_t threads[64];
	unsigned int started = 0, t;
	int ret = 0;

	if (jobs > sizeof(threads) / sizeof(threads[0]))
		jobs = sizeof(threads) / sizeof(threads[0]);
	for (t = 0; t < jobs && atomic_load(&st->unresolved); t++) {
		if (pthread_create(&threads[t], NULL, diag_sweep_worker, st))
			break;
		started++;
	}
	if (!started && atomic_load(&st->unresolved))
		diag_sweep_worker(st);	/* no thread to be had: sweep here */
	for (t = 0; t < started; t++) {
		void *r;

		pthread_join(threads[t], &r);
		if (r)
			ret = -ENOMEM;
	}
	return ret;
}

/* Search the pass range for the sectors @todo[0..ntodo) of @st. */
static int diag_search(struct diag_search_state *st, const size_t *todo, size_t ntodo,
		       struct guac_diag_search *out)
{
	const struct guac_diag_config *cfg = st->cfg;
	size_t size = 16, k;
	uint8_t *buf;
	double start = guac_now();
	int ret;

	diag_search_bounds(st, start);
	atomic_init(&st->unresolved, ntodo);

	/* Load factor at most 1/2: most lookups of the sweep end at an empty slot. */
	while (size < 2 * ntodo)
		size <<= 1;
	st->table = calloc(size, sizeof(*st->table));
	/* Indexed by batch sector; @todo is increasing, so its last is the largest. */
	st->next = calloc(todo[ntodo - 1] + 1, sizeof(*st->next));
	buf = malloc(cfg->sector);
	if (!st->table || !st->next || !buf) {
		free(st->table);
		free(st->next);
		free(buf);
		return -ENOMEM;
	}
	st->mask = size - 1;
	st->shift = 64 - (unsigned int)__builtin_ctzll(size);
	for (k = 0; k < ntodo; k++) {
		uint64_t key = diag_le64(st->sectors[todo[k]].data + st->key_pos);
		size_t h = diag_hash(st, key);

		while (st->table[h].index && st->table[h].key != key)
			h = (h + 1) & st->mask;
		st->next[todo[k]] = st->table[h].index;
		st->table[h].key = key;
		st->table[h].index = (uint32_t)todo[k] + 1;
	}

	for (k = 0; k < ntodo; k++) {
		uint64_t dev = st->results[todo[k]].device_offset;

		if (dev % cfg->sector == 0)
			diag_probe(st, todo[k], dev / cfg->sector, buf);
	}

	ret = diag_sweep_threads(st, cfg->jobs ? cfg->jobs : 1);

	out->sectors_searched = ntodo;
	out->range_bytes = (st->end_lba - st->first_lba) * cfg->sector;
	out->swept_bytes = atomic_load(&st->swept_lbas) * cfg->sector;
	out->candidates = atomic_load(&st->candidates);
	out->exhaustive = out->swept_bytes >= out->range_bytes || !atomic_load(&st->unresolved);
	out->stopped_by_time = !out->exhaustive && atomic_load(&st->timed_out);
	out->interrupted = !out->exhaustive && !out->stopped_by_time && cfg->stop &&
			   atomic_load(cfg->stop);
	out->seconds = guac_now() - start;
	free(st->table);
	free(st->next);
	free(buf);
	return ret;
}

/* ---- origin search ---- */

/*
 * A sector holding another origin's data at its own place holds block
 * O' + b, where b is its block under the pass's mapping. A block's index
 * cannot be read back from its bytes (the feed-forward hides the index words,
 * and four double rounds with two of sixteen words unknown are a 2^64
 * search), so candidate origins are regenerated: for each window of origins
 * [lo, hi] and mapping, sector j's candidates are the consecutive blocks
 * [lo + b_j, hi + b_j]. Neighbouring sectors' intervals overlap and are
 * merged, so a run of stale sectors costs little more than one; each block is
 * one 8-byte key looked up in a table of the sectors' keys, and a hit is
 * checked in full before it is believed.
 */
/*
 * Slots per sector of its table: a load of 1/16, as the sectors' windows
 * overlap and most of a window's keys are for other sectors' (a lookup
 * that lands on a taken slot costs a probe run).
 */
#define DIAG_ORIGIN_LOAD 16

struct diag_window {
	const struct guac_diag_pass *map;	/* device to stream bytes */
	uint64_t lo, hi;			/* origins, inclusive */
	enum guac_diag_origin_source source;
	uint64_t center;			/* near_origin of what it finds */
};

struct diag_origin_state {
	struct diag_search_state *st;
	const struct diag_window *w;
	unsigned int key_pos;
	struct diag_slot *table;
	uint32_t *next;
	size_t mask;
	unsigned int shift;
	uint64_t *rel;			/* per batch sector: its key block, origin 0 */
	uint64_t blocks;
	double deadline;
	bool timed_out;
};

static size_t diag_ohash(const struct diag_origin_state *os, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> os->shift);
}

/* Sector @i holds origin @origin's data under the window's mapping: believe it? */
static void diag_origin_check(struct diag_origin_state *os, size_t i, uint64_t origin,
			      uint8_t *buf)
{
	struct diag_search_state *st = os->st;
	const struct guac_diag_config *cfg = st->cfg;
	const struct diag_window *w = os->w;
	struct guac_diag_result *r = &st->results[i];
	struct guac_diag_pass p = *w->map;
	uint64_t soff = p.stream_offset + (r->device_offset - p.device_offset);
	uint64_t stride = cfg->sector / GUAC_BLOCK_SIZE;
	int64_t delta = (int64_t)(origin - cfg->pass.origin);

	if (atomic_load(&st->found[i]))
		return;
	p.origin = origin;
	atomic_fetch_add(&st->candidates, 1);
	diag_pass_fill(cfg, &p, buf, soff, cfg->sector);
	if (memcmp(buf, st->sectors[i].data, cfg->sector))
		return;
	/*
	 * Under the pass's own mapping, an origin a whole number of sectors
	 * away is the data of another sector of the pass: the sweep's
	 * MISDIRECTED (or WRAPPED), whatever part of the range it swept.
	 */
	if (w->map == &cfg->pass && r->device_offset % cfg->sector == 0 &&
	    delta % (int64_t)stride == 0) {
		uint64_t lba = r->device_offset / cfg->sector + (uint64_t)(delta / (int64_t)stride);

		if (lba >= st->first_lba && lba < st->end_lba) {
			diag_found(st, i, lba);
			atomic_store(&st->found[i], true);
			return;
		}
	}
	r->cls = GUAC_DIAG_STALE_ORIGIN;
	r->found_origin = origin;
	r->found_stream_offset = soff;
	r->found_device_offset = r->device_offset;
	r->distance = 0;
	r->origin_source = w->source;
	r->near_origin = w->center;
	r->search_complete = true;
	atomic_store(&st->found[i], true);
	atomic_fetch_sub(&st->unresolved, 1);
}

/* Blocks [a, a + len) (mod 2^64): look every key up. False when out of time. */
static bool diag_origin_sweep(struct diag_origin_state *os, uint64_t a, uint64_t len,
			      uint8_t *buf)
{
	const struct guac_diag_config *cfg = os->st->cfg;
	const struct diag_window *w = os->w;
	uint64_t keys[DIAG_SWEEP_BATCH], done = 0;
	const struct diag_slot *table = os->table;
	unsigned int batches = 0, shift = os->shift;

	while (done < len) {
		size_t n = len - done < DIAG_SWEEP_BATCH ? (size_t)(len - done) : DIAG_SWEEP_BATCH;
		size_t j;

		if (!atomic_load(&os->st->unresolved))
			return true;
		if ((cfg->stop && atomic_load(cfg->stop)) ||
		    (++batches % DIAG_TIME_CHECK_BATCHES == 0 && guac_now() > os->deadline)) {
			os->timed_out = true;
			return false;
		}
		guac_heads(cfg->impl, keys, a + done, 1, n);
		os->blocks += n;
		for (j = 0; j < n; j++) {
			size_t h = (size_t)((keys[j] * 0x9e3779b97f4a7c15ULL) >> shift);

			/* Most keys end here, at an empty slot: keep this test cheap. */
			if (!table[h].index)
				continue;
			for (; os->table[h].index; h = (h + 1) & os->mask) {
				uint32_t i;

				if (os->table[h].key != keys[j])
					continue;
				for (i = os->table[h].index; i; i = os->next[i - 1]) {
					uint64_t origin = a + done + j - os->rel[i - 1];

					if (origin - w->lo <= w->hi - w->lo)
						diag_origin_check(os, i - 1, origin, buf);
				}
				break;
			}
		}
		done += n;
	}
	return true;
}

/*
 * One window over the unresolved sectors @todo that its mapping covers and
 * whose first whole block starts @key_pos bytes in. False when out of time.
 */
static bool diag_origin_window(struct diag_origin_state *os, const size_t *todo, size_t ntodo,
			       uint8_t *buf)
{
	struct diag_search_state *st = os->st;
	const struct guac_diag_pass *m = os->w->map;
	uint64_t span = os->w->hi - os->w->lo, cur_a = 0, cur_len = 0;
	size_t k, size = 16;
	bool have = false;

	while (size < DIAG_ORIGIN_LOAD * ntodo)
		size <<= 1;
	memset(os->table, 0, size * sizeof(*os->table));
	os->mask = size - 1;
	os->shift = 64 - (unsigned int)__builtin_ctzll(size);
	for (k = 0; k < ntodo; k++) {
		size_t i = todo[k];
		uint64_t key = diag_le64(st->sectors[i].data + os->key_pos);
		size_t h = diag_ohash(os, key);

		while (os->table[h].index && os->table[h].key != key)
			h = (h + 1) & os->mask;
		os->next[i] = os->table[h].index;
		os->table[h].key = key;
		os->table[h].index = (uint32_t)i + 1;
	}
	for (k = 0; k < ntodo; k++) {
		size_t i = todo[k];
		uint64_t dev = st->results[i].device_offset;
		struct guac_spos at = guac_spos_add(guac_spos_of(m->stream_offset),
						    dev - m->device_offset + os->key_pos);
		uint64_t a;

		os->rel[i] = at.block;
		a = os->w->lo + at.block;
		/* Sectors come in device order: their intervals mostly overlap the last one. */
		if (have && a - cur_a <= cur_len) {
			if (a - cur_a + span + 1 > cur_len)
				cur_len = a - cur_a + span + 1;
			continue;
		}
		if (have && !diag_origin_sweep(os, cur_a, cur_len, buf))
			return false;
		have = true;
		cur_a = a;
		cur_len = span + 1;
	}
	return !have || diag_origin_sweep(os, cur_a, cur_len, buf);
}

/*
 * The origin search over the sectors @todo[0..ntodo) left unknown by the
 * sweep: the windows around the pass's origin and each history pass's (with
 * their own mappings), then the ranges the user named.
 */
/*
 * The windows to search, into @win: each pass's origin (this one and the
 * history's) and the radius around it, then the ranges --origins named;
 * *@complete false if one of those was cut to the span bound. Returns their
 * count.
 */
static size_t diag_origin_windows(const struct guac_diag_config *cfg, struct diag_window *win,
				  bool *complete)
{
	uint64_t r = cfg->origin_radius < GUAC_DIAG_MAX_ORIGIN_SPAN / 2 ? cfg->origin_radius :
		     GUAC_DIAG_MAX_ORIGIN_SPAN / 2;
	size_t nw = 0, k;

	/* Origins are numbers people choose: a window stops at 0 and 2^64 - 1, never wraps. */
	for (k = 0; r && k <= cfg->nhistory - (cfg->nhistory_named < cfg->nhistory ?
						  cfg->nhistory_named : cfg->nhistory); k++) {
		const struct guac_diag_pass *m = k ? &cfg->history[k - 1] : &cfg->pass;

		win[nw++] = (struct diag_window){ m, m->origin > r ? m->origin - r : 0,
						  m->origin < UINT64_MAX - r ? m->origin + r :
						  UINT64_MAX, GUAC_DIAG_ORIGIN_NEAR, m->origin };
	}
	for (k = 0; k < cfg->norigin_ranges; k++) {
		const struct guac_diag_origin_range *o = &cfg->origin_ranges[k];
		uint64_t hi = o->hi - o->lo < GUAC_DIAG_MAX_ORIGIN_SPAN ? o->hi :
			      o->lo + GUAC_DIAG_MAX_ORIGIN_SPAN - 1;

		*complete = *complete && hi == o->hi;
		win[nw++] = (struct diag_window){ &cfg->pass, o->lo, hi, GUAC_DIAG_ORIGIN_NAMED,
						  o->lo };
	}
	return nw;
}

/*
 * Window @os->w over the unresolved sectors of @todo it covers, grouped by
 * where their first whole block starts; @sub has room for @ntodo. False when
 * it stopped short (out of time).
 */
static bool diag_origin_window_all(struct diag_origin_state *os, const size_t *todo,
				   size_t ntodo, size_t *sub, uint8_t *buf)
{
	struct diag_search_state *st = os->st;
	const struct guac_diag_pass *m = os->w->map;
	unsigned int pos;
	size_t k, n;

	for (pos = 0; pos < GUAC_BLOCK_SIZE; pos++) {
		uint64_t soff;

		n = 0;
		for (k = 0; k < ntodo; k++) {
			const struct guac_diag_result *res = &st->results[todo[k]];

			if (atomic_load(&st->found[todo[k]]) ||
			    (m->length && (res->device_offset < m->device_offset ||
					   res->device_offset - m->device_offset >= m->length)))
				continue;
			soff = m->stream_offset + (res->device_offset - m->device_offset);
			if (((GUAC_BLOCK_SIZE - (soff & (GUAC_BLOCK_SIZE - 1))) &
			     (GUAC_BLOCK_SIZE - 1)) == pos)
				sub[n++] = todo[k];
		}
		if (!n)
			continue;
		os->key_pos = pos;
		if (!diag_origin_window(os, sub, n, buf))
			return false;
	}
	return true;
}

static int diag_origin_search(struct diag_search_state *st, const size_t *todo, size_t ntodo,
			      struct guac_diag_search *out)
{
	const struct guac_diag_config *cfg = st->cfg;
	size_t nw, w, size = 16, maxi = todo[ntodo - 1];
	struct diag_window *win = calloc(1 + cfg->nhistory + cfg->norigin_ranges, sizeof(*win));
	struct diag_origin_state os = { .st = st };
	size_t *sub = malloc(ntodo * sizeof(*sub));
	uint8_t *buf = malloc(cfg->sector);
	double start = guac_now();
	bool complete = true;
	int ret = 0;

	while (size < DIAG_ORIGIN_LOAD * ntodo)
		size <<= 1;
	os.table = calloc(size, sizeof(*os.table));
	os.next = calloc(maxi + 1, sizeof(*os.next));
	os.rel = calloc(maxi + 1, sizeof(*os.rel));
	if (!win || !sub || !buf || !os.table || !os.next || !os.rel) {
		ret = -ENOMEM;
		goto out;
	}
	os.deadline = start + (cfg->max_seconds > 0 ? cfg->max_seconds : 1e300);
	nw = diag_origin_windows(cfg, win, &complete);
	out->origin_sectors = atomic_load(&st->unresolved);
	for (w = 0; w < nw && atomic_load(&st->unresolved); w++) {
		os.w = &win[w];
		if (!diag_origin_window_all(&os, todo, ntodo, sub, buf))
			complete = false;
		out->origin_windows++;
		if (os.timed_out)
			break;
	}
	out->origin_blocks = os.blocks;
	out->origin_found = out->origin_sectors - atomic_load(&st->unresolved);
	out->origin_exhaustive = !atomic_load(&st->unresolved) || (complete && !os.timed_out);
out:
	out->origin_seconds = guac_now() - start;
	free(win);
	free(sub);
	free(buf);
	free(os.table);
	free(os.next);
	free(os.rel);
	return ret;
}

static bool diag_local(const struct guac_diag_config *cfg, const struct guac_diag_sector *s,
		       struct guac_diag_result *r, uint8_t *want, uint8_t *scratch)
{
	diag_pass_fill(cfg, &cfg->pass, want, s->stream_offset, cfg->sector);
	return guac_diag_local(cfg, s->stream_offset, s->data, want, scratch, r);
}

int guac_diag_run(const struct guac_diag_config *cfg, const struct guac_diag_sector *sectors,
		  size_t n, struct guac_diag_result *results, struct guac_diag_search *search)
{
	struct guac_diag_search local_search;
	struct diag_search_state st;
	uint8_t *want, *scratch;
	size_t *todo, ntodo = 0, i;
	int ret = 0;

	if (!search)
		search = &local_search;
	memset(search, 0, sizeof(*search));
	search->exhaustive = true;
	if (cfg->sector < 2 * GUAC_BLOCK_SIZE || cfg->sector % GUAC_BLOCK_SIZE ||
	    cfg->sector > (1u << 20) || n > UINT32_MAX - 1)
		return -EINVAL;
	want = malloc(cfg->sector);
	scratch = malloc(cfg->sector);
	todo = malloc((n ? n : 1) * sizeof(*todo));
	if (!want || !scratch || !todo) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (diag_local(cfg, &sectors[i], &results[i], want, scratch))
			continue;
		results[i].cls = GUAC_DIAG_UNKNOWN;
		results[i].entropy = diag_entropy(sectors[i].data, cfg->sector);
		results[i].constant = diag_all(sectors[i].data, cfg->sector, sectors[i].data[0]);
		results[i].constant_byte = sectors[i].data[0];
		todo[ntodo++] = i;
	}
	if (ntodo) {
		memset(&st, 0, sizeof(st));
		st.cfg = cfg;
		st.sectors = sectors;
		st.results = results;
		st.found = calloc(n, sizeof(*st.found));
		if (!st.found) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++)
			atomic_init(&st.found[i], false);
		pthread_mutex_init(&st.lock, NULL);
		ret = diag_search(&st, todo, ntodo, search);
		/* What the sweep left unknown: another origin's data at its own place? */
		if (!ret && atomic_load(&st.unresolved) &&
		    (cfg->origin_radius || cfg->norigin_ranges) && !(cfg->stop && atomic_load(cfg->stop)))
			ret = diag_origin_search(&st, todo, ntodo, search);
		pthread_mutex_destroy(&st.lock);
		free(st.found);
		for (i = 0; i < ntodo; i++)
			if (results[todo[i]].cls == GUAC_DIAG_UNKNOWN)
				results[todo[i]].search_complete = search->exhaustive;
	}
out:
	free(todo);
	free(scratch);
	free(want);
	return ret;
}

/* ---- batches ---- */

struct guac_diag_batch {
	struct guac_diag_config cfg;
	pthread_mutex_t lock;
	size_t cap, count;
	uint64_t dropped;
	uint8_t *data;			/* cap sectors */
	struct guac_diag_sector *sectors;
	struct guac_diag_result *results;
};

struct guac_diag_batch *guac_diag_batch_new(const struct guac_diag_config *cfg,
					    size_t max_sectors)
{
	struct guac_diag_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->cfg = *cfg;
	b->cap = max_sectors;
	b->data = malloc((max_sectors ? max_sectors : 1) * (size_t)cfg->sector);
	b->sectors = calloc(max_sectors ? max_sectors : 1, sizeof(*b->sectors));
	b->results = calloc(max_sectors ? max_sectors : 1, sizeof(*b->results));
	if (!b->data || !b->sectors || !b->results) {
		guac_diag_batch_free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	return b;
}

bool guac_diag_batch_add(struct guac_diag_batch *b, uint64_t stream_offset, const uint8_t *data)
{
	bool added = false;

	pthread_mutex_lock(&b->lock);
	if (b->count < b->cap) {
		uint8_t *copy = b->data + b->count * (size_t)b->cfg.sector;

		memcpy(copy, data, b->cfg.sector);
		b->sectors[b->count].stream_offset = stream_offset;
		b->sectors[b->count].data = copy;
		b->count++;
		added = true;
	} else {
		b->dropped++;
	}
	pthread_mutex_unlock(&b->lock);
	return added;
}

static int diag_sector_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct guac_diag_sector *)a)->stream_offset;
	uint64_t y = ((const struct guac_diag_sector *)b)->stream_offset;

	return x < y ? -1 : x > y;
}

int guac_diag_batch_run(struct guac_diag_batch *b, struct guac_diag_search *search)
{
	int ret;

	pthread_mutex_lock(&b->lock);
	/* Workers add out of order; reports read best in device order. */
	qsort(b->sectors, b->count, sizeof(*b->sectors), diag_sector_cmp);
	ret = guac_diag_run(&b->cfg, b->sectors, b->count, b->results, search);
	pthread_mutex_unlock(&b->lock);
	return ret;
}

size_t guac_diag_batch_count(const struct guac_diag_batch *b)
{
	return b->count;
}

uint64_t guac_diag_batch_dropped(const struct guac_diag_batch *b)
{
	return b->dropped;
}

const struct guac_diag_result *guac_diag_batch_result(const struct guac_diag_batch *b, size_t i)
{
	return i < b->count ? &b->results[i] : NULL;
}

void guac_diag_batch_free(struct guac_diag_batch *b)
{
	if (!b)
		return;
	if (b->data && b->sectors && b->results)
		pthread_mutex_destroy(&b->lock);
	free(b->results);
	free(b->sectors);
	free(b->data);
	free(b);
}
