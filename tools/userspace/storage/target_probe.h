/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What guac write finds on its target before it writes (issue 36, U1, U2,
 * U9): whether a missing path may become a regular file at all (never under
 * /dev, /proc or /sys), whether the target is read-only, the signatures
 * libblkid finds on it (file systems, partition tables, RAID and LVM
 * members, swap, crypto: what wipefs and mkfs find), and, for a block
 * device, what uses it or one of its partitions (mounts, swap, holders such
 * as dm or md). It reads, never writes; the command decides what to refuse.
 */
#ifndef GUAC_TARGET_PROBE_H
#define GUAC_TARGET_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#define GUAC_PROBE_MAX 16	/* findings kept of each kind; more are counted */

struct guac_probe_sig {
	char text[384];		/* "ext4 file system, label 'data', UUID 0c3b..." */
	uint64_t offset;	/* byte of the target where its magic is */
};

struct guac_probe {
	bool missing;			/* the path does not exist (a file to create) */
	bool no_such_device;		/* missing, and where no file is meant (/dev, /proc, /sys) */
	bool pseudo_file;		/* a regular file on /dev's, /proc's or /sys's file system */
	bool readonly;			/* writing would fail: ro block device, EROFS, EACCES */
	char readonly_why[256];
	unsigned int nsigs, nsigs_more;	/* signatures kept, and beyond GUAC_PROBE_MAX */
	struct guac_probe_sig sig[GUAC_PROBE_MAX];
	unsigned int nbusy, nbusy_more;	/* uses of the device or its partitions */
	char busy[GUAC_PROBE_MAX][384];	/* "/dev/loop3p1 is mounted on /mnt" */
};

/*
 * Probe @path, a block device, a regular file or a path that does not exist
 * yet, for guac write: fills @p. Reads only. A target libblkid cannot read
 * is a finding too ("cannot be read to look for signatures"); anything else
 * (a directory, a pipe) is left for the open to refuse.
 */
void guac_probe_target(const char *path, struct guac_probe *p);

#endif /* GUAC_TARGET_PROBE_H */
