// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What is on guac write's target (target_probe.h): libblkid's low-level
 * probe for signatures, as wipefs does (no table of magic numbers of our
 * own), sysfs, /proc/self/mountinfo and /proc/swaps for what uses a disk or
 * its partitions, BLKROGET and access() for read-only targets.
 */
#define _GNU_SOURCE
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "target.h"
#include "target_probe.h"

/*
 * Whether @path (which exists) is on /dev's file system (devtmpfs, unless
 * /dev is no mount of its own: then below the directory /dev), or on a proc
 * or sysfs: places where nobody means a regular file. A tmpfs mounted
 * below /dev (/dev/shm) is a place of its own, where files are meant.
 */
static bool probe_pseudo_place(const char *path)
{
	char real[PATH_MAX];
	struct statfs sfs;
	struct stat st, dev, root;

	if (!statfs(path, &sfs) && (sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC))
		return true;
	if (stat(path, &st) || stat("/dev", &dev) || stat("/", &root))
		return false;
	if (dev.st_dev != root.st_dev)
		return st.st_dev == dev.st_dev;
	return realpath(path, real) && (!strcmp(real, "/dev") || !strncmp(real, "/dev/", 5));
}

/* A missing @path: under /dev, /proc or /sys it names a device that is not there. */
static bool probe_no_such_device(const char *path)
{
	char copy[PATH_MAX], abs[PATH_MAX + 8], cwd[PATH_MAX];
	const char *dir;
	struct stat st;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (!stat(dir, &st))
		return probe_pseudo_place(dir);
	/* Its directory is missing too: judged by the name. */
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(abs, sizeof(abs), "%s", path);
	else
		snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	return !strncmp(abs, "/dev/", 5) || !strncmp(abs, "/proc/", 6) || !strncmp(abs, "/sys/", 5);
}

static void probe_readonly(struct guac_probe *p, const char *path, const struct stat *st)
{
	char copy[PATH_MAX];
	const char *where = path;
	int ro = 0, fd;

	if (S_ISBLK(st->st_mode)) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && !ioctl(fd, BLKROGET, &ro) && ro)
			snprintf(p->readonly_why, sizeof(p->readonly_why), "BLKROGET says so "
				 "(losetup -r, blockdev --setro, a write-protect switch)");
		if (fd >= 0)
			close(fd);
		if (ro) {
			p->readonly = true;
			return;
		}
	}
	if (p->missing) {
		snprintf(copy, sizeof(copy), "%s", path);
		where = dirname(copy);
	}
	if (!access(where, W_OK) || (errno != EROFS && errno != EACCES && errno != EPERM))
		return;
	p->readonly = true;
	snprintf(p->readonly_why, sizeof(p->readonly_why), "%s%s%s: %s",
		 p->missing ? "cannot create a file in '" : "cannot write it",
		 p->missing ? where : "", p->missing ? "'" : "", strerror(errno));
}

/* blkid's value @name of the current probe result, or NULL. */
static const char *probe_value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	return blkid_probe_lookup_value(pr, name, &v, NULL) || !v || !*v ? NULL : v;
}

static void probe_add_sig(struct guac_probe *p, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void probe_add_sig(struct guac_probe *p, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (p->nsigs == GUAC_PROBE_MAX) {
		p->nsigs_more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(p->sig[p->nsigs].text, sizeof(p->sig[0].text), fmt, ap);
	va_end(ap);
	p->sig[p->nsigs++].offset = offset;
}

/* "file system", "RAID or LVM member" (LVM2_member is blkid's raid usage), ... */
static const char *probe_usage(const char *type, const char *usage)
{
	if (type && !strcmp(type, "swap"))
		return "swap area";
	if (!usage)
		return "signature";
	if (!strcmp(usage, "filesystem"))
		return "file system";
	if (!strcmp(usage, "raid"))
		return "RAID or LVM member";
	if (!strcmp(usage, "crypto"))
		return "encrypted volume";
	return "signature";
}

/*
 * Every signature libblkid finds on @path, as wipefs lists them: file
 * systems and other superblocks, and (@parts) partition tables. @base is
 * where @path starts on the target, @prefix names it ("partition
 * /dev/loop3p1: ") when it is not the target itself.
 */
static void probe_signatures(struct guac_probe *p, const char *path, uint64_t base,
			     const char *prefix, bool parts)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *type, *label, *uuid, *off, *usage;
	char more[256];

	if (!pr) {
		probe_add_sig(p, UINT64_MAX, "%scannot be read to look for signatures (%s)", prefix,
			      strerror(errno ? errno : EIO));
		return;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_UUID | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_MAGIC);
	blkid_probe_enable_partitions(pr, parts);
	if (parts)
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	while (blkid_do_probe(pr) == 0) {
		more[0] = 0;
		if ((type = probe_value(pr, "PTTYPE")) && !probe_value(pr, "TYPE")) {
			uuid = probe_value(pr, "PTUUID");
			off = probe_value(pr, "PTMAGIC_OFFSET");
			if (uuid)
				snprintf(more, sizeof(more), ", UUID %s", uuid);
			probe_add_sig(p, base + (off ? strtoull(off, NULL, 10) : 0),
				      "%s%s partition table%s", prefix, type, more);
			continue;
		}
		type = probe_value(pr, "TYPE");
		label = probe_value(pr, "LABEL");
		uuid = probe_value(pr, "UUID");
		off = probe_value(pr, "SBMAGIC_OFFSET");
		snprintf(more, sizeof(more), "%s%s%s%s%s", label ? ", label '" : "",
			 label ? label : "", label ? "'" : "", uuid ? ", UUID " : "",
			 uuid ? uuid : "");
		usage = probe_usage(type, probe_value(pr, "USAGE"));
		probe_add_sig(p, base + (off ? strtoull(off, NULL, 10) : 0), "%s%s%s%s%s", prefix,
			      !strcmp(usage, "swap area") ? "" : type ? type : "unknown",
			      !strcmp(usage, "swap area") ? "" : " ", usage, more);
	}
	blkid_free_probe(pr);
}

static void probe_add_busy(struct guac_probe *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void probe_add_busy(struct guac_probe *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nbusy == GUAC_PROBE_MAX) {
		p->nbusy_more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(p->busy[p->nbusy++], sizeof(p->busy[0]), fmt, ap);
	va_end(ap);
}

/* What uses the block device @dev (named @name): holders, mounts, swap. */
static void probe_uses(struct guac_probe *p, dev_t dev, const char *sysdir, const char *name)
{
	char path[PATH_MAX + 64], line[PATH_MAX + 256], holder[PATH_MAX + 384], dm[128];
	unsigned int maj, min;
	struct dirent *e;
	struct stat st;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(holder, sizeof(holder), "%s/%s", path, e->d_name);
		if (guac_sysfs_read(holder, "dm/name", dm, sizeof(dm)) && *dm)
			probe_add_busy(p, "%s is held by %s (device mapper '%s')", name, e->d_name,
				       dm);
		else
			probe_add_busy(p, "%s is held by %s", name, e->d_name);
	}
	if (d)
		closedir(d);
	f = fopen("/proc/self/mountinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX];

		if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &maj, &min, mnt) == 3 &&
		    makedev(maj, min) == dev)
			probe_add_busy(p, "%s is mounted on %s", name, mnt);
	}
	if (f)
		fclose(f);
	f = fopen("/proc/swaps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char file[PATH_MAX];

		if (sscanf(line, "%4095s", file) == 1 && !stat(file, &st) && S_ISBLK(st.st_mode) &&
		    st.st_rdev == dev)
			probe_add_busy(p, "%s is in use as swap", name);
	}
	if (f)
		fclose(f);
}

/*
 * The block device @dev and, when it is a whole disk, each of its
 * partitions: what uses them, and what each partition holds.
 */
static void probe_disk(struct guac_probe *p, const char *path, dev_t dev)
{
	char link[64], sysdir[PATH_MAX], sub[PATH_MAX + 300], val[64], node[300], prefix[320];
	unsigned int maj, min;
	struct dirent *e;
	DIR *d;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, sysdir))
		return;
	probe_uses(p, dev, sysdir, path);
	d = opendir(sysdir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", sysdir, e->d_name);
		if (!guac_sysfs_read(sub, "partition", val, sizeof(val)) ||
		    !guac_sysfs_read(sub, "dev", val, sizeof(val)) ||
		    sscanf(val, "%u:%u", &maj, &min) != 2)
			continue;
		snprintf(node, sizeof(node), "/dev/%s", e->d_name);
		probe_uses(p, makedev(maj, min), sub, node);
		if (guac_sysfs_read(sub, "start", val, sizeof(val))) {
			snprintf(prefix, sizeof(prefix), "partition %s: ", node);
			probe_signatures(p, node, strtoull(val, NULL, 10) * 512, prefix, false);
		}
	}
	if (d)
		closedir(d);
}

void guac_probe_target(const char *path, struct guac_probe *p)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return;	/* the open says why */
		p->missing = true;
		p->no_such_device = probe_no_such_device(path);
		st.st_mode = S_IFREG;
		probe_readonly(p, path, &st);
		return;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return;
	p->pseudo_file = S_ISREG(st.st_mode) && probe_pseudo_place(path);
	probe_readonly(p, path, &st);
	if (S_ISREG(st.st_mode) && !st.st_size)
		return;	/* nothing to find */
	errno = 0;
	probe_signatures(p, path, 0, "", true);
	if (S_ISBLK(st.st_mode))
		probe_disk(p, path, st.st_rdev);
}
