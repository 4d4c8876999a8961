/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Diagnosis of bad sectors: when a sector does not hold the stream bytes it
 * should, say what it holds instead. Because the stream is deterministic and
 * seekable, "what else could this be" is a question we can answer by
 * regenerating candidates: zeros or ones (a sector never written, or
 * trimmed), a torn write (head or tail right), an earlier pass's data at the
 * same place (a lost write: stale data), another sector of this pass (a
 * misdirected write), another sector a power of two away (a fake-capacity
 * drive whose addresses wrap), or nothing we know (random or foreign data).
 *
 * docs/diagnosis.md explains each class to a storage engineer, and how the
 * misdirection search works and what it costs.
 *
 * Usage, from guac verify:
 *
 *	struct guac_diag_config cfg;
 *	struct guac_diag_pass pass = { .origin = O, .stream_offset = S,
 *				       .device_offset = D, .length = L };
 *
 *	guac_diag_config_init(&cfg, impl, sector, &pass);
 *	cfg.history = earlier_passes;	// optional: the manifest's history
 *	cfg.nhistory = n;
 *	// collect the bad sectors (stream offset + the bytes read), then, once:
 *	guac_diag_run(&cfg, sectors, nsectors, results, &search);
 *	for each i: guac_diag_describe(&results[i], line, sizeof(line));
 *
 * or let a guac_diag_batch collect them (copies, thread-safe, capped):
 * guac_diag_batch_new(), guac_diag_batch_add() per bad sector from the
 * workers, guac_diag_batch_run() once at the end, guac_diag_batch_result().
 *
 * Diagnose bad sectors in one batch when you can: the misdirection search
 * sweeps the pass range once for the whole batch, so its cost is the same
 * for 1 sector or 10,000. Each call is independent and thread-safe (no global
 * state); the sector data is only read during the call.
 */
#ifndef GUAC_DIAG_H
#define GUAC_DIAG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libguac.h"
#include "permutation.h"

/*
 * One write pass over the target: stream bytes [stream_offset,
 * stream_offset + length) as seen from block @origin were written at device
 * (or file) bytes [device_offset, device_offset + length). Device byte d of
 * the pass holds stream byte stream_offset + (d - device_offset).
 *
 * For a history entry, length 0 means "extent unknown": the same mapping is
 * assumed everywhere. A history that only knows origins (all passes written
 * at stream offset = device offset) uses { .origin = O } with the rest 0.
 */
struct guac_diag_pass {
	uint64_t origin;
	uint64_t stream_offset;
	uint64_t device_offset;
	uint64_t length;
};

/*
 * One writer's part of a pass: written in address order by one job; or, in a
 * permuted pass (guac_diag_order), steps (device_offset - the pass's) /
 * block_size on, length / block_size of them, in step order.
 */
struct guac_diag_part {
	uint64_t device_offset;
	uint64_t length;
};

/*
 * A pass written in a permuted order (guac write --pattern random): its block
 * b (@block_size bytes each from the pass's device offset) was written at
 * step guac_unpermute(@perm, b) of its writer's part.
 */
struct guac_diag_order {
	const struct guac_permutation *perm;
	uint64_t block_size;
};

enum guac_diag_class {
	GUAC_DIAG_OK,		/* the sector matches after all (nothing to say) */
	GUAC_DIAG_ALL_ZERO,	/* every byte 0x00 */
	GUAC_DIAG_ALL_ONES,	/* every byte 0xff */
	GUAC_DIAG_TORN,		/* head and/or tail right, the rest something else */
	GUAC_DIAG_STALE_ORIGIN,	/* this very place, under an earlier pass's origin */
	GUAC_DIAG_MISDIRECTED,	/* another sector of this pass, same origin */
	GUAC_DIAG_WRAPPED,	/* another sector a power-of-two multiple away */
	GUAC_DIAG_PARTIAL_MATCH, /* most bytes right in place: scattered damage */
	GUAC_DIAG_UNKNOWN,	/* none of the above (see entropy, search) */
	GUAC_DIAG_CLASS_COUNT
};

/* What the wrong part of a TORN sector holds. */
enum guac_diag_rest {
	GUAC_DIAG_REST_ZEROS,
	GUAC_DIAG_REST_ONES,
	GUAC_DIAG_REST_STALE,	/* an earlier pass's data: found_origin names it */
	GUAC_DIAG_REST_OTHER,	/* none of those */
	GUAC_DIAG_REST_COUNT
};

/* One bad sector to diagnose. */
struct guac_diag_sector {
	uint64_t stream_offset;	/* what the sector should hold, in the pass's stream */
	const uint8_t *data;	/* the @sector bytes actually read */
};

struct guac_diag_result {
	enum guac_diag_class cls;
	uint64_t stream_offset;		/* the expected stream offset (input) */
	uint64_t device_offset;		/* where the sector is: pass mapping of the above */

	/* TORN: bytes right at the head and at the tail (exact, byte granularity). */
	uint32_t head_ok, tail_ok;
	enum guac_diag_rest rest;	/* TORN: what the wrong middle holds */

	/* STALE_ORIGIN, and TORN with rest == STALE: the pass the data came from. */
	uint64_t found_origin;
	/*
	 * STALE_ORIGIN: where found_origin came from: a pass of the manifest's
	 * history; the origin search, near a known origin (near_origin, whose
	 * mapping of device to stream bytes it assumes); or the user, who named
	 * it (--origins N: a history pass of cfg's last nhistory_named) or a
	 * range holding it (--origins A-B: the origin search, with the pass's
	 * mapping).
	 */
	enum guac_diag_origin_source {
		GUAC_DIAG_ORIGIN_HISTORY,
		GUAC_DIAG_ORIGIN_NEAR,
		GUAC_DIAG_ORIGIN_NAMED,
	} origin_source;
	uint64_t near_origin;

	/*
	 * STALE_ORIGIN, MISDIRECTED, WRAPPED: the stream offset the sector holds,
	 * and the device byte that data was meant for (found_device_offset /
	 * sector is its LBA); distance = found_device_offset - device_offset.
	 */
	uint64_t found_stream_offset;
	uint64_t found_device_offset;
	int64_t distance;

	/*
	 * WRAPPED: the apparent real capacity in bytes (a power of two): the
	 * smallest one consistent with this sector (see docs/diagnosis.md);
	 * capacity_max the largest (the power of two dividing the distance).
	 */
	uint64_t capacity, capacity_max;

	/* PARTIAL_MATCH and TORN: bytes equal to the expected ones, anywhere. */
	uint32_t matching_bytes;
	uint32_t bit_flips;		/* PARTIAL_MATCH: bits that differ */

	/* UNKNOWN: Shannon entropy of the byte histogram, 0..8 bits per byte. */
	double entropy;
	bool constant;			/* UNKNOWN: every byte is constant_byte */
	uint8_t constant_byte;

	/*
	 * UNKNOWN: false if the misdirection search stopped at its bound before
	 * covering the pass range, so "unknown" means "not found so far".
	 */
	bool search_complete;
};

/* What the misdirection sweep did, for the whole batch. */
struct guac_diag_search {
	uint64_t sectors_searched;	/* bad sectors still unexplained before the sweep */
	uint64_t range_bytes;		/* bytes of pass range the sweep had to cover */
	uint64_t swept_bytes;		/* bytes of pass range it covered */
	uint64_t candidates;		/* first-block hits checked in full */
	bool exhaustive;		/* the whole range swept, or every sector found */
	bool stopped_by_time;		/* else, if not exhaustive, by max_bytes */
	bool interrupted;		/* or by *@stop (Ctrl-C): not exhaustive */
	double seconds;			/* wall time of the sweep */

	/*
	 * The origin search, after the sweep, for the sectors still unknown:
	 * origins within origin_radius of each known one (the pass's and each
	 * history pass's, with its mapping) and the ranges named by the user.
	 */
	uint64_t origin_sectors;	/* sectors it was given */
	uint64_t origin_windows;	/* origin intervals searched */
	uint64_t origin_blocks;		/* blocks generated (keys) */
	uint64_t origin_found;		/* sectors it explained */
	bool origin_exhaustive;		/* every window covered (or every sector found) */
	double origin_seconds;
};

#define GUAC_DIAG_DEFAULT_MAX_BYTES (64ULL << 40)	/* 64 TiB of pass range */
#define GUAC_DIAG_DEFAULT_MAX_SECONDS 30.0
#define GUAC_DIAG_DEFAULT_WRAP_MIN (1ULL << 20)	/* smallest capacity called WRAPPED */
#define GUAC_DIAG_DEFAULT_ORIGIN_RADIUS 65536u	/* origins searched each side of a known one */
#define GUAC_DIAG_MAX_ORIGIN_SPAN (1ULL << 40)	/* widest origin range searched */

/* Origins lo ... hi (inclusive, lo <= hi), searched with the pass's mapping. */
struct guac_diag_origin_range {
	uint64_t lo, hi;
};

struct guac_diag_config {
	enum guac_impl impl;		/* generator; guac_impl_best() for speed */
	unsigned int sector;		/* bytes: a multiple of 64, 128 to 1 MiB */
	struct guac_diag_pass pass;	/* the pass being verified (expected origin) */
	const struct guac_diag_pass *history;	/* earlier passes, newest first */
	size_t nhistory;
	size_t nhistory_named;		/* the last ones of @history: named by the user */

	/*
	 * Bounds of the misdirection sweep: whichever comes first. It always
	 * starts with the cheap probes (power-of-two distances and the
	 * neighbourhood of each bad sector), then sweeps the pass range in order.
	 */
	uint64_t max_bytes;		/* of pass range; 0: probes only */
	double max_seconds;		/* <= 0: no time bound */
	unsigned int jobs;		/* sweep threads (default 1, at most 64) */
	uint64_t wrap_min;		/* WRAPPED needs a capacity at least this */
	/*
	 * The pass's writers' parts (guac write --jobs: the manifest's ranges).
	 * A place wrapping onto another holds the last write to the two, so
	 * the place whose data is read had no alias written after it in its
	 * part: the capacity is at least the rest of that part. NULL: one
	 * writer, the whole pass in address order.
	 */
	const struct guac_diag_part *parts;
	size_t nparts;
	const struct guac_diag_order *order;	/* NULL: the parts' address order */
	/*
	 * The origin search: origins within @origin_radius of the pass's and of
	 * each history pass's (0: none), and the ranges the user named. It
	 * shares @max_seconds with the sweep (each gets the full bound).
	 */
	uint64_t origin_radius;
	const struct guac_diag_origin_range *origin_ranges;
	size_t norigin_ranges;
	/*
	 * Set (by a signal handler) to end the sweep at once, so that Ctrl-C
	 * gets the report without waiting out max_seconds; NULL: never.
	 */
	atomic_bool *stop;
};

/* Defaults for everything but @impl, @sector and the pass (copied). */
void guac_diag_config_init(struct guac_diag_config *cfg, enum guac_impl impl,
			   unsigned int sector, const struct guac_diag_pass *pass);

/*
 * Diagnose @n sectors into @results[0..n). @search (may be NULL) gets what the
 * misdirection sweep did. Returns 0, -EINVAL for a bad config (sector size),
 * or -ENOMEM.
 */
int guac_diag_run(const struct guac_diag_config *cfg, const struct guac_diag_sector *sectors,
		  size_t n, struct guac_diag_result *results, struct guac_diag_search *search);

/*
 * The local checks alone, for one bad sector whose expected bytes the caller
 * already has: @got, the @cfg->sector bytes read, should have been @want,
 * stream offset @stream_offset of the pass. Decides ALL_ZERO, ALL_ONES,
 * STALE_ORIGIN (each history pass covering the place: 64 bytes generated
 * first, the whole sector only when they match), TORN, PARTIAL_MATCH (or OK)
 * into @r and returns true; returns false, with @r->cls UNKNOWN and no
 * entropy, when only the misdirection search can say more. No allocation and
 * no sweep: guac verify calls it for every bad sector as it finds it.
 * @scratch holds @cfg->sector bytes. Thread-safe.
 */
bool guac_diag_local(const struct guac_diag_config *cfg, uint64_t stream_offset,
		     const uint8_t *got, const uint8_t *want, uint8_t *scratch,
		     struct guac_diag_result *r);

/*
 * A batch that collects bad sectors as verify finds them (from any thread,
 * in any order: it copies the bytes), then diagnoses them all with one
 * sweep. It keeps at most @max_sectors; later ones are only counted.
 * @cfg is copied, but its history array must outlive the batch.
 */
struct guac_diag_batch;

struct guac_diag_batch *guac_diag_batch_new(const struct guac_diag_config *cfg,
					    size_t max_sectors);
/* False if the batch was full (the sector is counted in dropped). */
bool guac_diag_batch_add(struct guac_diag_batch *b, uint64_t stream_offset, const uint8_t *data);
/* Diagnose what was added, sorted by stream offset; as guac_diag_run(). */
int guac_diag_batch_run(struct guac_diag_batch *b, struct guac_diag_search *search);
size_t guac_diag_batch_count(const struct guac_diag_batch *b);
uint64_t guac_diag_batch_dropped(const struct guac_diag_batch *b);
/* Result @i (< count) of the last run, in stream offset order. */
const struct guac_diag_result *guac_diag_batch_result(const struct guac_diag_batch *b, size_t i);
void guac_diag_batch_free(struct guac_diag_batch *b);

/* "ALL_ZERO", "TORN", ...: stable names, also used in JSON. */
const char *guac_diag_class_name(enum guac_diag_class cls);
const char *guac_diag_rest_name(enum guac_diag_rest rest);

/*
 * One line (no newline) saying what the sector holds and what that suggests,
 * e.g. "MISDIRECTED: holds stream offset 1048576, meant for LBA 256 (byte
 * 1048576), 248 sectors later: a misdirected write landed here, and this
 * sector's own write was lost". Returns @buf, truncated to @size.
 */
const char *guac_diag_describe(const struct guac_diag_result *r, unsigned int sector,
			       char *buf, size_t size);

/* The result as one JSON object: {"class":"TORN","head_ok":512,...}. */
void guac_diag_json(FILE *f, const struct guac_diag_result *r, unsigned int sector);

/*
 * An incident: a run of bad sectors, adjacent in device order, with one class
 * and one explanation (the same copy distance, the same stale origin and
 * mapping, a capacity every sector of a wrap fits, the same head and tail of
 * a torn write, ...): what one failure did. Reports print a line for each,
 * never one per sector (issue 36, U6).
 */
struct guac_diag_incident {
	size_t first, count;		/* results[first, first + count): those diagnosed */
	uint64_t extended;		/* sectors after them found to continue it */
	uint64_t device_offset, length;	/* its bytes, the extended sectors included */
	uint64_t capacity, capacity_max;	/* WRAPPED: the range every sector fits */
	uint64_t matching_bytes, bit_flips;	/* PARTIAL_MATCH: over the diagnosed sectors */
	double entropy_min, entropy_max;	/* UNKNOWN, not constant */
};

/*
 * Group @n results (in device order, as guac_diag_batch_run() and verify
 * give them) into incidents at @out[0..return) (at most n).
 */
size_t guac_diag_incidents(const struct guac_diag_result *results, size_t n, unsigned int sector,
			   struct guac_diag_incident *out);

/*
 * Does the sector right after @last, the last sector of @inc, continue it?
 * @data is that sector's bytes; the check regenerates what the explanation
 * says it holds (the same copy distance, or for WRAPPED the next alias one
 * capacity nearer; the same stale origin and mapping) and compares it in
 * full, so an extension is never a guess. Only for the classes the search
 * gives (MISDIRECTED, WRAPPED, STALE_ORIGIN), whose sectors past its bound
 * are otherwise left OTHER. True: @next is its result, @inc is extended.
 * @scratch holds @cfg->sector bytes.
 */
bool guac_diag_continues(const struct guac_diag_config *cfg, struct guac_diag_incident *inc,
			 const struct guac_diag_result *last, const uint8_t *data, uint8_t *scratch,
			 struct guac_diag_result *next);

/*
 * One line (no newline, no position) for incident @inc of @results: a single
 * sector's is guac_diag_describe()'s; a run's names its ranges and counts,
 * e.g. "MISDIRECTED: hold stream offsets A-B, meant for LBAs C-D (...), 2000
 * sectors later: a misdirected write of 256 sectors landed here, ...".
 */
const char *guac_diag_describe_incident(const struct guac_diag_incident *inc,
					const struct guac_diag_result *results,
					unsigned int sector, char *buf, size_t size);

/* The incident as one JSON object, with its first sector's result under "first". */
void guac_diag_incident_json(FILE *f, const struct guac_diag_incident *inc,
			     const struct guac_diag_result *results, unsigned int sector);

#endif /* GUAC_DIAG_H */
