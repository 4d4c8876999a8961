// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites: each pwrite to the file whose
 * inode is PWRITE_LOG_INO appends "OFF LEN" (the call's file offset and
 * length, before it runs) to the file PWRITE_LOG, so that a suite sees the
 * sizes of the system calls a writer makes (guac write --bs-split,
 * test_write_bssplit.sh). Other files, and everything else, are untouched.
 * Built with cc -shared -fPIC ... -ldl.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	const char *path = getenv("PWRITE_LOG"), *ino = getenv("PWRITE_LOG_INO");
	struct stat st;
	FILE *log;

	if (path && ino && !fstat(fd, &st) && st.st_ino == strtoull(ino, NULL, 10) &&
	    (log = fopen(path, "a"))) {
		fprintf(log, "%lld %zu\n", (long long)off, len);
		fclose(log);
	}
	return real(fd, buf, len, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));
