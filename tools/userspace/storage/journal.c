// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The crash-safe fill's journal (journal.h says what it promises): its
 * on-disk record, and the flush that moves it on while the jobs write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "journal.h"
#include "util.h"

/* ------------------------------------------------------------------------
 * The record on disk
 *
 * Little-endian fields at fixed places, the parts after them, a CRC32C of
 * the slot's bytes before it in its last four. Version 1.
 * ------------------------------------------------------------------------ */

#define JOURNAL_MAGIC "GUACJNL1"
#define JOURNAL_VERSION 1u
#define JOURNAL_PARTS_AT 120u
#define JOURNAL_PART_BYTES 32u
#define JOURNAL_SPLIT_AT (JOURNAL_PARTS_AT + JOURNAL_PART_BYTES * GUAC_JOURNAL_MAX_JOBS)
#define JOURNAL_SPLIT_BYTES 12u		/* an entry: u64 size, u32 percent */

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
	for (unsigned int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get64((const uint8_t[8]){ p[0], p[1], p[2], p[3] });
}

/* CRC32C (Castagnoli, reflected), bit by bit: 8 KiB a flush costs nothing. */
static uint32_t journal_crc(const uint8_t *p, size_t len)
{
	uint32_t crc = ~0u;

	while (len--) {
		crc ^= *p++;
		for (unsigned int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0x82f63b78u & -(crc & 1));
	}
	return ~crc;
}

static void journal_encode(const struct guac_journal_record *r, uint8_t *b)
{
	static const uint32_t at[] = { 88, 92, 96, 100, 104, 108, 112 };
	const uint32_t v32[] = { r->random, r->passes, r->sector, r->window, r->pass,
				 r->complete, r->jobs };
	const uint64_t v64[] = { r->seq, r->nonce, r->origin, r->stream_offset, r->seek,
				 r->length, r->block_size, r->seed, r->pass_stride };
	unsigned int i;

	memset(b, 0, GUAC_JOURNAL_SLOT);
	memcpy(b, JOURNAL_MAGIC, 8);
	put32(b + 8, JOURNAL_VERSION);
	put32(b + 12, GUAC_JOURNAL_SLOT);
	for (i = 0; i < 9; i++)
		put64(b + 16 + 8 * i, v64[i]);
	for (i = 0; i < 7; i++)
		put32(b + at[i], v32[i]);
	for (i = 0; i < r->jobs; i++) {
		uint8_t *p = b + JOURNAL_PARTS_AT + JOURNAL_PART_BYTES * i;

		put64(p, r->part[i].start);
		put64(p + 8, r->part[i].end);
		put64(p + 16, r->part[i].flushed);
		put64(p + 24, r->part[i].limit);
	}
	put32(b + JOURNAL_SPLIT_AT, r->split.n);
	for (i = 0; i < r->split.n; i++) {
		put64(b + JOURNAL_SPLIT_AT + 4 + JOURNAL_SPLIT_BYTES * i, r->split.size[i]);
		put32(b + JOURNAL_SPLIT_AT + 12 + JOURNAL_SPLIT_BYTES * i, r->split.percent[i]);
	}
	put32(b + GUAC_JOURNAL_SLOT - 4, journal_crc(b, GUAC_JOURNAL_SLOT - 4));
}

/* A record whose numbers cannot describe a fill is as bad as a failed CRC. */
static bool journal_sane(const struct guac_journal_record *r)
{
	uint64_t prev = 0;
	unsigned int which;

	if (r->split.n && guac_bs_split_check(&r->split, r->block_size, r->sector, &which))
		return false;
	if (!r->block_size || !r->passes || r->pass >= r->passes || !r->jobs ||
	    r->jobs > GUAC_JOURNAL_MAX_JOBS || r->sector < 512 || (r->sector & (r->sector - 1)) ||
	    !r->length || r->seek > UINT64_MAX - r->length)
		return false;
	for (unsigned int i = 0; i < r->jobs; i++) {
		const struct guac_journal_part *p = &r->part[i];

		if (p->start != prev || p->end < p->start || p->end > r->length ||
		    p->flushed > p->limit || p->limit > p->end - p->start)
			return false;
		prev = p->end;
	}
	return prev == r->length;
}

static bool journal_decode(const uint8_t *b, struct guac_journal_record *r)
{
	uint64_t *v64[] = { &r->seq, &r->nonce, &r->origin, &r->stream_offset, &r->seek,
			    &r->length, &r->block_size, &r->seed, &r->pass_stride };
	uint32_t *v32[] = { &r->random, &r->passes, &r->sector, &r->window, &r->pass,
			    &r->complete, &r->jobs };
	unsigned int i;

	if (memcmp(b, JOURNAL_MAGIC, 8) || get32(b + 8) != JOURNAL_VERSION ||
	    get32(b + 12) != GUAC_JOURNAL_SLOT ||
	    get32(b + GUAC_JOURNAL_SLOT - 4) != journal_crc(b, GUAC_JOURNAL_SLOT - 4))
		return false;
	memset(r, 0, sizeof(*r));
	for (i = 0; i < 9; i++)
		*v64[i] = get64(b + 16 + 8 * i);
	for (i = 0; i < 7; i++)
		*v32[i] = get32(b + 88 + 4 * i);
	if (r->jobs > GUAC_JOURNAL_MAX_JOBS)
		return false;
	for (i = 0; i < r->jobs; i++) {
		const uint8_t *p = b + JOURNAL_PARTS_AT + JOURNAL_PART_BYTES * i;

		r->part[i] = (struct guac_journal_part){ get64(p), get64(p + 8), get64(p + 16),
							 get64(p + 24) };
	}
	r->split.n = get32(b + JOURNAL_SPLIT_AT);
	if (r->split.n > GUAC_BS_SPLIT_MAX)
		return false;
	for (i = 0; i < r->split.n; i++) {
		r->split.size[i] = get64(b + JOURNAL_SPLIT_AT + 4 + JOURNAL_SPLIT_BYTES * i);
		r->split.percent[i] = get32(b + JOURNAL_SPLIT_AT + 12 + JOURNAL_SPLIT_BYTES * i);
	}
	return journal_sane(r);
}

uint64_t guac_journal_pass_origin(const struct guac_journal_record *r, unsigned int pass)
{
	if (!r->random || pass >= r->passes)
		return r->origin;
	return r->origin - (uint64_t)(r->passes - 1 - pass) * r->pass_stride;	/* mod 2^64 */
}

uint64_t guac_journal_in_target(uint64_t size)
{
	uint64_t end = size & ~(uint64_t)4095;

	return end >= GUAC_JOURNAL_SIZE ? end - GUAC_JOURNAL_SIZE : UINT64_MAX;
}

/* Both slots, past the page cache where it can: a crash leaves no cache to trust. */
static int journal_read_slots(int fd, uint64_t at, uint8_t *buf)
{
	char path[64];
	int dfd, err = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dfd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	n = pread(dfd >= 0 ? dfd : fd, buf, GUAC_JOURNAL_SIZE, (off_t)at);
	if (n < 0 && dfd >= 0 && errno == EINVAL)
		n = pread(fd, buf, GUAC_JOURNAL_SIZE, (off_t)at);
	if (n < 0)
		err = errno;
	else if (n < (ssize_t)GUAC_JOURNAL_SIZE)
		memset(buf + n, 0, GUAC_JOURNAL_SIZE - (size_t)n);
	if (dfd >= 0)
		close(dfd);
	return err;
}

int guac_journal_read(int fd, uint64_t at, struct guac_journal_record *r)
{
	struct guac_journal_record *slot = malloc(2 * sizeof(*slot));
	uint8_t *buf = guac_try_alloc(GUAC_JOURNAL_SIZE);
	bool ok[2] = { false, false };
	int err = slot && buf ? journal_read_slots(fd, at, buf) : ENOMEM;

	for (unsigned int i = 0; !err && i < 2; i++) {
		ok[i] = journal_decode(buf + i * GUAC_JOURNAL_SLOT, &slot[i]);
		slot[i].slot = i;
	}
	if (!err && !ok[0] && !ok[1])
		err = ENOENT;
	if (!err)
		*r = slot[ok[1] && (!ok[0] || slot[1].seq > slot[0].seq)];
	free(slot);
	free(buf);
	return err;
}

/* ------------------------------------------------------------------------
 * Writing it
 * ------------------------------------------------------------------------ */

/* The record to its slot, then synced: only then may the jobs pass its limits. */
static int journal_write(struct guac_journal *j)
{
	size_t off = 0;
	ssize_t n;

	j->rec.seq++;
	journal_encode(&j->rec, j->buf);
	while (off < GUAC_JOURNAL_SLOT) {
		n = pwrite(j->fd, j->buf + off, GUAC_JOURNAL_SLOT - off,
			   (off_t)(j->at + (j->rec.seq & 1) * GUAC_JOURNAL_SLOT + off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			j->error = n < 0 ? errno : ENOSPC;
			return j->error;
		}
		off += (size_t)n;
	}
	if (fdatasync(j->fd))
		j->error = errno;
	j->records += !j->error;
	return j->error;
}

/* A job's limit: @window blocks past what is flushed, within its part. */
static uint64_t journal_limit(const struct guac_journal *j, const struct guac_journal_part *p)
{
	uint64_t len = p->end - p->start, room = (uint64_t)j->rec.window * j->rec.block_size;

	return room >= len - p->flushed ? len : p->flushed + room;
}

/* The jobs may go on up to the record's limits (written and synced). */
static void journal_publish(const struct guac_journal *j, struct guac_io *io)
{
	for (unsigned int i = 0; i < io->jobs; i++)
		atomic_store(&io->job[i].limit, j->rec.part[i].limit);
}

int guac_journal_begin(struct guac_journal *j, struct guac_io *io, unsigned int pass)
{
	struct guac_journal_record old;
	unsigned int i;

	if (!j->buf) {
		j->buf = guac_try_alloc(GUAC_JOURNAL_SLOT);
		if (!j->buf)
			return ENOMEM;
		/* Above any record already there, which would otherwise win. */
		j->rec.seq = guac_journal_read(j->fd, j->at, &old) ? 0 : old.seq;
		if (getrandom(&j->rec.nonce, sizeof(j->rec.nonce), 0) != sizeof(j->rec.nonce))
			j->rec.nonce = (uint64_t)guac_now();
	}
	j->rec.pass = pass;
	j->rec.jobs = io->jobs;
	for (i = 0; i < io->jobs; i++) {
		struct guac_journal_part *p = &j->rec.part[i];

		*p = (struct guac_journal_part){ io->job[i].start, io->job[i].end,
						 atomic_load(&io->job[i].done), 0 };
		p->limit = journal_limit(j, p);
	}
	if (journal_write(j))
		return j->error;
	journal_publish(j, io);
	return 0;
}

/*
 * Each job's done is taken before the target's fdatasync: every write it
 * counts completed before the sync began, so the sync made it durable.
 */
void guac_journal_flush(struct guac_io *io, void *arg)
{
	struct guac_journal *j = arg;
	uint64_t done[GUAC_JOURNAL_MAX_JOBS];
	unsigned int i;

	if (j->error || io->sync_error)
		return;
	for (i = 0; i < io->jobs; i++)
		done[i] = atomic_load(&io->job[i].done);
	if (fdatasync(io->target->fd)) {
		io->sync_error = errno;
	} else {
		for (i = 0; i < io->jobs; i++) {
			j->rec.part[i].flushed = done[i];
			j->rec.part[i].limit = journal_limit(j, &j->rec.part[i]);
		}
		if (!journal_write(j)) {
			journal_publish(j, io);
			return;
		}
	}
	/* Nothing more can be promised: the jobs stop at their limits. */
	if (io->stop)
		atomic_store(io->stop, true);
}

int guac_journal_end(struct guac_journal *j, struct guac_io *io, bool complete)
{
	unsigned int i;

	/* After a failed fsync nothing more is known to be flushed. */
	if (j->error || io->sync_error)
		return j->error;
	for (i = 0; i < io->jobs; i++) {
		struct guac_journal_part *p = &j->rec.part[i];

		/* A block begun below the limit may end past it (a short last one). */
		p->flushed = atomic_load(&io->job[i].done);
		if (p->limit < p->flushed)
			p->limit = p->flushed;
	}
	j->rec.complete = complete;
	return journal_write(j);
}

void guac_journal_release(struct guac_journal *j)
{
	free(j->buf);
	j->buf = NULL;
}
