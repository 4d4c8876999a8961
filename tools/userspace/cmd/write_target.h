/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac write's checks of what its target is and holds, and its --dry-run
 * plan (write_target.c), over storage/target_probe.h's findings.
 */
#ifndef GUAC_WRITE_TARGET_H
#define GUAC_WRITE_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include "manifest.h"
#include "target_probe.h"
#include "util.h"

/* What --dry-run prints besides the findings: the write as planned. */
struct write_plan {
	const char *target, *manifest;
	bool block;
	uint64_t size;
	unsigned int sector;
	const char *serial, *wwid;
	uint64_t origin, offset, seek, length, shard_start, shard_end;
	unsigned int shard_index, shard_count;
	bool origin_drawn;	/* no --origin: each run draws its own */
};

/*
 * U1 and U9: false, after a message, for a path under /dev, /proc or /sys
 * that does not exist, a regular file there, or a read-only target.
 */
bool write_target_usable(const char *path, const struct guac_probe *p);

/*
 * U2: false, after a message naming each finding, when the target or one of
 * its partitions is in use (always), or holds a signature (unless @force,
 * which notes what is overwritten). @resume: the recorded fill --resume
 * continues on this target, or NULL; then only signatures in the bytes it
 * counts durable count (the rest is what the fill has not reached yet).
 */
bool write_target_clear(const char *path, const struct guac_probe *p,
			const struct guac_manifest *resume, bool force);

/*
 * --crash-safe's --journal @journal: the same rules as the target's (no new
 * file under /dev, nothing in use, a signature only with @force), and an
 * existing file or device that does not hold a guac journal already is
 * written over only with @force (the plan refuses the target and the
 * manifest). False after a message.
 */
bool write_journal_clear(const char *journal, bool force);

/* --dry-run: the plan and the findings, on standard output. */
void write_target_plan(const struct write_plan *w, const struct guac_probe *p,
		       const struct guac_manifest *resume);

#endif /* GUAC_WRITE_TARGET_H */
