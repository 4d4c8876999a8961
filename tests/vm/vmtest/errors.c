// SPDX-License-Identifier: GPL-2.0 OR MIT
/* What /dev/guac must refuse: bad seeks, writes, unknown ioctls. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>
#include <uapi/linux/guacrng.h>
#include "vmtest.h"

/* Expect @ret to be -1 with @err, reporting @what otherwise. */
static void vt_expect_error(const char *what, long ret, int err)
{
	if (ret != -1)
		vt_fail("%s returned %ld, expected %s", what, ret, strerrorname_np(err));
	else if (errno != err)
		vt_fail("%s failed with %s, expected %s", what,
			strerrorname_np(errno), strerrorname_np(err));
}

int vt_cmd_bad_seek(int argc, char **argv)
{
	static const struct {
		const char *what;
		int64_t start, offset;
		int whence;
	} cases[] = {
		{ "SEEK_END 0", 100, 0, SEEK_END },
		{ "SEEK_END -1", 100, -1, SEEK_END },
		{ "SEEK_DATA", 100, 0, SEEK_DATA },
		{ "SEEK_HOLE", 100, 0, SEEK_HOLE },
		{ "SEEK_SET -1", 100, -1, SEEK_SET },
		{ "SEEK_SET INT64_MIN", 100, INT64_MIN, SEEK_SET },
		{ "SEEK_CUR below 0", 100, -101, SEEK_CUR },
		{ "SEEK_CUR past the end", GUAC_POS_MAX, 1, SEEK_CUR },
		{ "SEEK_CUR far past the end", GUAC_POS_MAX - 5, INT64_MAX, SEEK_CUR },
		{ "SEEK_SET past the end", 100, GUAC_POS_MAX + 1, SEEK_SET },
		{ "SEEK_SET 2^63-1", 100, INT64_MAX, SEEK_SET },
		{ "whence 42", 100, 0, 42 },
	};
	int fd = vt_open(O_RDONLY);
	unsigned int i;

	(void)argc, (void)argv;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (lseek(fd, cases[i].start, SEEK_SET) != cases[i].start) {
			vt_fail("%s: cannot seek to the start position %" PRId64 ": %s",
				cases[i].what, cases[i].start, strerror(errno));
			continue;
		}
		errno = 0;
		vt_expect_error(cases[i].what, lseek(fd, cases[i].offset, cases[i].whence),
				EINVAL);
		if (vt_pos(fd) != cases[i].start)
			vt_fail("%s moved the position from %" PRId64 " to %" PRId64,
				cases[i].what, cases[i].start, vt_pos(fd));
	}
	{
		char byte;

		vt_expect_error("pread at -1", pread(fd, &byte, 1, -1), EINVAL);
		vt_expect_error("pread at INT64_MIN", pread(fd, &byte, 1, INT64_MIN), EINVAL);
	}
	/* The edges themselves are fine. */
	if (lseek(fd, GUAC_POS_MAX, SEEK_SET) != GUAC_POS_MAX)
		vt_fail("SEEK_SET to the end (2^63-64) failed: %s", strerror(errno));
	if (lseek(fd, -GUAC_POS_MAX, SEEK_CUR) != 0)
		vt_fail("SEEK_CUR from the end back to 0 failed: %s", strerror(errno));
	close(fd);
	return 0;
}

int vt_cmd_write(int argc, char **argv)
{
	uint8_t before[4096], after[4096], junk[512];
	struct iovec iov = { junk, sizeof(junk) };
	int fd = vt_open(O_RDONLY);	/* opens for writing are refused (open-write) */

	(void)argc, (void)argv;
	memset(junk, 0x5a, sizeof(junk));
	if (pread(fd, before, sizeof(before), 0) != sizeof(before))
		vt_fail("pread before writing: %s", strerror(errno));
	if (lseek(fd, 1000, SEEK_SET) != 1000)
		vt_fail("lseek(1000): %s", strerror(errno));

	errno = 0;
	vt_expect_error("write", write(fd, junk, sizeof(junk)), EBADF);
	vt_expect_error("pwrite at 0", pwrite(fd, junk, sizeof(junk), 0), EBADF);
	vt_expect_error("writev", writev(fd, &iov, 1), EBADF);
	if (vt_pos(fd) != 1000)
		vt_fail("a refused write moved the position to %" PRId64, vt_pos(fd));

	if (pread(fd, after, sizeof(after), 0) != sizeof(after))
		vt_fail("pread after writing: %s", strerror(errno));
	else if (memcmp(before, after, sizeof(after)))
		vt_fail("the stream changed after refused writes");
	vt_check_bytes("bytes after refused writes", 0, 0, after, sizeof(after));
	close(fd);
	return 0;
}

int vt_cmd_ioctl(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY);
	struct termios tio;
	uint64_t origin = 0;
	uint32_t small = 0;

	(void)argc, (void)argv;
	errno = 0;
	vt_expect_error("ioctl _IO(magic, 0x7f)", ioctl(fd, _IO(GUAC_IOC_MAGIC, 0x7f)), ENOTTY);
	vt_expect_error("ioctl TCGETS", ioctl(fd, TCGETS, &tio), ENOTTY);
	/* The right number with the wrong size is another ioctl. */
	vt_expect_error("GET_ORIGIN with a 32-bit size",
			ioctl(fd, _IOR(GUAC_IOC_MAGIC, 0x02, uint32_t), &small), ENOTTY);
	vt_expect_error("GET_INFO to a bad pointer", ioctl(fd, GUAC_IOC_GET_INFO, 8), EFAULT);
	vt_expect_error("SET_ORIGIN from a bad pointer", ioctl(fd, GUAC_IOC_SET_ORIGIN, 8), EFAULT);
	if (ioctl(fd, GUAC_IOC_GET_ORIGIN, &origin) || origin)
		vt_fail("origin is %#" PRIx64 " after a failed SET_ORIGIN, expected 0", origin);
	close(fd);
	return 0;
}
