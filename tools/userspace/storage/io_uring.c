// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Writes with a queue depth (io_engine.h, guac_io.iodepth): a job keeps up
 * to iodepth writes in flight through its own io_uring, each from a buffer
 * of its own, and generates the next block while they run. One thread a
 * job: the generator is far faster than a disk, so producing on the job's
 * thread between submissions costs nothing the queue does not hide.
 *
 * The writes complete in any order, but a job's progress (done: what a
 * resume continues from, what verify trusts) is a contiguous prefix of its
 * positions. So the slots form a ring in submission (position) order and
 * only the oldest are retired: done moves over the completed slots at the
 * head, and stops at the first one still in flight or failed. A failed
 * write ends the job as guac_io_pwrite_all's failure does (the same errno,
 * ENOSPC for a write that made no progress, error_pos where it stopped),
 * after the writes still in flight are reaped: their buffers are the
 * kernel's until then. A stop does the same without an error.
 *
 * The writes queued in one turn of the loop go to the kernel in one
 * io_uring_submit (one system call, not one a write: where a write
 * completes inline, as on tmpfs, the call is most of its cost); under a
 * rate limit each goes at its turn instead, as the limit means.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include "io_engine.h"
#include "util.h"

/* STOPPED: a stop came while the block's next piece waited for its turn under the rate. */
enum guac_uring_state { GUAC_URING_FREE, GUAC_URING_FLIGHT, GUAC_URING_OK, GUAC_URING_FAILED,
			GUAC_URING_STOPPED };

/*
 * One block: its buffer, the run positions it was produced for and lands at.
 * It goes out in pieces (guac_io_piece: the whole block without a split),
 * one write in flight at a time, each the next piece or a short write's rest.
 */
struct guac_uring_slot {
	uint8_t *buf;
	uint64_t pos, at;
	size_t len, sent;		/* bytes to write, and written so far (short writes) */
	size_t piece;			/* bytes a write */
	enum guac_uring_state state;
	int err;
};

struct guac_uring_job {
	struct guac_io_job *job;
	struct io_uring ring;
	struct guac_uring_slot *slot;
	unsigned int depth;
	unsigned int head, count;	/* the oldest slot not retired, and slots not retired */
	unsigned int inflight;		/* slots the kernel holds */
	unsigned int *queued;		/* slots prepared for the next submit, in SQ order */
	unsigned int nqueued;
	uint64_t next;			/* the next position to produce */
	bool halt;			/* a failure or a stop: submit nothing new */
	bool ended;			/* done is final (a failure was recorded) */
	int broken;			/* a submit failed: its errno; nothing more is queued */
	int lost;			/* waiting for completions failed: its errno */
};

int guac_io_uring_probe(unsigned int depth)
{
	struct io_uring ring;
	struct io_uring_probe *probe;
	int err = io_uring_queue_init(depth, &ring, 0);
	bool write_op;

	if (err < 0)
		return -err;
	/* IORING_OP_WRITE came in Linux 5.6: older rings would fail every write. */
	probe = io_uring_get_probe_ring(&ring);
	write_op = probe && io_uring_opcode_supported(probe, IORING_OP_WRITE);
	if (probe)
		io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
	return write_op ? 0 : EOPNOTSUPP;
}

/*
 * Submit the queued writes. A submit that fails leaves what it did not take
 * in the queue, so no later submit may run: those slots fail with its errno.
 */
static void guac_uring_flush(struct guac_uring_job *u)
{
	unsigned int sent = 0;
	int n = 0;

	while (sent < u->nqueued) {
		n = io_uring_submit(&u->ring);
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n <= 0)
			break;
		sent += (unsigned int)n;
	}
	u->inflight += sent;
	if (sent < u->nqueued) {
		u->broken = n < 0 ? -n : EBUSY;	/* 0 taken: cannot be, the queue holds them */
		for (; sent < u->nqueued; sent++) {
			u->slot[u->queued[sent]].state = GUAC_URING_FAILED;
			u->slot[u->queued[sent]].err = u->broken;
		}
		u->halt = true;
	}
	u->nqueued = 0;
}

/*
 * Queue @s's next write for the next submit: the rest of its piece under way,
 * a whole one or what a short write left of it; false (the slot failed) if
 * it cannot be.
 */
static bool guac_uring_queue(struct guac_uring_job *u, struct guac_uring_slot *s)
{
	const struct guac_io *io = u->job->io;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	size_t rest = s->piece - s->sent % s->piece;

	if (u->broken) {
		s->state = GUAC_URING_FAILED;
		s->err = u->broken;
		return false;
	}
	if (!sqe) {
		/* Cannot be: the queue holds depth entries, a slot takes one at a time. */
		s->state = GUAC_URING_FAILED;
		s->err = EBUSY;
		return false;
	}
	if (rest > s->len - s->sent)
		rest = s->len - s->sent;
	io_uring_prep_write(sqe, io->target->fd, s->buf + s->sent, (unsigned int)rest,
			    io->base + s->at + s->sent);
	io_uring_sqe_set_data64(sqe, (uint64_t)(s - u->slot));
	s->state = GUAC_URING_FLIGHT;
	u->queued[u->nqueued++] = (unsigned int)(s - u->slot);
	return true;
}

/*
 * Produce the next block into the slot after the others and submit it, at
 * its turn under the rate limit (a stop meanwhile halts the job instead).
 */
static void guac_uring_submit_next(struct guac_uring_job *u)
{
	struct guac_io_job *job = u->job;
	struct guac_io *io = job->io;
	struct guac_uring_slot *s = &u->slot[(u->head + u->count) % u->depth];

	s->pos = u->next;
	s->len = job->end - s->pos < io->bs ? (size_t)(job->end - s->pos) : io->bs;
	s->piece = guac_io_piece(job, s->pos, s->len);
	if (!guac_io_throttle(io, s->piece)) {
		u->halt = true;
		return;
	}
	s->at = io->hooks.place ? io->hooks.place(job, s->pos) : s->pos;
	s->sent = 0;
	s->err = 0;
	io->hooks.produce(job, s->buf, s->pos, s->len);
	u->count++;
	u->next += s->len;
	if (!guac_uring_queue(u, s))
		u->halt = true;
	else if (io->rate)
		guac_uring_flush(u);
}

/*
 * A completion: the slot is done, failed, or goes on with the rest of a
 * short write or its next piece, which first waits its turn under the rate.
 */
static void guac_uring_complete(struct guac_uring_job *u, struct guac_uring_slot *s, int res)
{
	struct guac_io *io = u->job->io;
	size_t left;

	u->inflight--;
	if (res == -EINTR || res == -EAGAIN || (res > 0 && s->sent + (size_t)res < s->len)) {
		/* As guac_io_pwrite_all: retried, or the rest written. */
		s->sent += res > 0 ? (size_t)res : 0;
		left = s->len - s->sent;
		if (res > 0 && !(s->sent % s->piece) &&
		    !guac_io_throttle(io, left < s->piece ? left : s->piece)) {
			s->state = GUAC_URING_STOPPED;
			u->halt = true;
			return;
		}
		if (!guac_uring_queue(u, s))
			u->halt = true;
		else if (io->rate)
			guac_uring_flush(u);	/* at its turn, as guac_uring_submit_next's */
		return;
	}
	if (res <= 0) {
		/* No progress: the medium is full. */
		s->state = GUAC_URING_FAILED;
		s->err = res ? -res : ENOSPC;
		u->halt = true;
		return;
	}
	s->sent += (size_t)res;
	s->state = GUAC_URING_OK;
}

/*
 * The completed slots at the head are the job's progress; a failed one at
 * the head is its error, as guac_io_finish records a failed pwrite's.
 */
static void guac_uring_retire(struct guac_uring_job *u)
{
	struct guac_io_job *job = u->job;

	while (u->count && !u->ended) {
		struct guac_uring_slot *s = &u->slot[u->head];

		if (s->state == GUAC_URING_FAILED || s->state == GUAC_URING_STOPPED) {
			if (s->state == GUAC_URING_FAILED) {
				job->error = s->err;
				job->error_pos = s->at + s->sent;
			}
			/* A placed block is done whole or not: its part of the steps counts blocks. */
			atomic_store(&job->done,
				     (job->io->hooks.place ? s->pos : s->pos + s->sent) - job->start);
			u->ended = true;
			return;
		}
		if (s->state != GUAC_URING_OK)
			return;
		atomic_store(&job->done, s->pos + s->len - job->start);
		s->state = GUAC_URING_FREE;
		u->head = (u->head + 1) % u->depth;
		u->count--;
	}
}

/* Reap the completions there are; with @wait, at least one. */
static void guac_uring_reap(struct guac_uring_job *u, bool wait)
{
	const struct guac_io *io = u->job->io;
	struct io_uring_cqe *cqe;
	int err;

	while (u->inflight) {
		err = wait ? io_uring_wait_cqe(&u->ring, &cqe) : io_uring_peek_cqe(&u->ring, &cqe);
		if (err == -EINTR) {
			/* A signal on this thread: a stop, or a stray one. */
			if (io->stop && atomic_load(io->stop))
				u->halt = true;
			continue;
		}
		if (err && err != -EAGAIN && wait)
			u->lost = -err;	/* cannot be (the CQ holds twice the depth): give up */
		if (err)
			return;	/* -EAGAIN: nothing more without waiting */
		guac_uring_complete(u, &u->slot[io_uring_cqe_get_data64(cqe)], cqe->res);
		io_uring_cqe_seen(&u->ring, cqe);
		wait = false;
	}
}

/* The job's loop: fill the queue, reap, retire, until nothing is left in flight. */
static void guac_uring_loop(struct guac_uring_job *u)
{
	struct guac_io_job *job = u->job;
	const struct guac_io *io = job->io;

	for (;;) {
		bool more;

		if (io->stop && atomic_load(io->stop))
			u->halt = true;
		while (!u->halt && u->count < u->depth && u->next < job->end &&
		       guac_io_gate_open(job, u->next))
			guac_uring_submit_next(u);
		/* The retried rest of short writes too: queued by the last reap. */
		guac_uring_flush(u);
		if (!u->inflight && !u->halt && u->next < job->end &&
		    !guac_io_gate_open(job, u->next)) {
			/* At the journal's limit with nothing in flight: wait for its flush. */
			if (!guac_io_gate_wait(job, u->next))
				u->halt = true;
			continue;
		}
		if (!u->inflight)
			break;
		more = !u->halt && u->count < u->depth && u->next < job->end &&
		       guac_io_gate_open(job, u->next);
		/* Wait only when nothing can be produced meanwhile. */
		guac_uring_reap(u, !more);
		guac_uring_retire(u);
		if (u->lost)
			break;
	}
	guac_uring_retire(u);
	if (u->lost && !u->ended) {
		/* The job's error, where its done stops: writes in flight there are not counted. */
		job->error = u->lost;
		job->error_pos = u->count ? u->slot[u->head].at : u->next;
	}
}

int guac_io_uring_write(struct guac_io_job *job)
{
	struct guac_io *io = job->io;
	uint64_t blocks = (job->end - job->start - job->resume + io->bs - 1) / io->bs;
	struct guac_uring_job u = { .job = job, .next = job->start + job->resume };
	unsigned int i;
	int err;

	/* No more buffers than blocks to write: a short part takes little memory. */
	u.depth = blocks < io->iodepth ? (unsigned int)blocks : io->iodepth;
	if (!u.depth)
		return 0;
	err = -io_uring_queue_init(u.depth, &u.ring, 0);
	if (err)
		return err;
	u.slot = calloc(u.depth, sizeof(*u.slot));
	u.queued = calloc(u.depth, sizeof(*u.queued));
	for (i = 0; u.slot && i < u.depth; i++) {
		u.slot[i].buf = guac_try_alloc(io->bs);
		if (!u.slot[i].buf)
			break;
	}
	if (u.slot && u.queued && i == u.depth)
		guac_uring_loop(&u);
	else
		err = ENOMEM;
	for (i = 0; u.slot && i < u.depth; i++)
		free(u.slot[i].buf);
	free(u.slot);
	free(u.queued);
	io_uring_queue_exit(&u.ring);
	return err;
}
