// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's incidents (verify_run.h, diag.h): the diagnosed sectors
 * grouped into runs of one class and one cause, and the run that the
 * search's bound (the first VERIFY_DIAG_MAX OTHER sectors) cuts continued
 * past it, so that one 1 MiB copy or one fake-capacity wrap is never split
 * into a searched class and OTHER (issue 36, U6). The sectors after the
 * bound were not kept, so they are read again from the target, sector by
 * sector, and each is taken only if it holds exactly what the incident's
 * explanation says (diag.h's guac_diag_continues()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diag.h"
#include "util.h"
#include "verify_run.h"

#define VERIFY_REREAD_CHUNK (1u << 20)	/* bytes re-read at once: a multiple of any sector */

/* Bytes read again from the target, for the incident's next sectors. */
struct verify_reread {
	const struct verify_run *run;
	uint8_t *buf;
	uint64_t start, len;
};

/* The @run->sector bytes at device byte @dev, or NULL (past the end, a read error). */
static const uint8_t *verify_reread_at(struct verify_reread *rd, uint64_t dev)
{
	const struct verify_run *run = rd->run;
	uint64_t align = run->target.sector > run->sector ? run->target.sector : run->sector;
	ssize_t n;

	if (dev >= rd->start && dev + run->sector <= rd->start + rd->len)
		return rd->buf + (dev - rd->start);
	rd->start = dev / align * align;
	n = pread(run->target.fd, rd->buf, VERIFY_REREAD_CHUNK, (off_t)rd->start);
	rd->len = n > 0 ? (uint64_t)n : 0;
	if (dev + run->sector > rd->start + rd->len)
		return NULL;
	return rd->buf + (dev - rd->start);
}

/* Was the sector at @dev checked by this run (in a segment, past what it resumed)? */
static bool verify_checked_here(const struct verify_run *run, uint64_t dev)
{
	unsigned int i;

	for (i = 0; i < run->nseg; i++) {
		const struct verify_segment *s = &run->seg[i];

		if (dev >= s->device_offset + s->resume &&
		    dev + run->sector <= s->device_offset + s->length)
			return true;
	}
	return false;
}

/* The incident holding the last OTHER sector the search took, if the bound cut it. */
static struct guac_diag_incident *verify_cut_incident(struct verify_run *run)
{
	size_t i = run->ndiag, k;
	enum guac_diag_class c;

	if (run->nother < VERIFY_DIAG_MAX || run->interrupted || run->max_reached || run->fatal ||
	    run->target.kind == GUAC_TARGET_STREAM || run->target.fd < 0)
		return NULL;
	while (i && !run->sample[i - 1].in_other)
		i--;
	if (!i)
		return NULL;
	for (k = 0; k < run->nincident; k++) {
		struct guac_diag_incident *inc = &run->incident[k];

		if (i - 1 != inc->first + inc->count - 1)
			continue;
		c = run->diag[i - 1].cls;
		return c == GUAC_DIAG_MISDIRECTED || c == GUAC_DIAG_WRAPPED ||
		       c == GUAC_DIAG_STALE_ORIGIN ? inc : NULL;
	}
	return NULL;
}

/*
 * Continue the cut incident over the OTHER sectors after it, while each
 * holds its explanation, within the time the search has, and no further
 * than the OTHER sectors this run counted and did not search.
 */
static void verify_extend(struct verify_run *run, struct guac_diag_incident *inc)
{
	struct verify_reread rd = { .run = run };
	uint64_t room = run->classes.cls[GUAC_DIAG_UNKNOWN] - run->other_searched;
	struct guac_diag_result last = run->diag[inc->first + inc->count - 1], next;
	double deadline = guac_now() + run->diag_cfg.max_seconds;
	uint8_t *scratch = malloc(run->sector);
	const uint8_t *data;

	rd.buf = guac_try_alloc(VERIFY_REREAD_CHUNK);
	run->extend_start = run->extend_end = last.device_offset + run->sector;
	run->extend_cls = last.cls;
	while (scratch && rd.buf && run->other_extended < room) {
		uint64_t dev = last.device_offset + run->sector;

		if (atomic_load(&run->stop) || guac_now() > deadline) {
			run->extend_stopped = true;
			break;
		}
		if (!verify_checked_here(run, dev) || !(data = verify_reread_at(&rd, dev)) ||
		    !guac_diag_continues(&run->diag_cfg, inc, &last, data, scratch, &next))
			break;
		last = next;
		run->other_extended++;
		run->extend_end = dev + run->sector;
	}
	free(rd.buf);
	free(scratch);
	run->searched[run->extend_cls] += run->other_extended;
}

void verify_incidents(struct verify_run *run)
{
	struct guac_diag_incident *cut;

	run->nincident = guac_diag_incidents(run->diag, run->ndiag, run->sector, run->incident);
	cut = verify_cut_incident(run);
	if (cut)
		verify_extend(run, cut);
}
