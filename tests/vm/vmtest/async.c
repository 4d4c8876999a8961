// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The asynchronous and less common read paths: io_uring (raw system calls, so
 * the static binary needs no liburing), Linux AIO, preadv2(RWF_NOWAIT),
 * splice and sendfile, checked against guac gen, and the answers every path
 * gives at the edges: the end of file and negative offsets (issue 28).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "vmtest.h"

/* ================================ io_uring ================================ */

struct vt_uring {
	int fd;
	unsigned int entries;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_ring, *cq_ring;
	size_t sq_len, cq_len, sqes_len;
};

static bool vt_uring_init(struct vt_uring *r, unsigned int entries)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	memset(r, 0, sizeof(*r));
	r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		vt_fail("io_uring_setup(%u): %s", entries, strerror(errno));
		return false;
	}
	r->entries = p.sq_entries;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sq_ring = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  r->fd, IORING_OFF_SQ_RING);
	r->cq_ring = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sq_ring == MAP_FAILED || r->cq_ring == MAP_FAILED || r->sqes == MAP_FAILED) {
		vt_fail("mmap of the io_uring rings: %s", strerror(errno));
		return false;
	}
	r->sq_tail = (unsigned int *)((char *)r->sq_ring + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)r->sq_ring + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)r->sq_ring + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)r->cq_ring + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)r->cq_ring + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)r->cq_ring + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_ring + p.cq_off.cqes);
	return true;
}

static void vt_uring_exit(struct vt_uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_ring && r->cq_ring != MAP_FAILED)
		munmap(r->cq_ring, r->cq_len);
	if (r->sq_ring && r->sq_ring != MAP_FAILED)
		munmap(r->sq_ring, r->sq_len);
	if (r->fd >= 0)
		close(r->fd);
}

/* Queue a read (IORING_OP_READ) of @len bytes at @off (-1: the file position). */
static void vt_uring_prep_read(struct vt_uring *r, int fd, void *buf, unsigned int len,
			       uint64_t off, int rw_flags, uint64_t tag)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->off = off;
	sqe->rw_flags = rw_flags;
	sqe->user_data = tag;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/*
 * Submit what is queued (@n entries) and wait for all of them; res[tag] gets
 * each completion's result. False if the submission itself failed.
 */
static bool vt_uring_run(struct vt_uring *r, unsigned int n, int *res)
{
	unsigned int seen = 0;
	int ret;

	ret = (int)syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0);
	if (ret != (int)n) {
		vt_fail("io_uring_enter(%u) returned %d: %s", n, ret, ret < 0 ? strerror(errno) : "");
		return false;
	}
	while (seen < n) {
		unsigned int head = *r->cq_head;
		unsigned int tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);

		if (head == tail) {
			ret = (int)syscall(__NR_io_uring_enter, r->fd, 0, 1,
					   IORING_ENTER_GETEVENTS, NULL, 0);
			if (ret < 0 && errno != EINTR) {
				vt_fail("io_uring_enter(wait): %s", strerror(errno));
				return false;
			}
			continue;
		}
		for (; head != tail; head++, seen++) {
			struct io_uring_cqe *cqe = &r->cqes[head & *r->cq_mask];

			res[cqe->user_data] = cqe->res;
		}
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	}
	return true;
}

/* ============================== AIO (io_submit) ============================== */

/* One IOCB_CMD_PREAD; returns the result (bytes or -errno), at submit or completion. */
static long vt_aio_pread(int fd, void *buf, size_t len, int64_t off, int rw_flags)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long ret;

	if (syscall(__NR_io_setup, 4, &ctx)) {
		vt_fail("io_setup: %s", strerror(errno));
		return -EIO;
	}
	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_fildes = (uint32_t)fd;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	cb.aio_rw_flags = rw_flags;
	ret = syscall(__NR_io_submit, ctx, 1, cbs);
	if (ret != 1) {
		ret = ret < 0 ? -errno : -EIO;
	} else if (syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL) != 1) {
		vt_fail("io_getevents: %s", strerror(errno));
		ret = -EIO;
	} else {
		ret = (long)ev.res;
	}
	syscall(__NR_io_destroy, ctx);
	return ret;
}

/* =================== io_uring at the file position, in order =================== */

#define VT_URING_CHUNK 4096u

/*
 * BATCHES batches of DEPTH reads of 4 KiB at offset -1 (the file position) on
 * one open file: read inline, in submission order, read i of the run gets
 * bytes [4096 i, 4096 (i + 1)) and the position ends at the total. Reads
 * handed to worker threads instead race on the position: some ranges are
 * served twice and the position ends short.
 */
int vt_cmd_uring_order(int argc, char **argv)
{
	uint64_t batches = 20, depth = 64, total, i, b, dup = 0, wrong = 0, idx;
	int fd = vt_open(O_RDONLY);
	struct vt_uring ring;
	uint8_t *bufs, *want;
	struct vt_ref ref;
	uint32_t *hits;
	int *res;

	if ((argc > 1 && !guac_parse_u64("batches", argv[1], &batches)) ||
	    (argc > 2 && !guac_parse_u64("depth", argv[2], &depth)))
		return 2;
	if (!batches || batches > 1000 || !depth || depth > 256) {
		guac_err("batches must be 1-1000 and depth 1-256");
		return 2;
	}
	total = batches * depth;
	bufs = guac_alloc(total * VT_URING_CHUNK);
	want = guac_alloc(total * VT_URING_CHUNK);
	hits = calloc(total, sizeof(*hits));
	res = calloc(depth, sizeof(*res));
	if (!hits || !res || !vt_uring_init(&ring, (unsigned int)depth))
		goto out;
	for (b = 0; b < batches; b++) {
		for (i = 0; i < depth; i++)
			vt_uring_prep_read(&ring, fd, bufs + (b * depth + i) * VT_URING_CHUNK,
					   VT_URING_CHUNK, (uint64_t)-1, 0, i);
		if (!vt_uring_run(&ring, (unsigned int)depth, res))
			goto out_ring;
		for (i = 0; i < depth; i++)
			if (res[i] != (int)VT_URING_CHUNK) {
				vt_fail("batch %" PRIu64 " read %" PRIu64 " returned %d (%s)",
					b, i, res[i], res[i] < 0 ? strerror(-res[i]) : "short");
				goto out_ring;
			}
		/* Every batch, not only the last: a short batch cannot hide behind a long one. */
		if (vt_pos(fd) != (int64_t)((b + 1) * depth * VT_URING_CHUNK))
			vt_fail("the file position is %" PRId64 " after batch %" PRIu64 " (%" PRIu64
				" reads of 4 KiB in all), expected %" PRIu64, vt_pos(fd), b,
				(b + 1) * depth, (b + 1) * depth * VT_URING_CHUNK);
	}

	/* The expected bytes in one stream; then which range each buffer holds. */
	if (!vt_ref_open(&ref, 0, 0, total * VT_URING_CHUNK))
		goto out_ring;
	if (fread(want, VT_URING_CHUNK, total, ref.pipe) != total)
		vt_fail("guac gen gave fewer than %" PRIu64 " bytes", total * VT_URING_CHUNK);
	vt_ref_close(&ref);
	for (i = 0; i < total; i++) {
		const uint8_t *got = bufs + i * VT_URING_CHUNK;

		if (!memcmp(got, want + i * VT_URING_CHUNK, VT_URING_CHUNK)) {
			hits[i]++;
			continue;
		}
		wrong++;
		for (idx = 0; idx < total; idx++)
			if (!memcmp(got, want + idx * VT_URING_CHUNK, VT_URING_CHUNK))
				break;
		if (idx < total && hits[idx]++)
			dup++;
		if (wrong <= 5)
			vt_fail("read %" PRIu64 " holds %s, expected the range at %" PRIu64,
				i, idx < total ? "another read's range" : "bytes of no range",
				i * VT_URING_CHUNK);
	}
	if (wrong)
		vt_fail("%" PRIu64 " of %" PRIu64 " reads out of order, %" PRIu64 " ranges served twice",
			wrong, total, dup);
	else
		printf("%" PRIu64 " io_uring reads at offset -1 in %" PRIu64 " batches of %" PRIu64
		       ": in order, position %" PRId64 "\n", total, batches, depth, vt_pos(fd));
out_ring:
	vt_uring_exit(&ring);
out:
	free(res);
	free(hits);
	free(want);
	free(bufs);
	close(fd);
	return 0;
}

/* ======================== non-blocking reads return data ======================== */

static const struct {
	int64_t offset;
	size_t len;
} vt_nowait_reads[] = {
	{ 0, 1 },
	{ 4093, 4096 },
	{ 12345, 65539 },
	{ (1LL << 50) + 17, 1 << 20 },
	{ GUAC_DEV_END - 5000, 5000 },
};

#define VT_NR_NOWAIT (sizeof(vt_nowait_reads) / sizeof(vt_nowait_reads[0]))

/* preadv2(RWF_NOWAIT), AIO with RWF_NOWAIT and io_uring with RWF_NOWAIT return the stream. */
int vt_cmd_nowait(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY);
	struct vt_uring ring;
	unsigned int i;
	char what[96];
	int res[1];

	(void)argc, (void)argv;
	if (!vt_uring_init(&ring, 4)) {
		close(fd);
		return 0;
	}
	for (i = 0; i < VT_NR_NOWAIT; i++) {
		int64_t off = vt_nowait_reads[i].offset;
		size_t len = vt_nowait_reads[i].len;
		uint8_t *buf = guac_alloc(len);
		struct iovec iov = { buf, len };
		ssize_t n;
		long a;

		snprintf(what, sizeof(what), "preadv2(RWF_NOWAIT, %zu @ %" PRId64 ")", len, off);
		n = preadv2(fd, &iov, 1, off, RWF_NOWAIT);
		if (n != (ssize_t)len)
			vt_fail("%s returned %zd (%s)", what, n, n < 0 ? strerror(errno) : "short");
		else
			vt_check_bytes(what, 0, (uint64_t)off, buf, len);

		memset(buf, 0, len);
		snprintf(what, sizeof(what), "AIO pread RWF_NOWAIT (%zu @ %" PRId64 ")", len, off);
		a = vt_aio_pread(fd, buf, len, off, RWF_NOWAIT);
		if (a != (long)len)
			vt_fail("%s returned %ld (%s)", what, a, a < 0 ? strerror((int)-a) : "short");
		else
			vt_check_bytes(what, 0, (uint64_t)off, buf, len);

		memset(buf, 0, len);
		snprintf(what, sizeof(what), "io_uring READ RWF_NOWAIT (%zu @ %" PRId64 ")", len, off);
		vt_uring_prep_read(&ring, fd, buf, (unsigned int)len, (uint64_t)off, RWF_NOWAIT, 0);
		if (vt_uring_run(&ring, 1, res)) {
			if (res[0] != (int)len)
				vt_fail("%s returned %d (%s)", what, res[0],
					res[0] < 0 ? strerror(-res[0]) : "short");
			else
				vt_check_bytes(what, 0, (uint64_t)off, buf, len);
		}
		free(buf);
	}
	/* preadv2 at offset -1 reads at, and moves, the file position. */
	if (lseek(fd, 777, SEEK_SET) == 777) {
		uint8_t buf[3000];
		struct iovec iov = { buf, sizeof(buf) };
		ssize_t n = preadv2(fd, &iov, 1, -1, RWF_NOWAIT);

		if (n != (ssize_t)sizeof(buf))
			vt_fail("preadv2(RWF_NOWAIT) at the file position returned %zd (%s)", n,
				n < 0 ? strerror(errno) : "short");
		else if (vt_check_bytes("preadv2(RWF_NOWAIT) at the file position", 0, 777, buf, n) &&
			 vt_pos(fd) != 777 + n)
			vt_fail("preadv2(RWF_NOWAIT, -1) left the position at %" PRId64, vt_pos(fd));
	}
	vt_uring_exit(&ring);
	close(fd);
	return 0;
}

/* ============================ the edges, every path ============================ */

enum vt_path {
	VT_READ, VT_PREAD, VT_PREADV2, VT_URING, VT_AIO, VT_SPLICE, VT_SENDFILE,
	VT_SENDFILE_POS, VT_NR_PATHS
};

static const char *const vt_path_names[VT_NR_PATHS] = {
	"read", "pread", "preadv2", "io_uring", "aio", "splice", "sendfile", "sendfile(pos)",
};

/*
 * Read @len bytes through @path at @off (for read and sendfile(pos): lseek
 * there first, which must succeed). Returns the count or -errno; the bytes
 * land in @buf.
 */
static long vt_path_read(enum vt_path path, int fd, struct vt_uring *ring, uint8_t *buf,
			 size_t len, int64_t off)
{
	struct iovec iov = { buf, len };
	int pipefd[2], res[1], out;
	loff_t o = off;
	long n = -EIO;

	switch (path) {
	case VT_READ:
		if (lseek(fd, off, SEEK_SET) != off)
			return -errno;
		n = read(fd, buf, len);
		break;
	case VT_PREAD:
		n = pread(fd, buf, len, off);
		break;
	case VT_PREADV2:
		n = preadv2(fd, &iov, 1, off, 0);
		break;
	case VT_URING:
		vt_uring_prep_read(ring, fd, buf, (unsigned int)len, (uint64_t)off, 0, 0);
		return vt_uring_run(ring, 1, res) ? res[0] : -EIO;
	case VT_AIO:
		return vt_aio_pread(fd, buf, len, off, 0);
	case VT_SPLICE:
		if (pipe(pipefd))
			return -errno;
		n = splice(fd, &o, pipefd[1], NULL, len, 0);
		if (n < 0)
			n = -errno;
		else if (n > 0 && read(pipefd[0], buf, (size_t)n) != n)
			n = -EIO;
		close(pipefd[0]);
		close(pipefd[1]);
		return n;
	case VT_SENDFILE:
	case VT_SENDFILE_POS:
		/* Into a memfd: sendfile() to a pipe needs 5.12 or later. */
		out = memfd_create("guac-sendfile", 0);
		if (out < 0)
			return -errno;
		if (path == VT_SENDFILE)
			n = sendfile(out, fd, &o, len);
		else if (lseek(fd, off, SEEK_SET) != off)
			n = -1;
		else
			n = sendfile(out, fd, NULL, len);
		if (n < 0)
			n = -errno;
		else if (n > 0 && pread(out, buf, (size_t)n, 0) != n)
			n = -EIO;
		close(out);
		return n;
	default:
		break;
	}
	return n < 0 ? -errno : n;
}

/* ========================== what each kernel answers ========================== */

/* Kernel @release's "MAJOR.MINOR" as MAJOR * 1000 + MINOR; NULL: the running kernel. */
static unsigned int vt_kernel_version(const char *release)
{
	struct utsname u;
	unsigned int major, minor;

	if (!release) {
		if (uname(&u)) {
			vt_fail("uname: %s", strerror(errno));
			return 0;
		}
		release = u.release;
	}
	if (sscanf(release, "%u.%u", &major, &minor) != 2) {
		vt_fail("kernel release '%s' does not start with MAJOR.MINOR", release);
		return 0;
	}
	return major * 1000 + minor;
}

/*
 * Whether sendfile() takes a character device such as /dev/guac as its input
 * on kernel @release (NULL: the running one). Before 5.19 the internal pipe
 * of do_splice_direct() took only regular files and block devices
 * (splice_direct_to_actor(): EINVAL otherwise); 5.19's "fs: check FMODE_LSEEK
 * to control internal pipe splicing" takes any seekable file. 5.10.148 carried
 * that change and 5.10.149 reverted it; Debian's 5.10 kernels refuse.
 */
bool vt_sendfile_takes_chardev(const char *release)
{
	return vt_kernel_version(release) >= 5019;
}

/* ============================ the edges, every path ============================ */

/*
 * The documented table (docs/device.md, "The edges", which `edges
 * --print-expected` prints and make check-host compares): what each path
 * gives at each offset. VT_DATA means the count up to the end of file, with
 * the stream's bytes; VT_NA marks what a path cannot express (read() cannot
 * start at a position lseek() refuses); a path in @vfs gets its answer from
 * the kernel before the device is asked. sendfile() from a character device
 * before 5.19 is vt_edge_want()'s business.
 */
#define VT_DATA 1
#define VT_NA 2
#define VT_P(path) (1u << (path))
#define VT_SENDFILES (VT_P(VT_SENDFILE) | VT_P(VT_SENDFILE_POS))

static const struct {
	const char *what, *doc;
	int64_t off;
	size_t len;
	int want[VT_NR_PATHS];	/* read pread preadv2 io_uring aio splice sendfile sendfile(pos) */
	unsigned int vfs;
} vt_edges[] = {
	{ "at 0", "0", 0, 4096,
	  { VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA }, 0 },
	{ "100 bytes before the end", "2^63-64-100", GUAC_DEV_END - 100, 4096,
	  { VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA, VT_DATA }, 0 },
	{ "at the end (2^63-64)", "2^63-64 (the end)", GUAC_DEV_END, 4096,
	  { 0, 0, 0, 0, 0, 0, 0, 0 }, 0 },
	{ "past the end (2^63-63)", "2^63-63 (past the end)", GUAC_DEV_END + 1, 4096,
	  { VT_NA, 0, 0, 0, 0, 0, 0, VT_NA }, 0 },
	/* do_sendfile() refuses to start at MAX_LFS_FILESIZE itself. */
	{ "at 2^63-1", "2^63-1", INT64_MAX, 4096,
	  { VT_NA, 0, 0, 0, 0, 0, -EOVERFLOW, VT_NA }, VT_P(VT_SENDFILE) },
	/*
	 * Negative offsets. pread and preadv2 refuse them in the system call.
	 * rw_verify_area() answers EOVERFLOW when the count is at least the
	 * offset's size (the device takes unsigned offsets); smaller counts
	 * reach the device: EINVAL. sendfile() goes on to clamp the count to
	 * max - offset, which overflows, and a count check answers EINVAL
	 * before the device is asked (6.12: rw_verify_area() on the output
	 * file in do_sendfile(); 5.10 and 6.1: the same check in
	 * do_splice_direct()).
	 */
	{ "offset -2, count 64", "-2, count 64", -2, 64,
	  { VT_NA, -EINVAL, -EINVAL, -EOVERFLOW, -EOVERFLOW, -EOVERFLOW, -EOVERFLOW, VT_NA },
	  VT_P(VT_PREAD) | VT_P(VT_PREADV2) | VT_P(VT_URING) | VT_P(VT_AIO) | VT_P(VT_SPLICE) |
	  VT_P(VT_SENDFILE) },
	{ "offset -4096, count 64", "-4096, count 64", -4096, 64,
	  { VT_NA, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, VT_NA },
	  VT_P(VT_PREAD) | VT_P(VT_PREADV2) | VT_P(VT_SENDFILE) },
	{ "offset -2^63, count 64", "-2^63, count 64", INT64_MIN, 64,
	  { VT_NA, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, VT_NA },
	  VT_P(VT_PREAD) | VT_P(VT_PREADV2) | VT_P(VT_SENDFILE) },
};

#define VT_NR_EDGES (sizeof(vt_edges) / sizeof(vt_edges[0]))

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * What path @p answers at edge @e on a kernel whose sendfile() does or does
 * not take character devices (@chardev): VT_NA, a count or -errno; *@vfs
 * says whether the kernel answers before the device is asked.
 */
static long vt_edge_want(unsigned int e, unsigned int p, bool chardev, bool *vfs)
{
	long want = vt_edges[e].want[p];

	*vfs = vt_edges[e].vfs & VT_P(p);
	if (want == VT_DATA)
		want = (long)min_u64(GUAC_DEV_END - vt_edges[e].off, vt_edges[e].len);
	/* Before 5.19, EINVAL wherever do_sendfile()'s own EOVERFLOW does not come first. */
	if (!chardev && (VT_SENDFILES & VT_P(p)) && want != VT_NA &&
	    !(*vfs && want == -EOVERFLOW)) {
		want = -EINVAL;
		*vfs = true;
	}
	return want;
}

static void vt_edge_name(char *out, size_t size, long v)
{
	if (v >= 0)
		snprintf(out, size, "%ld", v);
	else
		snprintf(out, size, "%s", strerrorname_np((int)-v) ?: "?");
}

/* A cell of the documented table: "-", a count, or an error with " (VFS)". */
static void vt_edge_cell(char *out, size_t size, long v, bool vfs)
{
	char name[24];

	if (v == VT_NA) {
		snprintf(out, size, "-");
		return;
	}
	vt_edge_name(name, sizeof(name), v);
	snprintf(out, size, "%s%s", name, vfs ? " (VFS)" : "");
}

/*
 * edges --print-expected RELEASE...: the table docs/device.md shows, in its
 * markdown, for those kernel releases (oldest first), from the expectations
 * the check itself uses; needs no device. A cell on which the kernels differ
 * gives the last release's answer, then "; MAJOR.MINOR: answer" for each
 * release that differs from it.
 */
static int vt_print_expected(int nr, char **releases)
{
	bool chardev[16];
	char cell[160], one[48], base[48];
	unsigned int e, p;
	int k;

	if (nr < 1 || nr > 16) {
		guac_err("--print-expected takes 1 to 16 kernel releases");
		return GUAC_EXIT_ERROR;
	}
	for (k = 0; k < nr; k++) {
		if (!vt_kernel_version(releases[k]))
			return GUAC_EXIT_ERROR;
		chardev[k] = vt_sendfile_takes_chardev(releases[k]);
	}
	printf("| offset |");
	for (p = 0; p < VT_NR_PATHS; p++)
		printf(" %s |", vt_path_names[p]);
	printf("\n|");
	for (p = 0; p <= VT_NR_PATHS; p++)
		printf(" --- |");
	printf("\n");
	for (e = 0; e < VT_NR_EDGES; e++) {
		printf("| %s |", vt_edges[e].doc);
		for (p = 0; p < VT_NR_PATHS; p++) {
			bool vfs;
			long v = vt_edge_want(e, p, chardev[nr - 1], &vfs);

			vt_edge_cell(base, sizeof(base), v, vfs);
			snprintf(cell, sizeof(cell), "%s", base);
			for (k = 0; k < nr - 1; k++) {
				unsigned int kv = vt_kernel_version(releases[k]);
				size_t used = strlen(cell);

				v = vt_edge_want(e, p, chardev[k], &vfs);
				vt_edge_cell(one, sizeof(one), v, vfs);
				if (strcmp(one, base))
					snprintf(cell + used, sizeof(cell) - used, "; %u.%u: %s",
						 kv / 1000, kv % 1000, one);
			}
			printf(" %s |", cell);
		}
		printf("\n");
	}
	return GUAC_EXIT_OK;
}

/* Every path at every edge, against the table; the observed table is printed. */
int vt_cmd_edges(int argc, char **argv)
{
	struct vt_uring ring;
	unsigned int e, p;
	bool chardev;
	uint8_t *buf;
	int fd;

	if (argc > 1 && !strcmp(argv[1], "--print-expected"))
		return vt_print_expected(argc - 2, argv + 2);
	if (argc > 1) {
		guac_err("usage: edges [--print-expected KERNEL-RELEASE...]");
		return GUAC_EXIT_ERROR;
	}
	fd = vt_open(O_RDONLY);
	buf = guac_alloc(4096);
	if (!vt_uring_init(&ring, 4)) {
		close(fd);
		free(buf);
		return 0;
	}
	chardev = vt_sendfile_takes_chardev(NULL);
	if (!chardev)
		printf("this kernel is older than 5.19: its sendfile() refuses character devices, EINVAL expected in the sendfile cells where the VFS's EOVERFLOW does not come first\n");
	printf("%-26s", "offset \\ path");
	for (p = 0; p < VT_NR_PATHS; p++)
		printf(" %-13s", vt_path_names[p]);
	printf("\n");
	for (e = 0; e < VT_NR_EDGES; e++) {
		printf("%-26s", vt_edges[e].what);
		for (p = 0; p < VT_NR_PATHS; p++) {
			char got_s[24], want_s[24], what[128];
			long got, expect;
			bool vfs;

			expect = vt_edge_want(e, p, chardev, &vfs);
			if (expect == VT_NA) {
				printf(" %-13s", "-");
				continue;
			}
			memset(buf, 0, 4096);
			got = vt_path_read(p, fd, &ring, buf, vt_edges[e].len, vt_edges[e].off);
			vt_edge_name(got_s, sizeof(got_s), got);
			printf(" %-13s", got_s);
			snprintf(what, sizeof(what), "%s %s", vt_path_names[p], vt_edges[e].what);
			if (got != expect) {
				vt_edge_name(want_s, sizeof(want_s), expect);
				vt_fail("%s: got %s, the table says %s", what, got_s, want_s);
			} else if (expect > 0) {
				vt_check_bytes(what, 0, (uint64_t)vt_edges[e].off, buf, (size_t)got);
			}
		}
		printf("\n");
	}
	vt_uring_exit(&ring);
	free(buf);
	close(fd);
	return 0;
}
