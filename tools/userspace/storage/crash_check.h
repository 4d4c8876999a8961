/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The check after a crash (guac verify --after-crash): what a crash-safe
 * fill's journal (journal.h) says every byte of the fill may hold, held
 * against what the target holds.
 *
 * The fill is cut into pieces: a write's bytes within one atomic write unit
 * of the device (--sector: a physical sector). A piece is one write's
 * in one unit, so power loss leaves it whole, the new data or the old,
 * never a mix. Each piece is expected (journal.h) to hold the new data
 * (its write was flushed), the new or the old (in flight), or the old (not
 * issued). The old is the previous pass's, or for the first pass what the
 * device held before the fill: known only when the caller names it
 * (@prior_origin, the stream of an earlier fill at the same place).
 */
#ifndef GUAC_CRASH_CHECK_H
#define GUAC_CRASH_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include "journal.h"

enum guac_crash_expect {
	GUAC_CRASH_MUST_NEW,		/* flushed */
	GUAC_CRASH_MAY,			/* in flight: new or old */
	GUAC_CRASH_MUST_OLD,		/* never issued */
	GUAC_CRASH_EXPECTS,
};

/* A violation's class. */
enum guac_crash_class {
	GUAC_CRASH_LOST,		/* older data than a flushed write: the write was lost */
	GUAC_CRASH_TORN,		/* a write's piece part one content, not all of it */
	GUAC_CRASH_UNISSUED,		/* the data of a write never issued there */
	GUAC_CRASH_FOREIGN,		/* data this fill never wrote there */
	GUAC_CRASH_UNREADABLE,		/* the read failed (@err) */
};

/* What a violating piece holds. */
enum guac_crash_holds {
	GUAC_CRASH_HOLDS_PASS,		/* pass @pass's data */
	GUAC_CRASH_HOLDS_PRIOR,		/* the prior content (@prior_origin) */
	GUAC_CRASH_HOLDS_ZEROS,
	GUAC_CRASH_HOLDS_OTHER,		/* none of these */
	GUAC_CRASH_HOLDS_HEAD,		/* TORN: @head bytes of pass @pass's, then other data */
	GUAC_CRASH_HOLDS_TAIL,		/* TORN: other data, then the last @head bytes of pass @pass's */
	GUAC_CRASH_HOLDS_NOTHING,	/* UNREADABLE */
};

/* A range of violating pieces, one class and one content: device bytes [first, last]. */
struct guac_crash_violation {
	uint64_t first, last;
	enum guac_crash_class cls;
	enum guac_crash_expect expect;
	enum guac_crash_holds holds;
	unsigned int pass;		/* HOLDS_PASS, HEAD, TAIL */
	bool head_prior;		/* HEAD, TAIL: the prior content's, not a pass's */
	uint64_t head;			/* HEAD, TAIL */
	int err;			/* UNREADABLE */
};

struct guac_crash_check {
	/* In. */
	const struct guac_journal_record *rec;
	int fd;				/* the target, open for reading */
	bool direct;			/* @fd has O_DIRECT: whole aligned reads */
	unsigned int unit;		/* the atomic write unit, bytes (512 or 4096) */
	bool prior_known;
	uint64_t prior_origin;
	int impl;
	void (*violation)(const struct guac_crash_violation *v, void *arg);
	void *arg;
	/* Optional: after each chunk, the fill's bytes checked so far. */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	/* Out: bytes by expectation, and what they held. */
	uint64_t expected[GUAC_CRASH_EXPECTS];
	uint64_t held_new, held_old, unchecked, violating;
	uint64_t violations;		/* ranges reported */
};

/* Check every byte of the record's fill: 0, or ENOMEM. */
int guac_crash_check_run(struct guac_crash_check *c);

#endif /* GUAC_CRASH_CHECK_H */
