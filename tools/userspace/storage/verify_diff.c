// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guac verify: sector-granular difference log, merged and capped. */
#include <string.h>
#include "verify.h"

void guac_badlog_init(struct guac_badlog *log, struct guac_range *kept, size_t cap)
{
	memset(log, 0, sizeof(*log));
	log->kept = kept;
	log->cap = cap;
}

static void guac_badlog_add_range(struct guac_badlog *log, uint64_t start, uint64_t end)
{
	if (log->nranges && log->last.end == start) {
		log->last.end = end;
		if (log->nranges <= log->cap)
			log->kept[log->nranges - 1].end = end;
		return;
	}
	log->last.start = start;
	log->last.end = end;
	if (log->nranges < log->cap)
		log->kept[log->nranges] = log->last;
	log->nranges++;
}

/* Count sectors [first, last] not counted yet; calls come in increasing order. */
static void guac_badlog_count(struct guac_badlog *log, uint64_t first, uint64_t last)
{
	if (!log->have_sector) {
		log->have_sector = true;
		log->first_sector = first;
		log->last_sector = last;
		log->bad_sectors += last - first + 1;
		return;
	}
	if (first <= log->last_sector)
		first = log->last_sector + 1;
	if (last >= first) {
		log->bad_sectors += last - first + 1;
		log->last_sector = last;
	}
}

void guac_badlog_scan(struct guac_badlog *log, const uint8_t *got, const uint8_t *want,
		      size_t len, uint64_t pos, unsigned int sector)
{
	size_t off, i;

	for (off = 0; off < len; off += sector) {
		size_t n = len - off < sector ? len - off : sector;
		uint64_t differ = 0;

		if (!memcmp(got + off, want + off, n))
			continue;
		for (i = off; i < off + n; i++) {
			if (got[i] == want[i])
				continue;
			if (!log->have_first) {
				log->have_first = true;
				log->first_pos = pos + i;
				log->first_expected = want[i];
				log->first_actual = got[i];
			}
			differ++;
		}
		guac_badlog_count(log, (pos + off) / sector, (pos + off) / sector);
		log->bad_bytes += differ;
		guac_badlog_add_range(log, pos + off, pos + off + n);
	}
}

void guac_badlog_mark(struct guac_badlog *log, uint64_t start, uint64_t end, unsigned int sector)
{
	guac_badlog_count(log, start / sector, (end - 1) / sector);
	guac_badlog_add_range(log, start, end);
}

void guac_badlog_merge(struct guac_badlog *log, const struct guac_badlog *part)
{
	uint64_t i, kept = part->nranges < part->cap ? part->nranges : part->cap;

	if (!part->nranges)
		return;
	for (i = 0; i < kept; i++)
		guac_badlog_add_range(log, part->kept[i].start, part->kept[i].end);
	/*
	 * Ranges @part counted but did not keep: none touches another, so each is
	 * one more range here; only the latest is known in full.
	 */
	if (part->nranges > kept) {
		log->nranges += part->nranges - kept;
		log->last = part->last;
	}
	log->bad_sectors += part->bad_sectors;
	/* @part's first sector is @log's latest: a sector split between two jobs. */
	if (log->have_sector && part->have_sector && part->first_sector == log->last_sector)
		log->bad_sectors--;
	if (part->have_sector) {
		if (!log->have_sector)
			log->first_sector = part->first_sector;
		log->have_sector = true;
		log->last_sector = part->last_sector;
	}
	log->bad_bytes += part->bad_bytes;
	if (!log->have_first && part->have_first) {
		log->have_first = true;
		log->first_pos = part->first_pos;
		log->first_expected = part->first_expected;
		log->first_actual = part->first_actual;
	}
}
