// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Many readers for a bounded time, each doing a random mix of reads, preads,
 * seeks and origin changes on its own open file, every byte and every
 * position checked. For the debug kernel, where lockdep, KASAN and kmemleak
 * watch what the mix does; the scenario runs rmmod and hwrng reads alongside.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uapi/linux/guacrng.h>
#include "vmtest.h"

#define VT_STRESS_MAX_READERS 64
#define VT_STRESS_MAX_READ (256u << 10)

struct vt_stresser {
	pthread_t thread;
	unsigned int index;
	double deadline;
	uint64_t rnd;
	uint64_t ops, bytes;
};

/* Small, anywhere, or within a MiB of the end of file. */
static int64_t vt_rand_pos(struct vt_stresser *s)
{
	switch (vt_rand(&s->rnd) % 3) {
	case 0:
		return (int64_t)(vt_rand(&s->rnd) % (1u << 20));
	case 1:
		return (int64_t)(vt_rand(&s->rnd) >> 1);
	default:
		return GUAC_POS_MAX - (int64_t)(vt_rand(&s->rnd) % (1u << 20));
	}
}

static size_t vt_rand_size(struct vt_stresser *s)
{
	switch (vt_rand(&s->rnd) % 3) {
	case 0:
		return 1 + vt_rand(&s->rnd) % 300;
	case 1:
		return 1 + vt_rand(&s->rnd) % (64u << 10);
	default:
		return 1 + vt_rand(&s->rnd) % VT_STRESS_MAX_READ;
	}
}

/*
 * One read of @size at @pos, which for read() must be the file position:
 * count, bytes, and the position after it (pread() leaves it alone).
 */
static bool vt_stress_read(struct vt_stresser *s, int fd, uint8_t *buf, uint64_t origin,
			   int64_t pos, size_t size, bool positional)
{
	size_t want = (uint64_t)(GUAC_POS_MAX - pos) < size ? (size_t)(GUAC_POS_MAX - pos) : size;
	int64_t before = vt_pos(fd);
	char what[96];
	ssize_t n;

	snprintf(what, sizeof(what), "reader %u: %s(%zu) at %" PRId64 " origin %#" PRIx64,
		 s->index, positional ? "pread" : "read", size, pos, origin);
	n = positional ? pread(fd, buf, size, pos) : read(fd, buf, size);
	if (n != (ssize_t)want) {
		vt_fail("%s returned %zd (%s), expected %zu", what, n,
			n < 0 ? strerror(errno) : "bytes", want);
		return false;
	}
	if (vt_pos(fd) != (positional ? before : pos + n)) {
		vt_fail("%s left the position at %" PRId64, what, vt_pos(fd));
		return false;
	}
	s->bytes += (uint64_t)n;
	return !n || vt_check_bytes(what, origin, (uint64_t)pos, buf, (size_t)n);
}

static void *vt_stress_run(void *arg)
{
	struct vt_stresser *s = arg;
	uint8_t *buf = guac_alloc(VT_STRESS_MAX_READ);
	int fd = vt_open(O_RDONLY);
	uint64_t origin = 0;
	int64_t pos = 0, to, delta;
	bool ok = true;

	while (ok && guac_now() < s->deadline) {
		s->ops++;
		switch (vt_rand(&s->rnd) % 8) {
		case 0:
			origin = vt_rand(&s->rnd);
			if (ioctl(fd, GUAC_IOC_SET_ORIGIN, &origin)) {
				vt_fail("reader %u: SET_ORIGIN: %s", s->index, strerror(errno));
				ok = false;
			}
			break;
		case 1:
			to = vt_rand_pos(s);
			ok = lseek(fd, to, SEEK_SET) == to;
			if (!ok)
				vt_fail("reader %u: SEEK_SET %" PRId64 ": %s", s->index, to,
					strerror(errno));
			pos = to;
			break;
		case 2:
			delta = (int64_t)(vt_rand(&s->rnd) % (2u << 20)) - (1 << 20);
			/* Out of [0, GUAC_DEV_END]: EINVAL, position kept. */
			if ((delta < 0 && pos + delta < 0) ||
			    (delta > 0 && pos > GUAC_POS_MAX - delta)) {
				ok = lseek(fd, delta, SEEK_CUR) == -1 && errno == EINVAL &&
				     vt_pos(fd) == pos;
			} else {
				ok = lseek(fd, delta, SEEK_CUR) == pos + delta;
				pos += delta;
			}
			if (!ok)
				vt_fail("reader %u: SEEK_CUR %" PRId64 " to %" PRId64 " wrong",
					s->index, delta, pos);
			break;
		case 3:
			ok = vt_stress_read(s, fd, buf, origin, vt_rand_pos(s), vt_rand_size(s),
					    true);
			break;
		default:
			ok = vt_stress_read(s, fd, buf, origin, pos, vt_rand_size(s), false);
			pos = vt_pos(fd);
			break;
		}
	}
	close(fd);
	free(buf);
	return NULL;
}

int vt_cmd_stress(int argc, char **argv)
{
	struct vt_stresser readers[VT_STRESS_MAX_READERS];
	uint64_t count = 16, seconds = 20, ops = 0, bytes = 0;
	unsigned int i;
	double start;

	if (argc > 3 || (argc >= 2 && !guac_parse_u64("reader count", argv[1], &count)) ||
	    (argc == 3 && !guac_parse_u64("seconds", argv[2], &seconds)))
		return GUAC_EXIT_ERROR;
	if (count < 1 || count > VT_STRESS_MAX_READERS) {
		guac_err("reader count must be 1 to %d", VT_STRESS_MAX_READERS);
		return GUAC_EXIT_ERROR;
	}
	start = guac_now();
	for (i = 0; i < count; i++) {
		readers[i] = (struct vt_stresser){
			.index = i,
			.deadline = start + (double)seconds,
			.rnd = 0x9e3779b97f4a7c15ULL * (i + 1),
		};
		if (pthread_create(&readers[i].thread, NULL, vt_stress_run, &readers[i])) {
			guac_err("cannot start reader %u", i);
			exit(GUAC_EXIT_ERROR);
		}
	}
	for (i = 0; i < count; i++) {
		pthread_join(readers[i].thread, NULL);
		ops += readers[i].ops;
		bytes += readers[i].bytes;
	}
	printf("%u readers, %.1f s: %" PRIu64 " operations, %" PRIu64 " bytes read and checked\n",
	       (unsigned int)count, guac_now() - start, ops, bytes);
	/* A run too short to read anything proves nothing. */
	if (!bytes)
		vt_fail("no bytes were read");
	return 0;
}
