// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites (and tests/slurm): every pwrite to
 * the file whose inode is SLOW_INO first sleeps SLOW_NS nanoseconds (default
 * 2 ms), so that a fill lasts long enough for what a test does meanwhile
 * (checkpoints, signals, a time limit). With SLOW_READS=1 every pread of
 * that file sleeps too, so that a check lasts. Other files, and everything
 * else, are untouched. Built with cc -shared -fPIC, alone or with another
 * shim.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Sleep SLOW_NS if fd is the slowed file. */
static void slow_down(int fd)
{
	const char *ino = getenv("SLOW_INO"), *ns = getenv("SLOW_NS");
	long long t = ns ? atoll(ns) : 2000000;
	struct timespec d = { (time_t)(t / 1000000000), (long)(t % 1000000000) };
	struct stat st;

	if (ino && !fstat(fd, &st) && st.st_ino == strtoull(ino, NULL, 10))
		nanosleep(&d, NULL);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");

	slow_down(fd);
	return real(fd, buf, len, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
		(ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	const char *reads = getenv("SLOW_READS");

	if (reads && !strcmp(reads, "1"))
		slow_down(fd);
	return real(fd, buf, len, off);
}
ssize_t pread64(int fd, void *buf, size_t len, off_t off) __attribute__((alias("pread")));
