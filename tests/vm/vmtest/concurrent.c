// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Many readers at once, each on its own open file, every byte checked. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uapi/linux/guacrng.h>
#include "vmtest.h"

#define VT_READER_BYTES (6u << 20)
#define VT_MAX_READERS 64

struct vt_reader {
	pthread_t thread;
	unsigned int index;
	uint64_t origin;
	int64_t start;
};

static void *vt_reader_run(void *arg)
{
	/* Request sizes cycle so that readers are never in step. */
	static const size_t sizes[] = { 1, 100, 4096, 65543, 1 << 20, 257, 300000 };
	struct vt_reader *r = arg;
	uint8_t *buf = guac_alloc(1 << 20);
	int fd = vt_open(O_RDONLY);
	size_t done = 0, i = r->index;
	struct vt_ref ref;
	char what[48];

	snprintf(what, sizeof(what), "reader %u", r->index);
	if (ioctl(fd, GUAC_IOC_SET_ORIGIN, &r->origin) ||
	    lseek(fd, r->start, SEEK_SET) != r->start) {
		vt_fail("%s: setting up: %s", what, strerror(errno));
		goto out;
	}
	if (!vt_ref_open(&ref, r->origin, (uint64_t)r->start, VT_READER_BYTES))
		goto out;
	while (done < VT_READER_BYTES) {
		size_t want = sizes[i++ % (sizeof(sizes) / sizeof(sizes[0]))];
		ssize_t n;

		if (want > VT_READER_BYTES - done)
			want = VT_READER_BYTES - done;
		n = read(fd, buf, want);
		if (n != (ssize_t)want) {
			vt_fail("%s: read(%zu) returned %zd after %zu bytes", what, want, n, done);
			break;
		}
		if (!vt_ref_compare(&ref, buf, want, what))
			break;
		done += want;
	}
	if (done == VT_READER_BYTES)
		vt_ref_close(&ref);
	else
		pclose(ref.pipe);
out:
	close(fd);
	free(buf);
	return NULL;
}

int vt_cmd_concurrent(int argc, char **argv)
{
	struct vt_reader readers[VT_MAX_READERS];
	uint64_t count = 8;
	unsigned int i;

	if (argc > 2 || (argc == 2 && !guac_parse_u64("reader count", argv[1], &count)))
		return GUAC_EXIT_ERROR;
	if (count < 1 || count > VT_MAX_READERS) {
		guac_err("reader count must be 1 to %d", VT_MAX_READERS);
		return GUAC_EXIT_ERROR;
	}
	for (i = 0; i < count; i++) {
		readers[i].index = i;
		readers[i].origin = 0x1111111111111111ULL * i;
		readers[i].start = (int64_t)i * 1000003;
		if (pthread_create(&readers[i].thread, NULL, vt_reader_run, &readers[i])) {
			guac_err("cannot start reader %u", i);
			exit(GUAC_EXIT_ERROR);
		}
	}
	for (i = 0; i < count; i++)
		pthread_join(readers[i].thread, NULL);
	printf("%u readers, %u MiB each, checked\n", (unsigned int)count,
	       VT_READER_BYTES >> 20);
	return 0;
}
