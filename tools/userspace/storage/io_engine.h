/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The I/O engine shared by guac write and guac verify: it splits a byte range
 * of a target (target.h: a regular file, a block device, or for verify a
 * pipe) into contiguous parts, one per thread, and moves the data with
 * pwrite/pread loops that handle short transfers, EINTR and (for reads) EIO
 * sector by sector. The commands only fill or check buffers.
 *
 * Per job (files and block devices; a pipe keeps one thread), a second
 * thread fills the next block while the job's thread finishes the current
 * one: for a write it generates the block (produce) ahead of the pwrite, for
 * a check it reads the block ahead of the comparison. consume, unreadable and
 * the sector-by-sector retry of a failed read stay on the job's thread, in
 * position order, one block after another, so the hooks see what they would
 * see with one thread. Two buffers a job.
 *
 * A write with a queue depth (guac_io.iodepth > 1) runs each job on one
 * thread instead, with up to iodepth writes in flight through an io_uring of
 * its own, one buffer each (io_uring.c).
 *
 * A check that gives a check hook (verify) runs each job as twins instead:
 * two threads that each read and check whole blocks of their own, at once,
 * and end them in position order, so the hooks still see one block after
 * another (io_engine.c).
 *
 * Positions: "device offsets" are byte positions in the target; a run covers
 * [base, base + length) of it. Jobs are handed positions relative to @base.
 */
#ifndef GUAC_IO_ENGINE_H
#define GUAC_IO_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "target.h"

#define GUAC_IO_MAX_JOBS 256
#define GUAC_IO_DEFAULT_BS (1u << 20)
#define GUAC_IO_MAX_BS (64u << 20)
#define GUAC_IO_ALIGN 4096u		/* buffer alignment that suits O_DIRECT everywhere */

/* Injectable system calls: tests replace them to produce EIO or short I/O. */
struct guac_io_ops {
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, off_t off);
	ssize_t (*read)(int fd, void *buf, size_t len);
};
extern struct guac_io_ops guac_io_sys;

struct guac_io;
struct guac_io_backlog;

/*
 * Progress on standard error: none; a line redrawn in place
 * twice a second (a terminal); or whole lines, every @interval seconds, for
 * a log that is read later (a batch job's output file).
 */
enum guac_progress_mode { GUAC_PROGRESS_NONE, GUAC_PROGRESS_TTY, GUAC_PROGRESS_LOG };

#define GUAC_PROGRESS_LOG_SECONDS 30.0	/* --progress-interval's default */

/*
 * A command's progress, over all its engine runs (verify runs one a
 * segment): set by the command, kept by the engine, printed by
 * guac_io_run's own thread alone.
 */
struct guac_progress {
	enum guac_progress_mode mode;
	double interval;		/* log: seconds between lines */
	const char *label;		/* "write" or "verify" */
	const char *target;		/* named in log lines */
	/*
	 * Optional: more for the line ("3 bad sectors, 0 unreadable"), called
	 * on the printing thread while the jobs run; what it reads of theirs
	 * must be atomic.
	 */
	void (*note)(void *arg, char *buf, size_t size);
	void *note_arg;

	/* Kept by the engine. */
	double start, next;		/* the first run's start; when the next log line is due */
	uint64_t start_done;		/* bytes done at @start: done before, not in the rate */
	uint64_t done, total;		/* at the latest run's end, for the last line */
	double end;
	bool unbounded;			/* a stream of no known length */
	unsigned long lines;		/* log lines printed */
};

/* Progress's default: a line redrawn in place on a terminal, else log lines. */
enum guac_progress_mode guac_progress_auto(void);

/* The last log line ("ended"), when the command printed any: short runs stay quiet. */
void guac_progress_finish(struct guac_progress *p);

/* One thread's contiguous part of the run. */
struct guac_io_job {
	struct guac_io *io;
	unsigned int index;
	uint64_t start, end;		/* run positions [start, end) */
	uint64_t resume;		/* bytes of the part already done before this run */
	_Atomic uint64_t done;		/* bytes done, @resume included */
	/*
	 * With guac_io.flush (a crash-safe write): a block is issued only if
	 * it starts below @limit (relative to @start, as @done), which the
	 * flush moves on.
	 */
	_Atomic uint64_t limit;
	int error;			/* first fatal errno (write: ENOSPC, EIO...) */
	uint64_t error_pos;		/* run position of that error */
	void *priv;			/* the command's per-job state */
	/*
	 * Writes with a backlog (guac_io.backlog): what the job read back and
	 * compared, over all its runs, and its first mismatch: the run
	 * positions of the block where it landed, and of its first differing
	 * byte. Its thread's alone while it runs.
	 */
	uint64_t read_back_blocks, read_back_bytes, mismatches;
	uint64_t mismatch_at, mismatch_len, mismatch_byte;
	bool mismatch_ended;		/* a mismatch ended the job (not backlog_continue) */
	struct guac_io_backlog *backlog;	/* the engine's: the blocks to read back */
};

/*
 * Hooks. produce fills @buf with the bytes for run position @pos (write;
 * on the job's generator thread, in order; with a backlog, also on the
 * job's own thread, for the read-back's comparison). consume checks @len bytes read
 * at @pos (verify). unreadable reports run positions [@pos, @pos + @len)
 * that gave @err even sector by sector. consume and unreadable run on the
 * job's own thread, in position order, and return how many of the @len
 * bytes they took (checked, or recorded as unreadable): fewer ends the job
 * there, and @done counts only what they took, so "done" never includes a
 * byte that nobody looked at.
 */
struct guac_io_hooks {
	void (*produce)(struct guac_io_job *job, uint8_t *buf, uint64_t pos, size_t len);
	size_t (*consume)(struct guac_io_job *job, const uint8_t *buf, uint64_t pos, size_t len);
	size_t (*unreadable)(struct guac_io_job *job, uint64_t pos, size_t len, int err);
	/*
	 * Optional (reads): whether the @len bytes read at @pos are ones
	 * consume would take whole without recording anything (verify: they
	 * match the stream). It keeps no state, so it runs on either of a
	 * job's two threads, in parallel, with @scratch (check_scratch bytes
	 * of the calling thread's own). With it, a job's two threads each read
	 * and check their own blocks (see io_engine.c); a block it passes is
	 * counted done in order without consume, any other goes to consume
	 * (or the retries) in order as always.
	 */
	bool (*check)(struct guac_io_job *job, const uint8_t *buf, uint64_t pos, size_t len,
		      uint8_t *scratch);
	/*
	 * Optional (writes): the run position where the block produced for run
	 * position @pos lands, for writes in another order than the positions'
	 * (guac write's random pattern: positions count steps of whole bs
	 * blocks, split so with guac_io_split(io, bs)). A block is then done
	 * whole or not at all, and error_pos is where it landed.
	 */
	uint64_t (*place)(struct guac_io_job *job, uint64_t pos);
	/*
	 * Optional (writes): the size of the writes the block produced for run
	 * position @pos goes out in (guac write --bs-split): one system call (or
	 * io_uring write) each, in order, each waiting its turn under the rate
	 * limit; the last one shorter where the block is. 0, or no hook: the
	 * whole block in one. A placed block is still done whole or not at all;
	 * an unplaced one's done may end between its writes.
	 */
	size_t (*piece)(struct guac_io_job *job, uint64_t pos);
};

/*
 * Verify while writing (guac write --verify-backlog, as fio's verify_backlog):
 * with @backlog blocks, a job reads each block it wrote back from where it
 * landed once @backlog more of its own are written after it (and the rest at
 * the end of each run, unless a stop came), and compares it with what
 * produce gives again for its position: produce must then be a pure function
 * of the position, as it runs on the job's thread too. Nothing is kept but
 * the blocks' positions. A mismatch is counted in the job; without
 * @backlog_continue it ends the job (@done cut to the bad block) and sets
 * @stop, so the other jobs end after their current block. The blocks are
 * read through @backlog_fd, the caller's: O_DIRECT (@backlog_direct, whole
 * GUAC_IO_ALIGN units read around the block) reads the medium, after the
 * kernel wrote the block's dirty pages back; a buffered one may get the
 * page cache's copy.
 */
#define GUAC_IO_MAX_BACKLOG (1u << 20)

struct guac_io {
	struct guac_target *target;
	bool write;
	uint64_t base;			/* device offset of run position 0 */
	uint64_t length;		/* bytes in the run; for a stream, UINT64_MAX if unbounded */
	size_t bs;			/* bytes per system call */
	unsigned int jobs;
	struct guac_io_hooks hooks;
	size_t check_scratch;		/* bytes of scratch each thread passes to check */
	const struct guac_io_ops *ops;	/* NULL: the real system calls */
	struct guac_progress *progress;	/* NULL: none */
	uint64_t progress_before;	/* bytes done outside this run's jobs (earlier runs) */
	uint64_t progress_total;	/* the command's whole work, or 0: this run's */
	uint64_t backlog;		/* writes: blocks between a write and its read-back; 0 off */
	bool backlog_continue;		/* a mismatch is counted, the job goes on */
	int backlog_fd;			/* the target, opened for the read-backs */
	bool backlog_direct;		/* with O_DIRECT */
	atomic_bool *stop;		/* set (e.g. by SIGINT) to end after the current block */
	/*
	 * Bytes a second over all jobs, 0 for no limit (guac write --rate, as
	 * fio's rate): each block's system call (each piece's, with a piece
	 * hook) waits for its turn (see guac_io_throttle in io_engine.c).
	 * Writes count their pwrites, reads their block reads; a write's
	 * read-backs (@backlog) are not counted.
	 */
	uint64_t rate;
	_Atomic int64_t rate_next_ns;	/* the engine's: CLOCK_MONOTONIC when the next block may go */
	/*
	 * Writes: 0 or 1, each job writes one block at a time with pwrite (and
	 * generates the next meanwhile, above); more, each job keeps up to
	 * @iodepth writes in flight through an io_uring of its own (io_uring.c),
	 * one buffer each. Not with a backlog. A job whose ring cannot be set up
	 * writes with pwrite, and @uring_error says why (the first such job's errno).
	 */
	unsigned int iodepth;
	_Atomic int uring_error;
	/*
	 * Optional: called on guac_io_run's own thread about every
	 * @checkpoint_seconds while the jobs run (a write records its durable
	 * bytes, so that a writer killed without a word, SIGKILL or a node lost,
	 * leaves a manifest --resume continues from). Not after a stop.
	 */
	void (*checkpoint)(struct guac_io *io, void *arg);
	void *checkpoint_arg;
	double checkpoint_seconds;
	/*
	 * Optional (a crash-safe write, journal.h): called on guac_io_run's own
	 * thread every @flush_seconds while the jobs run, and at once when a
	 * job waits at its limit (guac_io_job.limit), which it moves on. Not
	 * after a stop.
	 */
	void (*flush)(struct guac_io *io, void *arg);
	void *flush_arg;
	double flush_seconds;
	atomic_bool flush_wanted;	/* the engine's: a job waits at its limit */

	/* Filled by the engine. */
	struct guac_io_job job[GUAC_IO_MAX_JOBS];
	bool eof;			/* a file or stream ended before @length */
	uint64_t eof_pos;		/* run position of the end */
	bool interrupted;		/* @stop was seen before the end */
	int sync_error;			/* fsync's errno */
	double seconds;
};

/*
 * Split [0, @length) into @jobs contiguous parts, each a multiple of @sector
 * except the last; parts with nothing to do are dropped (jobs shrinks).
 * Resume offsets start at 0.
 */
void guac_io_split(struct guac_io *io, unsigned int sector);

/*
 * Run every job on its thread (one for a stream) and wait. Writes end with
 * fsync, whose failure lands in @sync_error. Once @stop is set, a stream's
 * reader waiting in read() is woken with SIGUSR2 (a handler that does nothing,
 * installed here without SA_RESTART), so a stalled pipe ends the job as
 * interrupted at once. Returns 0 or the errno of a thread that could not start.
 */
int guac_io_run(struct guac_io *io);

/*
 * Whether io_uring can write with @depth in flight here: 0, or the errno
 * that says why not (ENOSYS: no io_uring; EPERM: disabled by
 * /proc/sys/kernel/io_uring_disabled or a seccomp filter; EOPNOTSUPP: a
 * kernel before 5.6, without IORING_OP_WRITE). io_uring.c.
 */
/*
 * Wait for the turn of a block of @len bytes under @io's rate limit (none: at
 * once); false when a stop came meanwhile (the block is not to be sent).
 */
bool guac_io_throttle(struct guac_io *io, size_t len);

int guac_io_uring_probe(unsigned int depth);

/* Whether a block at run position @pos may be issued now (guac_io.flush's limits). */
bool guac_io_gate_open(struct guac_io_job *job, uint64_t pos);

/*
 * Wait until the block at run position @pos may be issued (asking for a
 * flush); false when a stop came meanwhile (the block is not to be sent).
 */
bool guac_io_gate_wait(struct guac_io_job *job, uint64_t pos);

/* The size of the writes @len bytes produced for run position @pos go out in: at most @len. */
size_t guac_io_piece(struct guac_io_job *job, uint64_t pos, size_t len);

/*
 * A write job's part through its own ring of io->iodepth (io_uring.c): 0
 * when it ran (job->done, error and error_pos as the pwrite path sets
 * them), else the errno that kept its ring or buffers from being set up,
 * with nothing written.
 */
int guac_io_uring_write(struct guac_io_job *job);

/* Bytes done over all jobs. */
uint64_t guac_io_done(const struct guac_io *io);

/*
 * Install a SIGINT/SIGTERM handler that sets *@stop and wakes guac_io_run
 * (which then wakes a stream's reader); only the third signal kills.
 */
void guac_io_catch_signals(atomic_bool *stop);

#endif /* GUAC_IO_ENGINE_H */
