/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The crash-safe fill's journal (guac write --crash-safe; docs/crash-safety.md):
 * what a check after a power loss needs to know what every sector may hold,
 * in 16 KiB whatever the size of the fill. The stream is a function of the
 * position and the fill's seed is recorded, so no data and no per-block key
 * is kept: only, for each job, how far its writes are known to be flushed
 * and how far it may have issued them.
 *
 * The protocol (journal.c): a job issues a write only below its limit
 * (guac_io_job.limit). Each record is written and fdatasync'd before the
 * jobs may go up to its limits, and the flushed marks it holds were taken
 * before an fdatasync of the target that came before it. So after a crash,
 * for the newest valid record of pass p (every pass before p was flushed
 * whole before p's first record), a block whose step is, in its job's part:
 *   below flushed:          must hold pass p's data;
 *   in [flushed, limit):    may hold pass p's data or the older;
 *   at or above limit:      must hold the older (pass p-1's, or for pass 0
 *                           what the device held before the fill).
 *
 * Two slots of 8 KiB, written in turn, each with its own CRC32C: a record
 * torn by the power loss leaves the other, whose limits the jobs never
 * passed (a limit is published only after its record's fdatasync).
 */
#ifndef GUAC_JOURNAL_H
#define GUAC_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "bs_split.h"
#include "io_engine.h"

#define GUAC_JOURNAL_SLOT 8192u
#define GUAC_JOURNAL_SIZE (2 * GUAC_JOURNAL_SLOT)
#define GUAC_JOURNAL_MAX_JOBS 128u
#define GUAC_JOURNAL_DEFAULT_WINDOW 64u	/* blocks a job may issue past its flushed mark */
#define GUAC_JOURNAL_DEFAULT_INTERVAL 1.0	/* seconds between records while writing */

/* What the record says of one job's part of the steps (run positions, bytes). */
struct guac_journal_part {
	uint64_t start, end;		/* the part: [start, end) */
	uint64_t flushed;		/* relative to start: written and flushed below */
	uint64_t limit;			/* relative to start: nothing issued at or above */
};

struct guac_journal_record {
	uint64_t seq;			/* the newest valid slot wins */
	uint64_t nonce;			/* drawn at the fill's start: one fill's records */
	/* The fill: enough to compute every byte it writes. */
	uint64_t origin;		/* the last pass's */
	uint64_t stream_offset;		/* the stream byte at device byte @seek */
	uint64_t seek, length;		/* device bytes [seek, seek + length) */
	uint64_t block_size;
	uint64_t seed, pass_stride;
	uint32_t random, passes;
	uint32_t sector;		/* the target's logical sector at the fill */
	uint32_t window;		/* blocks */
	/* The state. */
	uint32_t pass;			/* under way (passes before it are flushed whole) */
	uint32_t complete;		/* the fill ended whole and flushed */
	uint32_t jobs;
	struct guac_journal_part part[GUAC_JOURNAL_MAX_JOBS];
	/* --bs-split: each block's writes (bs_split.h), drawn by (seed or 0, pass, block). */
	struct guac_bs_split split;
	/* Not stored: where it was read from. */
	unsigned int slot;
};

/* The origin of pass @pass of the record's fill (the manifest's rule). */
uint64_t guac_journal_pass_origin(const struct guac_journal_record *r, unsigned int pass);

/*
 * The newest valid record of the journal at byte @at of @fd: 0, or ENOENT
 * when neither slot holds one, or the errno of the read.
 */
int guac_journal_read(int fd, uint64_t at, struct guac_journal_record *r);

/* Where a journal kept in a target of @size bytes starts: its last 16 KiB, 4 KiB aligned. */
uint64_t guac_journal_in_target(uint64_t size);

/*
 * A fill's journal while it writes. guac_journal_start() writes the first
 * record of the pass under way before any of its writes; the engine calls
 * guac_journal_flush (guac_io.flush) while the jobs run; guac_journal_end()
 * records how the pass ended after the engine's last fsync.
 */
struct guac_journal {
	int fd;				/* open for writing */
	uint64_t at;			/* the journal's first byte in it */
	struct guac_journal_record rec;
	uint8_t *buf;			/* one slot, aligned */
	int error;			/* the first failed write or sync of it (errno) */
	uint64_t records;		/* written by this fill */
};

/*
 * Begin the journal of @io's fill at @fd, byte @at (the caller's record
 * holds the fill's identity, @window and the parts are taken from @io):
 * every job's limit set, the record written and synced. 0 or an errno.
 */
int guac_journal_begin(struct guac_journal *j, struct guac_io *io, unsigned int pass);

/* The engine's flush (guac_io.flush): fdatasync the target, record, let the jobs on. */
void guac_journal_flush(struct guac_io *io, void *arg);

/* After the engine's run and its fsync: the pass's end, and with @complete the fill's. */
int guac_journal_end(struct guac_journal *j, struct guac_io *io, bool complete);

void guac_journal_release(struct guac_journal *j);

#endif /* GUAC_JOURNAL_H */
