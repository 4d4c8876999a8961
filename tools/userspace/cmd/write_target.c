// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac write's verdict on its target before anything is written (issue 36,
 * U1, U2, U9), from what storage/target_probe.c found, and its --dry-run
 * plan. Every refusal here is status 2 (GUAC_EXIT_ERROR, guac write's usage
 * and refusal status) and happens before the target is opened for writing
 * and before the manifest is saved: nothing is created or written.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "journal.h"
#include "util.h"
#include "write_target.h"

bool write_target_usable(const char *path, const struct guac_probe *p)
{
	if (p->no_such_device) {
		guac_err("'%s': no such device (nothing is created under /dev, /proc or /sys: "
			 "a disk that is not there is not made a file); nothing written", path);
		return false;
	}
	if (p->pseudo_file) {
		guac_err("'%s' is a regular file on the file system of /dev, /proc or /sys, not a "
			 "device (left by a mistyped write? remove it); nothing written", path);
		return false;
	}
	if (p->readonly) {
		guac_err("'%s' is read-only: %s; nothing written", path, p->readonly_why);
		return false;
	}
	return true;
}

/*
 * Whether byte @off of the target is one @old (the fill --resume continues)
 * counts durable: a signature there was written after this fill's bytes.
 */
static bool write_target_ours(const struct guac_manifest *old, uint64_t off)
{
	unsigned int i;

	for (i = 0; i < old->nranges; i++)
		if (off >= old->range[i].device_offset &&
		    off - old->range[i].device_offset < old->range[i].done)
			return true;
	return false;
}

/* Whether the finding @s counts: on a resume, only in bytes the fill counts durable. */
static bool write_target_counts(const struct guac_probe_sig *s, const struct guac_manifest *resume)
{
	return !resume || s->offset == UINT64_MAX || write_target_ours(resume, s->offset);
}

static void write_target_list(FILE *f, const char *indent, const struct guac_probe *p,
			      const struct guac_manifest *resume)
{
	unsigned int i;

	for (i = 0; i < p->nbusy; i++)
		fprintf(f, "%sin use: %s\n", indent, p->busy[i]);
	if (p->nbusy_more)
		fprintf(f, "%sand %u more uses\n", indent, p->nbusy_more);
	for (i = 0; i < p->nsigs; i++) {
		if (!write_target_counts(&p->sig[i], resume))
			fprintf(f, "%s(%s at byte %" PRIu64 ": not yet overwritten by the fill "
				"resumed)\n", indent, p->sig[i].text, p->sig[i].offset);
		else if (p->sig[i].offset == UINT64_MAX)
			fprintf(f, "%s%s\n", indent, p->sig[i].text);
		else
			fprintf(f, "%s%s at byte %" PRIu64 "\n", indent, p->sig[i].text,
				p->sig[i].offset);
	}
	if (p->nsigs_more)
		fprintf(f, "%sand %u more signatures\n", indent, p->nsigs_more);
}

/* What refuses the write: uses always, signatures unless --force. */
static bool write_target_findings(const struct guac_probe *p, const struct guac_manifest *resume,
				  bool *sigs)
{
	unsigned int i;

	*sigs = p->nsigs_more > 0;
	for (i = 0; i < p->nsigs; i++)
		*sigs = *sigs || write_target_counts(&p->sig[i], resume);
	return p->nbusy || *sigs;
}

bool write_target_clear(const char *path, const struct guac_probe *p,
			const struct guac_manifest *resume, bool force)
{
	bool sigs;

	if (!write_target_findings(p, resume, &sigs))
		return true;
	if (p->nbusy) {
		guac_err("refusing to write: '%s' is in use (the kernel refuses an exclusive open "
			 "of it; --force does not override); nothing written:", path);
		write_target_list(stderr, "  ", p, resume);
		return false;
	}
	if (force) {
		guac_err("note: --force: not refused for what '%s' holds:", path);
		write_target_list(stderr, "  ", p, resume);
		return true;
	}
	guac_err("refusing to write: '%s' holds data (what wipefs would list); nothing written. "
		 "Found:", path);
	write_target_list(stderr, "  ", p, resume);
	fprintf(stderr, "Check that it is the right target; --force writes over it.\n");
	return false;
}

/*
 * Whether @path holds a guac journal already, or nothing where the journal
 * goes: an empty file, or zeros in its first 16 KiB (a fresh or wiped disk).
 */
static bool write_journal_reusable(const char *path)
{
	struct guac_journal_record *r = malloc(sizeof(*r));
	uint8_t *head = calloc(1, GUAC_JOURNAL_SIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 && head ? pread(fd, head, GUAC_JOURNAL_SIZE, 0) : -1;
	bool ok = n >= 0;

	for (ssize_t i = 0; ok && i < n; i++)
		ok = !head[i];
	if (!ok && n >= 0 && r)
		ok = !guac_journal_read(fd, 0, r);
	if (fd >= 0)
		close(fd);
	free(head);
	free(r);
	return ok;
}

bool write_journal_clear(const char *journal, bool force)
{
	struct guac_probe *p = calloc(1, sizeof(*p));
	bool ok;

	if (!p) {
		guac_err("out of memory");
		return false;
	}
	guac_probe_target(journal, p);
	ok = write_target_usable(journal, p) && write_target_clear(journal, p, NULL, force);
	if (ok && !p->missing && !force && !write_journal_reusable(journal)) {
		guac_err("refusing to write: --journal '%s' holds data that is not a guac journal; "
			 "its first 16 KiB would be written over; nothing written (--force writes "
			 "over them)", journal);
		ok = false;
	}
	free(p);
	return ok;
}

void write_target_plan(const struct write_plan *w, const struct guac_probe *p,
		       const struct guac_manifest *resume)
{
	bool sigs;

	printf("dry run: nothing written\n");
	printf("target:   '%s', %s", w->target, w->block ? "block device" :
	       p->missing ? "regular file (to be created)" : "regular file");
	printf(", %" PRIu64 " bytes, %u-byte sectors", w->size, w->sector);
	if (w->block && (w->serial[0] || w->wwid[0]))
		printf(", serial '%s', WWN '%s'", w->serial, w->wwid);
	printf("\nfound:%s\n", write_target_findings(p, resume, &sigs) ? "" :
	       "    no signature, nothing in use");
	write_target_list(stdout, "  ", p, resume);
	printf("write:    device bytes %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes), stream "
	       "offset %" PRIu64 ", origin %" PRIu64, w->seek, w->seek + w->length - 1,
	       w->length, w->offset, w->origin);
	if (w->origin_drawn)
		printf(" (drawn for this plan; the write draws a fresh one: --origin %" PRIu64
		       " writes this one)", w->origin);
	if (w->shard_count > 1)
		printf(", shard %u/%u (device bytes %" PRIu64 "-%" PRIu64 ")", w->shard_index,
		       w->shard_count, w->seek + w->shard_start, w->seek + w->shard_end - 1);
	printf("\nmanifest: %s%s%s%s\n", w->manifest ? "'" : "", w->manifest ? w->manifest : "none",
	       w->manifest ? "'" : "", !resume ? "" : " (resumed: its durable bytes are kept)");
}
