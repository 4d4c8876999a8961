// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites: a disk that stores one byte
 * wrong. Every pwrite to the file whose inode is CORRUPT_INO that covers its
 * byte CORRUPT_AT writes a copy of the caller's buffer with that byte
 * inverted, so the file (and its page cache) holds a wrong byte there while
 * the writer's buffer, and what it believes it wrote, stay right. What reads
 * the file back then finds it; nothing else does. With CORRUPT_EIO=1 the
 * writes are left alone and every pread of that file covering CORRUPT_AT
 * fails with EIO instead: a sector that cannot be read back. Other files,
 * and everything else, are untouched. Built with cc -shared -fPIC.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

/* Whether fd is the corrupted file and [off, off + len) holds CORRUPT_AT: then *at is its index. */
static int corrupts(int fd, size_t len, off_t off, size_t *at)
{
	const char *ino = getenv("CORRUPT_INO"), *byte = getenv("CORRUPT_AT");
	unsigned long long b;
	struct stat st;

	if (!ino || !byte || fstat(fd, &st) || st.st_ino != strtoull(ino, NULL, 10))
		return 0;
	b = strtoull(byte, NULL, 10);
	if (b < (unsigned long long)off || b - (unsigned long long)off >= len)
		return 0;
	*at = (size_t)(b - (unsigned long long)off);
	return 1;
}

static int eio(void)
{
	const char *e = getenv("CORRUPT_EIO");

	return e && !strcmp(e, "1");
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	pwrite_fn real = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
	size_t at;
	void *copy;
	ssize_t n;

	if (eio() || !corrupts(fd, len, off, &at))
		return real(fd, buf, len, off);
	/* Aligned as the caller's may need to be (O_DIRECT). */
	if (posix_memalign(&copy, 4096, len ? len : 1))
		return real(fd, buf, len, off);
	memcpy(copy, buf, len);
	((uint8_t *)copy)[at] ^= 0xff;
	n = real(fd, copy, len, off);
	free(copy);
	return n;
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
		(ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	size_t at;

	if (eio() && corrupts(fd, len, off, &at)) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, len, off);
}
ssize_t pread64(int fd, void *buf, size_t len, off_t off) __attribute__((alias("pread")));
