// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Positioned reads: pread, preadv, SEEK_CUR chains, the end of file, splice. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "vmtest.h"

/* Offsets chosen to start mid-block, on page and block edges, and near the end. */
static const struct {
	uint64_t offset;
	size_t len;
} vt_reads[] = {
	{ 0, 1 },
	{ 1, 255 },		/* the small (stack) path */
	{ 63, 257 },		/* just past it */
	{ 4095, 4098 },		/* straddles two page boundaries */
	{ 12345, 100001 },
	{ 1ULL << 32, 65536 },
	{ (1ULL << 40) + 17, 1 << 20 },
	{ GUAC_POS_MAX - 70000, 70000 },	/* ends exactly at the last byte */
};

#define VT_NR_READS (sizeof(vt_reads) / sizeof(vt_reads[0]))

int vt_cmd_pread(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY);
	unsigned int i;

	(void)argc, (void)argv;
	for (i = 0; i < VT_NR_READS; i++) {
		size_t len = vt_reads[i].len;
		uint8_t *buf = guac_alloc(len);
		ssize_t n = pread(fd, buf, len, (off_t)vt_reads[i].offset);
		char what[64];

		snprintf(what, sizeof(what), "pread(%zu @ %" PRIu64 ")", len,
			 vt_reads[i].offset);
		if (n != (ssize_t)len)
			vt_fail("%s returned %zd (%s)", what, n, n < 0 ? strerror(errno) : "short");
		else
			vt_check_bytes(what, 0, vt_reads[i].offset, buf, len);
		free(buf);
	}
	if (vt_pos(fd) != 0)
		vt_fail("pread moved the file position to %" PRId64, vt_pos(fd));
	close(fd);
	return 0;
}

int vt_cmd_preadv(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 63, 0, 64, 4095, 5000, 0, 70000, 3 };
	const uint64_t offsets[] = { 0, 12345, GUAC_POS_MAX - 200000 };
	struct iovec iov[sizeof(sizes) / sizeof(sizes[0])];
	size_t total = 0, i, j;
	int fd = vt_open(O_RDONLY);
	uint8_t *buf;

	(void)argc, (void)argv;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		total += sizes[i];
	buf = guac_alloc(total);
	for (j = 0; j < sizeof(offsets) / sizeof(offsets[0]); j++) {
		uint8_t *p = buf;
		ssize_t n;

		memset(buf, 0, total);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			iov[i].iov_base = p;
			iov[i].iov_len = sizes[i];
			p += sizes[i];
		}
		n = preadv(fd, iov, (int)i, (off_t)offsets[j]);
		if (n != (ssize_t)total)
			vt_fail("preadv(%zu @ %" PRIu64 ") returned %zd", total, offsets[j], n);
		else
			vt_check_bytes("preadv", 0, offsets[j], buf, total);
	}
	free(buf);
	close(fd);
	return 0;
}

/* Read @len at the current position and check it against @expect_pos. */
static void vt_read_at(int fd, int64_t expect_pos, size_t len)
{
	uint8_t *buf = guac_alloc(len);
	int64_t pos = vt_pos(fd);
	ssize_t n;
	char what[64];

	if (pos != expect_pos) {
		vt_fail("position is %" PRId64 ", expected %" PRId64, pos, expect_pos);
		free(buf);
		return;
	}
	n = read(fd, buf, len);
	snprintf(what, sizeof(what), "read(%zu) at %" PRId64, len, pos);
	if (n != (ssize_t)len)
		vt_fail("%s returned %zd", what, n);
	else
		vt_check_bytes(what, 0, (uint64_t)pos, buf, len);
	if (vt_pos(fd) != pos + (int64_t)len)
		vt_fail("%s left the position at %" PRId64, what, vt_pos(fd));
	free(buf);
}

int vt_cmd_seek_cur(int argc, char **argv)
{
	/* Forward, backward and zero moves, then giant strides towards the end. */
	static const int64_t moves[] = {
		0, 1, 62, -3, 4096, -4000, 1 << 20, -(1 << 19), 99991,
		1LL << 40, 1LL << 61, 1LL << 61, 1LL << 61,
		(1LL << 61) - (1LL << 40) - (1 << 21),	/* ends ~1.5 MB short of the end */
	};
	int fd = vt_open(O_RDONLY);
	int64_t pos = 0;
	unsigned int i;

	(void)argc, (void)argv;
	for (i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		off_t got = lseek(fd, moves[i], SEEK_CUR);

		pos += moves[i];
		if (got != pos) {
			vt_fail("lseek(%+" PRId64 ", SEEK_CUR) returned %jd, expected %" PRId64,
				moves[i], (intmax_t)got, pos);
			break;
		}
		vt_read_at(fd, pos, 100 + 37 * i);
		pos += 100 + 37 * i;
	}
	close(fd);
	return 0;
}

int vt_cmd_eof(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY);
	uint8_t buf[1000];
	ssize_t n;

	(void)argc, (void)argv;
	/* A read that would pass the end (2^63-64) stops there ... */
	n = pread(fd, buf, sizeof(buf), GUAC_POS_MAX - 10);
	if (n != 10)
		vt_fail("pread(1000) 10 bytes before the end returned %zd, expected 10", n);
	else
		vt_check_bytes("last 10 bytes", 0, GUAC_POS_MAX - 10, buf, 10);
	/* ... and reads from there on are at end of file. */
	if (lseek(fd, GUAC_POS_MAX, SEEK_SET) != GUAC_POS_MAX)
		vt_fail("lseek to the end failed: %s", strerror(errno));
	n = read(fd, buf, sizeof(buf));
	if (n != 0)
		vt_fail("read at the end returned %zd, expected 0 (end of file)", n);
	if (vt_pos(fd) != GUAC_POS_MAX)
		vt_fail("read at end of file moved the position");
	close(fd);
	return 0;
}

/* Move @len bytes from @fd (at *@off, or the file position if NULL) through a pipe. */
static ssize_t vt_splice_through(int fd, int64_t *off, uint8_t *buf, size_t len)
{
	int pipefd[2];
	size_t done = 0;

	if (pipe(pipefd)) {
		vt_fail("pipe: %s", strerror(errno));
		return -1;
	}
	while (done < len) {
		loff_t o = off ? *off : 0;
		size_t want = len - done < 65536 ? len - done : 65536;
		ssize_t n = splice(fd, off ? &o : NULL, pipefd[1], NULL, want, 0);
		ssize_t m;

		if (n <= 0) {
			vt_fail("splice returned %zd (%s) after %zu bytes", n,
				n < 0 ? strerror(errno) : "end of file", done);
			break;
		}
		if (off)
			*off = o;
		for (m = 0; m < n;) {
			ssize_t r = read(pipefd[0], buf + done + m, (size_t)(n - m));

			if (r <= 0) {
				vt_fail("read from the pipe: %s", r ? strerror(errno) : "EOF");
				goto out;
			}
			m += r;
		}
		done += (size_t)n;
	}
out:
	close(pipefd[0]);
	close(pipefd[1]);
	return (ssize_t)done;
}

int vt_cmd_splice(int argc, char **argv)
{
	const size_t len = (3 << 20) + 777;
	int64_t off = (1LL << 50) + 4093;
	int fd = vt_open(O_RDONLY);
	uint8_t *buf = guac_alloc(len);

	(void)argc, (void)argv;
	/* With an explicit offset: the file position must not move. */
	if (vt_splice_through(fd, &off, buf, len) == (ssize_t)len) {
		vt_check_bytes("splice at an offset", 0, (1ULL << 50) + 4093, buf, len);
		if (off != (1LL << 50) + 4093 + (int64_t)len)
			vt_fail("splice advanced the offset to %" PRId64, off);
	}
	if (vt_pos(fd) != 0)
		vt_fail("splice with an offset moved the file position");

	/* From the file position, which must advance. */
	if (lseek(fd, 999, SEEK_SET) != 999)
		vt_fail("lseek(999): %s", strerror(errno));
	if (vt_splice_through(fd, NULL, buf, 100000) == 100000)
		vt_check_bytes("splice at the file position", 0, 999, buf, 100000);
	if (vt_pos(fd) != 999 + 100000)
		vt_fail("splice left the file position at %" PRId64 ", expected 100999",
			vt_pos(fd));

	/* A negative offset is refused, whatever the file's offset rules. */
	{
		loff_t bad = -4096;
		int pipefd[2];

		if (pipe(pipefd)) {
			vt_fail("pipe: %s", strerror(errno));
		} else {
			errno = 0;
			if (splice(fd, &bad, pipefd[1], NULL, 100, 0) != -1 || errno != EINVAL)
				vt_fail("splice at offset -4096 gave %s, expected EINVAL",
					errno ? strerror(errno) : "bytes");
			close(pipefd[0]);
			close(pipefd[1]);
		}
	}
	free(buf);
	close(fd);
	return 0;
}
