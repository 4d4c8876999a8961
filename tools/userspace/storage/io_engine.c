// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The I/O engine of guac write and guac verify (io_engine.h). One thread per
 * contiguous part keeps each thread's I/O sequential, which is what disks
 * and their read-ahead like best, and lets a part's progress be one number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "io_engine.h"
#include "util.h"

#define GUAC_IO_PROGRESS_NS 500000000L	/* between progress lines */
#define GUAC_IO_WAKE_NS 10000000L	/* between wake-ups of a reader held in read() */
#define GUAC_IO_THROTTLE_SLICE_NS 50000000L	/* a job waiting for its rate looks at the stop flag */
#define GUAC_IO_THROTTLE_SLACK_NS 10000000L	/* late wake-ups' time the schedule takes back */
#define GUAC_IO_WAKE_SIGNAL SIGUSR2

/*
 * What a read returns instead of an errno when the stop flag ended it: a
 * read() that a wake-up signal interrupted (EINTR) once the stop was asked
 * for. Not an error: the job checks what it has and ends as interrupted.
 */
#define GUAC_IO_STOPPED (-1)

struct guac_io_ops guac_io_sys = { pread, pwrite, read };

void guac_io_split(struct guac_io *io, unsigned int sector)
{
	uint64_t sectors = (io->length + sector - 1) / sector, pos = 0;
	unsigned int i, n = 0;

	if (io->jobs < 1)
		io->jobs = 1;
	if (io->jobs > GUAC_IO_MAX_JOBS)
		io->jobs = GUAC_IO_MAX_JOBS;
	for (i = 0; i < io->jobs; i++) {
		/* Sector counts differ by at most one between parts. */
		uint64_t part = sectors / io->jobs + (i < sectors % io->jobs);
		uint64_t end = pos + part * sector;

		if (end > io->length)
			end = io->length;
		if (end == pos && n)
			continue;
		io->job[n] = (struct guac_io_job){ .io = io, .index = n, .start = pos, .end = end };
		n++;
		pos = end;
	}
	io->jobs = n;
}

static const struct guac_io_ops *guac_io_ops_of(const struct guac_io *io)
{
	return io->ops ? io->ops : &guac_io_sys;
}

/* Write all @len bytes at device offset @off; *@done says how many made it. */
static int guac_io_pwrite_all(const struct guac_io *io, const uint8_t *buf, size_t len,
			      uint64_t off, size_t *done)
{
	const struct guac_io_ops *ops = guac_io_ops_of(io);

	*done = 0;
	while (*done < len) {
		ssize_t n = ops->pwrite(io->target->fd, buf + *done, len - *done,
					(off_t)(off + *done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (!n)
			return ENOSPC;	/* no progress: the medium is full */
		*done += (size_t)n;
	}
	return 0;
}

/*
 * Read up to @len bytes at device offset @off; *@got < @len without error is
 * EOF. GUAC_IO_STOPPED: a stop ended a read that waited (a stalled pipe),
 * after *@got bytes.
 */
static int guac_io_pread_all(const struct guac_io *io, uint8_t *buf, size_t len,
			     uint64_t off, size_t *got)
{
	const struct guac_io_ops *ops = guac_io_ops_of(io);
	bool stream = io->target->kind == GUAC_TARGET_STREAM;

	*got = 0;
	while (*got < len) {
		ssize_t n = stream ? ops->read(io->target->fd, buf + *got, len - *got) :
			    ops->pread(io->target->fd, buf + *got, len - *got,
				       (off_t)(off + *got));

		if (n < 0 && errno == EINTR) {
			/* Woken to stop (guac_io_run), or a stray signal: retry. */
			if (io->stop && atomic_load(io->stop))
				return GUAC_IO_STOPPED;
			continue;
		}
		if (n < 0)
			return errno;
		if (!n)
			break;
		*got += (size_t)n;
		/* O_DIRECT reads that stop short mid-sector are the end of the file. */
		if (io->target->direct && *got % io->target->sector)
			break;
	}
	return 0;
}

/*
 * Read run positions [@pos, @pos + @len) into @buf. O_DIRECT needs sector
 * alignment, so direct reads take the enclosing sectors and *@data points
 * at the bytes asked for. Returns the errno, or GUAC_IO_STOPPED; *@got the
 * bytes obtained.
 */
static int guac_io_read_at(const struct guac_io *io, uint8_t *buf, uint64_t pos, size_t len,
			   const uint8_t **data, size_t *got)
{
	uint64_t dev = io->base + pos, a0 = dev, a1 = dev + len;
	size_t agot;
	int err;

	if (io->target->direct) {
		a0 = dev / io->target->sector * io->target->sector;
		a1 = (dev + len + io->target->sector - 1) / io->target->sector * io->target->sector;
	}
	err = guac_io_pread_all(io, buf, (size_t)(a1 - a0), a0, &agot);
	*data = buf + (dev - a0);
	*got = agot > dev - a0 ? agot - (size_t)(dev - a0) : 0;
	if (*got > len)
		*got = len;
	return err;
}

static void guac_io_set_eof(struct guac_io *io, uint64_t pos)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&lock);
	if (!io->eof || pos < io->eof_pos) {
		io->eof = true;
		io->eof_pos = pos;
	}
	pthread_mutex_unlock(&lock);
}

/*
 * A stop ended the read of run positions from @pos: check the @got bytes that
 * came before it (a pipe cannot give them again) and end the job there, as
 * interrupted (guac_io_run), not failed.
 */
static void guac_io_stopped(struct guac_io_job *job, const uint8_t *data, uint64_t pos,
			    size_t got)
{
	if (got)
		got = job->io->hooks.consume(job, data, pos, got);
	atomic_store(&job->done, pos + got - job->start);
}

/*
 * Hand @got bytes read at @pos to consume; false, with @done at the last
 * byte it took, when it took fewer (it stopped the job: --max-errors).
 */
static bool guac_io_consume(struct guac_io_job *job, const uint8_t *data, uint64_t pos,
			    size_t got)
{
	size_t took = got ? job->io->hooks.consume(job, data, pos, got) : 0;

	if (took == got)
		return true;
	atomic_store(&job->done, pos + took - job->start);
	return false;
}

/*
 * A block failed to read: retry it one device sector at a time, so the good
 * sectors are still checked and only the bad ones are reported unreadable.
 * Returns false at the end of the data.
 */
static bool guac_io_read_sectors(struct guac_io_job *job, uint8_t *buf, uint64_t pos, size_t len)
{
	struct guac_io *io = job->io;
	unsigned int sector = io->target->sector;
	uint64_t end = pos + len;

	while (pos < end) {
		uint64_t dev = io->base + pos;
		size_t n = sector - (size_t)(dev % sector), got;
		const uint8_t *data;
		int err;

		if (n > end - pos)
			n = (size_t)(end - pos);
		err = guac_io_read_at(io, buf, pos, n, &data, &got);
		if (err == GUAC_IO_STOPPED) {
			guac_io_stopped(job, data, pos, got);
			return false;
		} else if (err) {
			size_t took = io->hooks.unreadable(job, pos, n, err);

			if (took < n) {
				atomic_store(&job->done, pos + took - job->start);
				return false;
			}
		} else {
			if (!guac_io_consume(job, data, pos, got))
				return false;
			if (got < n) {
				guac_io_set_eof(io, pos + got);
				atomic_store(&job->done, pos + got - job->start);
				return false;
			}
		}
		pos += n;
		atomic_store(&job->done, pos - job->start);
	}
	return true;
}

/*
 * One block of a job: the buffer, the run positions [@pos, @pos + @len), and
 * for a read what came back (the bytes at @data, @got of them, and errno
 * @err). "Filling" a slot generates it (write) or reads it (verify);
 * "finishing" it writes it or checks it.
 */
struct guac_io_slot {
	uint8_t *buf;
	uint64_t pos;
	size_t len;
	const uint8_t *data;
	size_t got;
	int err;
};

static int64_t guac_io_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The rate limit (guac_io.rate): the jobs share one schedule. A block of
 * @len bytes takes the next slot, @len / rate seconds long, from the end of
 * the slot taken before it, and its system call waits for the slot's end. A
 * slot never starts more than GUAC_IO_THROTTLE_SLACK_NS before now: the
 * time late wake-ups lose (a timer's slack, a loaded machine: a 4 KiB slot
 * at 20 MiB/s is 195 us) is taken back by the next blocks going at once,
 * but a slow disk's longer stall is not made up by a burst. So by any time
 * the jobs have sent at most rate x the time since the first block (the
 * rate a report says is never above the limit), and in any window at most
 * rate x (the window and the slack) and one block more. The wait is on the
 * monotonic clock, as guac_io_sleep's, in slices that each look at the stop
 * flag: a Ctrl-C ends a throttled job at once, however long its slot is.
 * False when a stop came: nothing done.
 */
bool guac_io_throttle(struct guac_io *io, size_t len)
{
	int64_t cost, now, start, next, until, wake;
	struct timespec ts;

	if (!io->rate)
		return true;
	/* @len is at most GUAC_IO_MAX_BS: no overflow. */
	cost = (int64_t)((uint64_t)len * 1000000000u / io->rate);
	now = guac_io_monotonic_ns();
	next = atomic_load(&io->rate_next_ns);
	do
		start = !next ? now : next > now - GUAC_IO_THROTTLE_SLACK_NS ? next :
			now - GUAC_IO_THROTTLE_SLACK_NS;
	while (!atomic_compare_exchange_weak(&io->rate_next_ns, &next, start + cost));
	until = start + cost;
	while (now < until) {
		if (io->stop && atomic_load(io->stop))
			return false;
		wake = until - now > GUAC_IO_THROTTLE_SLICE_NS ? now + GUAC_IO_THROTTLE_SLICE_NS :
								    until;
		ts.tv_sec = (time_t)(wake / 1000000000);
		ts.tv_nsec = (long)(wake % 1000000000);
		/* EINTR (a signal on this thread) only ends the slice early. */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = guac_io_monotonic_ns();
	}
	return true;
}

/*
 * Generate the block (write) or read it (verify): no hook but produce runs
 * here. A read waits for its turn under the rate limit; a stop during the
 * wait ends it as a stopped read of nothing.
 */
static void guac_io_fill(struct guac_io_job *job, struct guac_io_slot *s)
{
	struct guac_io *io = job->io;

	if (io->write) {
		io->hooks.produce(job, s->buf, s->pos, s->len);
	} else if (!guac_io_throttle(io, s->len)) {
		s->err = GUAC_IO_STOPPED;
		s->data = s->buf;
		s->got = 0;
	} else {
		s->err = guac_io_read_at(io, s->buf, s->pos, s->len, &s->data, &s->got);
	}
}

/*
 * After this block there is nothing to fill: a read that found the end of the
 * data, or that a stop ended.
 */
static bool guac_io_fill_last(const struct guac_io *io, const struct guac_io_slot *s)
{
	return !io->write && (s->err == GUAC_IO_STOPPED || (!s->err && s->got < s->len));
}

/*
 * Verify while writing (io_engine.h, guac_io.backlog): the job's blocks
 * written and not yet read back, oldest first, as positions only (the
 * bytes they must hold are produced again), and two buffers for the check.
 */
struct guac_io_written {
	uint64_t pos, at;		/* run positions: produced for, landed at */
	size_t len;
};

struct guac_io_backlog {
	struct guac_io_written *ring;	/* @slots of them */
	uint64_t slots, head, count;	/* the ring's size; the oldest, and how many are held */
	uint8_t *buf, *expect;		/* read back (room for direct alignment), produced */
};

static void guac_io_backlog_free(struct guac_io_job *job)
{
	struct guac_io_backlog *b = job->backlog;

	if (!b)
		return;
	free(b->ring);
	free(b->buf);
	free(b->expect);
	free(b);
	job->backlog = NULL;
}

/* The job's backlog, or ENOMEM; nothing without --verify-backlog. */
static int guac_io_backlog_alloc(struct guac_io_job *job, size_t size)
{
	struct guac_io *io = job->io;
	uint64_t blocks = (job->end - job->start + io->bs - 1) / io->bs;
	struct guac_io_backlog *b;

	if (!io->write || !io->backlog)
		return 0;
	b = calloc(1, sizeof(*b));
	job->backlog = b;
	if (!b)
		return ENOMEM;
	/* Never more held than the part's blocks, nor than the backlog and the one just written. */
	b->slots = (io->backlog < blocks ? io->backlog : blocks) + 1;
	b->ring = calloc(b->slots, sizeof(*b->ring));
	b->buf = guac_try_alloc(size + 2 * GUAC_IO_ALIGN);
	b->expect = guac_try_alloc(io->bs);
	if (!b->ring || !b->buf || !b->expect) {
		guac_io_backlog_free(job);
		return ENOMEM;
	}
	return 0;
}

/* A mismatch at run positions [@w->at, + @w->len), first at @at + @first: counted, and then? */
static bool guac_io_backlog_mismatch(struct guac_io_job *job, const struct guac_io_written *w,
				     size_t first)
{
	struct guac_io *io = job->io;

	if (!job->mismatches++) {
		job->mismatch_at = w->at;
		job->mismatch_len = w->len;
		job->mismatch_byte = w->at + first;
	}
	if (io->backlog_continue)
		return true;
	/* What is done is what is known good: the job's blocks before this one. */
	job->mismatch_ended = true;
	atomic_store(&job->done, w->pos - job->start);
	if (io->stop)
		atomic_store(io->stop, true);
	return false;
}

/*
 * Read run positions [@at, @at + @len) through the backlog's descriptor into
 * @buf; O_DIRECT reads the GUAC_IO_ALIGN units around them. *@data points
 * at the bytes asked for, *@got says how many came (fewer: the file ends).
 */
static int guac_io_backlog_read(const struct guac_io *io, uint8_t *buf, uint64_t at, size_t len,
				const uint8_t **data, size_t *got)
{
	const struct guac_io_ops *ops = guac_io_ops_of(io);
	uint64_t unit = io->backlog_direct ? GUAC_IO_ALIGN : 1, dev = io->base + at;
	uint64_t a0 = dev / unit * unit, a1 = (dev + len + unit - 1) / unit * unit;
	size_t n = 0;

	while (n < a1 - a0) {
		ssize_t r = ops->pread(io->backlog_fd, buf + n, (size_t)(a1 - a0) - n,
				       (off_t)(a0 + n));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (!r)
			break;
		n += (size_t)r;
		if (n % unit)
			break;	/* a direct read short of a unit: the end of the file */
	}
	*data = buf + (dev - a0);
	*got = n > dev - a0 ? n - (size_t)(dev - a0) : 0;
	if (*got > len)
		*got = len;
	return 0;
}

/*
 * Read @w back from where it landed and compare it with what produce gives
 * for its position. False when the job must end: a mismatch that stops it,
 * or a read that failed (the job's error, at the block).
 */
static bool guac_io_backlog_check(struct guac_io_job *job, const struct guac_io_written *w)
{
	struct guac_io *io = job->io;
	struct guac_io_backlog *b = job->backlog;
	const uint8_t *data;
	size_t got, i;
	int err = guac_io_backlog_read(io, b->buf, w->at, w->len, &data, &got);

	if (err) {
		job->error = err;
		job->error_pos = w->at;
		return false;
	}
	io->hooks.produce(job, b->expect, w->pos, w->len);
	job->read_back_blocks++;
	job->read_back_bytes += w->len;
	if (got == w->len && !memcmp(data, b->expect, w->len))
		return true;
	/* A short read is a file cut short: its first missing byte differs. */
	for (i = 0; i < got && data[i] == b->expect[i]; i++)
		;
	return guac_io_backlog_mismatch(job, w, i);
}

/* Read back the oldest blocks held until @keep are left; false when the job must end. */
static bool guac_io_backlog_trim(struct guac_io_job *job, uint64_t keep)
{
	struct guac_io_backlog *b = job->backlog;

	while (b->count > keep) {
		struct guac_io_written w = b->ring[b->head];

		b->head = (b->head + 1) % b->slots;
		b->count--;
		if (!guac_io_backlog_check(job, &w))
			return false;
	}
	return true;
}

/* The block produced for @pos was written at @at: held, and the one @backlog before read back. */
static bool guac_io_backlog_push(struct guac_io_job *job, uint64_t pos, uint64_t at, size_t len)
{
	struct guac_io_backlog *b = job->backlog;

	b->ring[(b->head + b->count) % b->slots] = (struct guac_io_written){ pos, at, len };
	b->count++;
	return guac_io_backlog_trim(job, job->io->backlog);
}

/*
 * The job's run ended: the blocks still held are read back, unless a stop
 * (Ctrl-C, or a mismatch in any job) ended it; then the backlog goes.
 */
static void guac_io_backlog_end(struct guac_io_job *job)
{
	struct guac_io *io = job->io;

	if (!job->backlog)
		return;
	if (!job->mismatch_ended && !(io->stop && atomic_load(io->stop)))
		guac_io_backlog_trim(job, 0);
	guac_io_backlog_free(job);
}

/* The size of the writes @len bytes produced for @pos go out in (io_engine.h's piece hook). */
size_t guac_io_piece(struct guac_io_job *job, uint64_t pos, size_t len)
{
	size_t piece = job->io->hooks.piece ? job->io->hooks.piece(job, pos) : 0;

	return piece && piece < len ? piece : len;
}

/*
 * Write the block of @s at run position @at, in pieces (the piece hook),
 * each waiting its turn under the rate limit. False when the job must end:
 * an error (recorded), or a stop while waiting, after which the block is not
 * written on, as after the loop's check. A placed block is done whole or
 * not (its part of the steps counts blocks); another counts its pieces.
 */
static bool guac_io_write_block(struct guac_io_job *job, const struct guac_io_slot *s,
				uint64_t at)
{
	struct guac_io *io = job->io;
	size_t piece = guac_io_piece(job, s->pos, s->len), off, len, got;
	int err;

	for (off = 0; off < s->len; off += len) {
		len = s->len - off < piece ? s->len - off : piece;
		if (!guac_io_throttle(io, len)) {
			if (!io->hooks.place)
				atomic_store(&job->done, s->pos + off - job->start);
			return false;
		}
		err = guac_io_pwrite_all(io, s->buf + off, len, io->base + at + off, &got);
		if (err) {
			job->error = err;
			job->error_pos = at + off + got;
			atomic_store(&job->done,
				     (io->hooks.place ? s->pos : s->pos + off + got) - job->start);
			return false;
		}
	}
	return true;
}

/*
 * Write the block, or check what was read: every consume and unreadable
 * call, the sector-by-sector retry of a failed read and the accounting
 * (@done counts bytes from the part's start, in order, ended by the first
 * error or the end of the data) happen here, on the job's own thread.
 * Returns false when the job must end.
 */
static bool guac_io_finish(struct guac_io_job *job, struct guac_io_slot *s)
{
	struct guac_io *io = job->io;
	uint64_t pos = s->pos;
	size_t n = s->len;

	if (io->write) {
		uint64_t at = io->hooks.place ? io->hooks.place(job, pos) : pos;

		/* A stop while waiting for the journal's flush: the block is not written. */
		if (!guac_io_gate_wait(job, pos) || !guac_io_write_block(job, s, at))
			return false;
		if (job->backlog && !guac_io_backlog_push(job, pos, at, n))
			return false;
	} else if (s->err == GUAC_IO_STOPPED) {
		guac_io_stopped(job, s->data, pos, s->got);
		return false;
	} else if (s->err && io->target->kind == GUAC_TARGET_STREAM) {
		job->error = s->err;	/* a pipe cannot be re-read */
		job->error_pos = pos + s->got;
		return false;
	} else if (s->err) {
		if (!guac_io_read_sectors(job, s->buf, pos, n))
			return false;
	} else {
		if (!guac_io_consume(job, s->data, pos, s->got))
			return false;
		if (s->got < n) {
			guac_io_set_eof(io, pos + s->got);
			atomic_store(&job->done, pos + s->got - job->start);
			return false;
		}
	}
	atomic_store(&job->done, pos + n - job->start);
	return true;
}

/*
 * Pipelining: with one job, filling a block (generating ~13 GB/s, or reading
 * it) and finishing it (writing it, or regenerating and comparing) one after
 * the other costs their sum. A filler thread per job fills the next slot
 * while the job's thread finishes the current one, so the job runs at the
 * slower of the two: a generator ahead of the writes, a reader ahead of the
 * checks (read-ahead of one block, in order, so a disk still sees one
 * sequential stream per job). Two slots are enough and bound the memory to
 * two buffers a job. Only the filler's own work moves to it (produce, or the
 * plain block read); the hooks that record findings, the retries and the
 * accounting stay on the job's thread, in position order.
 */
#define GUAC_IO_RING 2

struct guac_io_ring {
	struct guac_io_job *job;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct guac_io_slot slot[GUAC_IO_RING];
	unsigned int head, count;	/* the next slot to finish, and full slots */
	bool quit;			/* the job's thread stopped: fill nothing more */
};

static void *guac_io_filler(void *arg)
{
	struct guac_io_ring *r = arg;
	struct guac_io_job *job = r->job;
	struct guac_io *io = job->io;
	uint64_t pos = job->start + job->resume;
	unsigned int tail = 0;

	while (pos < job->end) {
		struct guac_io_slot *s = &r->slot[tail];
		size_t n = job->end - pos < io->bs ? (size_t)(job->end - pos) : io->bs;
		bool last, failed;

		pthread_mutex_lock(&r->lock);
		while (r->count == GUAC_IO_RING && !r->quit)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->quit) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		pthread_mutex_unlock(&r->lock);
		/* The slot after the full ones is the job thread's no longer: fill it unlocked. */
		s->pos = pos;
		s->len = n;
		guac_io_fill(job, s);
		last = guac_io_fill_last(io, s);
		failed = s->err && s->err != GUAC_IO_STOPPED;
		pthread_mutex_lock(&r->lock);
		r->count++;
		pthread_cond_broadcast(&r->cond);
		/*
		 * A failed read is retried sector by sector on the job's thread:
		 * read nothing more meanwhile, so a failing disk sees one stream of
		 * reads in order, as without the pipeline.
		 */
		while (failed && r->count && !r->quit)
			pthread_cond_wait(&r->cond, &r->lock);
		pthread_mutex_unlock(&r->lock);
		if (last)
			break;	/* the job's thread ends at this slot */
		tail = (tail + 1) % GUAC_IO_RING;
		pos += n;
	}
	return NULL;
}

/*
 * The job's side of the ring: the slots arrive in position order, so what it
 * does with them (and the order of the hook calls) is what it does inline.
 * The filler fills every block up to the end of the part or of the data,
 * the only places where this loop ends without stopping it.
 */
static void guac_io_finish_pipelined(struct guac_io_job *job, struct guac_io_ring *r)
{
	struct guac_io *io = job->io;
	uint64_t pos = job->start + job->resume;

	while (pos < job->end) {
		struct guac_io_slot *s;

		if (io->stop && atomic_load(io->stop))
			break;
		pthread_mutex_lock(&r->lock);
		while (!r->count)
			pthread_cond_wait(&r->cond, &r->lock);
		pthread_mutex_unlock(&r->lock);
		s = &r->slot[r->head];
		if (!guac_io_finish(job, s))
			break;
		pos += s->len;
		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % GUAC_IO_RING;
		r->count--;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
	/* Error, end of data, Ctrl-C or the end: release a filler waiting for a free slot. */
	pthread_mutex_lock(&r->lock);
	r->quit = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/*
 * True if the job ran with a filler thread; false to do it inline. @buf is
 * the first slot's buffer, of @size bytes. A pipe keeps its one thread: its
 * reads block on the writer at the other end, and at a Ctrl-C guac_io_run
 * wakes the job's own thread, never a filler.
 */
static bool guac_io_try_pipeline(struct guac_io_job *job, uint8_t *buf, size_t size)
{
	struct guac_io *io = job->io;
	struct guac_io_ring r = { .job = job, .slot = { { .buf = buf } } };
	pthread_t filler;
	bool ok = false;
	unsigned int i;

	/* One block has nothing to overlap with. */
	if (job->end - job->start - job->resume <= io->bs ||
	    io->target->kind == GUAC_TARGET_STREAM)
		return false;
	if (pthread_mutex_init(&r.lock, NULL))
		return false;
	for (i = 1; i < GUAC_IO_RING; i++)
		r.slot[i].buf = guac_try_alloc(size);
	for (i = 1; i < GUAC_IO_RING && r.slot[i].buf; i++)
		;
	/* Without memory for the second buffer the job runs inline. */
	if (i == GUAC_IO_RING && !pthread_cond_init(&r.cond, NULL)) {
		if (!pthread_create(&filler, NULL, guac_io_filler, &r)) {
			guac_io_finish_pipelined(job, &r);
			pthread_join(filler, NULL);
			ok = true;
		}
		pthread_cond_destroy(&r.cond);
	}
	pthread_mutex_destroy(&r.lock);
	for (i = 1; i < GUAC_IO_RING; i++)
		free(r.slot[i].buf);
	return ok;
}

/*
 * Twins (reads with a check hook: verify). With the ring above, one thread
 * reads and the other checks, so a job runs at the slower of the two, and
 * every block the reader's CPU copied in is read back on the other CPU.
 * Instead, a job's two threads take turns at whole blocks: each claims the
 * next block, reads it and checks it (check: the bytes are hot in its own
 * cache), both at once, so the job runs at about twice the rate of read plus
 * check. Blocks still end in position order: a thread whose block is next
 * ("turn") counts it done (check passed) or hands it to the in-order path
 * (guac_io_finish: consume, or the sector-by-sector retry of a failed read),
 * then passes the turn. So consume and unreadable see exactly the blocks, in
 * the order, they see without twins, one call at a time (the turn passes
 * under the lock, which orders their memory). A disk sees at most two reads
 * in flight, of neighbouring blocks, in order; while a failed read is
 * retried sector by sector no new read starts. A block read past the point
 * where the job ended (an error, the end of the data, --max-errors, a stop)
 * is dropped unseen, as the ring drops a block filled ahead.
 */
struct guac_io_twins {
	struct guac_io_job *job;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t next;			/* the next block to claim */
	uint64_t turn;			/* the block that ends next */
	bool ended;			/* the job ended: claim and end nothing more */
	bool retrying;			/* a failed read is retried: start no read */
	uint8_t *buf[2], *scratch[2];
};

struct guac_io_twin_arg {
	struct guac_io_twins *t;
	unsigned int k;			/* which twin: its buffers */
};

static void guac_io_twin_end(struct guac_io_twins *t)
{
	t->ended = true;
	pthread_cond_broadcast(&t->cond);
}

static void *guac_io_twin(void *arg)
{
	struct guac_io_twin_arg *a = arg;
	struct guac_io_twins *t = a->t;
	struct guac_io_job *job = t->job;
	struct guac_io *io = job->io;

	for (;;) {
		struct guac_io_slot s = { .buf = t->buf[a->k] };
		bool clean, ok;

		pthread_mutex_lock(&t->lock);
		while (t->retrying && !t->ended)
			pthread_cond_wait(&t->cond, &t->lock);
		if (t->ended || t->next >= job->end || (io->stop && atomic_load(io->stop))) {
			pthread_mutex_unlock(&t->lock);
			break;
		}
		s.pos = t->next;
		s.len = job->end - s.pos < io->bs ? (size_t)(job->end - s.pos) : io->bs;
		t->next += s.len;
		pthread_mutex_unlock(&t->lock);

		guac_io_fill(job, &s);
		clean = !s.err && s.got == s.len &&
			io->hooks.check(job, s.data, s.pos, s.len, t->scratch[a->k]);

		pthread_mutex_lock(&t->lock);
		while (t->turn != s.pos && !t->ended)
			pthread_cond_wait(&t->cond, &t->lock);
		if (t->ended || (io->stop && atomic_load(io->stop))) {
			/* The job ended before this block: it was read ahead, never seen. */
			guac_io_twin_end(t);
			pthread_mutex_unlock(&t->lock);
			break;
		}
		t->retrying = s.err && s.err != GUAC_IO_STOPPED;
		pthread_mutex_unlock(&t->lock);

		if (clean) {
			atomic_store(&job->done, s.pos + s.len - job->start);
			ok = true;
		} else {
			/* Its turn, so no other call of the hooks runs meanwhile. */
			ok = guac_io_finish(job, &s) && !guac_io_fill_last(io, &s);
		}

		pthread_mutex_lock(&t->lock);
		t->retrying = false;
		if (ok)
			t->turn = s.pos + s.len;
		else
			t->ended = true;
		pthread_cond_broadcast(&t->cond);
		pthread_mutex_unlock(&t->lock);
		if (!ok)
			break;
	}
	return NULL;
}

/*
 * True if the job ran as twins; false to run it otherwise. @buf is one
 * block buffer of @size bytes, the first twin's.
 */
static bool guac_io_try_twins(struct guac_io_job *job, uint8_t *buf, size_t size)
{
	struct guac_io *io = job->io;
	struct guac_io_twins t = { .job = job, .buf = { buf } };
	struct guac_io_twin_arg args[2] = { { &t, 0 }, { &t, 1 } };
	pthread_t other;
	bool ok = false;

	if (io->write || !io->hooks.check || io->target->kind == GUAC_TARGET_STREAM ||
	    job->end - job->start - job->resume <= io->bs)
		return false;
	t.next = t.turn = job->start + job->resume;
	t.buf[1] = guac_try_alloc(size);
	t.scratch[0] = guac_try_alloc(io->check_scratch);
	t.scratch[1] = guac_try_alloc(io->check_scratch);
	if (t.buf[1] && t.scratch[0] && t.scratch[1] && !pthread_mutex_init(&t.lock, NULL)) {
		if (!pthread_cond_init(&t.cond, NULL)) {
			if (!pthread_create(&other, NULL, guac_io_twin, &args[1])) {
				guac_io_twin(&args[0]);
				pthread_join(other, NULL);
				ok = true;
			}
			pthread_cond_destroy(&t.cond);
		}
		pthread_mutex_destroy(&t.lock);
	}
	free(t.buf[1]);
	free(t.scratch[0]);
	free(t.scratch[1]);
	return ok;
}

/*
 * True if the job wrote through io_uring (io->iodepth > 1); false to write
 * with pwrite: a depth of 1, or a ring that could not be set up (the first
 * such errno kept for the command to tell).
 */
static bool guac_io_try_uring(struct guac_io_job *job)
{
	struct guac_io *io = job->io;
	int err, none = 0;

	if (!io->write || io->iodepth <= 1 || io->backlog)
		return false;
	err = guac_io_uring_write(job);
	if (!err)
		return true;
	atomic_compare_exchange_strong(&io->uring_error, &none, err);
	return false;
}

/*
 * A job runs with io_uring if it is a write with a queue depth, as twins if
 * it is a checked read (verify), else with the ring;
 * inline, on its one thread, only where neither can run (a pipe, a job of
 * one block, no memory or thread for the second). The ring for verify and
 * inline for both lost the measurements (docs/results/storage-2026-11-24.md,
 * docs/results/verify-one-job-2026-11-26.md); the environment switches that
 * chose them for those comparisons are gone.
 */
static void *guac_io_worker(void *arg)
{
	struct guac_io_job *job = arg;
	struct guac_io *io = job->io;
	/* Room for the sectors around an unaligned direct read. */
	size_t size = io->bs + 2 * (size_t)io->target->sector;
	uint8_t *buf = guac_try_alloc(size);
	uint64_t pos = job->start + job->resume;

	atomic_store(&job->done, job->resume);
	if (!buf || guac_io_backlog_alloc(job, size)) {
		/* A job's failure like a write error: the command reports it, with its part. */
		job->error = ENOMEM;
		job->error_pos = pos;
		free(buf);
		return NULL;
	}
	if (guac_io_try_uring(job) || guac_io_try_twins(job, buf, size) ||
	    guac_io_try_pipeline(job, buf, size))
		pos = job->end;	/* done (or stopped) there */
	while (pos < job->end) {
		struct guac_io_slot s = { .buf = buf, .pos = pos };

		if (io->stop && atomic_load(io->stop))
			break;
		s.len = job->end - pos < io->bs ? (size_t)(job->end - pos) : io->bs;
		guac_io_fill(job, &s);
		if (!guac_io_finish(job, &s))
			break;
		pos += s.len;
	}
	guac_io_backlog_end(job);
	free(buf);
	return NULL;
}

uint64_t guac_io_done(const struct guac_io *io)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < io->jobs; i++)
		sum += atomic_load(&io->job[i].done);
	return sum;
}

enum guac_progress_mode guac_progress_auto(void)
{
	return isatty(STDERR_FILENO) ? GUAC_PROGRESS_TTY : GUAC_PROGRESS_LOG;
}

/*
 * "1.00 MiB of 2.00 MiB (50.0%), 0.5 MB/s, ETA 0:00:02" into @buf, for both
 * styles; a log line has the exact byte counts too, for scripts. @ended: the
 * last line, whose ETA is over.
 */
static void guac_progress_numbers(const struct guac_progress *p, uint64_t done, double now,
				  bool exact, bool ended, char *buf, size_t size)
{
	char done_s[32], total_s[32], rate_s[32], eta_s[32];
	double secs = now - p->start, ran = done > p->start_done ? (double)(done - p->start_done) : 0;
	double rate = secs > 0 ? ran / secs : 0;
	uint64_t total = p->total;
	double percent = total ? 100.0 * (double)done / (double)total : 100.0;

	guac_fmt_bytes(done_s, sizeof(done_s), (double)done);
	guac_fmt_rate(rate_s, sizeof(rate_s), rate);
	if (p->unbounded) {
		if (exact)
			snprintf(buf, size, "%" PRIu64 " bytes (%s), %s", done, done_s, rate_s);
		else
			snprintf(buf, size, "%s, %s", done_s, rate_s);
		return;
	}
	guac_fmt_bytes(total_s, sizeof(total_s), (double)total);
	if (ended)
		snprintf(eta_s, sizeof(eta_s), "ended");
	else if (rate > 0 && done <= total)
		guac_fmt_duration(eta_s, sizeof(eta_s), (double)(total - done) / rate);
	else
		snprintf(eta_s, sizeof(eta_s), "unknown");
	if (exact)
		snprintf(buf, size, "%" PRIu64 " of %" PRIu64 " bytes (%s of %s, %.1f%%), %s, %s%s",
			 done, total, done_s, total_s, percent, rate_s, ended ? "" : "ETA ", eta_s);
	else
		snprintf(buf, size, "%s of %s (%.1f%%), %s, %s%s", done_s, total_s, percent,
			 rate_s, ended ? "" : "ETA ", eta_s);
}

/* One line of the progress, in its style, as one write to standard error. */
static void guac_progress_print(struct guac_progress *p, uint64_t done, double now, bool ended)
{
	char numbers[256], note[128] = "", stamp[32], target[GUAC_ESCAPED(256)], line[1536];
	bool log = p->mode == GUAC_PROGRESS_LOG;
	time_t t = time(NULL);
	struct tm tm;

	if (p->note) {
		note[0] = ',';
		note[1] = ' ';
		p->note(p->note_arg, note + 2, sizeof(note) - 2);
	}
	guac_progress_numbers(p, done, now, log, ended, numbers, sizeof(numbers));
	if (!log) {
		snprintf(line, sizeof(line), "\r\033[K%s: %s%s", p->label, numbers, note);
	} else {
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
		guac_escape(target, sizeof(target), p->target ? p->target : "");
		snprintf(line, sizeof(line), "guac %s: %s '%s': %s%s\n", p->label, stamp, target,
			 numbers, note);
		p->lines++;
	}
	fputs(line, stderr);
}

/* The command's bytes done: this run's jobs' (resumed ones included) and earlier runs'. */
static uint64_t guac_io_progress_done(const struct guac_io *io)
{
	return guac_io_done(io) + io->progress_before;
}

/*
 * A run starts: the command's total, and at its first run the clock, the
 * bytes already done (not counted in the rate) and the first log line's time.
 */
static void guac_io_progress_begin(struct guac_io *io, double now)
{
	struct guac_progress *p = io->progress;
	uint64_t total = 0;
	unsigned int i;

	if (!p || p->mode == GUAC_PROGRESS_NONE)
		return;
	for (i = 0; i < io->jobs; i++)
		total += io->job[i].end - io->job[i].start;
	/* A command that runs the engine several times shows one progress for all of it. */
	p->total = io->progress_total ? io->progress_total : total + io->progress_before;
	p->unbounded = io->length == UINT64_MAX;
	if (p->start)
		return;
	p->start = now;
	p->start_done = io->progress_before;
	for (i = 0; i < io->jobs; i++)
		p->start_done += io->job[i].resume;
	p->next = now + p->interval;
}

/* A tick of guac_io_run's loop: the terminal's line each time, a log's when due. */
static void guac_io_progress_tick(struct guac_io *io, double now)
{
	struct guac_progress *p = io->progress;

	if (!p || p->mode == GUAC_PROGRESS_NONE)
		return;
	if (p->mode == GUAC_PROGRESS_TTY) {
		guac_progress_print(p, guac_io_progress_done(io), now, false);
	} else if (now >= p->next) {
		guac_progress_print(p, guac_io_progress_done(io), now, false);
		p->next = now + p->interval;
	}
}

static void guac_io_progress_end(struct guac_io *io, double now)
{
	struct guac_progress *p = io->progress;

	if (!p || p->mode == GUAC_PROGRESS_NONE)
		return;
	if (p->mode == GUAC_PROGRESS_TTY)
		fputs("\r\033[K", stderr);
	p->done = guac_io_progress_done(io);
	p->end = now;
}

void guac_progress_finish(struct guac_progress *p)
{
	if (p->mode == GUAC_PROGRESS_LOG && p->lines)
		guac_progress_print(p, p->done, p->end, true);
}

/* How often guac_io_run looks: twice a second, or a shorter log period. */
static long guac_io_tick_ns(const struct guac_io *io)
{
	const struct guac_progress *p = io->progress;

	if (p && p->mode == GUAC_PROGRESS_LOG && p->interval * 1e9 < GUAC_IO_PROGRESS_NS)
		return p->interval * 1e9 < 1e6 ? 1000000L : (long)(p->interval * 1e9);
	return GUAC_IO_PROGRESS_NS;
}

/*
 * Waking the main thread and the readers. guac_io_run's thread sleeps on
 * guac_io_kick, which a job's thread posts when it ends and the SIGINT and
 * SIGTERM handler posts when it sets the stop flag: sem_post is
 * async-signal-safe, a condition variable is not. So a Ctrl-C is seen at
 * once, and the handler itself never has to find or signal another thread.
 *
 * A stream's reader may wait in read() for a writer that sends nothing (a
 * stalled pipe or FIFO, a slow character device), and a process-directed
 * SIGINT interrupts only the thread it lands on, usually the main one. So
 * once the main thread sees the stop flag it sends GUAC_IO_WAKE_SIGNAL to
 * the reader: its handler does nothing and is installed without SA_RESTART,
 * so the read() fails with EINTR, guac_io_pread_all sees the stop flag, and
 * the job checks what it has read and ends as interrupted, not failed. A
 * wake-up that lands just before the reader enters read() does nothing, so
 * it is repeated every GUAC_IO_WAKE_NS until the job ends. An EINTR without
 * a stop is retried as before. Only a stream's read sleeps interruptibly for
 * ever: reads of files and block devices and all writes wait uninterruptibly
 * in the kernel and end with their block, so their threads get no signal,
 * and a run without a stop sends none.
 */
static sem_t guac_io_kick;
static pthread_once_t guac_io_once = PTHREAD_ONCE_INIT;

/*
 * Crash-safe writes (guac_io.flush): a job whose next block is at its limit
 * asks guac_io_run's thread for a flush (the kick wakes it) and looks again
 * every GUAC_IO_GATE_NS; a stop ends the wait.
 */
#define GUAC_IO_GATE_NS 200000L

bool guac_io_gate_open(struct guac_io_job *job, uint64_t pos)
{
	return !job->io->flush || pos - job->start < atomic_load(&job->limit);
}

bool guac_io_gate_wait(struct guac_io_job *job, uint64_t pos)
{
	struct guac_io *io = job->io;
	const struct timespec ts = { 0, GUAC_IO_GATE_NS };

	while (!guac_io_gate_open(job, pos)) {
		if (io->stop && atomic_load(io->stop))
			return false;
		if (!atomic_exchange(&io->flush_wanted, true))
			sem_post(&guac_io_kick);
		nanosleep(&ts, NULL);
	}
	return true;
}

static void guac_io_on_wake(int sig)
{
	(void)sig;
}

static void guac_io_init(void)
{
	struct sigaction sa;

	sem_init(&guac_io_kick, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guac_io_on_wake;	/* no SA_RESTART: read() fails with EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(GUAC_IO_WAKE_SIGNAL, &sa, NULL);
}

struct guac_io_thread {
	struct guac_io_job *job;
	atomic_uint *finished;		/* threads that ended, of the run */
	atomic_bool ended;		/* this one */
};

static void *guac_io_thread_main(void *arg)
{
	struct guac_io_thread *th = arg;

	guac_io_worker(th->job);
	atomic_store(&th->ended, true);
	atomic_fetch_add(th->finished, 1);
	sem_post(&guac_io_kick);
	return NULL;
}

/*
 * Sleep until a thread ends, a stop signal comes or @ns pass; guac_io_kick
 * counts the first two, and the caller looks at what happened either way.
 * The deadline is on the monotonic clock, as guac_now() and so the
 * checkpoints' timing are: a wall clock stepped back (NTP, a VM resumed, an
 * admin's date -s) would otherwise hold this wait, and every checkpoint
 * after it, for as long as the step (issue 40).
 */
static void guac_io_sleep(long ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += ns;
	while (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (sem_clockwait(&guac_io_kick, CLOCK_MONOTONIC, &ts) && errno == EINTR)
		;
}

/* A stop came before the jobs' parts were done (and not at the end of the data). */
static bool guac_io_stopped_short(const struct guac_io *io)
{
	uint64_t total = 0;

	if (!io->stop || !atomic_load(io->stop))
		return false;
	for (unsigned int i = 0; i < io->jobs; i++)
		total += io->job[i].end - io->job[i].start;
	return guac_io_done(io) < total && !io->eof;
}

/* The sleep before the next look, @ns, cut to the flush's time (guac_io.flush). */
static long guac_io_flush_due(const struct guac_io *io, double next_flush, long ns)
{
	double left = next_flush - guac_now();

	if (!io->flush || left * 1e9 >= ns)
		return ns;
	return left <= 0 ? 0 : (long)(left * 1e9);
}

/* A flush when it is due or a job waits at its limit; none after a stop. */
static void guac_io_flush_now(struct guac_io *io, double *next_flush)
{
	if (!io->flush || (io->stop && atomic_load(io->stop)))
		return;
	if (guac_now() < *next_flush && !atomic_exchange(&io->flush_wanted, false))
		return;
	io->flush(io, io->flush_arg);
	*next_flush = guac_now() + io->flush_seconds;
}

int guac_io_run(struct guac_io *io)
{
	static struct guac_io_thread th[GUAC_IO_MAX_JOBS];
	pthread_t tid[GUAC_IO_MAX_JOBS];
	atomic_uint finished = 0;
	/* A stream's reader may wait in read() for ever: wake it at a stop. */
	bool wake = !io->write && io->target->kind == GUAC_TARGET_STREAM;
	long tick = guac_io_tick_ns(io);
	double start = guac_now(), next_progress = start + tick / 1e9;
	double next_checkpoint = start + io->checkpoint_seconds;
	double next_flush = start + io->flush_seconds;
	unsigned int i, started = 0;
	int err = 0;

	pthread_once(&guac_io_once, guac_io_init);
	if (!io->bs)
		io->bs = GUAC_IO_DEFAULT_BS;
	if (io->target->kind == GUAC_TARGET_STREAM && io->jobs > 1)
		io->jobs = 1;	/* a pipe has one position */
	if (!io->target->direct && io->target->kind != GUAC_TARGET_STREAM && !io->write)
		posix_fadvise(io->target->fd, (off_t)io->base, 0, POSIX_FADV_SEQUENTIAL);
	guac_io_progress_begin(io, start);
	for (i = 0; i < io->jobs; i++) {
		th[i].job = &io->job[i];
		th[i].finished = &finished;
		atomic_init(&th[i].ended, false);
		err = pthread_create(&tid[i], NULL, guac_io_thread_main, &th[i]);
		if (err)
			break;
		started++;
	}
	if (err) {
		/* Parts without a thread stay undone; the report says so. */
		if (io->stop)
			atomic_store(io->stop, true);
		guac_err("cannot start a thread: %s", strerror(err));
	}
	while (atomic_load(&finished) < started) {
		double left = next_progress - guac_now();
		long ns = guac_io_flush_due(io, next_flush,
					    left <= 0 ? 0 : left >= tick / 1e9 ? tick :
					    (long)(left * 1e9));

		if (wake && io->stop && atomic_load(io->stop)) {
			for (i = 0; i < started; i++)
				if (!atomic_load(&th[i].ended))
					pthread_kill(tid[i], GUAC_IO_WAKE_SIGNAL);
			if (ns > GUAC_IO_WAKE_NS)
				ns = GUAC_IO_WAKE_NS;
		}
		guac_io_sleep(ns);
		if (atomic_load(&finished) < started)
			guac_io_flush_now(io, &next_flush);
		if (io->checkpoint && io->checkpoint_seconds > 0 && guac_now() >= next_checkpoint &&
		    !(io->stop && atomic_load(io->stop)) && atomic_load(&finished) < started) {
			io->checkpoint(io, io->checkpoint_arg);
			next_checkpoint = guac_now() + io->checkpoint_seconds;
		}
		if (guac_now() >= next_progress) {
			guac_io_progress_tick(io, guac_now());
			next_progress = guac_now() + tick / 1e9;
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	/*
	 * Forget this run's kicks: a stop among them is in the stop flag, which
	 * the next run looks at before it sleeps.
	 */
	while (!sem_trywait(&guac_io_kick))
		;
	guac_io_progress_end(io, guac_now());
	io->interrupted = guac_io_stopped_short(io);
	/* Durable means fsynced: without this, "written" is only "in the cache". */
	if (io->write && fsync(io->target->fd) && !io->sync_error)
		io->sync_error = errno;
	io->seconds = guac_now() - start;
	return err;
}

/*
 * Ctrl-C and SIGTERM only set the stop flag and post guac_io_kick (both
 * async-signal-safe): the jobs stop after their current block, or at once if
 * that block waits for data that does not come (a stalled pipe: guac_io_run
 * then wakes the reader), and the command reports what it did (the durable
 * bytes of a write, the findings of a check) and saves its progress, however
 * often the user presses Ctrl-C meanwhile. Only a third signal kills, for a
 * device stuck in a read or write that never returns. No SA_RESTART: a read()
 * on the thread the signal lands on fails with EINTR and looks at the flag.
 */
static atomic_bool *guac_io_stop_flag;
static volatile sig_atomic_t guac_io_signals;

static void guac_io_on_signal(int sig)
{
	int saved = errno;

	if (++guac_io_signals >= 3) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (guac_io_stop_flag)
		atomic_store(guac_io_stop_flag, true);
	sem_post(&guac_io_kick);	/* guac_io_run looks now, and wakes a waiting reader */
	errno = saved;
}

void guac_io_catch_signals(atomic_bool *stop)
{
	struct sigaction sa;

	pthread_once(&guac_io_once, guac_io_init);	/* the semaphore the handler posts */
	guac_io_stop_flag = stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guac_io_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
