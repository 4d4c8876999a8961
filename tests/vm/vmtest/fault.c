// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Reads cut short: by an unmapped page in the buffer, or by a signal. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>
#include "vmtest.h"

/*
 * How far short of the hole a read may stop: x86's user copy reaches the
 * faulting byte, arm64's may stop up to one of its 64-byte copy blocks short
 * (device.c).
 */
#if defined(__aarch64__)
#define VT_FAULT_SLACK 63
#else
#define VT_FAULT_SLACK 0
#endif

/*
 * @pages mapped pages followed by an unmapped one; reading @len at @lead
 * bytes in must return exactly the bytes up to the hole (on arm64, up to
 * VT_FAULT_SLACK fewer, and those bytes right).
 */
static void vt_read_into_hole(int fd, size_t pages, size_t lead, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), room = pages * page - lead;
	uint8_t *map = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int64_t pos = 1000003;
	char what[96];
	ssize_t n;

	if (map == MAP_FAILED || munmap(map + pages * page, page)) {
		vt_fail("mmap/munmap: %s", strerror(errno));
		return;
	}
	snprintf(what, sizeof(what), "read(%zu) with %zu bytes before an unmapped page", len, room);
	n = pread(fd, map + lead, len, pos);
	if (n < 0 || n > (ssize_t)room || (size_t)n + VT_FAULT_SLACK < room)
		vt_fail("%s returned %zd (%s), expected %s%zu", what, n,
			n < 0 ? strerror(errno) : "count",
			VT_FAULT_SLACK ? "up to 63 fewer than " : "exactly ", room);
	else
		vt_check_bytes(what, 0, (uint64_t)pos, map + lead, (size_t)n);
	munmap(map, pages * page);
}

int vt_cmd_tail_fault(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY);
	void *hole;
	ssize_t n;

	(void)argc, (void)argv;
	vt_read_into_hole(fd, 3, 100, 3 * 4096);	/* page-sized generation */
	vt_read_into_hole(fd, 1, 4000, 200);		/* the small (stack) path */
	vt_read_into_hole(fd, 64, 1, 1 << 20);
	vt_read_into_hole(fd, 2, 0, 2 * 4096 + 1);	/* one byte over */

	/* Nothing mapped at all: EFAULT, and the position stays. */
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = 0;
	n = read(fd, hole, 4096);
	if (n != -1 || errno != EFAULT)
		vt_fail("read into an unmapped buffer returned %zd (%s), expected EFAULT",
			n, strerror(errno));
	if (vt_pos(fd) != 0)
		vt_fail("a failed read moved the position to %" PRId64, vt_pos(fd));
	munmap(hole, 4096);
	close(fd);
	return 0;
}

static volatile sig_atomic_t vt_alarms;

static void vt_on_alarm(int sig)
{
	(void)sig;
	vt_alarms++;
}

int vt_cmd_signal(int argc, char **argv)
{
	const size_t len = 512u << 20;
	struct sigaction sa = { .sa_handler = vt_on_alarm };	/* no SA_RESTART */
	struct itimerval timer = { .it_value = { 0, 100000 } };
	int fd = vt_open(O_RDONLY);
	int64_t start = 4097;
	uint8_t *buf;
	double t0;
	ssize_t n;

	(void)argc, (void)argv;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED) {
		vt_fail("mmap(%zu): %s", len, strerror(errno));
		return 0;
	}
	sigaction(SIGALRM, &sa, NULL);
	if (lseek(fd, start, SEEK_SET) != start)
		vt_fail("lseek: %s", strerror(errno));

	t0 = guac_now();
	setitimer(ITIMER_REAL, &timer, NULL);
	n = read(fd, buf, len);
	printf("read(%zu MiB) returned %zd after %.3f s, %d signal(s)\n", len >> 20, n,
	       guac_now() - t0, (int)vt_alarms);

	if (!vt_alarms)
		vt_fail("the read finished before the signal: nothing was interrupted");
	else if (n < 0)
		vt_fail("interrupted read failed with %s, expected a short count",
			strerror(errno));
	else if (n == 0 || (size_t)n >= len)
		vt_fail("interrupted read returned %zd, expected 0 < count < %zu", n, len);
	else
		vt_check_bytes("bytes of the interrupted read", 0, (uint64_t)start, buf,
			       (size_t)n);
	if (n > 0 && vt_pos(fd) != start + n)
		vt_fail("position %" PRId64 " after a short read of %zd from %" PRId64,
			vt_pos(fd), n, start);
	munmap(buf, len);
	close(fd);
	return 0;
}
