// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The I/O engine's error paths, which real loop devices cannot produce: read
 * errors (EIO) on chosen sectors, short reads and writes, ENOSPC part-way,
 * and the end of the data, and for a pipe, EINTR from a stray signal and
 * from the wake-up of a stop. The engine is compiled in here and reads and
 * writes a memory "device" through its injectable system calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "io_engine.c"

#define DEV_SIZE (1u << 20)
#define SECTOR 512u

static uint8_t dev[DEV_SIZE];
static uint64_t dev_size = DEV_SIZE;	/* the end of the data: reads stop here */
static uint64_t bad_lo, bad_hi;		/* reads touching [bad_lo, bad_hi) fail with EIO */
static size_t max_io = SIZE_MAX;	/* largest transfer per call: short I/O */
static uint64_t space = UINT64_MAX;	/* writes past this byte fail with ENOSPC */

/* What the hooks saw: each byte's consume count, the unreadable calls. */
static uint8_t seen[DEV_SIZE];
static uint64_t unreadable[64][2];
static unsigned int nunreadable;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static ssize_t fake_pread(int fd, void *buf, size_t len, off_t off)
{
	(void)fd;
	if (len > max_io)
		len = max_io;
	if ((uint64_t)off < bad_hi && (uint64_t)off + len > bad_lo) {
		errno = EIO;
		return -1;
	}
	if ((uint64_t)off >= dev_size)
		return 0;
	if ((uint64_t)off + len > dev_size)
		len = dev_size - (uint64_t)off;
	memcpy(buf, dev + off, len);
	return (ssize_t)len;
}

static ssize_t fake_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	(void)fd;
	if (len > max_io)
		len = max_io;
	if ((uint64_t)off >= space) {
		errno = ENOSPC;
		return -1;
	}
	if ((uint64_t)off + len > space)
		len = space - (uint64_t)off;	/* a short write, then ENOSPC */
	memcpy(dev + off, buf, len);
	return (ssize_t)len;
}

/* A pipe: the device's bytes in order, up to dev_size, max_io a call. */
static uint64_t stream_pos;
static unsigned int stream_calls;
static bool eintr_every_other;		/* every other read fails with EINTR, as for a stray signal */
static uint64_t stop_at = UINT64_MAX;	/* here: the stop flag is set, then the read fails with EINTR */
static atomic_bool stream_stop;
static unsigned int stop_eintrs;

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	(void)fd;
	if (eintr_every_other && stream_calls++ % 2 == 0) {
		errno = EINTR;
		return -1;
	}
	if (stream_pos >= stop_at) {
		atomic_store(&stream_stop, true);	/* Ctrl-C while the pipe is stalled */
		/* An engine that retries for ever fails the test instead of hanging it. */
		errno = ++stop_eintrs > 100 ? EIO : EINTR;
		return -1;
	}
	if (len > max_io)
		len = max_io;
	if (stop_at - stream_pos < len)
		len = stop_at - stream_pos;
	if (stream_pos >= dev_size)
		return 0;
	if (stream_pos + len > dev_size)
		len = dev_size - stream_pos;
	memcpy(buf, dev + stream_pos, len);
	stream_pos += len;
	return (ssize_t)len;
}

static const struct guac_io_ops fake_ops = { fake_pread, fake_pwrite, fake_read };

static size_t consume(struct guac_io_job *job, const uint8_t *buf, uint64_t pos, size_t len)
{
	uint64_t dev_pos = job->io->base + pos;
	size_t i;

	for (i = 0; i < len; i++) {
		assert_int_equal(buf[i], dev[dev_pos + i]);	/* the right bytes at the right place */
		seen[dev_pos + i]++;
	}
	return len;
}

static size_t on_unreadable(struct guac_io_job *job, uint64_t pos, size_t len, int err)
{
	assert_int_equal(err, EIO);
	pthread_mutex_lock(&lock);
	assert_true(nunreadable < 64);
	unreadable[nunreadable][0] = job->io->base + pos;
	unreadable[nunreadable][1] = job->io->base + pos + len;
	nunreadable++;
	pthread_mutex_unlock(&lock);
	return len;
}

static void produce(struct guac_io_job *job, uint8_t *buf, uint64_t pos, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)((job->io->base + pos + i) * 7);
}

static struct guac_target target = { .fd = -1, .kind = GUAC_TARGET_FILE, .sector = SECTOR };
static struct guac_target stream = { .fd = -1, .kind = GUAC_TARGET_STREAM, .sector = SECTOR };
static struct guac_io io;

static int setup(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < DEV_SIZE; i++)
		dev[i] = (uint8_t)(i * 13 + (i >> 9));
	memset(seen, 0, sizeof(seen));
	nunreadable = 0;
	dev_size = DEV_SIZE;
	bad_lo = bad_hi = 0;
	max_io = SIZE_MAX;
	space = UINT64_MAX;
	stream_pos = 0;
	stream_calls = 0;
	stop_eintrs = 0;
	eintr_every_other = false;
	stop_at = UINT64_MAX;
	atomic_store(&stream_stop, false);
	memset(&io, 0, sizeof(io));
	io.target = &target;
	io.ops = &fake_ops;
	io.hooks = (struct guac_io_hooks){ produce, consume, on_unreadable, NULL, NULL, NULL };
	io.bs = 64 << 10;
	return 0;
}

/*
 * Twins (a check hook): check_false sends every block to consume through
 * the twins' in-order path; check_dirty passes the blocks that hold no byte
 * of [dirty_lo, dirty_hi) (and checks that they hold the device's bytes).
 */
static atomic_uint nchecks;
static uint64_t dirty_lo, dirty_hi, dirty_skip_lo, dirty_skip_hi;
static uint64_t consumed_at[64];
static unsigned int nconsumed;

static bool check_false(struct guac_io_job *job, const uint8_t *buf, uint64_t pos, size_t len,
			uint8_t *scratch)
{
	(void)job;
	(void)buf;
	(void)pos;
	(void)len;
	(void)scratch;
	atomic_fetch_add(&nchecks, 1);
	return false;
}

static bool check_dirty(struct guac_io_job *job, const uint8_t *buf, uint64_t pos, size_t len,
			uint8_t *scratch)
{
	uint64_t dev_pos = job->io->base + pos;

	(void)scratch;
	atomic_fetch_add(&nchecks, 1);
	if (memcmp(buf, dev + dev_pos, len))
		return false;
	return dev_pos + len <= dirty_lo || dev_pos >= dirty_hi ||
	       (dev_pos >= dirty_skip_lo && dev_pos + len <= dirty_skip_hi);
}

/* consume that also records where each call starts (one job), to check the order. */
static size_t consume_logged(struct guac_io_job *job, const uint8_t *buf, uint64_t pos,
			     size_t len)
{
	if (nconsumed < 64)
		consumed_at[nconsumed] = job->io->base + pos;
	nconsumed++;
	return consume(job, buf, pos, len);
}

static int setup_twins(void **state)
{
	setup(state);
	io.hooks.check = check_false;
	io.check_scratch = 64;
	atomic_store(&nchecks, 0);
	dirty_lo = dirty_hi = dirty_skip_lo = dirty_skip_hi = 0;
	nconsumed = 0;
	return 0;
}

static void run_read(unsigned int jobs, uint64_t base, uint64_t length)
{
	io.base = base;
	io.length = length;
	io.jobs = jobs;
	guac_io_split(&io, SECTOR);
	assert_int_equal(guac_io_run(&io), 0);
}

/* EIO on sectors 10-12: those three are reported one by one, every other byte checked once. */
static void test_eio_sector_retry(void **state)
{
	uint64_t i;

	(void)state;
	bad_lo = 10 * SECTOR + 100;
	bad_hi = 12 * SECTOR + 1;
	run_read(2, 0, DEV_SIZE);
	assert_int_equal(nunreadable, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(unreadable[i][0], (10 + i) * SECTOR);
		assert_int_equal(unreadable[i][1], (11 + i) * SECTOR);
	}
	for (i = 0; i < DEV_SIZE; i++)
		assert_int_equal(seen[i], i >= 10 * SECTOR && i < 13 * SECTOR ? 0 : 1);
	assert_int_equal(guac_io_done(&io), DEV_SIZE);
	assert_false(io.eof);
}

/* A bad stretch across a block boundary and on an unaligned run: still whole device sectors. */
static void test_eio_unaligned_run(void **state)
{
	uint64_t i, base = 1000, len = 300000;

	(void)state;
	bad_lo = 65536 - 10;
	bad_hi = 65536 + 10;
	io.bs = 65536;
	run_read(3, base, len);
	assert_int_equal(nunreadable, 2);
	assert_int_equal(unreadable[0][0], 65536 - SECTOR);
	assert_int_equal(unreadable[1][1], 65536 + SECTOR);
	for (i = base; i < base + len; i++)
		assert_int_equal(seen[i], i >= 65536 - SECTOR && i < 65536 + SECTOR ? 0 : 1);
	for (i = 0; i < base; i++)
		assert_int_equal(seen[i], 0);
}

/* Short reads (1000 bytes a call): nothing lost, nothing twice. */
static void test_short_reads(void **state)
{
	uint64_t i;

	(void)state;
	max_io = 1000;
	run_read(3, 0, DEV_SIZE);
	for (i = 0; i < DEV_SIZE; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(nunreadable, 0);
}

/* The data ends before the length: EOF at the exact byte. */
static void test_eof(void **state)
{
	(void)state;
	dev_size = 100000;
	run_read(1, 0, DEV_SIZE);
	assert_true(io.eof);
	assert_int_equal(io.eof_pos, 100000);
	assert_int_equal(guac_io_done(&io), 100000);
}

/*
 * Twins: the engine's error paths with every block through the in-order path
 * of a job's two threads (check_false), each test as without twins.
 */
static void test_twins_eio(void **state)
{
	test_eio_sector_retry(state);
	assert_true(atomic_load(&nchecks) > 0);
}

static void test_twins_unaligned(void **state)
{
	test_eio_unaligned_run(state);
	assert_true(atomic_load(&nchecks) > 0);
}

static void test_twins_short_reads(void **state)
{
	test_short_reads(state);
	assert_true(atomic_load(&nchecks) > 0);
}

static void test_twins_eof(void **state)
{
	test_eof(state);
	assert_true(atomic_load(&nchecks) > 0);
}

/*
 * Twins with blocks that pass: consume sees exactly the blocks that do not
 * (two dirty ones and one with a read error), in order, and every byte is
 * done; each block is checked once.
 */
static void test_twins_clean(void **state)
{
	uint64_t i, block = 65536;

	(void)state;
	io.hooks.check = check_dirty;
	io.hooks.consume = consume_logged;
	io.bs = (size_t)block;
	dirty_lo = 2 * block + 100;	/* blocks 2 and 9 do not pass */
	dirty_hi = 9 * block + 1;
	dirty_skip_lo = 3 * block;	/* ... and none between */
	dirty_skip_hi = 9 * block;
	bad_lo = 12 * block + 5 * SECTOR;	/* block 12: EIO on one sector */
	bad_hi = bad_lo + 1;
	run_read(1, 0, DEV_SIZE);
	assert_int_equal(atomic_load(&nchecks), DEV_SIZE / block - 1);	/* not the EIO block */
	assert_int_equal(nconsumed, 2 + block / SECTOR - 1);
	assert_int_equal(consumed_at[0], 2 * block);
	assert_int_equal(consumed_at[1], 9 * block);
	assert_int_equal(consumed_at[2], 12 * block);
	for (i = 3; i < 64; i++)
		assert_true(consumed_at[i] > consumed_at[i - 1]);
	assert_int_equal(nunreadable, 1);
	assert_int_equal(unreadable[0][0], 12 * block + 5 * SECTOR);
	for (i = 0; i < DEV_SIZE; i++) {
		bool via_consume = (i / block == 2 || i / block == 9 || i / block == 12) &&
				   !(i >= 12 * block + 5 * SECTOR && i < 12 * block + 6 * SECTOR);

		assert_int_equal(seen[i], via_consume ? 1 : 0);
	}
	assert_int_equal(guac_io_done(&io), DEV_SIZE);
	assert_false(io.eof);
}

/* Parts: contiguous, disjoint, sector multiples but the last. */
static void test_split(void **state)
{
	unsigned int i;

	(void)state;
	io.length = 1000000;
	io.jobs = 7;
	guac_io_split(&io, SECTOR);
	assert_int_equal(io.jobs, 7);
	assert_int_equal(io.job[0].start, 0);
	for (i = 0; i < 7; i++) {
		if (i)
			assert_int_equal(io.job[i].start, io.job[i - 1].end);
		if (i < 6)
			assert_int_equal(io.job[i].end % SECTOR, 0);
	}
	assert_int_equal(io.job[6].end, 1000000);
	io.length = 1024;	/* two sectors for 7 jobs: two parts */
	io.jobs = 7;
	guac_io_split(&io, SECTOR);
	assert_int_equal(io.jobs, 2);
}

/* Short writes, then ENOSPC at byte 300000: exactly that much done, the error kept. */
static void test_enospc(void **state)
{
	uint64_t i;

	(void)state;
	memset(dev, 0, sizeof(dev));
	max_io = 4096;
	space = 300000;
	io.write = true;
	run_read(1, 0, DEV_SIZE);
	assert_int_equal(io.job[0].error, ENOSPC);
	assert_int_equal(io.job[0].error_pos, 300000);
	assert_int_equal(guac_io_done(&io), 300000);
	for (i = 0; i < 300000; i++)
		assert_int_equal(dev[i], (uint8_t)(i * 7));
	assert_int_equal(dev[300000], 0);
}

/* A stop request (SIGINT) ends each job after its current block. */
static void test_stop(void **state)
{
	atomic_bool stop = true;

	(void)state;
	io.stop = &stop;
	run_read(2, 0, DEV_SIZE);
	assert_true(io.interrupted);
	assert_int_equal(guac_io_done(&io), 0);
}

/* A pipe read to its end, as guac verify sets it up: one job, no length. */
static void run_stream(void)
{
	io.target = &stream;
	io.stop = &stream_stop;
	io.length = UINT64_MAX;
	io.jobs = 1;
	io.job[0] = (struct guac_io_job){ .io = &io, .start = 0, .end = io.length };
	assert_int_equal(guac_io_run(&io), 0);
}

/* EINTR without a stop (a stray signal) is retried: every byte checked, no error. */
static void test_stream_eintr_retry(void **state)
{
	uint64_t i;

	(void)state;
	eintr_every_other = true;
	max_io = 65536;
	dev_size = 1000000;
	run_stream();
	assert_int_equal(io.job[0].error, 0);
	assert_false(io.interrupted);
	assert_true(io.eof);
	assert_int_equal(io.eof_pos, 1000000);
	assert_int_equal(guac_io_done(&io), 1000000);
	for (i = 0; i < DEV_SIZE; i++)
		assert_int_equal(seen[i], i < 1000000 ? 1 : 0);
}

/*
 * A stop that interrupts a read waiting mid-block on a stalled pipe: the job
 * ends there as interrupted, not as a read error, and the bytes read before
 * the stop are checked (the pipe cannot give them again).
 */
static void test_stream_stop_in_read(void **state)
{
	uint64_t i;

	(void)state;
	max_io = 4096;
	stop_at = 100000;	/* inside the second 64 KiB block */
	run_stream();
	assert_int_equal(io.job[0].error, 0);
	assert_true(io.interrupted);
	assert_false(io.eof);
	assert_int_equal(guac_io_done(&io), 100000);
	for (i = 0; i < DEV_SIZE; i++)
		assert_int_equal(seen[i], i < 100000 ? 1 : 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_eio_sector_retry, setup),
		cmocka_unit_test_setup(test_eio_unaligned_run, setup),
		cmocka_unit_test_setup(test_short_reads, setup),
		cmocka_unit_test_setup(test_eof, setup),
		cmocka_unit_test_setup(test_split, setup),
		cmocka_unit_test_setup(test_enospc, setup),
		cmocka_unit_test_setup(test_stop, setup),
		cmocka_unit_test_setup(test_stream_eintr_retry, setup),
		cmocka_unit_test_setup(test_stream_stop_in_read, setup),
		cmocka_unit_test_setup(test_twins_eio, setup_twins),
		cmocka_unit_test_setup(test_twins_unaligned, setup_twins),
		cmocka_unit_test_setup(test_twins_short_reads, setup_twins),
		cmocka_unit_test_setup(test_twins_eof, setup_twins),
		cmocka_unit_test_setup(test_stop, setup_twins),
		cmocka_unit_test_setup(test_twins_clean, setup_twins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
