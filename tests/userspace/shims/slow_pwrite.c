// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites (and tests/slurm): every pwrite to
 * the file whose inode is SLOW_INO first sleeps SLOW_NS nanoseconds (default
 * 2 ms), so that a fill lasts long enough for what a test does meanwhile
 * (checkpoints, signals, a time limit). Other files, and everything else,
 * are untouched. Built with cc -shared -fPIC, alone or with another shim.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	const char *ino = getenv("SLOW_INO"), *ns = getenv("SLOW_NS");
	long long t = ns ? atoll(ns) : 2000000;
	struct timespec d = { (time_t)(t / 1000000000), (long)(t % 1000000000) };
	struct stat st;

	if (ino && !fstat(fd, &st) && st.st_ino == strtoull(ino, NULL, 10))
		nanosleep(&d, NULL);
	return real(fd, buf, len, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));
