/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac verify's bookkeeping of differences: sector-granular bad ranges,
 * merged when adjacent, with exact totals but only the first few ranges
 * kept, so memory stays bounded whatever the size of the data checked.
 */
#ifndef GUAC_VERIFY_H
#define GUAC_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes [start, end) of the source; start is sector-aligned. */
struct guac_range {
	uint64_t start, end;
};

struct guac_badlog {
	struct guac_range *kept;	/* the first @cap ranges, in order */
	size_t cap;
	uint64_t nranges;		/* all ranges, kept or not */
	uint64_t bad_sectors;
	uint64_t bad_bytes;		/* bytes that differ */
	struct guac_range last;		/* the latest range (kept or not) */
	/*
	 * The first and latest sector counted: a sector met in two pieces (two
	 * reads, two jobs, or read-error retries smaller than it) counts once.
	 */
	bool have_sector;
	uint64_t first_sector, last_sector;
	bool have_first;		/* the first differing byte: */
	uint64_t first_pos;
	uint8_t first_expected, first_actual;
};

/* Start an empty log that keeps up to @cap ranges in @kept. */
void guac_badlog_init(struct guac_badlog *log, struct guac_range *kept, size_t cap);

/*
 * Compare @got with @want, the source bytes at @pos (sector-aligned), sector
 * by sector, and log the sectors that differ. Calls must come in increasing
 * @pos order, so ranges that touch are merged.
 */
void guac_badlog_scan(struct guac_badlog *log, const uint8_t *got, const uint8_t *want,
		      size_t len, uint64_t pos, unsigned int sector);

/* Log [start, end) as bad as a whole (unreadable sectors): no bytes compared. */
void guac_badlog_mark(struct guac_badlog *log, uint64_t start, uint64_t end, unsigned int sector);

/*
 * Append everything @part logged (all later than @log's ranges) to @log.
 * Totals stay exact when @part kept only its first ranges, provided @part
 * keeps at least as many as @log.
 */
void guac_badlog_merge(struct guac_badlog *log, const struct guac_badlog *part);

#endif /* GUAC_VERIFY_H */
