// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim on liburing's io_uring_submit for guac write --iodepth
 * (storage/io_uring.c), whose writes bypass pwrite and so the other shims.
 * Before the real submit, it looks at the writes queued (the SQEs between
 * the ring's sqe_head and sqe_tail, what that submit hands the kernel):
 *
 *   URING_FAIL_AT=OFF   the write starting at file offset OFF goes to
 *                       /dev/full instead: it fails with ENOSPC, while the
 *                       writes queued around it succeed (so completions
 *                       past a failed one come back, as on a real disk)
 *   URING_SHORT_AT=OFF  the write starting at OFF is cut to half its length
 *                       (whole 4 KiB units): a short write, whose rest the
 *                       writer must submit again
 *   URING_SLOW_NS=N     every submit first sleeps N nanoseconds
 *   URING_LOG=FILE      each write's "OFF LEN" appended to FILE
 *   URING_BATCH_LOG=FILE  each submit's number of writes appended to FILE
 *                       (a line a submit that has any)
 *
 * and on io_uring_queue_init, for the fallback to pwrite:
 *
 *   URING_INIT_ERRNO=E  the ring cannot be set up: -E (38 ENOSYS, 1 EPERM:
 *                       what a kernel without io_uring, a seccomp filter or
 *                       io_uring_disabled give), after URING_INIT_OK=N calls
 *                       that succeed (default 0)
 *
 * Built with cc -shared -fPIC ... -ldl against liburing-dev's header.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long env_ll(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? atoll(v) : -1;
}

/* Returns whether @sqe is a write. */
static int fault_sqe(struct io_uring_sqe *sqe, FILE *log)
{
	static int full = -1;
	long long fail = env_ll("URING_FAIL_AT"), cut = env_ll("URING_SHORT_AT");

	if (sqe->opcode != IORING_OP_WRITE)
		return 0;
	if (log)
		fprintf(log, "%llu %u\n", (unsigned long long)sqe->off, sqe->len);
	if (fail >= 0 && sqe->off == (unsigned long long)fail) {
		if (full < 0)
			full = open("/dev/full", O_WRONLY | O_CLOEXEC);
		sqe->fd = full;
		sqe->flags &= (__u8)~IOSQE_FIXED_FILE;
	}
	if (cut >= 0 && sqe->off == (unsigned long long)cut && sqe->len >= 8192)
		sqe->len = sqe->len / 2 / 4096 * 4096;
	return 1;
}

int io_uring_submit(struct io_uring *ring)
{
	int (*real)(struct io_uring *) = (int (*)(struct io_uring *))dlsym(RTLD_NEXT,
									   "io_uring_submit");
	long long ns = env_ll("URING_SLOW_NS");
	const char *path = getenv("URING_LOG"), *batch_path = getenv("URING_BATCH_LOG");
	FILE *log = path ? fopen(path, "a") : NULL, *batch_log;
	unsigned int i, writes = 0;

	for (i = ring->sq.sqe_head; i != ring->sq.sqe_tail; i++)
		writes += fault_sqe(&ring->sq.sqes[i & ring->sq.ring_mask], log);
	if (log)
		fclose(log);
	if (batch_path && writes && (batch_log = fopen(batch_path, "a"))) {
		fprintf(batch_log, "%u\n", writes);
		fclose(batch_log);
	}
	if (ns > 0) {
		struct timespec d = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

		nanosleep(&d, NULL);
	}
	return real(ring);
}

int io_uring_queue_init(unsigned int entries, struct io_uring *ring, unsigned int flags)
{
	int (*real)(unsigned int, struct io_uring *, unsigned int) =
		(int (*)(unsigned int, struct io_uring *, unsigned int))dlsym(RTLD_NEXT,
									      "io_uring_queue_init");
	static int calls;
	long long err = env_ll("URING_INIT_ERRNO"), ok = env_ll("URING_INIT_OK");

	if (err > 0 && __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST) >= (ok > 0 ? ok : 0))
		return -(int)err;
	return real(entries, ring, flags);
}
