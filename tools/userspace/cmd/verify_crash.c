// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify --after-crash: the check of a crash-safe fill
 * (storage/crash_check.c) worded. The fill is the journal's: nothing but
 * the target, and where the journal is if not in it, is needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "crash_check.h"
#include "io_options.h"
#include "target.h"
#include "util.h"
#include "verify_crash.h"

static const char *const crash_class_names[] = {
	[GUAC_CRASH_LOST] = "LOST", [GUAC_CRASH_TORN] = "TORN",
	[GUAC_CRASH_UNISSUED] = "UNISSUED", [GUAC_CRASH_FOREIGN] = "FOREIGN",
	[GUAC_CRASH_UNREADABLE] = "UNREADABLE",
};

static const char *const crash_expect_words[] = {
	[GUAC_CRASH_MUST_NEW] = "flushed: must hold the new data",
	[GUAC_CRASH_MAY] = "in flight: new or old",
	[GUAC_CRASH_MUST_OLD] = "not issued: must hold the old",
};

struct crash_words {
	const struct guac_journal_record *rec;
	const struct verify_crash_args *a;
	unsigned int unit;
	uint64_t counted[GUAC_CRASH_UNREADABLE + 1];
	double start, next;		/* the check's start; when progress is next due */
	bool drawn;			/* a tty line is on screen */
};

/*
 * Progress on standard error, as the other checks give it: a line redrawn
 * twice a second on a terminal, or a whole line every --progress-interval.
 */
static void crash_progress(uint64_t done, uint64_t total, void *arg)
{
	struct crash_words *w = arg;
	enum guac_progress_mode mode = w->a->progress;
	double now = guac_now(), rate = now > w->start ? done / (now - w->start) : 0;

	if (mode == GUAC_PROGRESS_NONE || (now < w->next && done < total))
		return;
	if (mode == GUAC_PROGRESS_LOG && done == total && !w->drawn)
		return;	/* a check shorter than an interval prints no line */
	fprintf(stderr, "%safter-crash: %" PRIu64 " of %" PRIu64 " bytes checked (%.1f%%), "
		"%.1f MB/s%s", mode == GUAC_PROGRESS_TTY ? "\r" : "", done, total,
		total ? 100.0 * done / total : 100.0, rate / 1e6,
		mode == GUAC_PROGRESS_TTY && done < total ? "" : "\n");
	w->drawn = true;
	w->next = now + (mode == GUAC_PROGRESS_TTY ? 0.5 : w->a->progress_interval);
}

/* What a violating range holds, in words. */
static void crash_say_holds(const struct crash_words *w, const struct guac_crash_violation *v,
			    char *buf, size_t size)
{
	const struct guac_journal_record *r = w->rec;
	char what[96];

	if (v->holds == GUAC_CRASH_HOLDS_HEAD || v->holds == GUAC_CRASH_HOLDS_TAIL ||
	    v->holds == GUAC_CRASH_HOLDS_PASS) {
		if (v->head_prior)
			snprintf(what, sizeof(what), "the prior content's (origin %" PRIu64 ")",
				 w->a->prior_origin);
		else
			snprintf(what, sizeof(what), "pass %u's (origin %" PRIu64 ")", v->pass + 1,
				 guac_journal_pass_origin(r, v->pass));
	}
	switch (v->holds) {
	case GUAC_CRASH_HOLDS_PASS:
		snprintf(buf, size, "holds %s data", what);
		break;
	case GUAC_CRASH_HOLDS_PRIOR:
		snprintf(buf, size, "holds the prior content (origin %" PRIu64 ")",
			 w->a->prior_origin);
		break;
	case GUAC_CRASH_HOLDS_ZEROS:
		snprintf(buf, size, "holds zeros");
		break;
	case GUAC_CRASH_HOLDS_OTHER:
		snprintf(buf, size, "holds data this fill never wrote there%s",
			 !r->pass && !w->a->prior_given ? " (or the prior content: --prior-origin "
			 "names it)" : "");
		break;
	case GUAC_CRASH_HOLDS_HEAD:
		snprintf(buf, size, "its first %" PRIu64 " bytes are %s data, the rest not",
			 v->head, what);
		break;
	case GUAC_CRASH_HOLDS_TAIL:
		snprintf(buf, size, "its last %" PRIu64 " bytes are %s data, the rest not",
			 v->head, what);
		break;
	case GUAC_CRASH_HOLDS_NOTHING:
		snprintf(buf, size, "cannot be read: %s", strerror(v->err));
		break;
	}
}

/* One line a range: "violation FIRST LAST FIRST_LBA LAST_LBA CLASS (expectation): content". */
static void crash_say_violation(const struct guac_crash_violation *v, void *arg)
{
	struct crash_words *w = arg;
	char holds[256];

	w->counted[v->cls] += v->last - v->first + 1;
	crash_say_holds(w, v, holds, sizeof(holds));
	printf("violation %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s (%s): %s\n",
	       v->first, v->last, v->first / w->unit, v->last / w->unit, crash_class_names[v->cls],
	       crash_expect_words[v->expect], holds);
}

static void crash_say_record(const struct crash_words *w, const char *where, uint64_t at)
{
	const struct guac_journal_record *r = w->rec;

	printf("after-crash: journal record %" PRIu64 " at byte %" PRIu64 " of '%s': fill of "
	       "origin %" PRIu64 ", stream offset %" PRIu64 ", device bytes %" PRIu64 "-%" PRIu64
	       ", bs %" PRIu64 ", %u job%s, ", r->seq, at, where, r->origin, r->stream_offset,
	       r->seek, r->seek + r->length - 1, r->block_size, r->jobs, r->jobs == 1 ? "" : "s");
	if (r->random)
		printf("random (seed %" PRIu64 "), pass %u of %u", r->seed, r->pass + 1, r->passes);
	else
		printf("sequential");
	printf("%s; atomic unit %u bytes\n", r->complete ? "; complete" : "; under way", w->unit);
}

static void crash_say_result(const struct crash_words *w, const struct guac_crash_check *c)
{
	const char *old = w->rec->pass ? "the previous pass's" : w->a->prior_given ?
			  "the prior content" : "unknown";

	printf("after-crash: %" PRIu64 " bytes flushed (must be new), %" PRIu64 " in flight "
	       "(new or old), %" PRIu64 " not issued (must be old; old: %s)\n",
	       c->expected[GUAC_CRASH_MUST_NEW], c->expected[GUAC_CRASH_MAY],
	       c->expected[GUAC_CRASH_MUST_OLD], old);
	if (!c->violations) {
		printf("after-crash: OK: every flushed write is there and nothing is torn: %" PRIu64
		       " bytes new, %" PRIu64 " old, %" PRIu64 " not checked%s\n", c->held_new,
		       c->held_old, c->unchecked, c->unchecked ? " (the prior content unknown: "
		       "--prior-origin names it)" : "");
		return;
	}
	printf("after-crash: VIOLATION: %" PRIu64 " bytes in %" PRIu64 " range%s (LOST %" PRIu64
	       ", TORN %" PRIu64 ", UNISSUED %" PRIu64 ", FOREIGN %" PRIu64 ", UNREADABLE %"
	       PRIu64 " bytes)\n", c->violating, c->violations, c->violations == 1 ? "" : "s",
	       w->counted[GUAC_CRASH_LOST], w->counted[GUAC_CRASH_TORN],
	       w->counted[GUAC_CRASH_UNISSUED], w->counted[GUAC_CRASH_FOREIGN],
	       w->counted[GUAC_CRASH_UNREADABLE]);
}

/* The journal: --journal's, or in the target's last 16 KiB. 0 or an exit status. */
static int crash_read_journal(const struct verify_crash_args *a, const struct guac_target *t,
			      struct guac_journal_record *rec, uint64_t *at)
{
	const char *where = a->journal ? a->journal : a->path;
	int fd = a->journal ? open(a->journal, O_RDONLY | O_CLOEXEC) : t->fd, err;

	*at = a->journal ? 0 : guac_journal_in_target(t->size);
	if (fd < 0) {
		guac_err("cannot open the journal '%s': %s", where, strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	err = *at == UINT64_MAX ? ENOENT : guac_journal_read(fd, *at, rec);
	if (a->journal)
		close(fd);
	if (err == ENOENT)
		guac_err("no valid journal record %s '%s': not a guac write --crash-safe fill's "
			 "journal, or no record of it was ever written whole%s", a->journal ?
			 "at the start of" : "in the last 16 KiB of", where, a->journal ? "" :
			 " (a journal kept elsewhere: --journal)");
	else if (err)
		guac_err("cannot read the journal '%s': %s", where, strerror(err));
	return err == ENOENT ? GUAC_EXIT_ERROR : err ? GUAC_EXIT_IO : 0;
}

/* The target against the journal's fill: 0 or an exit status after a message. */
static int crash_fits(const struct verify_crash_args *a, const struct guac_target *t,
		      const struct guac_journal_record *rec, unsigned int unit)
{
	if (t->kind == GUAC_TARGET_STREAM) {
		guac_err("--after-crash reads a file or a block device, not a pipe");
		return GUAC_EXIT_ERROR;
	}
	if (rec->seek + rec->length > t->size) {
		guac_err("'%s' holds %" PRIu64 " bytes: the journal's fill ends at byte %" PRIu64
			 " (another device, or it shrank)", a->path, t->size,
			 rec->seek + rec->length);
		return GUAC_EXIT_FAIL;
	}
	if (t->direct && (rec->seek % t->sector || rec->length % t->sector || unit < t->sector)) {
		guac_err("the fill's bytes %" PRIu64 "-%" PRIu64 " are not whole %u-byte sectors "
			 "of '%s': give --buffered", rec->seek, rec->seek + rec->length - 1,
			 t->sector, a->path);
		return GUAC_EXIT_ERROR;
	}
	return 0;
}

int guac_verify_after_crash(const struct verify_crash_args *a)
{
	struct guac_journal_record *rec = calloc(1, sizeof(*rec));
	struct guac_target t;
	struct crash_words w = { .rec = rec, .a = a };
	struct guac_crash_check c = { .rec = rec, .prior_known = a->prior_given,
				      .prior_origin = a->prior_origin, .impl = a->impl,
				      .violation = crash_say_violation, .arg = &w,
				      .progress = crash_progress };
	uint64_t at;
	int ret, err;

	if (!rec) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	if (!guac_target_open(&t, a->path, false, a->direct, false)) {
		guac_target_say_refusal(&t);
		free(rec);
		return GUAC_EXIT_ERROR;
	}
	w.unit = a->sector ? a->sector : t.physical_sector >= 512 ? t.physical_sector : 512;
	ret = crash_read_journal(a, &t, rec, &at);
	if (!ret)
		ret = crash_fits(a, &t, rec, w.unit);
	if (!ret) {
		crash_say_record(&w, a->journal ? a->journal : a->path, at);
		c.fd = t.fd;
		c.direct = t.direct;
		c.unit = w.unit;
		w.start = guac_now();
		w.next = w.start + (a->progress == GUAC_PROGRESS_TTY ? 0.5 : a->progress_interval);
		err = guac_crash_check_run(&c);
		if (err)
			guac_err("cannot check: %s", strerror(err));
		else
			crash_say_result(&w, &c);
		ret = err ? GUAC_EXIT_ERROR : w.counted[GUAC_CRASH_UNREADABLE] &&
		      c.violating == w.counted[GUAC_CRASH_UNREADABLE] ? GUAC_EXIT_IO :
		      c.violations ? GUAC_EXIT_FAIL : GUAC_EXIT_OK;
	}
	guac_target_close(&t);
	free(rec);
	return ret;
}
