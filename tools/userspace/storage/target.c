// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The targets (target.h): opening a file, block device or pipe with the I/O
 * mode asked for, what it is (kind, size, sector, and from sysfs the disk's
 * serial and WWID), and its stamp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "target.h"
#include "util.h"

bool guac_sysfs_read(const char *dir, const char *name, char *out, size_t size)
{
	char path[PATH_MAX + 64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(out, (int)size, f))
		out[0] = 0;
	fclose(f);
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = 0;
	return n > 0;
}

bool guac_sysfs_disk(dev_t dev, char *dir, size_t size)
{
	char link[64], real[PATH_MAX], tmp[PATH_MAX + 16];
	struct stat st;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return false;
	snprintf(tmp, sizeof(tmp), "%s/partition", real);
	if (!stat(tmp, &st)) {
		snprintf(tmp, sizeof(tmp), "%s", real);
		snprintf(real, sizeof(real), "%s", dirname(tmp));
	}
	snprintf(dir, size, "%s", real);
	return true;
}

static void guac_target_identity(struct guac_target *t, dev_t dev)
{
	char dir[PATH_MAX], val[64];

	if (!guac_sysfs_disk(dev, dir, sizeof(dir)))
		return;
	if (!guac_sysfs_read(dir, "device/wwid", t->wwid, sizeof(t->wwid)))
		guac_sysfs_read(dir, "wwid", t->wwid, sizeof(t->wwid));
	if (!guac_sysfs_read(dir, "device/serial", t->serial, sizeof(t->serial)))
		guac_sysfs_read(dir, "serial", t->serial, sizeof(t->serial));
	/* A file's O_DIRECT alignment is its disk's logical block size. */
	if (t->kind == GUAC_TARGET_FILE &&
	    guac_sysfs_read(dir, "queue/logical_block_size", val, sizeof(val))) {
		unsigned long v = strtoul(val, NULL, 10);

		if (v >= 512 && v <= 65536 && !(v & (v - 1)))
			t->sector = (unsigned int)v;
	}
}

unsigned int guac_dir_sector(const char *path)
{
	struct guac_target t = { .kind = GUAC_TARGET_FILE, .sector = 512 };
	char copy[PATH_MAX];
	struct stat st;

	snprintf(copy, sizeof(copy), "%s", path);
	if (!stat(dirname(copy), &st))
		guac_target_identity(&t, st.st_dev);
	return t.sector;
}

/* Kind, size, sector and identity of the open @t->fd. */
static bool guac_target_describe(struct guac_target *t)
{
	struct stat st;
	int ssz;
	unsigned int pbsz;

	if (fstat(t->fd, &st)) {
		guac_err("cannot stat '%s': %s", t->path, strerror(errno));
		return false;
	}
	t->sector = 512;
	if (S_ISDIR(st.st_mode)) {
		guac_err("'%s' is a directory", t->path);
		return false;
	}
	if (S_ISREG(st.st_mode)) {
		t->kind = GUAC_TARGET_FILE;
		t->size = (uint64_t)st.st_size;
		guac_target_identity(t, st.st_dev);
	} else if (S_ISBLK(st.st_mode)) {
		t->kind = GUAC_TARGET_BLOCK;
		if (ioctl(t->fd, BLKGETSIZE64, &t->size)) {
			guac_err("cannot get the size of '%s': %s", t->path, strerror(errno));
			return false;
		}
		if (ioctl(t->fd, BLKSSZGET, &ssz) || ssz < 512) {
			guac_err("cannot get the sector size of '%s': %s", t->path,
				 strerror(errno));
			return false;
		}
		t->sector = (unsigned int)ssz;
		/* One a sector size can be (a power of two, whole logical sectors), else the logical. */
		if (ioctl(t->fd, BLKPBSZGET, &pbsz) || pbsz < t->sector || pbsz > 65536 ||
		    (pbsz & (pbsz - 1)) || pbsz % t->sector)
			pbsz = t->sector;
		t->physical_sector = pbsz;
		guac_target_identity(t, st.st_rdev);
	} else {
		t->kind = GUAC_TARGET_STREAM;	/* pipe, socket, character device */
		t->size = 0;
	}
	if (t->kind != GUAC_TARGET_BLOCK)
		t->physical_sector = t->sector;
	return true;
}

bool guac_target_probe(struct guac_target *t, const char *path)
{
	bool ok;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (t->fd < 0) {
		guac_err("cannot open '%s': %s", path, strerror(errno));
		return false;
	}
	ok = guac_target_describe(t);
	close(t->fd);
	t->fd = -1;
	return ok;
}

/*
 * Whether O_DIRECT on the open regular file @fd really bypasses the page
 * cache. Some file systems accept the flag and fall back to buffered I/O
 * (ext4 with data=journal): statx's STATX_DIOALIGN (Linux 6.1) says so with
 * a memory alignment of 0. Kernels without it cannot tell: assume it works.
 */
static bool guac_target_direct_works(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN))
		return stx.stx_dio_mem_align != 0;
#else
	(void)fd;
#endif
	return true;
}

/*
 * What @path is, into @st, and whether it can be opened as asked (said if
 * not); the flags that follow from it are added to @flags. Decided before
 * opening for real, so nothing is created or written in vain.
 */
static bool guac_target_stat(struct guac_target *t, const char *path, bool write,
			     enum guac_direct direct, struct stat *st, int *flags)
{
	if (stat(path, st)) {
		if (errno != ENOENT || !write) {
			guac_err("cannot open '%s': %s", path, strerror(errno));
			return false;
		}
		st->st_mode = S_IFREG;
		*flags |= O_CREAT;
	}
	if (S_ISDIR(st->st_mode)) {
		guac_err("'%s' is a directory", path);
		return false;
	}
	if (!S_ISREG(st->st_mode) && !S_ISBLK(st->st_mode)) {
		if (write) {
			guac_err("'%s' is neither a regular file nor a block device", path);
			return false;
		}
		if (direct == GUAC_DIRECT_ON) {
			t->refused = GUAC_TARGET_DIRECT_IMPOSSIBLE;
			return false;
		}
	}
	if (S_ISBLK(st->st_mode) && write)
		*flags |= O_EXCL;	/* refuses a mounted or otherwise claimed device */
	return true;
}

bool guac_target_open(struct guac_target *t, const char *path, bool write,
		      enum guac_direct direct, bool sync)
{
	int flags = O_CLOEXEC | (write ? O_WRONLY : O_RDONLY);
	struct stat st;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->fd = -1;
	t->writable = write;
	if (!strcmp(path, "-")) {
		if (write || direct == GUAC_DIRECT_ON) {
			t->refused = write ? GUAC_TARGET_STDIN_READ_ONLY : GUAC_TARGET_STDIN_NOT_DIRECT;
			return false;
		}
		t->fd = STDIN_FILENO;
		return guac_target_describe(t);
	}
	if (!guac_target_stat(t, path, write, direct, &st, &flags))
		return false;
	t->direct = direct == GUAC_DIRECT_ON ||
		    (direct == GUAC_DIRECT_DEFAULT && S_ISBLK(st.st_mode));
	if (t->direct)
		flags |= O_DIRECT;
	if (sync)
		flags |= O_DSYNC;
	t->fd = open(path, flags, 0644);
	if (t->fd < 0 && errno == EINVAL && t->direct) {
		/* Linux creates the file before it checks O_DIRECT: undo that. */
		if (flags & O_CREAT)
			unlink(path);
		t->refused = GUAC_TARGET_DIRECT_UNSUPPORTED;
		return false;
	}
	if (t->fd < 0 && !t->direct && errno == EINVAL) {
		guac_err("cannot open '%s': %s", path, strerror(errno));
		return false;
	}
	if (t->fd < 0) {
		guac_err("cannot open '%s'%s: %s", path,
			 errno == EBUSY ? " (mounted or in use)" : "", strerror(errno));
		return false;
	}
	if (t->direct && S_ISREG(st.st_mode) && !guac_target_direct_works(t->fd)) {
		close(t->fd);
		t->fd = -1;
		if (flags & O_CREAT)
			unlink(path);
		t->refused = GUAC_TARGET_DIRECT_NOT_DONE;
		return false;
	}
	if (!guac_target_describe(t)) {
		close(t->fd);
		t->fd = -1;
		return false;
	}
	return true;
}

void guac_target_close(struct guac_target *t)
{
	if (t->fd > STDIN_FILENO)
		close(t->fd);
	t->fd = -1;
}

bool guac_target_stamp(const struct guac_target *t, char *buf, size_t size)
{
	struct stat st;
	uint64_t bytes;

	if (size)
		buf[0] = 0;
	if (t->fd < 0 || fstat(t->fd, &st))
		return false;
	if (S_ISREG(st.st_mode)) {
		snprintf(buf, size, "file ino %llu size %lld mtime %lld.%09ld ctime %lld.%09ld",
			 (unsigned long long)st.st_ino, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
		return true;
	}
	if (S_ISBLK(st.st_mode) && !ioctl(t->fd, BLKGETSIZE64, &bytes)) {
		snprintf(buf, size, "block size %llu", (unsigned long long)bytes);
		return true;
	}
	return false;
}

const char *guac_target_mode(const struct guac_target *t)
{
	return t->direct ? "direct" : "buffered";
}

bool guac_target_seek_fits(const char *path, const char *dir, uint64_t end)
{
	char probe[PATH_MAX + 64];
	bool made = false;
	off_t pos;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0) {
		snprintf(probe, sizeof(probe), "%s/.guac-size-probe.%ld", dir, (long)getpid());
		fd = open(probe, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		made = fd >= 0;
	}
	if (fd < 0)
		return true;
	pos = lseek(fd, (off_t)end, SEEK_SET);
	err = errno;
	close(fd);
	if (made)
		unlink(probe);
	return pos >= 0 || err != EINVAL;
}
