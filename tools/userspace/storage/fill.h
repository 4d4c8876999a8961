/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A fill (fill.c): writing a range of the stream to a file or block device
 * and recording it in a manifest. guac_fill_plan() checks everything that can
 * be checked before the target is opened for writing, guac_fill_run() writes
 * and records. Neither words a refusal that the caller's options could
 * explain: they return a reason and the numbers to word it with (cmd/cmd_write.c
 * does). The state is the caller's struct guac_fill, zeroed before the plan.
 */
#ifndef GUAC_FILL_H
#define GUAC_FILL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>		/* manifest.h uses FILE without including it */
#include "identity.h"
#include "io_engine.h"
#include "journal.h"
#include "libguac.h"
#include "manifest.h"
#include "permutation.h"
#include "shard.h"
#include "target.h"
#include "target_probe.h"
#include "util.h"

/* The values of struct guac_fill_options the caller fixed, as a mask. */
enum guac_fill_fixed {
	GUAC_FILL_FIXED_ORIGIN = 1 << 0,
	GUAC_FILL_FIXED_OFFSET = 1 << 1,
	GUAC_FILL_FIXED_SEEK = 1 << 2,
	GUAC_FILL_FIXED_LENGTH = 1 << 3,
	GUAC_FILL_FIXED_BLOCK_SIZE = 1 << 4,
	GUAC_FILL_FIXED_PATTERN = 1 << 5,
	GUAC_FILL_FIXED_SEED = 1 << 6,
	GUAC_FILL_FIXED_PASSES = 1 << 7,
	GUAC_FILL_FIXED_BS_SPLIT = 1 << 8,
};

/* What a fill tells its caller while it runs, for the caller to word. */
enum guac_fill_note {
	GUAC_FILL_NOTE_NEW_FILL,	/* resuming, but no manifest yet: a new fill */
	GUAC_FILL_NOTE_RESUMING,	/* resuming the recorded fill (written before the jobs) */
};

struct guac_fill;

/* What is written where, in what pieces. */
struct guac_fill_shape {
	uint64_t origin;		/* the stream's block origin */
	uint64_t offset, seek;		/* the first byte's stream and device offsets */
	uint64_t length;		/* bytes */
	uint64_t block_size;		/* bytes a system call */
	uint64_t jobs;			/* threads, each with a contiguous part */
	/*
	 * The pattern (manifest.h): random writes the blocks of each of @passes
	 * passes in the order of a permutation of (@seed, pass); the passes'
	 * origins are @pass_stride stream blocks apart, the last being @origin.
	 */
	bool random;
	uint64_t seed;
	unsigned int passes;
	uint64_t pass_stride;		/* the plan's, or the recorded fill's */
	/*
	 * The sizes each block's writes are drawn from (bs_split.h; n 0: one
	 * write a block), by (@seed, the pass, the block's index in the fill):
	 * a sequential fill's seed is 0. A resume keeps the recorded one.
	 */
	struct guac_bs_split split;
};

struct guac_fill_options {
	const char *target;		/* a file (created if missing) or a block device */
	const char *manifest;		/* the record of the fill, or NULL */
	struct guac_fill_shape shape;
	/*
	 * enum guac_fill_field: the values above the caller fixed. The others
	 * default (a drawn origin, the rest of the target, 0, 0, 1 MiB), or
	 * when resuming are the recorded fill's.
	 */
	unsigned int fixed;
	enum guac_direct direct;
	bool sync;			/* O_DSYNC */
	bool resume;			/* continue the fill the manifest records */
	bool allow_overcommit;		/* no free-space check for a file */
	bool force;			/* an origin that aliases a recorded fill is written */
	struct guac_shard shard;
	const char *host, *run;		/* recorded in the manifest ("" none) */
	double checkpoint_seconds;	/* between progress records (0: none) */
	int impl;
	enum guac_progress_mode progress;
	double progress_interval;
	/*
	 * Verify while writing (io_engine.h): each job reads a block back once
	 * @verify_backlog more of its own blocks are written (0: never); a
	 * mismatch stops the fill, or with @backlog_continue is counted.
	 */
	uint64_t verify_backlog;
	bool backlog_continue;
	/*
	 * The fill's bytes a second over all jobs, 0 for no limit: the engine's
	 * (io_engine.h). Not part of the fill's identity: a resume may take
	 * another, and the manifest does not record it.
	 */
	uint64_t rate;
	/* Writes in flight a job (io_engine.h): 1 (or 0), pwrite; more, io_uring. */
	unsigned int iodepth;
	/*
	 * A crash-safe fill (journal.h): its journal at @journal (a file,
	 * created if missing, or a block device), or NULL in the target's
	 * last 16 KiB; a record at least every @flush_interval seconds; each
	 * job up to @crash_window blocks past its flushed mark.
	 */
	bool crash_safe;
	const char *journal;
	double flush_interval;
	unsigned int crash_window;
	/* Told each enum guac_fill_note as it happens (NULL: nothing told). */
	void (*note)(const struct guac_fill *f, enum guac_fill_note note, void *arg);
	void *note_arg;
};

/* Why a plan or a run stopped before any byte was written (OK: it did not). */
enum guac_fill_reason {
	GUAC_FILL_OK,
	GUAC_FILL_REFUSED_SAID,		/* a check refused and said why on stderr */
	GUAC_FILL_TOO_MANY_RANGES,	/* shards x jobs, beyond what a merge holds */
	GUAC_FILL_MANIFEST_INVALID,	/* the manifest exists and does not parse */
	GUAC_FILL_TARGET_UNUSABLE,	/* probe: no such device, a file in /dev, read-only */
	GUAC_FILL_NOT_FILE_OR_DEVICE,
	GUAC_FILL_TARGET_REFUSED,	/* the open: f->t.refused says why */
	GUAC_FILL_NOTHING_AFTER_SEEK,	/* no length, and the target ends before seek */
	GUAC_FILL_RANGE_OVERFLOWS,	/* seek + length past 2^64 */
	GUAC_FILL_PAST_DEVICE_END,
	GUAC_FILL_NOT_WHOLE_SECTORS,	/* O_DIRECT: seek, length and block size */
	GUAC_FILL_EMPTY,		/* length 0 */
	GUAC_FILL_TOO_MANY_SHARDS,	/* more shards than the length's sectors */
	GUAC_FILL_BLOCK_NOT_SECTORS,	/* block size not whole sectors */
	GUAC_FILL_BUFFERS_EXCEED_MEMORY,
	GUAC_FILL_PAST_LARGEST_OFFSET,	/* 2^63-1 */
	GUAC_FILL_PAST_LARGEST_FILE,	/* the file system's */
	GUAC_FILL_NO_SPACE,
	GUAC_FILL_MANIFEST_IS_TARGET,
	GUAC_FILL_NO_ABSOLUTE_PATH,
	GUAC_FILL_PATH_NOT_UTF8,
	GUAC_FILL_MANIFEST_DIR_UNWRITABLE,
	GUAC_FILL_OTHER_TARGET,		/* the manifest records another target's fill */
	GUAC_FILL_LOCKED,		/* another writer holds the bytes' lock */
	GUAC_FILL_ORIGIN_REFUSED,	/* refusal.origin says why, refusal.need the span */
	GUAC_FILL_RESUME_DIFFERS,	/* the recorded fill is another one */
	GUAC_FILL_RESUME_RANGES_DIFFER,	/* its ranges are not this fill's parts */
	GUAC_FILL_NOTHING_TO_RESUME,	/* the recorded fill is complete: success */
	GUAC_FILL_RANDOM_NOT_WHOLE_BLOCKS,	/* random: the length is not whole --bs blocks */
	GUAC_FILL_RANDOM_SHARDED,	/* random: a shard's blocks are not the fill's */
	GUAC_FILL_NO_SEED,		/* random: no randomness for a seed (errno) */
	GUAC_FILL_CRASH_SAFE_RESUME,	/* crash-safe: not a resume (the journal is one run's) */
	GUAC_FILL_CRASH_SAFE_SHARDED,	/* crash-safe: one writer of the fill */
	GUAC_FILL_CRASH_SAFE_JOBS,	/* crash-safe: more jobs than a record holds */
	GUAC_FILL_JOURNAL_IS_TARGET,	/* --journal names the target: the default */
	GUAC_FILL_JOURNAL_IS_MANIFEST,	/* --journal names the manifest */
	GUAC_FILL_JOURNAL_NO_ROOM,	/* the target's last 16 KiB: not past seek */
	GUAC_FILL_JOURNAL_OVERLAP,	/* the range covers the journal: refusal.start/end */
	GUAC_FILL_JOURNAL_UNUSABLE,	/* --journal cannot be opened (refusal.error) */
	GUAC_FILL_BS_SPLIT_INVALID,	/* refusal.split_problem, for entry split_entry */
};

/* The numbers a refusal is worded with; which hold a value depends on the reason. */
struct guac_fill_refusal {
	enum guac_fill_reason reason;
	uint64_t start, end;		/* device bytes [start, end) concerned */
	uint64_t need, have, avail;	/* bytes needed, held already, available */
	uint64_t jobs;			/* the jobs the buffers are for */
	int error;			/* errno */
	char dir[4096];			/* the manifest's directory */
	char why[512], which[512];	/* another target: how it differs, what this one is */
	struct guac_fill_diff mismatch;	/* RESUME_DIFFERS: what (manifest.h's rule) */
	enum guac_origin_refusal origin;	/* ORIGIN_REFUSED: why (identity.h) */
	enum guac_bs_split_problem split_problem;	/* BS_SPLIT_INVALID: why, which entry */
	unsigned int split_entry;
	struct guac_origin_clash clash;	/* and its numbers */
};

/* How a fill that ran ended, worst first. */
enum guac_fill_end {
	GUAC_FILL_COMPLETE,
	GUAC_FILL_IO_ERROR,		/* the target's I/O: EIO, ENOSPC, a failed fsync */
	GUAC_FILL_BAD_DATA,		/* a block read back (verify_backlog) differs */
	GUAC_FILL_FAILED,		/* this machine's (a thread, the manifest, a limit) */
	GUAC_FILL_JOURNAL_FAILED,	/* the crash-safe journal could not be written */
	GUAC_FILL_INTERRUPTED,
};

/* What a fill that ran did, for its report. */
struct guac_fill_outcome {
	struct guac_spos stream_start;	/* the stream position at the first device byte */
	uint64_t done, durable, total;	/* bytes of the fill written, durable, in all */
	uint64_t ran, resumed;		/* written by this run; durable before it (resumed) */
	int first_err;			/* the first job's errno, at device byte first_err_pos */
	uint64_t first_err_pos;
	int thread_err;
	int journal_err;		/* a crash-safe fill's journal write or sync (errno) */
	uint64_t journal_records;	/* written by this run */
	const char *lost;		/* the file lost bytes during the fill: why */
	char lost_why[256];		/* and where */
	bool durable_ok, failed, saved;
	/*
	 * verify_backlog: blocks and bytes read back and compared, those that
	 * differed, and the first (by its job's order, the lowest job first):
	 * the device bytes of its block, and its first differing byte.
	 */
	uint64_t read_back_blocks, read_back_bytes, mismatches;
	uint64_t mismatch_start, mismatch_len, mismatch_byte;
	enum guac_fill_end end;
};

/* fill.c's own: what each job's producer and the checkpoints need. */
struct guac_fill_stream {
	uint64_t origin;		/* a random fill: the pass's */
	struct guac_spos start;		/* the stream position at run position 0 */
	int impl;
	/* A random fill: the pass's order (run positions are steps of @bs bytes); else NULL. */
	const struct guac_permutation *perm;
	uint64_t bs;
	unsigned int pass;
	/* A split (shape.split): its sizes, the seed they are drawn with, the shard's first byte. */
	const struct guac_bs_split *split;
	uint64_t seed, shard_start;
};

struct guac_fill_checkpoint {
	struct guac_manifest *m;
	const char *path;
	uint64_t shard_start;
	bool sync;
	bool warned;
};

struct guac_fill {
	const struct guac_fill_options *o;
	/* The plan: the options resolved against the target and the recorded fill. */
	struct guac_fill_shape shape;
	unsigned int fixed;		/* enum guac_fill_field, after a resume took the rest */
	enum guac_direct direct;
	struct guac_target t;
	struct guac_probe probe;
	struct guac_manifest old;	/* the manifest's fill before this one */
	bool have_old;
	const struct guac_manifest *resume_of;	/* &old when resuming it on this target */
	char target_abs[sizeof(((struct guac_manifest *)0)->target_path)];
	uint64_t shard_start, shard_end;	/* this shard's part of [0, length) */
	bool existed;			/* the target before the open */
	struct guac_fill_refusal refusal;
	/*
	 * The run. @iodepth: the writes in flight a job, set by the caller
	 * between the plan and the run (o->iodepth, or 1 where io_uring cannot
	 * write: @uring_error's errno, or -1 when the caller turned it off).
	 */
	unsigned int iodepth;
	int uring_error;
	struct guac_manifest m;
	struct guac_io io;
	atomic_bool stop;
	struct guac_progress progress;
	struct guac_fill_stream stream;
	struct guac_permutation perm;	/* a random fill's pass */
	unsigned int pass;		/* the pass the jobs write (0 for a sequential fill) */
	struct guac_fill_checkpoint checkpoint;
	struct guac_journal journal;	/* a crash-safe fill's; journal.fd -1 without */
	uint64_t journal_at;		/* its first byte in its file or device */
	struct guac_fill_outcome out;
};

/*
 * Everything checked before the target is opened for writing, into @f
 * (zeroed by the caller) for @o, which must outlive @f: OK, or why not
 * (f->refusal's numbers). Nothing is created or written, except an empty
 * probe file beside a missing target, removed at once.
 */
/*
 * The --bs buffers a job of @o holds, as the plan's memory check counts
 * them (in pairs): two, twice as many with a read-back, and with a queue
 * depth above 2 as many pairs as half the depth, rounded up.
 */
uint64_t guac_fill_job_buffers(const struct guac_fill_options *o);

enum guac_fill_reason guac_fill_plan(struct guac_fill *f, const struct guac_fill_options *o);

/*
 * After a plan (and the caller's verdict on what the target holds): open,
 * lock and write. OK when the jobs ran (f->out says how it ended), else why
 * nothing was written (NOTHING_TO_RESUME: the recorded fill is complete).
 */
enum guac_fill_reason guac_fill_run(struct guac_fill *f);

/*
 * Whether the recorded fill @old is the fill @f plans on its open target
 * (manifest.h's GUAC_FILL_RESUME rule); @d says what differs where not.
 */
bool guac_fill_resume_same(const struct guac_fill *f, const struct guac_manifest *old,
			   struct guac_fill_diff *d);

#endif /* GUAC_FILL_H */
