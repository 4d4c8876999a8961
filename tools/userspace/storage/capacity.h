/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac probe's engine: does a device hold as much as it claims (a fake-capacity
 * flash drive, f3probe's question), found in seconds without filling it.
 *
 * It writes probe blocks of the stream at spread places (each block's bytes
 * are the stream at its own offset, from a fresh origin, so a block read back
 * says which place's data it holds), reads them all back, and refines the
 * boundary between the places that kept their data and those that did not.
 * A device whose addresses wrap shows low blocks holding high blocks' data;
 * one that drops writes past its real size shows blocks that never took
 * theirs. Every block it writes is saved first and written back at the end, in
 * the reverse order of the writes, which undoes them even where addresses
 * alias (unless destructive).
 *
 * The model: wraps are found when their period is a multiple of the first
 * round's spacing (a power of two of at least 1/128 of the claimed size, as
 * the address lines of real fake drives wrap); losses at any place, to one
 * block. A device cache larger than what was written between a block's write
 * and its read could hide a loss: the blocks are read back after all of a
 * round is written, with O_DIRECT on block devices.
 */
#ifndef GUAC_CAPACITY_H
#define GUAC_CAPACITY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* What a probe block read back held. */
enum guac_cap_held {
	GUAC_CAP_OWN,		/* its own data: the place works */
	GUAC_CAP_ALIAS,		/* another place's probe data: addresses alias */
	GUAC_CAP_UNCHANGED,	/* what it held before: the write was dropped */
	GUAC_CAP_ZEROS,		/* all 0x00 or all 0xff: nothing stored there */
	GUAC_CAP_OTHER,		/* none of these */
	GUAC_CAP_IOERR,		/* the read or write failed */
};

enum guac_cap_verdict {
	GUAC_CAP_GENUINE,	/* every probe block kept its data */
	GUAC_CAP_WRAPS,		/* addresses wrap: the real size is the period */
	GUAC_CAP_LIMIT,		/* every place from one on loses its data */
	GUAC_CAP_DAMAGED,	/* places lose data with good ones after them: no size limit */
	GUAC_CAP_INTERRUPTED,	/* stopped by a signal before a verdict */
};

struct guac_capacity {
	/* In. */
	int fd;
	uint64_t size;			/* bytes the device claims */
	unsigned int block;		/* probe block: a multiple of the sector, >= 4096 */
	uint64_t origin;		/* the stream's origin for this probe */
	bool destructive;		/* leave the probe blocks (no save, no restore) */
	volatile sig_atomic_t *stop;	/* set by a signal handler: stop, then restore */

	/* Out. */
	enum guac_cap_verdict verdict;
	uint64_t usable;		/* bytes from 0 that keep their data */
	uint64_t wrap;			/* GUAC_CAP_WRAPS: the period */
	uint64_t first_bad;		/* the first place that lost its data */
	enum guac_cap_held first_bad_held;
	uint64_t first_bad_holds;	/* GUAC_CAP_ALIAS: the place whose data it holds */
	uint64_t good_after;		/* GUAC_CAP_DAMAGED: a later place that kept its data */
	unsigned int blocks, bad, rounds;
	bool restored;			/* every saved block written back */
	int restore_err;		/* errno of a failed write back, else 0 */
};

/*
 * Probe @c (its In fields set). Returns 0 with the Out fields set, or an
 * errno when the probe could not run (memory; the first block unreadable).
 */
int guac_capacity_probe(struct guac_capacity *c);

const char *guac_cap_held_name(enum guac_cap_held held);

#endif /* GUAC_CAPACITY_H */
