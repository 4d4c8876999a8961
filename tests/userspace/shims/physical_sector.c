// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites: BLKPBSZGET on a block device
 * answers FAKE_PBSZ (say 4096), so that a loop device, whose physical sector
 * is always its logical one, passes for a 512e disk (512-byte logical
 * sectors, 4096-byte physical ones): the kernel's loop driver cannot be one,
 * and scsi_debug (physblk_exp=3) is not on every host. Every other ioctl,
 * and BLKPBSZGET without FAKE_PBSZ, is the real one. Built with cc -shared
 * -fPIC.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

int ioctl(int fd, unsigned long request, ...)
{
	int (*real)(int, unsigned long, ...) =
		(int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	const char *fake = getenv("FAKE_PBSZ");
	struct stat st;
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == BLKPBSZGET && fake && !fstat(fd, &st) && S_ISBLK(st.st_mode)) {
		*(unsigned int *)arg = (unsigned int)strtoul(fake, NULL, 10);
		return 0;
	}
	return real(fd, request, arg);
}
