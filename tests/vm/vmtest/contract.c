// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The device's contract in the cases the review found (issue 10): reads into
 * memory that a fork() or a shared file mapping also owns, threads sharing
 * one open file, opens for writing, and loads that fail. Expected bytes come
 * from libguac, the same core the module runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "libguac.h"
#include "vmtest.h"

#define VT_CHUNK (64u << 10)

static bool vt_parse_count(const char *what, const char *arg, uint64_t max, uint64_t *out)
{
	if (!guac_parse_u64(what, arg, out))
		return false;
	if (!*out || *out > max) {
		guac_err("invalid %s '%s': expected 1 to %" PRIu64, what, arg, max);
		return false;
	}
	return true;
}

/* ======================= fork() while a read is in flight ======================= */

/*
 * One thread reads 64 KiB at a time into private anonymous memory while a
 * sibling forks. Pages the kernel only holds by reference (FOLL_GET) become
 * copy-on-write shared at the fork: the parent's next touch copies them, the
 * kernel's write lands in the child's copy, and the parent keeps stale bytes
 * with a full count. Each child checks that its memory stays what it was.
 */
struct vt_fork_race {
	atomic_bool reading;
	uint8_t *buf;
	uint64_t forks, child_changes;
};

static void vt_fork_child(const uint8_t *buf)
{
	uint8_t *snap = malloc(VT_CHUNK);

	if (!snap)
		_exit(2);
	memcpy(snap, buf, VT_CHUNK);
	usleep(2000);	/* a read in flight at the fork completes meanwhile */
	_exit(memcmp(snap, buf, VT_CHUNK) ? 1 : 0);
}

static void *vt_forker_run(void *arg)
{
	struct vt_fork_race *fr = arg;
	int status;
	pid_t pid;

	while (atomic_load(&fr->reading)) {
		pid = fork();
		if (pid == 0)
			vt_fork_child(fr->buf);
		if (pid < 0) {
			vt_fail("fork: %s", strerror(errno));
			break;
		}
		fr->forks++;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) == 2) {
			vt_fail("child %d did not run its check", (int)pid);
		} else if (WEXITSTATUS(status) == 1) {
			fr->child_changes++;
		}
		usleep(500);
	}
	return NULL;
}

int vt_cmd_fork_race(int argc, char **argv)
{
	struct vt_fork_race fr = { .reading = true };
	uint64_t reads = 2000, lost = 0, i;
	uint8_t *want = guac_alloc(VT_CHUNK);
	enum guac_impl impl = guac_impl_best();
	pthread_t forker;
	int fd = vt_open(O_RDONLY);

	if (argc > 1 && !vt_parse_count("read count", argv[1], 1000000, &reads))
		return GUAC_EXIT_ERROR;
	fr.buf = mmap(NULL, VT_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (fr.buf == MAP_FAILED) {
		guac_err("mmap: %s", strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	memset(fr.buf, 0, VT_CHUNK);
	if (pthread_create(&forker, NULL, vt_forker_run, &fr)) {
		guac_err("pthread_create failed");
		return GUAC_EXIT_ERROR;
	}
	for (i = 0; i < reads; i++) {
		uint64_t offset = i * VT_CHUNK;
		ssize_t n = pread(fd, fr.buf, VT_CHUNK, (off_t)offset);

		if (n != VT_CHUNK) {
			vt_fail("read %" PRIu64 ": pread returned %zd (%s)", i, n,
				n < 0 ? strerror(errno) : "short");
			break;
		}
		guac_stream_fill(impl, want, 0, offset, VT_CHUNK);
		if (memcmp(fr.buf, want, VT_CHUNK))
			lost++;
		/* Dirty the pages again, as a reader reusing its buffer does. */
		memset(fr.buf, 0, VT_CHUNK);
	}
	atomic_store(&fr.reading, false);
	pthread_join(forker, NULL);
	close(fd);
	printf("%" PRIu64 " reads of 64 KiB, %" PRIu64 " forks: %" PRIu64
	       " reads lost their data, %" PRIu64 " children saw their memory change\n",
	       reads, fr.forks, lost, fr.child_changes);
	if (lost)
		vt_fail("%" PRIu64 " reads returned a full count without the data", lost);
	if (fr.child_changes)
		vt_fail("%" PRIu64 " children saw their private memory change after fork",
			fr.child_changes);
	if (!fr.forks)
		vt_fail("no fork happened during the reads: the check proved nothing");
	munmap(fr.buf, VT_CHUNK);
	free(want);
	return GUAC_EXIT_OK;
}

/* ===================== reads into a shared file mapping ====================== */

/*
 * A read into a MAP_SHARED mapping of a regular file must be as good as
 * write(2) to that file: after msync() the file holds the stream's bytes.
 */
int vt_cmd_mmap_shared(int argc, char **argv)
{
	const size_t len = 1u << 20;
	const uint64_t offset = 12345;
	uint8_t *map, *want = guac_alloc(len), *back = guac_alloc(len);
	int fd, file;
	ssize_t n;

	if (argc != 2) {
		guac_err("usage: guac-vmtest mmap-shared FILE");
		return GUAC_EXIT_ERROR;
	}
	file = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (file < 0 || ftruncate(file, (off_t)len)) {
		guac_err("%s: %s", argv[1], strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
	if (map == MAP_FAILED) {
		guac_err("mmap %s: %s", argv[1], strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	fd = vt_open(O_RDONLY);
	n = pread(fd, map, len, (off_t)offset);
	if (n != (ssize_t)len)
		vt_fail("pread into the mapping returned %zd (%s)", n,
			n < 0 ? strerror(errno) : "short");
	if (msync(map, len, MS_SYNC))
		vt_fail("msync: %s", strerror(errno));
	munmap(map, len);
	guac_stream_fill(guac_impl_best(), want, 0, offset, len);
	n = pread(file, back, len, 0);
	if (n != (ssize_t)len)
		vt_fail("reading %s back returned %zd", argv[1], n);
	else if (memcmp(back, want, len))
		vt_fail("%s does not hold the bytes read into its mapping", argv[1]);
	close(fd);
	close(file);
	free(want);
	free(back);
	return GUAC_EXIT_OK;
}

/* ======================= threads sharing one open file ======================= */

/*
 * read() on a shared file descriptor takes consecutive ranges, each exactly
 * once, as on a regular file: every chunk read must be the stream at a
 * distinct 64 KiB slot, all slots covered, and the final position the total.
 */
struct vt_shared_fd {
	int fd;
	unsigned int per_thread;
	uint64_t *first_words;	/* per slot: the stream's first 8 bytes there */
	atomic_uint *claims;	/* per slot: reads that returned it */
	unsigned int slots;
};

static void *vt_shared_reader(void *arg)
{
	struct vt_shared_fd *s = arg;
	uint8_t *buf = guac_alloc(VT_CHUNK), *want = guac_alloc(VT_CHUNK);
	unsigned int i, slot;
	uint64_t first;
	ssize_t n;

	for (i = 0; i < s->per_thread; i++) {
		n = read(s->fd, buf, VT_CHUNK);
		if (n != VT_CHUNK) {
			vt_fail("read returned %zd (%s)", n, n < 0 ? strerror(errno) : "short");
			break;
		}
		memcpy(&first, buf, sizeof(first));
		for (slot = 0; slot < s->slots && s->first_words[slot] != first; slot++)
			;
		if (slot == s->slots) {
			vt_fail("a read returned bytes of no 64 KiB slot in range");
			continue;
		}
		guac_stream_fill(guac_impl_best(), want, 0, (uint64_t)slot * VT_CHUNK, VT_CHUNK);
		if (memcmp(buf, want, VT_CHUNK))
			vt_fail("slot %u: bytes differ past the first word (torn read)", slot);
		atomic_fetch_add(&s->claims[slot], 1);
	}
	free(buf);
	free(want);
	return NULL;
}

int vt_cmd_shared_fd(int argc, char **argv)
{
	uint64_t threads = 4, i;
	pthread_t tid[16];
	struct vt_shared_fd s = { .per_thread = 256 };
	unsigned int dup_slots = 0, missed = 0;
	int64_t pos;

	if (argc > 1 && !vt_parse_count("thread count", argv[1], 16, &threads))
		return GUAC_EXIT_ERROR;
	s.fd = vt_open(O_RDONLY);
	s.slots = (unsigned int)threads * s.per_thread;
	s.first_words = calloc(s.slots, sizeof(*s.first_words));
	s.claims = calloc(s.slots, sizeof(*s.claims));
	if (!s.first_words || !s.claims) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	for (i = 0; i < s.slots; i++)
		guac_stream_fill(GUAC_IMPL_GENERIC, (u8 *)&s.first_words[i], 0, i * VT_CHUNK,
				 sizeof(uint64_t));
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, vt_shared_reader, &s)) {
			guac_err("pthread_create failed");
			return GUAC_EXIT_ERROR;
		}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < s.slots; i++) {
		unsigned int c = atomic_load(&s.claims[i]);

		dup_slots += c > 1;
		missed += c == 0;
	}
	pos = vt_pos(s.fd);
	printf("%" PRIu64 " threads x %u reads of 64 KiB on one open file: %u slots read twice or more, %u never, final position %" PRId64 "\n",
	       threads, s.per_thread, dup_slots, missed, pos);
	if (dup_slots || missed)
		vt_fail("%u slots were served more than once and %u never", dup_slots, missed);
	if (pos != (int64_t)s.slots * VT_CHUNK)
		vt_fail("final position %" PRId64 ", expected %" PRIu64, pos,
			(uint64_t)s.slots * VT_CHUNK);
	close(s.fd);
	free(s.first_words);
	free(s.claims);
	return GUAC_EXIT_OK;
}

/* ============================ opens for writing ============================ */

int vt_cmd_open_write(int argc, char **argv)
{
	static const struct {
		int flags;
		const char *name;
	} modes[] = {
		{ O_WRONLY, "O_WRONLY" },
		{ O_RDWR, "O_RDWR" },
		{ O_WRONLY | O_APPEND, "O_WRONLY|O_APPEND" },
	};
	size_t i;
	int fd;

	(void)argc;
	(void)argv;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		fd = open(GUAC_DEV, modes[i].flags);
		if (fd >= 0) {
			vt_fail("open(%s) succeeded; a device for reading must refuse it", modes[i].name);
			close(fd);
		} else if (errno != EPERM) {
			vt_fail("open(%s) failed with %s, expected EPERM", modes[i].name,
				strerror(errno));
		}
	}
	return GUAC_EXIT_OK;
}

/* ============================== failing loads ============================== */

#define VT_MARKER_UEVENT "/sys/devices/virtual/mem/null/uevent"

static bool vt_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/*
 * Run a command (an insmod that must fail) while listening to the kernel's
 * uevents: the load must fail and the misc device must never have been
 * announced, not even for an instant, since a reader could have opened it.
 */
int vt_cmd_load_unseen(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int sock, status, rcvbuf = 1 << 20;
	unsigned int events = 0;
	bool marker = false;
	char msg[8192];
	pid_t pid;
	ssize_t n;

	if (argc < 2) {
		guac_err("usage: guac-vmtest load-unseen COMMAND [ARGS...]");
		return GUAC_EXIT_ERROR;
	}
	sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (sock < 0 || setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		guac_err("uevent socket: %s", strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		guac_err("running %s: %s", argv[1], strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		vt_fail("'%s' succeeded; this check needs a load that fails", argv[1]);
	/*
	 * A failed load may announce nothing at all (the module's own uevent
	 * waits for a successful init), so end with a uevent we cause: netlink
	 * keeps order, and seeing it proves that the listener heard everything
	 * the load sent before it.
	 */
	if (!vt_write_file(VT_MARKER_UEVENT, "change")) {
		guac_err("cannot write %s: %s", VT_MARKER_UEVENT, strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	while (!marker && poll(&(struct pollfd){ .fd = sock, .events = POLLIN }, 1, 5000) > 0) {
		n = recv(sock, msg, sizeof(msg) - 1, 0);
		if (n <= 0)
			break;
		msg[n] = '\0';
		if (!strcmp(msg, "change@/devices/virtual/mem/null")) {
			marker = true;
			break;
		}
		events++;
		printf("uevent: %s\n", msg);
		if (strstr(msg, "/misc/guac"))
			vt_fail("the load announced /dev/guac: %s", msg);
	}
	printf("%u uevents during the load\n", events);
	if (!marker)
		vt_fail("the marker uevent never came: the listener proves nothing");
	close(sock);
	return GUAC_EXIT_OK;
}
