// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guac bench sources: /dev/guac, /dev/hwrng, /dev/urandom and getrandom(2). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>
#include "bench.h"

/* Far below the 2^63 file position limit; /dev/guac reads the same anywhere. */
#define BENCH_GUAC_POS_WRAP (1ULL << 62)

static int bench_dev_open(struct bench_thread *t)
{
	/* The source name is the device path. */
	t->fd = open(t->src->name, O_RDONLY | O_CLOEXEC);
	return t->fd < 0 ? errno : 0;
}

static void bench_dev_close(struct bench_thread *t)
{
	close(t->fd);
}

static ssize_t bench_dev_read(struct bench_thread *t)
{
	ssize_t n = read(t->fd, t->buf, t->size);

	return n < 0 ? -errno : n;
}

/* /dev/guac is seekable: pread at a moving position, as a verifier would. */
static ssize_t bench_guac_pread(struct bench_thread *t)
{
	ssize_t n = pread(t->fd, t->buf, t->size, (off_t)t->pos);

	if (n < 0)
		return -errno;
	t->pos = (t->pos + (uint64_t)n) % BENCH_GUAC_POS_WRAP;
	return n;
}

static ssize_t bench_getrandom(struct bench_thread *t)
{
	ssize_t n = getrandom(t->buf, t->size, 0);

	return n < 0 ? -errno : n;
}

#define BENCH_DEV_SOURCE(path, reader) \
	{ .name = path, .open = bench_dev_open, .fill = reader, .close = bench_dev_close }

const struct bench_source bench_hwrng_source = BENCH_DEV_SOURCE("/dev/hwrng", bench_dev_read);

const struct bench_source bench_dev_sources[] = {
	BENCH_DEV_SOURCE("/dev/guac", bench_guac_pread),
	BENCH_DEV_SOURCE("/dev/hwrng", bench_dev_read),
	BENCH_DEV_SOURCE("/dev/urandom", bench_dev_read),
	{ .name = "getrandom", .fill = bench_getrandom },
	{ .name = NULL },
};
