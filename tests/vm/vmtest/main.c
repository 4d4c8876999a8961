// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guac-vmtest: dispatch and the helpers every check shares. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vmtest.h"

static atomic_uint vt_nr_failures;

void vt_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: FAIL: ", guac_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	atomic_fetch_add(&vt_nr_failures, 1);
}

unsigned int vt_failures(void)
{
	return atomic_load(&vt_nr_failures);
}

int vt_open(int flags)
{
	int fd = open(GUAC_DEV, flags);
	struct stat st;

	if (fd < 0) {
		guac_err("cannot open " GUAC_DEV ": %s", strerror(errno));
		exit(GUAC_EXIT_ERROR);
	}
	/* A stray regular file of that name must not pass for the device. */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		guac_err(GUAC_DEV " is not a character device");
		exit(GUAC_EXIT_ERROR);
	}
	return fd;
}

int64_t vt_pos(int fd)
{
	return lseek(fd, 0, SEEK_CUR);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} vt_cmds[] = {
	{ "pread", vt_cmd_pread, "pread at small, odd and huge offsets" },
	{ "preadv", vt_cmd_preadv, "preadv with odd-sized iovecs, including empty ones" },
	{ "seek-cur", vt_cmd_seek_cur, "chains of SEEK_CUR moves and reads up to the end (2^63-64)" },
	{ "eof", vt_cmd_eof, "short read before the end (2^63-64), end of file at it" },
	{ "splice", vt_cmd_splice, "splice(2) from the device into a pipe" },
	{ "bad-seek", vt_cmd_bad_seek, "SEEK_END/DATA/HOLE, negative and overflowing seeks: EINVAL, position kept" },
	{ "write", vt_cmd_write, "write/pwrite/writev on a read-only open: EBADF, nothing changes" },
	{ "ioctl", vt_cmd_ioctl, "unknown ioctls: ENOTTY; bad pointers: EFAULT" },
	{ "origin", vt_cmd_origin, "GUAC_IOC_SET/GET_ORIGIN, per open, across the 2^64 wrap" },
	{ "info", vt_cmd_info, "GUAC_IOC_GET_INFO [IMPL]: names the implementation IMPL" },
	{ "tail-fault", vt_cmd_tail_fault, "reads into a buffer whose tail page is unmapped" },
	{ "signal", vt_cmd_signal, "a huge read interrupted by a signal: short count" },
	{ "concurrent", vt_cmd_concurrent, "[N] N readers (default 8) at once, all checked" },
	{ "bench", vt_cmd_bench, "throughput of /dev/guac, guac gen or a file (not a check)" },
	{ "fork-race", vt_cmd_fork_race, "[READS] 64 KiB reads while a sibling thread forks: no data lost" },
	{ "mmap-shared", vt_cmd_mmap_shared, "FILE: a read into a MAP_SHARED mapping reaches the file" },
	{ "shared-fd", vt_cmd_shared_fd, "[N] N threads read() one open file: each range once" },
	{ "open-write", vt_cmd_open_write, "opens for writing: EPERM at open" },
	{ "load-unseen", vt_cmd_load_unseen, "CMD...: CMD (a load) fails, /dev/guac never announced" },
	{ "uring-order", vt_cmd_uring_order, "[BATCHES [DEPTH]] io_uring reads at offset -1: in order, none twice" },
	{ "nowait", vt_cmd_nowait, "preadv2, AIO and io_uring with RWF_NOWAIT return the stream" },
	{ "edges", vt_cmd_edges, "every read path at the end of file and at negative offsets" },
	{ "sysfuzz", vt_cmd_sysfuzz, "SEED SECONDS [THREADS] random system calls on /dev/guac, all checked" },
	{ "sysfuzz-shared", vt_cmd_sysfuzz_shared, "SEED SECONDS pread vs lseek/read/GET_INFO on one open of /dev/guac" },
	{ "hwrng-fuzz", vt_cmd_hwrng_fuzz, "SEED SECONDS [THREADS [MIN [STOPFILE]]] random reads of /dev/hwrng, all checked" },
	{ "usercopy-fault", vt_cmd_usercopy_fault, "fail_usercopy mid-read: exact short count, then on (debug kernel)" },
	{ "stress", vt_cmd_stress, "[N [SECONDS]] N readers (16) seeking and reading at random (20 s)" },
	{ "log-replay", vt_cmd_log_replay, "LOG DEV [--limit N] [--drop K]... [--tear K:BYTES] [--list] dm-log-writes' log onto DEV" },
};

#define VT_NR_CMDS (sizeof(vt_cmds) / sizeof(vt_cmds[0]))

static void vt_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "Usage: guac-vmtest CHECK [ARGS]\n\n"
		"Checks /dev/guac against `guac gen` (which must be on PATH). Each CHECK\n"
		"exits 0 when every expectation holds, 1 with the failures on stderr\n"
		"otherwise, 2 on a usage error.\n\nChecks:\n");
	for (i = 0; i < VT_NR_CMDS; i++)
		fprintf(f, "  %-11s %s\n", vt_cmds[i].name, vt_cmds[i].summary);
}

int main(int argc, char **argv)
{
	static char prog[64];
	unsigned int i;
	int status;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		vt_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GUAC_EXIT_ERROR : GUAC_EXIT_OK;
	}
	for (i = 0; i < VT_NR_CMDS; i++) {
		if (strcmp(argv[1], vt_cmds[i].name))
			continue;
		snprintf(prog, sizeof(prog), "guac-vmtest %s", vt_cmds[i].name);
		guac_prog = prog;
		status = vt_cmds[i].run(argc - 1, argv + 1);
		if (status == GUAC_EXIT_OK && vt_failures())
			status = GUAC_EXIT_FAIL;
		return status;
	}
	guac_err("unknown check '%s' (try 'guac-vmtest --help')", argv[1]);
	return GUAC_EXIT_ERROR;
}
