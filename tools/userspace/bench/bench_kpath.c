// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench kpath: a userspace cost model of the two ways /dev/guac's read
 * path can put the stream into a reader's buffer. The kernel generates in
 * FPU sections of at most GUAC_FPU_CHUNK (4 KiB); both sources here work in
 * the same 4 KiB chunks with the same core implementation:
 *
 *  inplace  generate each chunk straight into the destination, as the path
 *           that pins the user pages does (one page per FPU section);
 *  bounce   generate each chunk into a 4 KiB, 64-byte-aligned buffer that
 *           stays in L1, then memcpy it to the destination, as a kernel
 *           buffer followed by copy_to_iter() does (drivers/char/random.c).
 *
 * The destination is the harness's t->buf, t->size bytes, like the buffer a
 * reader passes to read(2). Neither models the kernel's fixed costs (the
 * syscall, pinning and unpinning pages, the FPU section, STAC/CLAC): the
 * ratio bounce / inplace is the price of the extra copy alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "libguac.h"

#define BENCH_KPATH_ALIGN 64		/* a cache line */

static int bench_kpath_open(struct bench_thread *t)
{
	return guac_impl_usable(t->src->impl, guac_cpu_features()) ? 0 : ENOTSUP;
}

/* t->pos is the stream byte offset: both sources produce the same bytes. */
static ssize_t bench_kpath_inplace_fill(struct bench_thread *t)
{
	size_t done, n;

	for (done = 0; done < t->size; done += n) {
		n = t->size - done < BENCH_KPATH_CHUNK ? t->size - done : BENCH_KPATH_CHUNK;
		guac_stream_fill(t->src->impl, t->buf + done, 0, t->pos, n);
		t->pos += n;
	}
	return (ssize_t)t->size;
}

static int bench_kpath_bounce_open(struct bench_thread *t)
{
	int err = bench_kpath_open(t);

	if (err)
		return err;
	t->ctx = aligned_alloc(BENCH_KPATH_ALIGN, BENCH_KPATH_CHUNK);
	return t->ctx ? 0 : ENOMEM;
}

static ssize_t bench_kpath_bounce_fill(struct bench_thread *t)
{
	unsigned char *bounce = t->ctx;
	size_t done, n;

	for (done = 0; done < t->size; done += n) {
		n = t->size - done < BENCH_KPATH_CHUNK ? t->size - done : BENCH_KPATH_CHUNK;
		guac_stream_fill(t->src->impl, bounce, 0, t->pos, n);
		memcpy(t->buf + done, bounce, n);
		t->pos += n;
	}
	return (ssize_t)t->size;
}

static void bench_kpath_bounce_close(struct bench_thread *t)
{
	free(t->ctx);
}

/* The suite sets .impl (the best one, or --impl) on copies of these. */
const struct bench_source bench_kpath_sources[] = {
	{ .name = BENCH_KPATH_INPLACE, .open = bench_kpath_open,
	  .fill = bench_kpath_inplace_fill },
	{ .name = "bounce", .open = bench_kpath_bounce_open, .fill = bench_kpath_bounce_fill,
	  .close = bench_kpath_bounce_close },
	{ .name = NULL },
};
