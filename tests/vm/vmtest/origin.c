// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The per-open origin and GUAC_IOC_GET_INFO. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uapi/linux/guacrng.h>
#include "vmtest.h"

static uint64_t vt_get_origin(int fd)
{
	uint64_t origin = 0;

	if (ioctl(fd, GUAC_IOC_GET_ORIGIN, &origin))
		vt_fail("GUAC_IOC_GET_ORIGIN: %s", strerror(errno));
	return origin;
}

static void vt_set_origin(int fd, uint64_t origin)
{
	if (ioctl(fd, GUAC_IOC_SET_ORIGIN, &origin))
		vt_fail("GUAC_IOC_SET_ORIGIN(%#" PRIx64 "): %s", origin, strerror(errno));
	if (vt_get_origin(fd) != origin)
		vt_fail("GET_ORIGIN gives %#" PRIx64 " after setting %#" PRIx64,
			vt_get_origin(fd), origin);
}

/* pread @len at @pos through @fd, whose origin is @origin, and check the bytes. */
static void vt_check_pread(int fd, uint64_t origin, int64_t pos, size_t len)
{
	uint8_t buf[8192];
	char what[96];
	ssize_t n = pread(fd, buf, len, pos);

	snprintf(what, sizeof(what), "pread(%zu @ %" PRId64 ") at origin %#" PRIx64,
		 len, pos, origin);
	if (n != (ssize_t)len)
		vt_fail("%s returned %zd", what, n);
	else
		vt_check_bytes(what, origin, (uint64_t)pos, buf, len);
}

int vt_cmd_origin(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY), other = vt_open(O_RDONLY);
	uint8_t last[128], first[64];

	(void)argc, (void)argv;
	if (vt_get_origin(fd) != 0)
		vt_fail("a fresh open has origin %#" PRIx64, vt_get_origin(fd));
	if (lseek(fd, 77, SEEK_SET) != 77)
		vt_fail("lseek(77): %s", strerror(errno));

	/* The last block, then block 0: the stream wraps at 2^64 blocks. */
	vt_set_origin(fd, UINT64_MAX);
	if (vt_pos(fd) != 77)
		vt_fail("SET_ORIGIN moved the position to %" PRId64, vt_pos(fd));
	if (pread(fd, last, sizeof(last), 0) != sizeof(last)) {
		vt_fail("pread at origin 2^64-1: %s", strerror(errno));
	} else {
		vt_check_bytes("block 2^64-1 and the wrap", UINT64_MAX, 0, last, sizeof(last));
		if (pread(other, first, sizeof(first), 0) != sizeof(first) ||
		    memcmp(last + 64, first, sizeof(first)))
			vt_fail("the block after 2^64-1 is not block 0");
	}
	/* A read through the file position sees the origin too. */
	{
		uint8_t buf[300];

		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			vt_fail("read at 77: %s", strerror(errno));
		else
			vt_check_bytes("read() at origin 2^64-1", UINT64_MAX, 77, buf, sizeof(buf));
	}

	/* The top of the position range on top of a high origin wraps too. */
	vt_set_origin(fd, UINT64_MAX - (1ULL << 56) + 3);
	vt_check_pread(fd, UINT64_MAX - (1ULL << 56) + 3, GUAC_POS_MAX - 8192, 8192);
	vt_set_origin(fd, 0x0123456789abcdefULL);
	vt_check_pread(fd, 0x0123456789abcdefULL, 4093, 5000);

	/* Origins are per open file. */
	if (vt_get_origin(other) != 0)
		vt_fail("setting one file's origin changed another's to %#" PRIx64,
			vt_get_origin(other));
	vt_check_pread(other, 0, 4093, 5000);

	vt_set_origin(fd, 0);
	vt_check_pread(fd, 0, 0, 4096);
	close(other);
	close(fd);
	return 0;
}

/* The implementations of the architecture guac-vmtest is built for (the guest's). */
static const struct {
	const char *name;
	uint32_t id, feature;
} vt_impls[] = {
	{ "generic", GUAC_IMPL_ID_GENERIC, 0 },
#if defined(__x86_64__)
	{ "sse2", GUAC_IMPL_ID_SSE2, GUAC_FEAT_SSE2 },
	{ "avx2", GUAC_IMPL_ID_AVX2, GUAC_FEAT_AVX2 },
	{ "avx512", GUAC_IMPL_ID_AVX512, GUAC_FEAT_AVX512 },
#elif defined(__aarch64__)
	{ "neon", GUAC_IMPL_ID_NEON, GUAC_FEAT_NEON },
#endif
};

int vt_cmd_info(int argc, char **argv)
{
	int fd = vt_open(O_RDONLY);
	struct guac_info info;
	unsigned int i;

	if (argc != 2) {
		guac_err("usage: guac-vmtest info IMPL (the implementation expected in use)");
		return GUAC_EXIT_ERROR;
	}
	memset(&info, 0xa5, sizeof(info));
	if (ioctl(fd, GUAC_IOC_GET_INFO, &info)) {
		vt_fail("GUAC_IOC_GET_INFO: %s", strerror(errno));
		return 0;
	}
	printf("version %u impl %u (%.16s) cpu_features %#x\n", info.version, info.impl,
	       info.impl_name, info.cpu_features);
	if (info.version != GUAC_UAPI_VERSION)
		vt_fail("version %u, expected %u", info.version, GUAC_UAPI_VERSION);
	if (info.reserved)
		vt_fail("reserved field is %#x, expected 0", info.reserved);
	if (!memchr(info.impl_name, '\0', sizeof(info.impl_name)))
		vt_fail("impl_name is not NUL-terminated");
	else if (strcmp(info.impl_name, argv[1]))
		vt_fail("impl_name is '%s', expected '%s'", info.impl_name, argv[1]);
	for (i = 0; i < sizeof(vt_impls) / sizeof(vt_impls[0]); i++) {
		if (strcmp(vt_impls[i].name, argv[1]))
			continue;
		if (info.impl != vt_impls[i].id)
			vt_fail("impl id %u, expected %u for %s", info.impl,
				vt_impls[i].id, argv[1]);
		if ((info.cpu_features & vt_impls[i].feature) != vt_impls[i].feature)
			vt_fail("%s in use but cpu_features %#x lacks its bit",
				argv[1], info.cpu_features);
		break;
	}
	if (i == sizeof(vt_impls) / sizeof(vt_impls[0]))
		vt_fail("'%s' is not an implementation name", argv[1]);
	close(fd);
	return 0;
}
