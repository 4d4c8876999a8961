/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The targets guac write and guac verify work on: a regular file, a block
 * device or (verify only) a pipe, opened with the direct or buffered I/O the
 * command asked for, or refused with the reason; its size, logical sector and
 * identity (serial, WWID from sysfs); and a stamp that changes when its data
 * may have. The I/O engine (io_engine.h, which includes this) moves the data.
 */
#ifndef GUAC_TARGET_H
#define GUAC_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum guac_target_kind { GUAC_TARGET_FILE, GUAC_TARGET_BLOCK, GUAC_TARGET_STREAM };

/* Direct I/O choice: default (direct for block devices only), forced on or off. */
enum guac_direct { GUAC_DIRECT_DEFAULT, GUAC_DIRECT_ON, GUAC_DIRECT_OFF };

/*
 * Why guac_target_open() refused, where the command's options explain it and
 * the command words it (cmd/io_options.c); the others are said at once.
 */
enum guac_target_refusal {
	GUAC_TARGET_SAID,		/* a message named the problem already */
	GUAC_TARGET_STDIN_READ_ONLY,	/* "-" (standard input) to write */
	GUAC_TARGET_STDIN_NOT_DIRECT,	/* "-" to read with O_DIRECT */
	GUAC_TARGET_DIRECT_IMPOSSIBLE,	/* O_DIRECT asked on a pipe or character device */
	GUAC_TARGET_DIRECT_UNSUPPORTED,	/* the file system refuses O_DIRECT (EINVAL) */
	GUAC_TARGET_DIRECT_NOT_DONE,	/* accepted, but statx says no direct I/O is done */
};

struct guac_target {
	char path[4096];
	enum guac_target_refusal refused;	/* after guac_target_open() failed */
	int fd;
	enum guac_target_kind kind;
	bool direct;			/* opened with O_DIRECT */
	bool writable;
	uint64_t size;			/* bytes; 0 for a stream */
	unsigned int sector;		/* logical sector size (512 for files) */
	/*
	 * A block device's physical sector (BLKPBSZGET): the unit its writes
	 * land or tear in, 4096 on a 512e disk; a file's: its logical one.
	 */
	unsigned int physical_sector;
	char serial[256];		/* block devices, when sysfs exposes them */
	char wwid[256];
};

/*
 * Open @path for reading or writing. Writing never creates or truncates a
 * block device; a regular file is created if missing (never truncated).
 * @sync adds O_DSYNC. Returns false when it cannot, after a message naming
 * the problem or with @t->refused saying why; in particular, direct I/O
 * forced on a file system without it (tmpfs) is refused, never silently done
 * through the page cache.
 */
bool guac_target_open(struct guac_target *t, const char *path, bool write,
		      enum guac_direct direct, bool sync);

/* Size, kind, sector and identity of @path without opening it for I/O. */
bool guac_target_probe(struct guac_target *t, const char *path);

void guac_target_close(struct guac_target *t);

/*
 * Whether the file system of @path can hold a file reaching byte @end (its
 * s_maxbytes, which lseek() enforces): a seek on @path, or, when it does not
 * exist yet, on an empty probe file ".guac-size-probe.PID" created in @dir
 * (the directory @path would be in) and removed at once; no data changes.
 * False when the seek is refused with EINVAL (past the largest file); true
 * when it succeeds, or when nothing could be opened to find out.
 */
bool guac_target_seek_fits(const char *path, const char *dir, uint64_t end);

/* The logical sector of the disk under the directory of @path (a file to be created). */
unsigned int guac_dir_sector(const char *path);

/*
 * What a file or block device is now, as a string that changes when its data
 * may have: a file's inode, size, and modification and change times; a block
 * device's size (writes to a disk change no time stamp a reader can see).
 * guac verify records it with its progress; a --resume that finds another
 * starts afresh. False (and "") for a pipe.
 */
bool guac_target_stamp(const struct guac_target *t, char *buf, size_t size);

/* First line of a sysfs file, without the newline; false if absent or empty. */
bool guac_sysfs_read(const char *dir, const char *name, char *out, size_t size);

/*
 * The sysfs directory of the whole disk holding device @dev: partitions
 * have no serial or WWN of their own, their parent has.
 */
bool guac_sysfs_disk(dev_t dev, char *dir, size_t size);

/* "direct" or "buffered", for reports. */
const char *guac_target_mode(const struct guac_target *t);

#endif /* GUAC_TARGET_H */
