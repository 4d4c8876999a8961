// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim that turns one image file (inode FAKE_INO) into a
 * fake-capacity drive for guac probe's tests, at the pread/pwrite level:
 *   FAKE_WRAP=BYTES  every offset is taken modulo BYTES (address lines
 *                    missing: writes high up land low down);
 *   FAKE_DROP=BYTES  writes at or past BYTES are acknowledged and lost; reads
 *                    there return what the file holds (FAKE_DROP_READS=old,
 *                    the default) or zeros (FAKE_DROP_READS=zeros);
 *   FAKE_BAD=BYTES   the 4096-byte block at BYTES loses its writes (a bad
 *                    spot, not a size limit);
 *   FAKE_SLOW_NS=N   every pwrite sleeps N ns first (time for a signal).
 * I/O is taken as the probe does it: whole, aligned 4096-byte multiples.
 * Other files are untouched. Built with cc -shared -fPIC.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static unsigned long long env_u64(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : 0;
}

static int is_fake(int fd)
{
	struct stat st;
	const char *ino = getenv("FAKE_INO");

	return ino && !fstat(fd, &st) && st.st_ino == strtoull(ino, NULL, 10);
}

static off_t place(off_t off)
{
	unsigned long long wrap = env_u64("FAKE_WRAP");

	return wrap ? (off_t)((unsigned long long)off % wrap) : off;
}

static int lost(off_t off)
{
	unsigned long long drop = env_u64("FAKE_DROP"), bad = env_u64("FAKE_BAD");

	if (drop && (unsigned long long)off >= drop)
		return 1;
	return getenv("FAKE_BAD") && (unsigned long long)off / 4096 == bad / 4096;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	long long ns = (long long)env_u64("FAKE_SLOW_NS");
	struct timespec d = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

	if (!is_fake(fd))
		return real(fd, buf, len, off);
	if (ns)
		nanosleep(&d, NULL);
	if (lost(off))
		return (ssize_t)len;
	return real(fd, buf, len, place(off));
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
		(ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	const char *reads = getenv("FAKE_DROP_READS");
	unsigned long long drop = env_u64("FAKE_DROP");

	if (!is_fake(fd))
		return real(fd, buf, len, off);
	if (drop && (unsigned long long)off >= drop && reads && !strcmp(reads, "zeros")) {
		memset(buf, 0, len);
		return (ssize_t)len;
	}
	return real(fd, buf, len, place(off));
}
ssize_t pread64(int fd, void *buf, size_t len, off_t off) __attribute__((alias("pread")));
