// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Diagnosis of bad sectors (diag.h, docs/diagnosis.md): the local
 * classification of one sector and the text and JSON of a result.
 *
 * Local checks first (zeros, ones, earlier origins at the same place, torn,
 * scattered damage), because each costs at most a few sectors of generation.
 * What is left goes to the misdirection search (diag_search.c).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "diag.h"
#include "diag_internal.h"
#include "util.h"

/* ---- names and text ---- */

static const char *const diag_class_names[GUAC_DIAG_CLASS_COUNT] = {
	[GUAC_DIAG_OK] = "OK",
	[GUAC_DIAG_ALL_ZERO] = "ALL_ZERO",
	[GUAC_DIAG_ALL_ONES] = "ALL_ONES",
	[GUAC_DIAG_TORN] = "TORN",
	[GUAC_DIAG_STALE_ORIGIN] = "STALE_ORIGIN",
	[GUAC_DIAG_MISDIRECTED] = "MISDIRECTED",
	[GUAC_DIAG_WRAPPED] = "WRAPPED",
	[GUAC_DIAG_PARTIAL_MATCH] = "PARTIAL_MATCH",
	[GUAC_DIAG_UNKNOWN] = "UNKNOWN",
};

static const char *const diag_rest_names[GUAC_DIAG_REST_COUNT] = {
	[GUAC_DIAG_REST_ZEROS] = "zeros",
	[GUAC_DIAG_REST_ONES] = "ones",
	[GUAC_DIAG_REST_STALE] = "stale",
	[GUAC_DIAG_REST_OTHER] = "other",
};

const char *guac_diag_class_name(enum guac_diag_class cls)
{
	return (unsigned int)cls < GUAC_DIAG_CLASS_COUNT ? diag_class_names[cls] : "?";
}

const char *guac_diag_rest_name(enum guac_diag_rest rest)
{
	return (unsigned int)rest < GUAC_DIAG_REST_COUNT ? diag_rest_names[rest] : "?";
}

/* ---- local checks ---- */

/*
 * A head or tail shorter than this may be chance (random bytes match one in
 * 256), so it does not make a sector TORN by itself; it is still reported.
 */
#define DIAG_TORN_MIN 16

void guac_diag_config_init(struct guac_diag_config *cfg, enum guac_impl impl,
			   unsigned int sector, const struct guac_diag_pass *pass)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->impl = impl;
	cfg->sector = sector;
	if (pass)
		cfg->pass = *pass;
	cfg->max_bytes = GUAC_DIAG_DEFAULT_MAX_BYTES;
	cfg->max_seconds = GUAC_DIAG_DEFAULT_MAX_SECONDS;
	cfg->jobs = 1;
	cfg->wrap_min = GUAC_DIAG_DEFAULT_WRAP_MIN;
	cfg->origin_radius = GUAC_DIAG_DEFAULT_ORIGIN_RADIUS;
}

bool diag_all(const uint8_t *p, size_t n, uint8_t v)
{
	/* Each byte equal to the one before it, and the first to @v: memcmp's speed. */
	return !n || (p[0] == v && !memcmp(p, p + 1, n - 1));
}

#define DIAG_LOW7 0x7f7f7f7f7f7f7f7fULL
#define DIAG_ONES8 0x0101010101010101ULL

/* Without -mpopcnt, __builtin_popcountll is a libgcc call: this is inline. */
static uint32_t diag_popcount64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (uint32_t)((x * DIAG_ONES8) >> 56);
}

double diag_entropy(const uint8_t *p, size_t n)
{
	size_t count[256] = { 0 }, i;
	double h = 0;

	for (i = 0; i < n; i++)
		count[p[i]]++;
	for (i = 0; i < 256; i++) {
		double f = (double)count[i] / (double)n;

		if (count[i])
			h -= f * log2(f);
	}
	return h;
}

/*
 * Stream bytes of pass @p at stream offset @soff, which is @p's stream_offset
 * plus a distance that may cross 2^64 bytes (stream offsets here are their
 * low 64 bits): the distance, not @soff, says where, through guac_stream_at(),
 * so a pass across 2^64 continues at block 2^58 as it was written.
 */
void diag_pass_fill(const struct guac_diag_config *cfg, const struct guac_diag_pass *p,
		    uint8_t *buf, uint64_t soff, size_t len)
{
	guac_stream_at(cfg->impl, buf, p->origin, p->stream_offset, soff - p->stream_offset, len);
}

/*
 * Does history entry @h cover device byte @dev? If so, *@soff is the stream
 * offset it wrote there.
 */
static bool diag_history_at(const struct guac_diag_pass *h, uint64_t dev, uint64_t *soff)
{
	if (h->length && (dev < h->device_offset || dev - h->device_offset >= h->length))
		return false;
	*soff = h->stream_offset + (dev - h->device_offset);
	return true;
}

/*
 * The newest history pass whose data at device byte @dev matches @n bytes at
 * @data (which sit @skip bytes into the sector at @dev); -1 if none.
 */
static long diag_find_stale(const struct guac_diag_config *cfg, uint64_t dev, size_t skip,
			    const uint8_t *data, size_t n, uint8_t *scratch)
{
	size_t i;
	uint64_t soff;

	size_t quick = n < GUAC_BLOCK_SIZE ? n : GUAC_BLOCK_SIZE;

	for (i = 0; i < cfg->nhistory; i++) {
		if (!diag_history_at(&cfg->history[i], dev, &soff))
			continue;
		/* 64 bytes first: most origins are rejected at the cost of one block. */
		diag_pass_fill(cfg, &cfg->history[i], scratch, soff + skip, quick);
		if (memcmp(scratch, data, quick))
			continue;
		diag_pass_fill(cfg, &cfg->history[i], scratch, soff + skip, n);
		if (!memcmp(scratch, data, n))
			return (long)i;
	}
	return -1;
}

/*
 * How @got differs from @want (@n bytes): the right head and tail, the bytes
 * right and the bits flipped, into @r. False if they are the same.
 */
static bool diag_compare(const uint8_t *got, const uint8_t *want, size_t n,
			 struct guac_diag_result *r)
{
	size_t i, head, tail;

	for (head = 0; head < n && got[head] == want[head]; head++)
		;
	if (head == n) {
		r->matching_bytes = (uint32_t)n;
		return false;
	}
	for (tail = 0; tail < n - head && got[n - 1 - tail] == want[n - 1 - tail]; tail++)
		;
	/* 8 bytes at a time (@n is a multiple of 64): verify runs this on every bad sector. */
	for (i = 0; i < n; i += 8) {
		uint64_t a, b, x, z;

		memcpy(&a, got + i, 8);
		memcpy(&b, want + i, 8);
		x = a ^ b;
		/* The high bit of each byte of @z: that byte of @x is zero. */
		z = ~(((x & DIAG_LOW7) + DIAG_LOW7) | x | DIAG_LOW7);
		r->matching_bytes += (uint32_t)(((z >> 7) * DIAG_ONES8) >> 56);
		r->bit_flips += diag_popcount64(x);
	}
	r->head_ok = (uint32_t)head;
	r->tail_ok = (uint32_t)tail;
	return true;
}

/*
 * Torn: a right head or tail, and a middle that is wrong nearly
 * throughout (random bytes still match one in 256). A middle that is
 * mostly right is scattered damage instead. True if @r is now TORN.
 */
static bool diag_torn(const struct guac_diag_config *cfg, const uint8_t *got,
		      uint8_t *scratch, struct guac_diag_result *r)
{
	size_t head = r->head_ok, tail = r->tail_ok;
	size_t mid = cfg->sector - head - tail, mid_right;
	const uint8_t *rest = got + head;
	long stale;

	if (head < DIAG_TORN_MIN && tail < DIAG_TORN_MIN)
		return false;
	mid_right = r->matching_bytes - head - tail;
	if (mid_right * 8 > mid)
		return false;
	r->cls = GUAC_DIAG_TORN;
	if (diag_all(rest, mid, 0x00)) {
		r->rest = GUAC_DIAG_REST_ZEROS;
	} else if (diag_all(rest, mid, 0xff)) {
		r->rest = GUAC_DIAG_REST_ONES;
	} else {
		stale = diag_find_stale(cfg, r->device_offset, head, rest, mid, scratch);
		r->rest = stale >= 0 ? GUAC_DIAG_REST_STALE : GUAC_DIAG_REST_OTHER;
		if (stale >= 0) {
			r->found_origin = cfg->history[stale].origin;
			diag_history_at(&cfg->history[stale], r->device_offset,
					&r->found_stream_offset);
		}
	}
	return true;
}

/*
 * Everything decidable from the sector and its own place. Returns true if
 * decided; false leaves the sector to the misdirection search.
 */
bool guac_diag_local(const struct guac_diag_config *cfg, uint64_t stream_offset,
		     const uint8_t *got, const uint8_t *want, uint8_t *scratch,
		     struct guac_diag_result *r)
{
	size_t n = cfg->sector;
	long stale;

	memset(r, 0, sizeof(*r));
	r->stream_offset = stream_offset;
	r->device_offset = cfg->pass.device_offset + (stream_offset - cfg->pass.stream_offset);
	r->search_complete = true;

	if (!diag_compare(got, want, n, r)) {
		r->cls = GUAC_DIAG_OK;
		return true;
	}

	if (diag_all(got, n, 0x00)) {
		r->cls = GUAC_DIAG_ALL_ZERO;
		return true;
	}
	if (diag_all(got, n, 0xff)) {
		r->cls = GUAC_DIAG_ALL_ONES;
		return true;
	}
	stale = diag_find_stale(cfg, r->device_offset, 0, got, n, scratch);
	if (stale >= 0) {
		const struct guac_diag_pass *h = &cfg->history[stale];

		r->cls = GUAC_DIAG_STALE_ORIGIN;
		r->found_origin = h->origin;
		if ((size_t)stale >= cfg->nhistory - cfg->nhistory_named) {
			r->origin_source = GUAC_DIAG_ORIGIN_NAMED;
			r->near_origin = h->origin;
		}
		diag_history_at(h, r->device_offset, &r->found_stream_offset);
		r->found_device_offset = r->device_offset;
		return true;
	}

	if (diag_torn(cfg, got, scratch, r))
		return true;
	if (r->matching_bytes * 2 >= n) {
		r->cls = GUAC_DIAG_PARTIAL_MATCH;
		return true;
	}
	r->cls = GUAC_DIAG_UNKNOWN;
	return false;
}

/* ---- reporting ---- */

static const char *diag_direction(int64_t distance)
{
	return distance < 0 ? "earlier" : "later";
}

static uint64_t diag_abs(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

static void diag_describe_torn(const struct guac_diag_result *r, unsigned int sector,
			       char *buf, size_t size)
{
	char rest[64];

	if (r->rest == GUAC_DIAG_REST_STALE)
		snprintf(rest, sizeof(rest), "origin %llu's data (stale)",
			 (unsigned long long)r->found_origin);
	else
		snprintf(rest, sizeof(rest), "%s",
			 r->rest == GUAC_DIAG_REST_ZEROS ? "zeros" :
			 r->rest == GUAC_DIAG_REST_ONES ? "0xff" : "other data");
	snprintf(buf, size, "TORN: first %u and last %u bytes right, the %u between "
		 "hold %s: a write torn by power loss or cut short", r->head_ok,
		 r->tail_ok, sector - r->head_ok - r->tail_ok, rest);
}

static void diag_describe_stale(const struct guac_diag_result *r, char *buf, size_t size)
{
	if (r->origin_source == GUAC_DIAG_ORIGIN_HISTORY)
		snprintf(buf, size, "STALE_ORIGIN: holds this place's data from the earlier "
			 "pass with origin %llu (stream offset %llu): the latest write was "
			 "lost", (unsigned long long)r->found_origin,
			 (unsigned long long)r->found_stream_offset);
	/*
	 * A pass the history does not name may have come before this
	 * fill or after it (another manifest's): say both, not "earlier".
	 */
	else if (r->origin_source == GUAC_DIAG_ORIGIN_NEAR)
		snprintf(buf, size, "STALE_ORIGIN: holds this place's data from a pass with "
			 "origin %llu (stream offset %llu), not in the manifest's history: "
			 "found by the origin search near origin %llu: if that pass came "
			 "before this fill, this fill's write was lost; if after, it wrote "
			 "here since", (unsigned long long)r->found_origin,
			 (unsigned long long)r->found_stream_offset,
			 (unsigned long long)r->near_origin);
	else
		snprintf(buf, size, "STALE_ORIGIN: holds this place's data from the pass "
			 "with origin %llu among the past origins given (stream offset %llu), not in the "
			 "manifest's history: if that pass came before this fill, this fill's "
			 "write was lost; if after, it wrote here since",
			 (unsigned long long)r->found_origin,
			 (unsigned long long)r->found_stream_offset);
}

const char *guac_diag_describe(const struct guac_diag_result *r, unsigned int sector,
			       char *buf, size_t size)
{
	unsigned long long lba = r->found_device_offset / sector;
	unsigned long long dist = diag_abs(r->distance);
	char cap[32];

	switch (r->cls) {
	case GUAC_DIAG_OK:
		snprintf(buf, size, "OK: the sector matches");
		break;
	case GUAC_DIAG_ALL_ZERO:
		snprintf(buf, size, "ALL_ZERO: every byte is 0x00: never written, trimmed or "
			 "unmapped (a lost write on a fresh or discarded device)");
		break;
	case GUAC_DIAG_ALL_ONES:
		snprintf(buf, size, "ALL_ONES: every byte is 0xff: erased flash never "
			 "programmed (a lost write)");
		break;
	case GUAC_DIAG_TORN:
		diag_describe_torn(r, sector, buf, size);
		break;
	case GUAC_DIAG_STALE_ORIGIN:
		diag_describe_stale(r, buf, size);
		break;
	case GUAC_DIAG_MISDIRECTED:
		snprintf(buf, size, "MISDIRECTED: holds stream offset %llu, meant for LBA %llu "
			 "(byte %llu), %llu sectors %s: a misdirected write landed here, and "
			 "this sector's own write was lost", (unsigned long long)r->found_stream_offset,
			 lba, (unsigned long long)r->found_device_offset, dist / sector,
			 diag_direction(r->distance));
		break;
	case GUAC_DIAG_WRAPPED:
		guac_fmt_bytes(cap, sizeof(cap), (double)r->capacity);
		snprintf(buf, size, "WRAPPED: holds the data of LBA %llu (byte %llu), %llu bytes "
			 "%s: addresses wrap, the real capacity looks like %llu bytes (%s): a "
			 "fake-capacity device", lba, (unsigned long long)r->found_device_offset,
			 dist, diag_direction(r->distance), (unsigned long long)r->capacity, cap);
		break;
	case GUAC_DIAG_PARTIAL_MATCH:
		snprintf(buf, size, "PARTIAL_MATCH: %u of %u bytes right, %u bits flipped: "
			 "scattered corruption (media errors, a bad transfer or memory)",
			 r->matching_bytes, sector, r->bit_flips);
		break;
	case GUAC_DIAG_UNKNOWN:
	default:
		if (r->constant)
			snprintf(buf, size, "UNKNOWN: every byte is 0x%02x, not stream data%s",
				 r->constant_byte, r->search_complete ? "" :
				 " (misdirection search not exhaustive)");
		else
			snprintf(buf, size, "UNKNOWN: %.2f bits of entropy per byte (%s), not "
				 "from this pass%s", r->entropy,
				 r->entropy > 7.0 ? "random, encrypted or compressed" :
				 "structured: foreign data", r->search_complete ?
				 "" : " as far as searched (search not exhaustive)");
		break;
	}
	return buf;
}

void guac_diag_json(FILE *f, const struct guac_diag_result *r, unsigned int sector)
{
	fprintf(f, "{\"class\":\"%s\",\"stream_offset\":%" PRIu64 ",\"device_offset\":%"
		PRIu64 ",\"lba\":%" PRIu64, guac_diag_class_name(r->cls), r->stream_offset,
		r->device_offset, r->device_offset / sector);
	switch (r->cls) {
	case GUAC_DIAG_TORN:
		fprintf(f, ",\"head_ok\":%u,\"tail_ok\":%u,\"rest\":\"%s\"", r->head_ok,
			r->tail_ok, guac_diag_rest_name(r->rest));
		if (r->rest == GUAC_DIAG_REST_STALE)
			fprintf(f, ",\"found_origin\":%" PRIu64, r->found_origin);
		break;
	case GUAC_DIAG_STALE_ORIGIN:
		fprintf(f, ",\"found_origin\":%" PRIu64 ",\"found_stream_offset\":%" PRIu64
			",\"origin_source\":\"%s\"", r->found_origin, r->found_stream_offset,
			r->origin_source == GUAC_DIAG_ORIGIN_HISTORY ? "history" :
			r->origin_source == GUAC_DIAG_ORIGIN_NEAR ? "near" : "named");
		if (r->origin_source != GUAC_DIAG_ORIGIN_HISTORY)
			fprintf(f, ",\"near_origin\":%" PRIu64, r->near_origin);
		break;
	case GUAC_DIAG_MISDIRECTED:
	case GUAC_DIAG_WRAPPED:
		fprintf(f, ",\"found_stream_offset\":%" PRIu64 ",\"found_device_offset\":%" PRIu64
			",\"found_lba\":%" PRIu64 ",\"distance\":%" PRId64, r->found_stream_offset,
			r->found_device_offset, r->found_device_offset / sector, r->distance);
		if (r->cls == GUAC_DIAG_WRAPPED)
			fprintf(f, ",\"capacity\":%" PRIu64 ",\"capacity_max\":%" PRIu64,
				r->capacity, r->capacity_max);
		break;
	case GUAC_DIAG_PARTIAL_MATCH:
		fprintf(f, ",\"matching_bytes\":%u,\"bit_flips\":%u", r->matching_bytes,
			r->bit_flips);
		break;
	case GUAC_DIAG_UNKNOWN:
		fprintf(f, ",\"entropy\":%.3f,\"search_complete\":%s", r->entropy,
			r->search_complete ? "true" : "false");
		if (r->constant)
			fprintf(f, ",\"constant_byte\":%u", r->constant_byte);
		break;
	default:
		break;
	}
	fputc('}', f);
}

/* ---- incidents ---- */

static bool diag_random(const struct guac_diag_result *r)
{
	return r->entropy > 7.0;
}

/* Do @a and @b (the sector right after it, same class) share one explanation? */
static bool diag_same_cause(const struct guac_diag_incident *inc, const struct guac_diag_result *a,
			    const struct guac_diag_result *b)
{
	switch (a->cls) {
	case GUAC_DIAG_TORN:
		return a->head_ok == b->head_ok && a->tail_ok == b->tail_ok && a->rest == b->rest &&
		       a->found_origin == b->found_origin;
	case GUAC_DIAG_STALE_ORIGIN:
		/* One origin, one mapping of device to stream bytes, found the same way. */
		return a->found_origin == b->found_origin && a->origin_source == b->origin_source &&
		       a->near_origin == b->near_origin &&
		       a->found_stream_offset - a->device_offset ==
		       b->found_stream_offset - b->device_offset;
	case GUAC_DIAG_MISDIRECTED:
		return a->distance == b->distance;
	case GUAC_DIAG_WRAPPED:
		/* One capacity explains both: f3probe's one line for the whole wrap. */
		return (inc->capacity > b->capacity ? inc->capacity : b->capacity) <=
		       (inc->capacity_max < b->capacity_max ? inc->capacity_max : b->capacity_max);
	case GUAC_DIAG_UNKNOWN:
		return a->constant == b->constant && a->search_complete == b->search_complete &&
		       (a->constant ? a->constant_byte == b->constant_byte :
			diag_random(a) == diag_random(b));
	default:
		return true;	/* zeros, ones, scattered damage: the class says it all */
	}
}

static void diag_incident_start(struct guac_diag_incident *inc, const struct guac_diag_result *r,
				size_t i)
{
	memset(inc, 0, sizeof(*inc));
	inc->first = i;
	inc->device_offset = r->device_offset;
	inc->capacity = r->capacity;
	inc->capacity_max = r->capacity_max;
	inc->entropy_min = inc->entropy_max = r->entropy;
}

/* Add @r, the sector after the incident's last, to it. */
static void diag_incident_take(struct guac_diag_incident *inc, const struct guac_diag_result *r,
			       unsigned int sector)
{
	inc->length += sector;
	if (r->capacity > inc->capacity)
		inc->capacity = r->capacity;
	if (r->capacity_max < inc->capacity_max)
		inc->capacity_max = r->capacity_max;
	inc->matching_bytes += r->matching_bytes;
	inc->bit_flips += r->bit_flips;
	if (r->entropy < inc->entropy_min)
		inc->entropy_min = r->entropy;
	if (r->entropy > inc->entropy_max)
		inc->entropy_max = r->entropy;
}

size_t guac_diag_incidents(const struct guac_diag_result *results, size_t n, unsigned int sector,
			   struct guac_diag_incident *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct guac_diag_result *r = &results[i];
		struct guac_diag_incident *cur = k ? &out[k - 1] : NULL;
		const struct guac_diag_result *last = cur ? &results[cur->first + cur->count - 1] : NULL;

		if (!cur || r->device_offset != last->device_offset + sector || r->cls != last->cls ||
		    !diag_same_cause(cur, last, r)) {
			cur = &out[k++];
			diag_incident_start(cur, r, i);
		}
		diag_incident_take(cur, r, sector);
		cur->count++;
	}
	return k;
}

/* What the explanation of @last says the sector after it holds, in @buf; false: none. */
static bool diag_predict(const struct guac_diag_config *cfg, const struct guac_diag_result *last,
			 int64_t distance, uint8_t *buf, struct guac_diag_result *next)
{
	uint64_t dev = last->device_offset + cfg->sector;
	struct guac_diag_pass p = cfg->pass;

	*next = *last;
	next->device_offset = dev;
	next->stream_offset = last->stream_offset + cfg->sector;
	if (last->cls == GUAC_DIAG_STALE_ORIGIN) {
		/* The same origin and mapping: the stream offset moves with the place. */
		p.origin = last->found_origin;
		p.stream_offset = last->found_stream_offset;
		next->found_stream_offset = last->found_stream_offset + cfg->sector;
		next->found_device_offset = dev;
		diag_pass_fill(cfg, &p, buf, next->found_stream_offset, cfg->sector);
		return true;
	}
	if (last->cls != GUAC_DIAG_MISDIRECTED && last->cls != GUAC_DIAG_WRAPPED)
		return false;
	if (!distance)
		return false;	/* its own data: not a copy */
	next->distance = distance;
	next->found_device_offset = dev + (uint64_t)distance;
	next->found_stream_offset = next->stream_offset + (uint64_t)distance;
	if (p.length && next->found_device_offset - p.device_offset >= p.length)
		return false;	/* outside the pass: nothing of it to hold */
	diag_pass_fill(cfg, &p, buf, next->found_stream_offset, cfg->sector);
	return true;
}

bool guac_diag_continues(const struct guac_diag_config *cfg, struct guac_diag_incident *inc,
			 const struct guac_diag_result *last, const uint8_t *data, uint8_t *scratch,
			 struct guac_diag_result *next)
{
	/* A wrap moves on to the next alias, one capacity nearer, at a capacity boundary. */
	int64_t tries[2] = { last->distance, last->distance - (int64_t)inc->capacity };
	int t, ntries = last->cls == GUAC_DIAG_WRAPPED ? 2 : 1;

	/* The pass's own data there: the sector is good, the incident over. */
	diag_pass_fill(cfg, &cfg->pass, scratch, last->stream_offset + cfg->sector, cfg->sector);
	if (!memcmp(scratch, data, cfg->sector))
		return false;
	for (t = 0; t < ntries; t++) {
		if (!diag_predict(cfg, last, tries[t], scratch, next) ||
		    memcmp(scratch, data, cfg->sector))
			continue;
		if (next->cls == GUAC_DIAG_WRAPPED) {
			uint64_t d = next->distance < 0 ? -(uint64_t)next->distance :
				     (uint64_t)next->distance;

			if ((d & -d) < inc->capacity)
				return false;	/* no longer one capacity for the whole run */
			if ((d & -d) < inc->capacity_max)
				inc->capacity_max = d & -d;
			next->capacity = inc->capacity;
			next->capacity_max = d & -d;
		}
		inc->extended++;
		inc->length += cfg->sector;
		return true;
	}
	return false;
}

/* STALE_ORIGIN for a run of @sectors, stream offsets r's to @last_soff: where its origin came from. */
static void diag_stale_describe(const struct guac_diag_result *r, uint64_t sectors,
				uint64_t last_soff, char *buf, size_t size)
{
	unsigned long long n = sectors, o = r->found_origin, a = r->found_stream_offset;
	unsigned long long b = last_soff, near = r->near_origin;
	char found[96] = "";

	if (r->origin_source == GUAC_DIAG_ORIGIN_HISTORY) {
		snprintf(buf, size, "STALE_ORIGIN: %llu sectors hold their places' data from the "
			 "earlier pass with origin %llu (stream offsets %llu-%llu): the latest "
			 "writes were lost", n, o, a, b);
		return;
	}
	if (r->origin_source == GUAC_DIAG_ORIGIN_NEAR)
		snprintf(found, sizeof(found), ": found by the origin search near origin %llu", near);
	snprintf(buf, size, "STALE_ORIGIN: %llu sectors hold their places' data from %s with "
		 "origin %llu%s (stream offsets %llu-%llu), not in the manifest's history%s: if "
		 "that pass came before this fill, this fill's writes were lost; if after, it "
		 "wrote here since", n, r->origin_source == GUAC_DIAG_ORIGIN_NEAR ? "a pass" :
		 "the pass", o, r->origin_source == GUAC_DIAG_ORIGIN_NEAR ? "" :
		 " among the past origins given", a, b, found);
}

/* A run's line for the classes whose numbers change from sector to sector. */
static void diag_run_describe(const struct guac_diag_incident *inc, const struct guac_diag_result *r,
			      unsigned int sector, char *buf, size_t size)
{
	uint64_t n = inc->length / sector, last = n - 1;
	unsigned long long dist = diag_abs(r->distance);
	char cap[32];

	switch (r->cls) {
	case GUAC_DIAG_STALE_ORIGIN:
		diag_stale_describe(r, n, r->found_stream_offset + n * sector - 1, buf, size);
		break;
	case GUAC_DIAG_MISDIRECTED:
		snprintf(buf, size, "MISDIRECTED: %llu sectors hold stream offsets %llu-%llu, meant "
			 "for LBAs %llu-%llu (bytes %llu-%llu), %llu sectors %s: a misdirected "
			 "write landed here, and these sectors' own writes were lost",
			 (unsigned long long)n, (unsigned long long)r->found_stream_offset,
			 (unsigned long long)(r->found_stream_offset + n * sector - 1),
			 (unsigned long long)(r->found_device_offset / sector),
			 (unsigned long long)(r->found_device_offset / sector + last),
			 (unsigned long long)r->found_device_offset,
			 (unsigned long long)(r->found_device_offset + n * sector - 1), dist / sector,
			 diag_direction(r->distance));
		break;
	case GUAC_DIAG_WRAPPED:
		guac_fmt_bytes(cap, sizeof(cap), (double)inc->capacity);
		snprintf(buf, size, "WRAPPED: %llu sectors hold the data of places a multiple of "
			 "%llu bytes away (the first, that of LBA %llu, %llu bytes %s): addresses "
			 "wrap, the real capacity looks like %llu bytes (%s): a fake-capacity device",
			 (unsigned long long)n, (unsigned long long)inc->capacity,
			 (unsigned long long)(r->found_device_offset / sector), dist,
			 diag_direction(r->distance), (unsigned long long)inc->capacity, cap);
		break;
	case GUAC_DIAG_PARTIAL_MATCH:
		snprintf(buf, size, "PARTIAL_MATCH: %llu of their %llu bytes right, %llu bits "
			 "flipped: scattered corruption (media errors, a bad transfer or memory)",
			 (unsigned long long)inc->matching_bytes,
			 (unsigned long long)inc->count * sector, (unsigned long long)inc->bit_flips);
		break;
	default:	/* UNKNOWN, not constant */
		snprintf(buf, size, "UNKNOWN: %.2f to %.2f bits of entropy per byte (%s), not "
			 "from this pass%s", inc->entropy_min, inc->entropy_max,
			 diag_random(r) ? "random, encrypted or compressed" :
			 "structured: foreign data", r->search_complete ? "" :
			 " as far as searched (search not exhaustive)");
		break;
	}
}

const char *guac_diag_describe_incident(const struct guac_diag_incident *inc,
					const struct guac_diag_result *results,
					unsigned int sector, char *buf, size_t size)
{
	const struct guac_diag_result *r = &results[inc->first];

	/* One sector, or a run that every sector of says alike: the sector's own words. */
	if (inc->length == sector || r->cls == GUAC_DIAG_ALL_ZERO || r->cls == GUAC_DIAG_ALL_ONES ||
	    r->cls == GUAC_DIAG_TORN || r->cls == GUAC_DIAG_OK ||
	    (r->cls == GUAC_DIAG_UNKNOWN && r->constant))
		return guac_diag_describe(r, sector, buf, size);
	diag_run_describe(inc, r, sector, buf, size);
	return buf;
}

void guac_diag_incident_json(FILE *f, const struct guac_diag_incident *inc,
			     const struct guac_diag_result *results, unsigned int sector)
{
	const struct guac_diag_result *r = &results[inc->first];

	fprintf(f, "{\"class\":\"%s\",\"byte\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"lba\":%" PRIu64
		",\"last_lba\":%" PRIu64 ",\"sectors\":%" PRIu64 ",\"diagnosed\":%zu"
		",\"extended\":%" PRIu64, guac_diag_class_name(r->cls), inc->device_offset,
		inc->length, inc->device_offset / sector,
		(inc->device_offset + inc->length) / sector - 1, inc->length / sector, inc->count,
		inc->extended);
	if (r->cls == GUAC_DIAG_WRAPPED)
		fprintf(f, ",\"capacity\":%" PRIu64 ",\"capacity_max\":%" PRIu64, inc->capacity,
			inc->capacity_max);
	if (r->cls == GUAC_DIAG_PARTIAL_MATCH)
		fprintf(f, ",\"matching_bytes\":%" PRIu64 ",\"bit_flips\":%" PRIu64,
			inc->matching_bytes, inc->bit_flips);
	fprintf(f, ",\"first\":");
	guac_diag_json(f, r, sector);
	fputc('}', f);
}
