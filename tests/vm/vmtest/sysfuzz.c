// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A seeded system-call fuzzer for /dev/guac (issue 26): threads, each with
 * its own xorshift generator seeded from SEED and its index, pick random
 * calls with random arguments: opens in every mode, lseek with any whence and
 * offset, read, pread, readv and preadv into buffers of every kind (heap,
 * a tail page unmapped, read-only, MAP_SHARED file pages, huge counts),
 * splice, sendfile, ioctl with random commands and argument pointers, mmap,
 * poll, writes, and fork() while a sibling reads. Every byte a call returns is
 * compared with the stream (libguac's portable generator, not the module's
 * SIMD code) and every result with the device's contract (README, docs/
 * device.md). The sequence of calls of a thread depends only on SEED, so a
 * failure names the seed, the thread and the call number that reproduce it;
 * the interleaving of threads does not repeat, which is what the debug and
 * KCSAN kernels are there to watch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uapi/linux/guacrng.h>
#include "libguac.h"
#include "vmtest.h"

#define SF_MAX_THREADS 16
#define SF_FDS 4
#define SF_PAGE 4096u
#define SF_ARENA_PAGES 64u			/* 256 KiB per buffer kind */
#define SF_MAX_IOV 8
/*
 * The top of user space with 4-level page tables. A read whose buffer would
 * end above the task's address space fails access_ok() with EFAULT before
 * anything happens; huge counts stay below this so that they reach the
 * device, and the fault at a guard page is what stops them.
 */
#if defined(__aarch64__)
/* arm64: 48-bit user addresses (mmap places buffers above 2^47). */
#define SF_USER_TOP 0xfffffffff000ULL
#else
#define SF_USER_TOP 0x7ffffffff000ULL
#endif

/*
 * How far short of a fault a read may stop: x86's user copy reaches the
 * faulting byte, arm64's may stop up to one of its 64-byte copy blocks short
 * (device.c; then a count below 64 may be no bytes at all, EFAULT).
 */
#if defined(__aarch64__)
#define SF_FAULT_SLACK 63
#else
#define SF_FAULT_SLACK 0
#endif

enum sf_op {
	SF_OPEN, SF_CLOSE, SF_SEEK, SF_READ, SF_PREAD, SF_READV, SF_PREADV, SF_SPLICE,
	SF_SENDFILE, SF_IOCTL, SF_MMAP, SF_POLL, SF_WRITE, SF_FORK, SF_NR_OPS
};

static const char *const sf_op_names[SF_NR_OPS] = {
	"open", "close", "lseek", "read", "pread", "readv", "preadv", "splice", "sendfile",
	"ioctl", "mmap", "poll", "write", "fork",
};

/* Destination memory: how much of a buffer the kernel may write, and how it is backed. */
enum sf_mem { SF_HEAP, SF_TAIL_UNMAPPED, SF_READ_ONLY, SF_SHARED_FILE, SF_NR_MEM };

struct sf_file {
	int fd;			/* -1: free slot */
	int64_t pos;
	uint64_t origin;
};

struct sf_thread {
	pthread_t thread;
	unsigned int index;
	uint64_t seed, rnd, call;
	double deadline;
	struct sf_file files[SF_FDS];
	uint8_t *heap, *tail, *ro, *shared, *want;	/* SF_ARENA_PAGES pages each */
	uint64_t calls[SF_NR_OPS], bytes, errors_checked;
	bool failed;
	bool no_sendfile;
};

static uint64_t sf_rand(struct sf_thread *t)
{
	return vt_rand(&t->rnd);
}

__attribute__((format(printf, 2, 3)))
static void sf_fail(struct sf_thread *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vt_fail("seed %" PRIu64 " thread %u call %" PRIu64 ": %s", t->seed, t->index, t->call,
		msg);
	t->failed = true;
}

/* ============================ random arguments ============================ */

/* Offsets that matter: small, anywhere, at the end, past it, negative, the extremes. */
static int64_t sf_rand_offset(struct sf_thread *t)
{
	switch (sf_rand(t) % 10) {
	case 0:
		return (int64_t)(sf_rand(t) % 8192);
	case 1:
	case 2:
		return (int64_t)(sf_rand(t) >> 1);
	case 3:
	case 4:
		return GUAC_DEV_END - (int64_t)(sf_rand(t) % (1u << 20));
	case 5:
		return GUAC_DEV_END + (int64_t)(sf_rand(t) % 64);
	case 6:
		return -(int64_t)(sf_rand(t) % 100000) - 1;
	case 7:
		return INT64_MAX - (int64_t)(sf_rand(t) % 3);
	case 8:
		return INT64_MIN + (int64_t)(sf_rand(t) % 3);
	default:
		return (int64_t)sf_rand(t);
	}
}

static size_t sf_rand_len(struct sf_thread *t)
{
	switch (sf_rand(t) % 6) {
	case 0:
		return 0;
	case 1:
		return 1 + sf_rand(t) % 300;
	case 2:
	case 3:
		return 1 + sf_rand(t) % (SF_ARENA_PAGES * SF_PAGE);
	case 4:
		return 1 + sf_rand(t) % (3 * SF_PAGE);
	default:
		/* Huge: the kernel stops at the memory's end (a fault) or the file's. */
		return (size_t)1 << (20 + sf_rand(t) % 40);
	}
}

/*
 * A destination of @len bytes somewhere in a buffer of kind @mem. *room is
 * how many of them the kernel can write before it faults.
 */
static uint8_t *sf_dest(struct sf_thread *t, enum sf_mem mem, size_t len, size_t *room)
{
	size_t arena = SF_ARENA_PAGES * SF_PAGE, start;
	uint8_t *base;

	switch (mem) {
	case SF_TAIL_UNMAPPED:
		/* The arena's last page is unmapped: end the buffer near it. */
		base = t->tail;
		arena -= SF_PAGE;
		break;
	case SF_READ_ONLY:
		*room = 0;
		return t->ro + sf_rand(t) % arena;
	case SF_SHARED_FILE:
		base = t->shared;
		break;
	default:
		base = t->heap;
		break;
	}
	start = len >= arena ? 0 : sf_rand(t) % (arena - len + 1);
	if (mem == SF_TAIL_UNMAPPED && len < arena && sf_rand(t) % 2)
		start = arena - len / 2;	/* straddles the unmapped page */
	*room = arena - start;
	return base + start;
}

/* A huge @len from @buf, cut so that the buffer ends below SF_USER_TOP. */
static size_t sf_cap_len(const void *buf, size_t len)
{
	uint64_t left = SF_USER_TOP - (uint64_t)(uintptr_t)buf;

	return len > left ? (size_t)left : len;
}

/* ============================== the checks ============================== */

/* What a read of @len at @pos must return when @room bytes of memory are writable. */
static ssize_t sf_expected(int64_t pos, size_t len, size_t room)
{
	uint64_t n;

	if (pos < 0)
		return -EINVAL;
	if (len > (size_t)SSIZE_MAX)
		return -EINVAL;
	n = pos >= GUAC_DEV_END ? 0 : (uint64_t)(GUAC_DEV_END - pos);
	if (len < n)
		n = len;
	if (!n)
		return 0;
	if (room < n)
		n = room;
	return n ? (ssize_t)n : -EFAULT;
}

/* @got bytes at @buf must be the stream at (@origin, @pos). */
static void sf_check_bytes(struct sf_thread *t, const char *what, uint64_t origin, int64_t pos,
			   const uint8_t *buf, size_t got)
{
	size_t done = 0;

	while (done < got && !t->failed) {
		size_t n = got - done < SF_ARENA_PAGES * SF_PAGE ? got - done :
			   SF_ARENA_PAGES * SF_PAGE;

		guac_stream_fill(GUAC_IMPL_GENERIC, t->want, origin, (uint64_t)pos + done, n);
		if (memcmp(t->want, buf + done, n)) {
			size_t i = 0;

			while (t->want[i] == buf[done + i])
				i++;
			sf_fail(t, "%s: byte %" PRIu64 " (origin %#" PRIx64 ") is %#04x, the stream says %#04x",
				what, (uint64_t)pos + done + i, origin, buf[done + i], t->want[i]);
		}
		done += n;
	}
	t->bytes += got;
}

/* A result against the expected count or -errno (EFAULT may end a count short only at @room). */
static bool sf_check_result(struct sf_thread *t, const char *what, ssize_t got, int err,
			    ssize_t want)
{
	ssize_t g = got < 0 ? -err : got;

	if (g != want) {
		sf_fail(t, "%s returned %zd (%s), expected %zd (%s)", what, got,
			got < 0 ? strerrorname_np(err) : "bytes", want,
			want < 0 ? strerrorname_np((int)-want) : "bytes");
		return false;
	}
	if (got < 0)
		t->errors_checked++;
	return true;
}

/*
 * sf_check_result for a read whose expected count @want was cut by a fault
 * when @faulted: up to SF_FAULT_SLACK bytes fewer (none at all: EFAULT) pass too.
 */
static bool sf_check_read(struct sf_thread *t, const char *what, ssize_t got, int err,
			  ssize_t want, bool faulted)
{
	if (faulted && want > 0 && SF_FAULT_SLACK) {
		if (got >= 0 && got <= want && want - got <= SF_FAULT_SLACK)
			return true;
		if (got < 0 && err == EFAULT && want <= SF_FAULT_SLACK) {
			t->errors_checked++;
			return true;
		}
	}
	return sf_check_result(t, what, got, err, want);
}

/* ================================= calls ================================= */

static struct sf_file *sf_pick(struct sf_thread *t)
{
	unsigned int i, start = (unsigned int)(sf_rand(t) % SF_FDS);

	for (i = 0; i < SF_FDS; i++) {
		struct sf_file *f = &t->files[(start + i) % SF_FDS];

		if (f->fd >= 0)
			return f;
	}
	return NULL;
}

static void sf_open(struct sf_thread *t)
{
	static const int modes[] = { O_RDONLY, O_RDONLY | O_NONBLOCK, O_RDONLY | O_CLOEXEC,
				     O_WRONLY, O_RDWR, O_RDONLY | O_DIRECT };
	int mode = modes[sf_rand(t) % (sizeof(modes) / sizeof(modes[0]))];
	int fd = open(GUAC_DEV, mode), err = errno;
	unsigned int i;

	if ((mode & O_ACCMODE) != O_RDONLY) {
		if (fd >= 0 || err != EPERM)
			sf_fail(t, "open for writing (%#x) gave %d (%s), expected EPERM", mode, fd,
				fd < 0 ? strerrorname_np(err) : "opened");
		if (fd >= 0)
			close(fd);
		t->errors_checked++;
		return;
	}
	if (fd < 0) {
		/* O_DIRECT on a character device: the VFS may refuse it. */
		if (!(mode & O_DIRECT) || err != EINVAL)
			sf_fail(t, "open(%#x): %s", mode, strerror(err));
		return;
	}
	for (i = 0; i < SF_FDS; i++)
		if (t->files[i].fd < 0) {
			t->files[i] = (struct sf_file){ .fd = fd };
			return;
		}
	close(fd);
}

static void sf_close(struct sf_thread *t)
{
	struct sf_file *f = sf_pick(t);

	if (f && close(f->fd))
		sf_fail(t, "close: %s", strerror(errno));
	if (f)
		f->fd = -1;
}

static void sf_seek(struct sf_thread *t, struct sf_file *f)
{
	static const int whences[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE, 42 };
	int whence = whences[sf_rand(t) % (sizeof(whences) / sizeof(whences[0]))];
	int64_t off = sf_rand(t) % 4 ? sf_rand_offset(t) : (int64_t)(sf_rand(t) % 200000) - 100000;
	int64_t to = -1, got;
	char what[96];

	if (whence == SEEK_SET)
		to = off;
	else if (whence == SEEK_CUR && __builtin_add_overflow(f->pos, off, &to))
		to = -1;
	if (to > GUAC_DEV_END)
		to = -1;
	snprintf(what, sizeof(what), "lseek(%" PRId64 ", whence %d) from %" PRId64, off, whence,
		 f->pos);
	got = lseek(f->fd, off, whence);
	if (sf_check_result(t, what, got, errno, to >= 0 ? to : -EINVAL) && to >= 0)
		f->pos = to;
	if (vt_pos(f->fd) != f->pos)
		sf_fail(t, "%s left the position at %" PRId64 ", expected %" PRId64, what,
			vt_pos(f->fd), f->pos);
}

/* read, pread: one buffer of a random kind. */
static void sf_read(struct sf_thread *t, struct sf_file *f, bool positional)
{
	enum sf_mem mem = (enum sf_mem)(sf_rand(t) % SF_NR_MEM);
	size_t len = sf_rand_len(t), room;
	int64_t pos = positional ? sf_rand_offset(t) : f->pos;
	uint8_t *buf = sf_dest(t, mem, len < SF_ARENA_PAGES * SF_PAGE ? len : 0, &room);
	ssize_t want, got;
	char what[128];

	len = sf_cap_len(buf, len);
	want = sf_expected(pos, len, room);

	/* pread refuses negative offsets in the system call, as the device would. */
	snprintf(what, sizeof(what), "%s(%zu) at %" PRId64 " into memory kind %d",
		 positional ? "pread" : "read", len, pos, mem);
	got = positional ? pread(f->fd, buf, len, pos) : read(f->fd, buf, len);
	if (!sf_check_read(t, what, got, errno, want,
			   want >= 0 && (size_t)want == room && room < len))
		return;
	if (got > 0) {
		sf_check_bytes(t, what, f->origin, pos, buf, (size_t)got);
		if (!positional)
			f->pos += got;
	}
	if (vt_pos(f->fd) != f->pos)
		sf_fail(t, "%s left the position at %" PRId64 ", expected %" PRId64, what,
			vt_pos(f->fd), f->pos);
}

/* readv, preadv: up to 8 segments of random kinds and sizes, empty ones too. */
static void sf_readv(struct sf_thread *t, struct sf_file *f, bool positional)
{
	unsigned int n = 1 + (unsigned int)(sf_rand(t) % SF_MAX_IOV), i;
	struct iovec iov[SF_MAX_IOV];
	size_t total = 0, room = 0, seglen[SF_MAX_IOV], segroom[SF_MAX_IOV];
	bool faulted = false, overflow = false;
	int64_t pos = positional ? sf_rand_offset(t) : f->pos;
	ssize_t want, got;
	char what[128];

	/* Segments share the arenas: give each its own slice so none overlaps another. */
	for (i = 0; i < n; i++) {
		enum sf_mem mem = (enum sf_mem)(sf_rand(t) % SF_NR_MEM);
		size_t slice = SF_ARENA_PAGES * SF_PAGE / SF_MAX_IOV;
		uint8_t *base;

		seglen[i] = sf_rand(t) % 5 ? sf_rand(t) % (slice + 1) : 0;
		switch (mem) {
		case SF_READ_ONLY:
			base = t->ro + i * slice;
			segroom[i] = 0;
			break;
		case SF_TAIL_UNMAPPED:
			/* Only the last slice touches the unmapped page. */
			base = t->tail + (SF_MAX_IOV - 1) * slice - (i == n - 1 ? 0 : slice);
			segroom[i] = i == n - 1 ? slice - SF_PAGE : slice;
			if (i != n - 1)
				base = t->heap + i * slice;
			break;
		case SF_SHARED_FILE:
			base = t->shared + i * slice;
			segroom[i] = slice;
			break;
		default:
			base = t->heap + i * slice;
			segroom[i] = slice;
			break;
		}
		if (i == n - 1 && sf_rand(t) % 8 == 0) {
			/* A huge last segment over guarded memory. */
			base = t->tail;
			seglen[i] = sf_cap_len(base, (size_t)1 << (30 + sf_rand(t) % 33));
			segroom[i] = (SF_ARENA_PAGES - 1) * SF_PAGE;
		}
		iov[i].iov_base = base;
		iov[i].iov_len = seglen[i];
		if (__builtin_add_overflow(total, seglen[i], &total) || total > (size_t)SSIZE_MAX)
			overflow = true;
	}
	/* What the kernel can fill: segments in order, up to the first fault. */
	for (i = 0; i < n && !faulted; i++) {
		size_t w = seglen[i] < segroom[i] ? seglen[i] : segroom[i];

		room += w;
		if (w < seglen[i])
			faulted = true;
	}
	want = overflow ? -EINVAL : sf_expected(pos, total, faulted ? room : SIZE_MAX);
	snprintf(what, sizeof(what), "%s(%u segments, %zu bytes) at %" PRId64,
		 positional ? "preadv" : "readv", n, total, pos);
	got = positional ? preadv(f->fd, iov, (int)n, pos) : readv(f->fd, iov, (int)n);
	if (!sf_check_read(t, what, got, errno, want, faulted && want >= 0 && (size_t)want == room))
		return;
	for (i = 0, total = 0; got > 0 && i < n && total < (size_t)got && !t->failed; i++) {
		size_t part = (size_t)got - total < seglen[i] ? (size_t)got - total : seglen[i];

		sf_check_bytes(t, what, f->origin, pos + (int64_t)total, iov[i].iov_base, part);
		total += part;
	}
	if (!positional && got > 0)
		f->pos += got;
	if (vt_pos(f->fd) != f->pos)
		sf_fail(t, "%s left the position at %" PRId64, what, vt_pos(f->fd));
}

static void sf_splice(struct sf_thread *t, struct sf_file *f, bool sendfile_path)
{
	size_t len = 1 + sf_rand(t) % (60u << 10);
	bool positional = sf_rand(t) % 2;
	int64_t pos = positional ? sf_rand_offset(t) : f->pos, start = pos;
	loff_t o = pos;
	int pipefd[2], out = -1;
	ssize_t got, want;
	char what[128];
	int err;

	if (sendfile_path) {
		out = memfd_create("guac-sysfuzz", 0);
		if (out < 0) {
			sf_fail(t, "memfd_create: %s", strerror(errno));
			return;
		}
		got = sendfile(out, f->fd, positional ? &o : NULL, len);
	} else {
		if (pipe(pipefd)) {
			sf_fail(t, "pipe: %s", strerror(errno));
			return;
		}
		got = splice(f->fd, positional ? &o : NULL, pipefd[1], NULL, len, 0);
	}
	err = errno;
	snprintf(what, sizeof(what), "%s(%zu) at %s%" PRId64, sendfile_path ? "sendfile" : "splice",
		 len, positional ? "offset " : "position ", pos);
	want = sf_expected(pos, len, SIZE_MAX);
	/* The VFS's own answers before the device is asked (docs/device.md, the edges). */
	if (pos < 0 && len >= (uint64_t)-(pos + 1) + 1)
		want = -EOVERFLOW;
	if (sendfile_path && (pos < 0 || pos == INT64_MAX) && got < 0 &&
	    (err == EOVERFLOW || err == EINVAL))
		want = -err;
	if (sendfile_path && t->no_sendfile && want != -EOVERFLOW)
		want = -EINVAL;
	/*
	 * splice and sendfile may move less than asked, as the kernel's
	 * copy_splice_read() does when it gets fewer pages than it wanted
	 * (seen on 6.12-rt): any count from 1 to the expected one, with the
	 * right bytes and position, keeps the contract.
	 */
	if (want > 0 && got > 0 && got < want)
		want = got;
	if (sf_check_result(t, what, got, err, want) && got > 0) {
		uint8_t *buf = t->heap;
		ssize_t r = sendfile_path ? pread(out, buf, (size_t)got, 0) :
			    read(pipefd[0], buf, (size_t)got);

		if (r != got)
			sf_fail(t, "%s: reading back %zd bytes gave %zd", what, got, r);
		else
			sf_check_bytes(t, what, f->origin, start, buf, (size_t)got);
		if (!positional)
			f->pos += got;
		else if (o != pos + got)
			sf_fail(t, "%s moved the offset to %" PRId64, what, (int64_t)o);
	}
	if (sendfile_path) {
		close(out);
	} else {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (vt_pos(f->fd) != f->pos)
		sf_fail(t, "%s left the position at %" PRId64, what, vt_pos(f->fd));
}

static void sf_ioctl(struct sf_thread *t, struct sf_file *f)
{
	static const unsigned long known[] = { GUAC_IOC_GET_INFO, GUAC_IOC_SET_ORIGIN,
					       GUAC_IOC_GET_ORIGIN };
	unsigned long cmd;
	void *arg;
	bool good_arg = false, writes;
	uint64_t origin = sf_rand(t);
	int kind = (int)(sf_rand(t) % 4);
	char what[96];
	long got;

	switch (sf_rand(t) % 3) {
	case 0:
		/*
		 * Any command but those the VFS answers itself (types 0, 'T',
		 * 'X', 'f' and 0x94: FIBMAP, FIONBIO, FIFREEZE, FS_IOC_*, FICLONE).
		 */
		do {
			cmd = (unsigned long)sf_rand(t) & 0xffffffffUL;
		} while (strchr("TXf\x94", (int)_IOC_TYPE(cmd)) || !_IOC_TYPE(cmd));
		break;
	case 1:
		cmd = _IOC(sf_rand(t) % 4, GUAC_IOC_MAGIC, sf_rand(t) % 8, sf_rand(t) % 64);
		break;
	default:
		cmd = known[sf_rand(t) % 3];
		break;
	}
	switch (kind) {
	case 0:
		arg = NULL;
		break;
	case 1:
		arg = t->tail + (SF_ARENA_PAGES - 1) * SF_PAGE;	/* unmapped */
		break;
	case 2:
		arg = t->ro;
		break;
	default:
		arg = t->heap;
		memcpy(arg, &origin, sizeof(origin));
		good_arg = true;
		break;
	}
	snprintf(what, sizeof(what), "ioctl(%#lx) with argument kind %d", cmd, kind);
	got = ioctl(f->fd, cmd, arg);
	if (cmd != GUAC_IOC_GET_INFO && cmd != GUAC_IOC_SET_ORIGIN && cmd != GUAC_IOC_GET_ORIGIN) {
		sf_check_result(t, what, got, errno, -ENOTTY);
		return;
	}
	/* GET_* write the argument (a read-only one faults), SET_ORIGIN reads it. */
	writes = cmd != GUAC_IOC_SET_ORIGIN;
	if (!sf_check_result(t, what, got, errno,
			     good_arg || (kind == 2 && !writes) ? 0 : -EFAULT) || got)
		return;
	if (cmd == GUAC_IOC_SET_ORIGIN)
		memcpy(&f->origin, arg, sizeof(f->origin));
	else if (cmd == GUAC_IOC_GET_ORIGIN && memcmp(arg, &f->origin, sizeof(f->origin)))
		sf_fail(t, "GET_ORIGIN disagrees with the origin set");
}

static void sf_misc(struct sf_thread *t, struct sf_file *f, enum sf_op op)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	void *map;
	ssize_t got;

	switch (op) {
	case SF_MMAP:
		map = mmap(NULL, SF_PAGE, PROT_READ, sf_rand(t) % 2 ? MAP_SHARED : MAP_PRIVATE,
			   f->fd, (off_t)(sf_rand(t) % 16) * SF_PAGE);
		if (map != MAP_FAILED) {
			sf_fail(t, "mmap of /dev/guac succeeded");
			munmap(map, SF_PAGE);
		} else if (errno != ENODEV) {
			sf_fail(t, "mmap failed with %s, expected ENODEV", strerrorname_np(errno));
		}
		t->errors_checked++;
		break;
	case SF_POLL:
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN))
			sf_fail(t, "poll: revents %#x, expected POLLIN", pfd.revents);
		break;
	default:
		got = sf_rand(t) % 2 ? write(f->fd, t->heap, 1 + sf_rand(t) % 100) :
				       pwrite(f->fd, t->heap, 16, (off_t)(sf_rand(t) % 1000));
		sf_check_result(t, "write to a read-only open", got, errno, -EBADF);
		break;
	}
}

/* A child reads and checks a little while the parent's threads go on. */
static void sf_fork(struct sf_thread *t, struct sf_file *f)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		sf_fail(t, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		uint8_t buf[8192], want[8192];
		ssize_t n = pread(f->fd, buf, sizeof(buf), 12345);

		guac_stream_fill(GUAC_IMPL_GENERIC, want, f->origin, 12345, sizeof(want));
		_exit(n == (ssize_t)sizeof(buf) && !memcmp(buf, want, sizeof(buf)) ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		sf_fail(t, "a forked child's pread of the inherited file was wrong (status %#x)",
			status);
}

/* ================================ the run ================================ */

/* An arena, followed by a PROT_NONE guard page that stops every huge read. */
static uint8_t *sf_map(int prot, int flags, int fd)
{
	uint8_t *p = mmap(NULL, (SF_ARENA_PAGES + 1) * SF_PAGE, prot, flags, fd, 0);

	if (p == MAP_FAILED ||
	    mprotect(p + SF_ARENA_PAGES * SF_PAGE, SF_PAGE, PROT_NONE)) {
		guac_err("mmap: %s", strerror(errno));
		exit(GUAC_EXIT_ERROR);
	}
	return p;
}

static void sf_thread_setup(struct sf_thread *t)
{
	int memfd = memfd_create("guac-sysfuzz-shared", 0);
	unsigned int i;

	if (memfd < 0 || ftruncate(memfd, (SF_ARENA_PAGES + 1) * SF_PAGE)) {
		guac_err("memfd: %s", strerror(errno));
		exit(GUAC_EXIT_ERROR);
	}
	t->heap = sf_map(PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	t->tail = sf_map(PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	munmap(t->tail + (SF_ARENA_PAGES - 1) * SF_PAGE, SF_PAGE);
	t->ro = sf_map(PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	t->shared = sf_map(PROT_READ | PROT_WRITE, MAP_SHARED, memfd);
	t->want = guac_alloc(SF_ARENA_PAGES * SF_PAGE);
	close(memfd);
	for (i = 0; i < SF_FDS; i++)
		t->files[i].fd = -1;
	t->rnd = vt_rand_seed(t->seed, t->index);
}

static void *sf_run(void *arg)
{
	struct sf_thread *t = arg;
	unsigned int i;

	sf_thread_setup(t);
	while (!t->failed && guac_now() < t->deadline) {
		enum sf_op op = (enum sf_op)(sf_rand(t) % SF_NR_OPS);
		struct sf_file *f = sf_pick(t);

		t->call++;
		if (!f && op != SF_OPEN)
			op = SF_OPEN;
		if (op == SF_FORK && sf_rand(t) % 8)
			op = SF_PREAD;	/* forks are slow: fewer of them */
		t->calls[op]++;
		switch (op) {
		case SF_OPEN:
			sf_open(t);
			break;
		case SF_CLOSE:
			sf_close(t);
			break;
		case SF_SEEK:
			sf_seek(t, f);
			break;
		case SF_READ:
		case SF_PREAD:
			sf_read(t, f, op == SF_PREAD);
			break;
		case SF_READV:
		case SF_PREADV:
			sf_readv(t, f, op == SF_PREADV);
			break;
		case SF_SPLICE:
		case SF_SENDFILE:
			sf_splice(t, f, op == SF_SENDFILE);
			break;
		case SF_IOCTL:
			sf_ioctl(t, f);
			break;
		case SF_FORK:
			sf_fork(t, f);
			break;
		default:
			sf_misc(t, f, op);
			break;
		}
	}
	for (i = 0; i < SF_FDS; i++)
		if (t->files[i].fd >= 0)
			close(t->files[i].fd);
	return NULL;
}

/* sysfuzz SEED SECONDS [THREADS]: the calls, the bytes and the errors, counted. */
int vt_cmd_sysfuzz(int argc, char **argv)
{
	static struct sf_thread threads[SF_MAX_THREADS];
	uint64_t seed, seconds, count = 4, calls[SF_NR_OPS] = { 0 }, total = 0, bytes = 0, errs = 0;
	bool no_sendfile;
	unsigned int i, op;
	double start;
	int fd;

	if (argc < 3 || argc > 4 || !guac_parse_u64("seed", argv[1], &seed) ||
	    !guac_parse_u64("seconds", argv[2], &seconds) ||
	    (argc == 4 && !guac_parse_u64("thread count", argv[3], &count)))
		return GUAC_EXIT_ERROR;
	if (!count || count > SF_MAX_THREADS) {
		guac_err("thread count must be 1 to %d", SF_MAX_THREADS);
		return GUAC_EXIT_ERROR;
	}
	/*
	 * Kernels before 5.19 refuse sendfile() from any character device
	 * (vt_sendfile_takes_chardev()): EINVAL expected there, and only there.
	 * A kernel of 5.19 or later that refuses is a failure, not an exemption.
	 */
	no_sendfile = !vt_sendfile_takes_chardev(NULL);
	fd = vt_open(O_RDONLY);
	{
		int out = memfd_create("probe", 0);
		off_t o = 0;
		ssize_t n = sendfile(out, fd, &o, 64);

		if (no_sendfile ? !(n < 0 && errno == EINVAL) : n != 64)
			vt_fail("sendfile() of 64 bytes from /dev/guac at 0 returned %zd (%s), expected %s on this kernel",
				n, n < 0 ? strerror(errno) : "a count",
				no_sendfile ? "EINVAL (before 5.19)" : "64");
		close(out);
	}
	close(fd);
	start = guac_now();
	for (i = 0; i < count; i++) {
		threads[i] = (struct sf_thread){
			.index = i, .seed = seed, .deadline = start + (double)seconds,
			.no_sendfile = no_sendfile,
		};
		if (pthread_create(&threads[i].thread, NULL, sf_run, &threads[i])) {
			guac_err("cannot start thread %u", i);
			return GUAC_EXIT_ERROR;
		}
	}
	for (i = 0; i < count; i++) {
		pthread_join(threads[i].thread, NULL);
		for (op = 0; op < SF_NR_OPS; op++)
			calls[op] += threads[i].calls[op];
		bytes += threads[i].bytes;
		errs += threads[i].errors_checked;
	}
	for (op = 0; op < SF_NR_OPS; op++)
		total += calls[op];
	printf("sysfuzz seed %" PRIu64 ": %u threads, %.1f s: %" PRIu64 " calls, %" PRIu64
	       " bytes checked, %" PRIu64 " errors checked\n", seed, (unsigned int)count,
	       guac_now() - start, total, bytes, errs);
	printf("sysfuzz calls:");
	for (op = 0; op < SF_NR_OPS; op++)
		printf(" %s %" PRIu64, sf_op_names[op], calls[op]);
	printf("\n");
	if (!bytes || !errs)
		vt_fail("the run checked %" PRIu64 " bytes and %" PRIu64 " errors: too short to prove anything",
			bytes, errs);
	return 0;
}

/* ============================ one shared open ============================ */

/*
 * sysfuzz-shared SEED SECONDS: two threads on one open file of /dev/guac,
 * its origin set once (a seeded value, GUAC_IOC_SET_ORIGIN) before they
 * start and never again. One preads at random offsets and sizes (pread
 * neither uses nor moves the file position); the other owns the position:
 * it seeks (SEEK_SET anywhere, SEEK_CUR back and forth), reads from it and
 * asks GUAC_IOC_GET_INFO. Both know the origin, and only the second moves
 * the position, so every byte of both, and the position after each of the
 * second's calls, is checked. The file and the device state the two share
 * is what the KCSAN kernel watches.
 */
struct sfs_run {
	int fd;
	uint64_t origin;
	struct sf_thread t[2];
	uint64_t preads, reads, seeks, infos;
};

static void *sfs_preader(void *arg)
{
	struct sfs_run *r = arg;
	struct sf_thread *t = &r->t[0];

	while (!t->failed && guac_now() < t->deadline) {
		size_t len = 1 + sf_rand(t) % (SF_ARENA_PAGES * SF_PAGE);
		int64_t pos = sf_rand(t) % 4 ? (int64_t)(sf_rand(t) % (1u << 24)) :
			      (int64_t)(sf_rand(t) % (uint64_t)(GUAC_DEV_END - len));
		ssize_t got;
		char what[96];

		t->call++;
		snprintf(what, sizeof(what), "shared pread(%zu) at %" PRId64, len, pos);
		got = pread(r->fd, t->heap, len, pos);
		if (got != (ssize_t)len) {
			sf_fail(t, "%s returned %zd (%s), expected %zu", what, got,
				got < 0 ? strerrorname_np(errno) : "-", len);
			break;
		}
		sf_check_bytes(t, what, r->origin, pos, t->heap, len);
		r->preads++;
	}
	return NULL;
}

static void *sfs_mover(void *arg)
{
	struct sfs_run *r = arg;
	struct sf_thread *t = &r->t[1];
	int64_t pos = 0;

	while (!t->failed && guac_now() < t->deadline) {
		uint64_t what_op = sf_rand(t) % 4;
		char what[96];

		t->call++;
		if (what_op == 0) {
			int64_t want = sf_rand(t) % 2 ? (int64_t)(sf_rand(t) % (1u << 24)) :
				       (int64_t)(sf_rand(t) % (uint64_t)GUAC_DEV_END);
			off_t got = lseek(r->fd, want, SEEK_SET);

			if (got != want)
				sf_fail(t, "shared lseek(SEEK_SET %" PRId64 ") returned %lld", want,
					(long long)got);
			pos = want;
			r->seeks++;
		} else if (what_op == 1) {
			int64_t delta = (int64_t)(sf_rand(t) % 131072) - 65536;
			off_t got;

			if (pos + delta < 0)
				delta = -pos;
			if (pos + delta > GUAC_DEV_END)
				delta = GUAC_DEV_END - pos;
			got = lseek(r->fd, delta, SEEK_CUR);
			if (got != pos + delta)
				sf_fail(t, "shared lseek(SEEK_CUR %" PRId64 ") from %" PRId64
					" returned %lld", delta, pos, (long long)got);
			pos += delta;
			r->seeks++;
		} else if (what_op == 2) {
			struct guac_info info;

			memset(&info, 0xff, sizeof(info));
			if (ioctl(r->fd, GUAC_IOC_GET_INFO, &info) || info.version != GUAC_UAPI_VERSION)
				sf_fail(t, "shared GET_INFO failed (%s) or gave version %u",
					strerrorname_np(errno), info.version);
			r->infos++;
		} else {
			size_t len = 1 + sf_rand(t) % (SF_ARENA_PAGES * SF_PAGE);
			ssize_t want = sf_expected(pos, len, len), got;

			snprintf(what, sizeof(what), "shared read(%zu) at %" PRId64, len, pos);
			got = read(r->fd, t->heap, len);
			if (got != want) {
				sf_fail(t, "%s returned %zd (%s), expected %zd", what, got,
					got < 0 ? strerrorname_np(errno) : "-", want);
				break;
			}
			sf_check_bytes(t, what, r->origin, pos, t->heap, (size_t)got);
			pos += got;
			r->reads++;
		}
		/* The other thread's preads never move it. */
		if (vt_pos(r->fd) != pos)
			sf_fail(t, "the shared position is %" PRId64 ", expected %" PRId64,
				vt_pos(r->fd), pos);
	}
	return NULL;
}

int vt_cmd_sysfuzz_shared(int argc, char **argv)
{
	static struct sfs_run r;
	uint64_t seed, seconds;
	double start;
	unsigned int i;

	if (argc != 3 || !guac_parse_u64("seed", argv[1], &seed) ||
	    !guac_parse_u64("seconds", argv[2], &seconds))
		return GUAC_EXIT_ERROR;
	r.fd = vt_open(O_RDONLY);
	r.origin = seed * 0x9e3779b97f4a7c15ULL;
	if (ioctl(r.fd, GUAC_IOC_SET_ORIGIN, &r.origin)) {
		guac_err("GUAC_IOC_SET_ORIGIN: %s", strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	start = guac_now();
	for (i = 0; i < 2; i++) {
		struct sf_thread *t = &r.t[i];

		t->index = i;
		t->seed = seed;
		t->deadline = start + (double)seconds;
		t->heap = guac_alloc(SF_ARENA_PAGES * SF_PAGE);
		t->want = guac_alloc(SF_ARENA_PAGES * SF_PAGE);
		t->rnd = vt_rand_seed(seed, i);
		if (pthread_create(&t->thread, NULL, i ? sfs_mover : sfs_preader, &r)) {
			guac_err("cannot start thread %u", i);
			return GUAC_EXIT_ERROR;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_join(r.t[i].thread, NULL);
	close(r.fd);
	printf("sysfuzz-shared seed %" PRIu64 ": one open, origin %#" PRIx64 ", %.1f s: pread %"
	       PRIu64 " (%" PRIu64 " bytes checked), lseek %" PRIu64 ", read %" PRIu64 " (%"
	       PRIu64 " bytes checked), GET_INFO %" PRIu64 "\n", seed, r.origin,
	       guac_now() - start, r.preads, r.t[0].bytes, r.seeks, r.reads, r.t[1].bytes,
	       r.infos);
	if (!r.preads || !r.reads || !r.seeks || !r.infos)
		vt_fail("a thread made no call of some kind: too short to prove anything");
	return 0;
}
