/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * guacrng userspace API: ioctls on /dev/guac.
 *
 * /dev/guac serves the guacamole stream: byte p of an open file is byte
 * (p mod 64) of block (origin + p / 64) mod 2^64, where origin is a per-open
 * block index (0 after open). The file ends at GUAC_DEV_END, so the origin is
 * what makes every one of the 2^64 blocks reachable:
 *
 *	__u64 origin = 0xffffffffffffffffULL;
 *	ioctl(fd, GUAC_IOC_SET_ORIGIN, &origin);
 *	pread(fd, buf, 128, 0);		// the last block, then block 0
 *
 * Changing the origin does not move the file position. Unknown ioctls fail
 * with ENOTTY.
 */
#ifndef _UAPI_LINUX_GUACRNG_H
#define _UAPI_LINUX_GUACRNG_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define GUAC_UAPI_VERSION 1

/*
 * The end of file, 2^63 - 64: an open file holds the 2^57 - 1 whole blocks
 * from its origin, and lseek() takes positions in [0, GUAC_DEV_END]. Every
 * read path (read, pread, preadv2, io_uring, AIO, splice, sendfile) returns 0
 * there. The end is not 2^63 - 1, the largest file position, because
 * sendfile() refuses to start at that position itself (EOVERFLOW) before the
 * device is asked; one block lower, it sees the end as every other path does.
 */
#define GUAC_DEV_END 0x7fffffffffffffc0LL

/*
 * guac_info.impl: the implementation serving reads. The numbers are the same
 * on every architecture; each has its own subset (x86-64: generic, sse2,
 * avx2, avx512; arm64: generic, neon).
 */
#define GUAC_IMPL_ID_GENERIC 0
#define GUAC_IMPL_ID_SSE2 1
#define GUAC_IMPL_ID_AVX2 2
#define GUAC_IMPL_ID_AVX512 3
#define GUAC_IMPL_ID_NEON 4

/*
 * guac_info.cpu_features: what the CPU (and the kernel's FPU state) offers.
 * RNDR stands for FEAT_RNG, which brings both RNDR and RNDRRS.
 */
#define GUAC_FEAT_SSE2 (1U << 0)
#define GUAC_FEAT_AVX2 (1U << 1)
#define GUAC_FEAT_AVX512 (1U << 2)
#define GUAC_FEAT_RDRAND (1U << 3)
#define GUAC_FEAT_RDSEED (1U << 4)
#define GUAC_FEAT_NEON (1U << 5)
#define GUAC_FEAT_RNDR (1U << 6)

struct guac_info {
	__u32 version;		/* GUAC_UAPI_VERSION */
	__u32 impl;		/* GUAC_IMPL_ID_* in use for reads */
	__u32 cpu_features;	/* GUAC_FEAT_* */
	__u32 reserved;		/* zero */
	char impl_name[16];	/* "avx2" etc., NUL-terminated */
};

#define GUAC_IOC_MAGIC 0xB9

/* Fill a struct guac_info. */
#define GUAC_IOC_GET_INFO _IOR(GUAC_IOC_MAGIC, 0x00, struct guac_info)
/* Set this open file's origin (a block index, any __u64). */
#define GUAC_IOC_SET_ORIGIN _IOW(GUAC_IOC_MAGIC, 0x01, __u64)
/* Read this open file's origin. */
#define GUAC_IOC_GET_ORIGIN _IOR(GUAC_IOC_MAGIC, 0x02, __u64)

#endif /* _UAPI_LINUX_GUACRNG_H */
