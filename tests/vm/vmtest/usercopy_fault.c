// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Reads cut short by fail_usercopy (debug kernel only): the Nth copy to user
 * memory in a read fails as a fault would. The read must return exactly the
 * bytes it copied before that, all of them right, write nothing after them,
 * leave the position just past them, and the next read must carry on from
 * there. A first copy that fails gives EFAULT and moves nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uapi/linux/guacrng.h>
#include "vmtest.h"

#define VT_FAIL_USERCOPY "/sys/kernel/debug/fail_usercopy/"
#define VT_POISON 0x5a

static bool vt_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, value, strlen(value));
		close(fd);
	}
	if (n != (ssize_t)strlen(value)) {
		vt_fail("writing '%s' to %s: %s", value, path, strerror(errno));
		return false;
	}
	return true;
}

static long vt_read_number(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		vt_fail("reading %s: %s", path, strerror(errno));
		return -1;
	}
	return strtol(buf, NULL, 0);
}

/*
 * Make this task's @nth fault-injection call from now on fail: with only
 * fail_usercopy in the kernel, its @nth copy to or from user memory.
 */
static bool vt_arm(unsigned int nth)
{
	char value[16];

	snprintf(value, sizeof(value), "%u", nth);
	return vt_write_file("/proc/thread-self/fail-nth", value);
}

static void vt_fault_case(uint64_t origin, int64_t pos, size_t len, unsigned int nth)
{
	uint8_t *buf = guac_alloc(len);
	int fd = vt_open(O_RDONLY);
	size_t rest, i;
	ssize_t n, n2;
	char what[96];
	int err;

	snprintf(what, sizeof(what), "read(%zu) at %" PRId64 " failing copy %u", len, pos, nth);
	memset(buf, VT_POISON, len);
	if (ioctl(fd, GUAC_IOC_SET_ORIGIN, &origin) || lseek(fd, pos, SEEK_SET) != pos) {
		vt_fail("%s: setting up: %s", what, strerror(errno));
		goto out;
	}
	if (!vt_arm(nth))
		goto out;
	n = read(fd, buf, len);
	err = errno;
	/* 0 once the injection fired. */
	if (vt_read_number("/proc/thread-self/fail-nth") != 0) {
		vt_fail("%s: no copy failed: the injection never fired", what);
		goto out;
	}
	if (nth == 1) {
		if (n != -1 || err != EFAULT)
			vt_fail("%s returned %zd (%s), expected EFAULT", what, n, strerror(err));
		if (vt_pos(fd) != pos)
			vt_fail("%s: EFAULT moved the position to %" PRId64, what, vt_pos(fd));
		rest = len;
		n = 0;
	} else {
		if (n <= 0 || (size_t)n >= len) {
			vt_fail("%s returned %zd (%s), expected a short count", what, n,
				n < 0 ? strerror(err) : "bytes");
			goto out;
		}
		vt_check_bytes(what, origin, (uint64_t)pos, buf, (size_t)n);
		for (i = (size_t)n; i < len && buf[i] == VT_POISON; i++)
			;
		if (i < len)
			vt_fail("%s returned %zd but wrote byte %zu", what, n, i);
		if (vt_pos(fd) != pos + n)
			vt_fail("%s returned %zd but moved the position by %" PRId64, what, n,
				vt_pos(fd) - pos);
		rest = len - (size_t)n;
	}

	/* The injection is spent: the rest of the request reads in full. */
	n2 = read(fd, buf, rest);
	if (n2 != (ssize_t)rest)
		vt_fail("%s: the next read(%zu) returned %zd (%s)", what, rest, n2,
			n2 < 0 ? strerror(errno) : "bytes");
	else
		vt_check_bytes("the read after the fault", origin, (uint64_t)(pos + n), buf, rest);
	printf("%s: %zd bytes, then %zd\n", what, n, n2);
out:
	close(fd);
	free(buf);
}

int vt_cmd_usercopy_fault(int argc, char **argv)
{
	static const unsigned int nths[] = { 1, 2, 3, 17, 64 };
	unsigned int i;

	(void)argc, (void)argv;
	if (access(VT_FAIL_USERCOPY "verbose", W_OK)) {
		vt_fail(VT_FAIL_USERCOPY " not available: %s (needs a kernel with "
			"FAULT_INJECTION_USERCOPY and debugfs mounted)", strerror(errno));
		return GUAC_EXIT_FAIL;
	}
	/* The injected faults are expected: keep them out of the kernel log. */
	if (!vt_write_file(VT_FAIL_USERCOPY "verbose", "0"))
		return GUAC_EXIT_FAIL;
	vt_fault_case(0, 5, 200, 1);	/* the small (stack) path */
	for (i = 0; i < sizeof(nths) / sizeof(nths[0]); i++) {
		vt_fault_case(0, 0, 1 << 20, nths[i]);
		vt_fault_case(0xfffffffffffffff0ULL, 4093, 300001, nths[i]);
		vt_fault_case(7, GUAC_POS_MAX - (1 << 20) - 11, 1 << 20, nths[i]);
	}
	return 0;
}
