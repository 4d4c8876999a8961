// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hwrng-fuzz (issue 26): seeded readers of /dev/hwrng, for the runs where
 * rng_current switches and guacrng unloads under them. Each thread, with its
 * own xorshift generator seeded from SEED and its index, opens /dev/hwrng
 * blocking and O_NONBLOCK (and for writing: refused), and calls read, readv,
 * pread, preadv, poll, lseek and write with random sizes (0 to 65536) into
 * memory of every kind: heap, a buffer running into a PROT_NONE page,
 * read-only pages, and never-mapped low addresses, in odd iovec shapes. A
 * signal thread interrupts the readers (SIGUSR1, no SA_RESTART).
 *
 * Every result is checked against rng_dev_read() of
 * drivers/char/hw_random/core.c (the same in 5.10, 6.1, 6.12 and 7.x):
 *  - a read returns at most what was asked and at most the bytes writable
 *    before the first bad byte; 0 only for a count of 0; bytes past the count
 *    are left alone; it returns the bytes copied before any error, so
 *  - an error is one of ENODEV (no current rng: "none", or the module gone),
 *    EINTR (our signal), EAGAIN (O_NONBLOCK and the rng had nothing), EIO
 *    (guacrng's instruction or health-test failure), EFAULT only when the
 *    first chunk could not be written (readv: that of the first non-empty
 *    iovec): never after bytes were copied;
 *  - pread/preadv: a negative offset is EINVAL; otherwise a read, or ESPIPE
 *    on a kernel that made the device a stream;
 *  - lseek never moves: 0 (noop_llseek) or ESPIPE; a whence past SEEK_HOLE
 *    is EINVAL; poll (no .poll: DEFAULT_POLLMASK) is readable at once;
 *    write is EBADF; an open for writing is EINVAL (rng_dev_open).
 * Data: a read of 32 bytes or more is not one byte repeated (2^-248 for a
 * working rng: no flake). The summary line counts calls and successful reads
 * per system call, and errors per errno; the run fails on any violation or
 * when fewer than MIN reads returned data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include "vmtest.h"

#define HF_DEV "/dev/hwrng"
#define HF_MAX_THREADS 16
#define HF_FDS 4
#define HF_PAGE 4096u
#define HF_ARENA (17u * HF_PAGE)	/* 68 KiB: every read of up to 64 KiB fits */
#define HF_MAX_LEN 65536u
#define HF_MAX_IOV 8
#define HF_CANARY 0xa5
#define HF_NR_ERRNO 134
/*
 * rng_dev_read() copies out through a bounce buffer of RNG_BUFFER_SIZE
 * (SMP_CACHE_BYTES, at least 32: 64 on x86 and arm64), a chunk at a time,
 * and a chunk that faults is lost whole: a read whose first HF_CHUNK_MAX
 * bytes are writable has copied something before any fault, so it never
 * fails with EFAULT (128: margin for a larger cache line).
 */
#define HF_CHUNK_MAX 128u

enum hf_op { HF_OPEN, HF_CLOSE, HF_READ, HF_READV, HF_PREAD, HF_PREADV, HF_POLL, HF_SEEK,
	     HF_WRITE, HF_NR_OPS };

static const char *const hf_op_names[HF_NR_OPS] = {
	"open", "close", "read", "readv", "pread", "preadv", "poll", "lseek", "write",
};

/* Memory a read writes into. */
enum hf_mem { HF_HEAP, HF_TAIL, HF_RO, HF_UNMAPPED, HF_NR_MEM };

struct hf_file {
	int fd;			/* -1: free slot */
	bool nonblock;
};

struct hf_thread {
	pthread_t thread;
	unsigned int index;
	uint64_t seed, rnd, call;
	double deadline;
	struct hf_file files[HF_FDS];
	/* heap: HF_ARENA bytes; tail: HF_ARENA - HF_PAGE writable, then PROT_NONE; ro: read-only */
	uint8_t *heap, *tail, *ro;
	uint64_t calls[HF_NR_OPS], data[HF_NR_OPS], errs[HF_NR_ERRNO], bytes, violations;
};

static atomic_bool hf_stop;
static atomic_uint_fast64_t hf_signals;

static uint64_t hf_rand(struct hf_thread *t)
{
	return vt_rand(&t->rnd);
}

__attribute__((format(printf, 2, 3)))
static void hf_fail(struct hf_thread *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vt_fail("seed %" PRIu64 " thread %u call %" PRIu64 ": %s", t->seed, t->index, t->call,
		msg);
	t->violations++;
}

static const char *hf_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "?";
}

static void hf_count_errno(struct hf_thread *t, int err)
{
	t->errs[err > 0 && err < HF_NR_ERRNO ? err : 0]++;
}

static size_t hf_rand_len(struct hf_thread *t)
{
	switch (hf_rand(t) % 8) {
	case 0:
		return 0;
	case 1:
	case 2:
		return 1 + hf_rand(t) % 64;
	case 3:
	case 4:
		return 1 + hf_rand(t) % 4096;
	case 5:
		return 4096;
	default:
		return 1 + hf_rand(t) % HF_MAX_LEN;
	}
}

/*
 * A destination of @len bytes in memory of kind @mem; *room: how many bytes
 * from its start the kernel can write.
 */
static uint8_t *hf_dest(struct hf_thread *t, enum hf_mem mem, size_t len, size_t *room)
{
	size_t writable = HF_ARENA - HF_PAGE, start;

	switch (mem) {
	case HF_TAIL:
		/* End within the last 4 KiB before the PROT_NONE page, or run into it. */
		start = writable - 1 - hf_rand(t) % (len < HF_PAGE ? len + 1 : HF_PAGE);
		if (hf_rand(t) % 4 == 0 && len <= writable)
			start = writable - len;		/* ends exactly at the page */
		*room = writable - start;
		return t->tail + start;
	case HF_RO:
		*room = 0;
		return t->ro + hf_rand(t) % HF_PAGE;
	case HF_UNMAPPED:
		/* Below mmap_min_addr (64 KiB by default): never mapped, yet a user address. */
		*room = 0;
		return (uint8_t *)(uintptr_t)(HF_PAGE + hf_rand(t) % (8 * HF_PAGE));
	default:
		start = hf_rand(t) % (HF_ARENA - len + 1);
		*room = HF_ARENA - start;
		return t->heap + start;
	}
}

static enum hf_mem hf_rand_mem(struct hf_thread *t)
{
	unsigned int r = hf_rand(t) % 16;

	if (r < 10)
		return HF_HEAP;
	if (r < 13)
		return HF_TAIL;
	return r < 15 ? HF_RO : HF_UNMAPPED;
}

/* Returned bytes: not one value repeated when there are 32 or more. */
static void hf_check_data(struct hf_thread *t, const char *what, const uint8_t *p, size_t n)
{
	size_t i;

	if (n < 32)
		return;
	for (i = 1; i < n; i++)
		if (p[i] != p[0])
			return;
	hf_fail(t, "%s returned %zu bytes all 0x%02x", what, n, p[0]);
}

/* The bytes at [from, to) of a heap destination must still be the canary. */
static void hf_check_untouched(struct hf_thread *t, const char *what, const uint8_t *p,
			       size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (p[i] != HF_CANARY) {
			hf_fail(t, "%s wrote byte %zu, past the %zu it returned", what, i, from);
			return;
		}
}

/*
 * The answers of pread and preadv that the offset decides: EINVAL for a
 * negative one (the VFS, before the driver), ESPIPE where the file has no
 * positions. True if @err was one of them (counted and judged here).
 */
static bool hf_positioned_err(struct hf_thread *t, const char *what, off_t off, int err)
{
	if (off < 0) {
		hf_count_errno(t, err);
		if (err != EINVAL)
			hf_fail(t, "%s failed with %s, expected EINVAL", what, hf_errname(err));
		return true;
	}
	if (err == ESPIPE) {
		hf_count_errno(t, err);
		return true;
	}
	return false;
}

/* An error from a read of @f: allowed by rng_dev_read()? */
static void hf_check_err(struct hf_thread *t, const struct hf_file *f, const char *what,
			 int err, bool efault_ok)
{
	hf_count_errno(t, err);
	switch (err) {
	case ENODEV:	/* rng_current "none", or guacrng unloading */
	case EINTR:	/* our SIGUSR1, before any byte */
	case EIO:	/* guacrng: instruction or health-test failure */
		return;
	case EAGAIN:
		if (f->nonblock)
			return;
		break;
	case EFAULT:
		if (efault_ok)
			return;
		hf_fail(t, "%s failed with EFAULT, but its first byte was writable", what);
		return;
	}
	hf_fail(t, "%s failed with %s, not in the contract%s", what, hf_errname(err),
		f->nonblock ? "" : " (blocking)");
}

static void hf_open(struct hf_thread *t)
{
	unsigned int i, r = hf_rand(t) % 8;
	int flags, fd;

	for (i = 0; i < HF_FDS && t->files[i].fd >= 0; i++)
		;
	/* Every slot taken: an open for writing instead, which must fail. */
	if (r == 0 || i == HF_FDS) {
		flags = hf_rand(t) % 2 ? O_WRONLY : O_RDWR;
		fd = open(HF_DEV, flags);
		if (fd >= 0) {
			hf_fail(t, "open for writing succeeded");
			close(fd);
		} else if (errno != EINVAL) {
			hf_fail(t, "open for writing failed with %s, expected EINVAL",
				hf_errname(errno));
		} else {
			hf_count_errno(t, errno);
		}
		return;
	}
	flags = O_RDONLY | O_CLOEXEC | (r % 2 ? O_NONBLOCK : 0);
	fd = open(HF_DEV, flags);
	if (fd < 0) {
		hf_count_errno(t, errno);
		hf_fail(t, "open(" HF_DEV ") failed with %s", hf_errname(errno));
		return;
	}
	t->files[i] = (struct hf_file){ .fd = fd, .nonblock = flags & O_NONBLOCK };
	t->data[HF_OPEN]++;
}

static void hf_close(struct hf_thread *t, struct hf_file *f)
{
	if (close(f->fd))
		hf_fail(t, "close failed with %s", hf_errname(errno));
	else
		t->data[HF_CLOSE]++;
	f->fd = -1;
}

/* read or pread of one buffer. */
static void hf_read(struct hf_thread *t, struct hf_file *f, bool positioned)
{
	enum hf_op op = positioned ? HF_PREAD : HF_READ;
	enum hf_mem mem = hf_rand_mem(t);
	size_t len = hf_rand_len(t), room, n;
	uint8_t *buf = hf_dest(t, mem, len, &room);
	int64_t off = 0;
	char what[96];
	ssize_t ret;

	if (positioned)
		off = hf_rand(t) % 4 ? (int64_t)(hf_rand(t) >> (1 + hf_rand(t) % 63)) :
				       -1 - (int64_t)(hf_rand(t) % 4096);
	snprintf(what, sizeof(what), "%s(%s, %zu bytes, mem %d%s)", hf_op_names[op],
		 f->nonblock ? "O_NONBLOCK" : "blocking", len, mem,
		 positioned && off < 0 ? ", negative offset" : "");
	if (mem == HF_HEAP)
		memset(buf, HF_CANARY, len);
	ret = positioned ? pread(f->fd, buf, len, off) : read(f->fd, buf, len);
	if (ret < 0) {
		int err = errno;

		if (positioned && hf_positioned_err(t, what, off, err))
			return;
		hf_check_err(t, f, what, err, room < len && room < HF_CHUNK_MAX);
		return;
	}
	n = (size_t)ret;
	if (positioned && off < 0) {
		hf_fail(t, "%s returned %zd, expected EINVAL", what, ret);
		return;
	}
	if (n > len || n > room || (len && !n)) {
		hf_fail(t, "%s returned %zu (%zu writable)", what, n, room);
		return;
	}
	if (!n)
		return;
	t->data[op]++;
	t->bytes += n;
	hf_check_data(t, what, buf, n);
	if (mem == HF_HEAP)
		hf_check_untouched(t, what, buf, n, len);
}

/* readv or preadv of up to HF_MAX_IOV odd iovecs. */
static void hf_readv(struct hf_thread *t, struct hf_file *f, bool positioned)
{
	enum hf_op op = positioned ? HF_PREADV : HF_READV;
	struct iovec iov[HF_MAX_IOV];
	enum hf_mem mem[HF_MAX_IOV];
	size_t room[HF_MAX_IOV], cursor = 0, limit = 0, total = 0, n, done, i;
	unsigned int nr = 1 + hf_rand(t) % HF_MAX_IOV;
	bool bad = false, efault_ok = false, seen_data = false;
	int64_t off = 0;
	char what[96];
	ssize_t ret;

	for (i = 0; i < nr; i++) {
		size_t len = hf_rand(t) % 5 == 0 ? 0 : 1 + hf_rand(t) % 8192;

		mem[i] = hf_rand(t) % 4 ? HF_HEAP : hf_rand_mem(t);
		if (mem[i] == HF_HEAP) {
			/* Heap iovecs never overlap: the canary check needs that. */
			if (len > HF_ARENA - cursor)
				len = HF_ARENA - cursor;
			iov[i].iov_base = t->heap + cursor;
			room[i] = len;
			cursor += len;
		} else {
			iov[i].iov_base = hf_dest(t, mem[i], len, &room[i]);
		}
		if (!len && hf_rand(t) % 2)
			iov[i].iov_base = NULL;
		iov[i].iov_len = len;
		total += len;
		/* The most the call may return: every byte up to the first bad one. */
		if (!bad) {
			if (len && !seen_data && room[i] < len && room[i] < HF_CHUNK_MAX)
				efault_ok = true;
			if (len)
				seen_data = true;
			limit += room[i] < len ? room[i] : len;
			bad = room[i] < len;
		}
	}
	memset(t->heap, HF_CANARY, cursor);
	if (positioned)
		off = hf_rand(t) % 4 ? (int64_t)(hf_rand(t) >> (1 + hf_rand(t) % 63)) :
				       -1 - (int64_t)(hf_rand(t) % 4096);
	snprintf(what, sizeof(what), "%s(%s, %u iovecs, %zu bytes%s)", hf_op_names[op],
		 f->nonblock ? "O_NONBLOCK" : "blocking", nr, total,
		 positioned && off < 0 ? ", negative offset" : "");
	ret = positioned ? preadv(f->fd, iov, (int)nr, off) : readv(f->fd, iov, (int)nr);
	if (ret < 0) {
		int err = errno;

		if (positioned && hf_positioned_err(t, what, off, err))
			return;
		hf_check_err(t, f, what, err, efault_ok);
		return;
	}
	n = (size_t)ret;
	if (positioned && off < 0) {
		hf_fail(t, "%s returned %zd, expected EINVAL", what, ret);
		return;
	}
	if (n > limit || (total && !n)) {
		hf_fail(t, "%s returned %zu, at most %zu writable before the first bad byte",
			what, n, limit);
		return;
	}
	if (n) {
		t->data[op]++;
		t->bytes += n;
	}
	for (i = 0, done = 0; i < nr; i++) {
		size_t got = n - done < iov[i].iov_len ? n - done : iov[i].iov_len;

		hf_check_data(t, what, iov[i].iov_base, got);
		if (mem[i] == HF_HEAP)
			hf_check_untouched(t, what, iov[i].iov_base, got, iov[i].iov_len);
		done += got;
	}
}

static void hf_misc(struct hf_thread *t, struct hf_file *f, enum hf_op op)
{
	if (op == HF_POLL) {
		struct pollfd p = { .fd = f->fd, .events = POLLIN };
		int ret = poll(&p, 1, 0);

		/* No .poll in the hwrng core: DEFAULT_POLLMASK, readable at once. */
		if (ret != 1 || !(p.revents & POLLIN) || (p.revents & (POLLERR | POLLNVAL)))
			hf_fail(t, "poll returned %d, revents %#x (%s), expected 1 with POLLIN",
				ret, (unsigned int)p.revents, ret < 0 ? hf_errname(errno) : "-");
		else
			t->data[op]++;
	} else if (op == HF_SEEK) {
		int whence = (int)(hf_rand(t) % 8);
		off_t ret = lseek(f->fd, (off_t)hf_rand(t), whence);

		if (ret == 0 && whence <= SEEK_HOLE) {
			t->data[op]++;
		} else if (ret < 0 && errno == EINVAL && whence > SEEK_HOLE) {
			hf_count_errno(t, errno);
		} else if (ret < 0 && errno == ESPIPE) {
			hf_count_errno(t, errno);
		} else {
			hf_fail(t, "lseek(whence %d) returned %lld (%s): the device has no position",
				whence, (long long)ret, ret < 0 ? hf_errname(errno) : "-");
		}
	} else {
		ssize_t ret = write(f->fd, t->heap, 1 + hf_rand(t) % 64);

		if (ret >= 0 || errno != EBADF)
			hf_fail(t, "write on a read-only open returned %zd (%s), expected EBADF",
				ret, ret < 0 ? hf_errname(errno) : "-");
		else
			hf_count_errno(t, errno);
	}
}

static uint8_t *hf_map(int prot)
{
	uint8_t *p = mmap(NULL, HF_ARENA, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		guac_err("mmap: %s", strerror(errno));
		exit(GUAC_EXIT_ERROR);
	}
	return p;
}

static void *hf_run(void *arg)
{
	struct hf_thread *t = arg;
	unsigned int i;

	while (!atomic_load(&hf_stop) && guac_now() < t->deadline) {
		enum hf_op op = (enum hf_op)(hf_rand(t) % HF_NR_OPS);
		struct hf_file *f = &t->files[hf_rand(t) % HF_FDS];

		t->call++;
		if (f->fd < 0 && op != HF_OPEN)
			op = HF_OPEN;
		if (op == HF_CLOSE && hf_rand(t) % 2)
			op = HF_READ;	/* keep files open for longer */
		t->calls[op]++;
		switch (op) {
		case HF_OPEN:
			hf_open(t);
			break;
		case HF_CLOSE:
			hf_close(t, f);
			break;
		case HF_READ:
		case HF_PREAD:
			hf_read(t, f, op == HF_PREAD);
			break;
		case HF_READV:
		case HF_PREADV:
			hf_readv(t, f, op == HF_PREADV);
			break;
		default:
			hf_misc(t, f, op);
			break;
		}
	}
	for (i = 0; i < HF_FDS; i++)
		if (t->files[i].fd >= 0)
			close(t->files[i].fd);
	return NULL;
}

static void hf_on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&hf_signals, 1);
}

/* hwrng-fuzz SEED SECONDS [THREADS [MIN [STOPFILE]]] */
int vt_cmd_hwrng_fuzz(int argc, char **argv)
{
	static struct hf_thread threads[HF_MAX_THREADS];
	uint64_t seed, seconds, count = 4, min = 1, calls[HF_NR_OPS] = { 0 },
		 data[HF_NR_OPS] = { 0 }, errs[HF_NR_ERRNO] = { 0 }, bytes = 0, reads = 0,
		 violations = 0, sent = 0, rnd;
	struct sigaction sa = { .sa_handler = hf_on_signal };	/* no SA_RESTART: EINTR */
	const char *stopfile = argc == 6 ? argv[5] : NULL;
	unsigned int i, op, e;
	double start;

	if (argc < 3 || argc > 6 || !guac_parse_u64("seed", argv[1], &seed) ||
	    !guac_parse_u64("seconds", argv[2], &seconds) ||
	    (argc >= 4 && !guac_parse_u64("thread count", argv[3], &count)) ||
	    (argc >= 5 && !guac_parse_u64("minimum reads", argv[4], &min)))
		return GUAC_EXIT_ERROR;
	if (!count || count > HF_MAX_THREADS) {
		guac_err("thread count must be 1 to %d", HF_MAX_THREADS);
		return GUAC_EXIT_ERROR;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL)) {
		guac_err("sigaction: %s", strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	start = guac_now();
	for (i = 0; i < count; i++) {
		struct hf_thread *t = &threads[i];
		unsigned int j;

		*t = (struct hf_thread){ .index = i, .seed = seed,
					 .deadline = start + (double)seconds };
		t->heap = hf_map(PROT_READ | PROT_WRITE);
		t->tail = hf_map(PROT_READ | PROT_WRITE);
		t->ro = hf_map(PROT_READ);
		if (mprotect(t->tail + HF_ARENA - HF_PAGE, HF_PAGE, PROT_NONE)) {
			guac_err("mprotect: %s", strerror(errno));
			return GUAC_EXIT_ERROR;
		}
		for (j = 0; j < HF_FDS; j++)
			t->files[j].fd = -1;
		t->rnd = vt_rand_seed(seed, i);
		if (pthread_create(&t->thread, NULL, hf_run, t)) {
			guac_err("cannot start thread %u", i);
			return GUAC_EXIT_ERROR;
		}
	}
	/* Interrupt a random reader every 1-8 ms until the deadline or STOPFILE. */
	rnd = seed | 1;
	while (guac_now() < start + (double)seconds) {
		if (stopfile && !access(stopfile, F_OK))
			break;
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		usleep(1000 + rnd % 7000);
		if (!pthread_kill(threads[rnd % count].thread, SIGUSR1))
			sent++;
	}
	atomic_store(&hf_stop, true);
	for (i = 0; i < count; i++) {
		pthread_join(threads[i].thread, NULL);
		for (op = 0; op < HF_NR_OPS; op++) {
			calls[op] += threads[i].calls[op];
			data[op] += threads[i].data[op];
		}
		for (e = 0; e < HF_NR_ERRNO; e++)
			errs[e] += threads[i].errs[e];
		bytes += threads[i].bytes;
		violations += threads[i].violations;
	}
	reads = data[HF_READ] + data[HF_READV] + data[HF_PREAD] + data[HF_PREADV];
	printf("hwrng-fuzz seed %" PRIu64 ": %u threads, %.1f s, %" PRIu64 " signals; calls (ok/all):",
	       seed, (unsigned int)count, guac_now() - start, sent);
	for (op = 0; op < HF_NR_OPS; op++)
		printf(" %s %" PRIu64 "/%" PRIu64, hf_op_names[op], data[op], calls[op]);
	printf("; reads with data %" PRIu64 ", %" PRIu64 " bytes; errors:", reads, bytes);
	for (e = 0; e < HF_NR_ERRNO; e++)
		if (errs[e])
			printf(" %s %" PRIu64, e ? hf_errname((int)e) : "other", errs[e]);
	printf("; violations %" PRIu64 "\n", violations);
	if (reads < min)
		vt_fail("only %" PRIu64 " reads returned data, fewer than %" PRIu64, reads, min);
	return 0;
}
