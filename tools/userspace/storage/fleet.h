/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A fleet's report (guac report, docs/fleet.md): one row per disk from the
 * manifests of many guac write and guac verify runs on many hosts, each
 * judged from what its manifest records, never assumed: a disk is OK only
 * when its fill is complete and a check of all of it is recorded complete
 * with no bad sector. Missing manifests (named by an expected list),
 * duplicates and manifests that do not load are rows of their own, not OK.
 */
#ifndef GUAC_FLEET_H
#define GUAC_FLEET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "manifest.h"

/* A part of the fill, for the picture: where it is and how much is written. */
struct guac_fleet_part {
	uint64_t device_offset, length, done, verified;
};

/* What to do about a row that is not OK, for the command to word after its reason. */
enum guac_fleet_hint {
	GUAC_FLEET_HINT_NONE,
	GUAC_FLEET_HINT_RESUME_WRITE,	/* an interrupted fill: resuming it continues it */
	GUAC_FLEET_HINT_VERIFY,		/* written, never checked: check it by its manifest */
	GUAC_FLEET_HINT_RESUME_VERIFY,	/* a check that stopped: resuming it continues it */
	GUAC_FLEET_HINT_PARTIAL_CHECK,	/* findings of a check of part of the fill */
	GUAC_FLEET_HINT_WHOLE,		/* covering all of the target was asked (whole) */
};

struct guac_fleet_disk {
	/*
	 * Allocated to their length (issue 35, item 6: fixed 4096-byte paths
	 * made 16 KiB a disk), never NULL once the row is added.
	 */
	char *source;			/* the manifest's path; or "expected:LINE" */
	char host[256];			/* empty: unknown */
	char *target;
	char *medium;			/* guac_ident_medium_key() of its identity; NULL: none */
	char serial[256], wwid[256];
	unsigned int shard_index, shard_count;
	uint64_t size;			/* the target's bytes */
	uint64_t length, written, verified;	/* this part's bytes, durable, checked */
	uint64_t bad_sectors, unreadable_sectors, bad_ranges;
	bool places;			/* the bad ranges and classes are known */
	uint64_t classes[GUAC_MANIFEST_NCLASSES];
	unsigned int nbad;
	struct guac_manifest_bad *bad;	/* @nbad of them, allocated; NULL when none */
	unsigned int nparts;
	struct guac_fleet_part *part;
	uint64_t device_offset;		/* the fill's place, for duplicates */
	uint64_t fill_length, origin, stream_offset;	/* the fill, for its shards */
	unsigned int sector_size;
	bool is_file;			/* a regular file: named by its path alone */
	char machine[64];		/* guac_ident_machine(): "" when any host's */
	const char *state;		/* OK, MISMATCH, FAILED, ... (guac_fleet_judge) */
	char reason[768];		/* why, for every state but OK */
	enum guac_fleet_hint hint;	/* and what to do about it */
	char job[320];			/* its job's end state (guac_fleet_jobs); "" none */
	unsigned int duplicate_of;	/* 1 + the index of an earlier row of the same disk */
	char run[128];			/* the manifest's run (version 6); empty: none */
	char when[32];			/* its finish (or start, while running), UTC */
	char started[32];		/* the fill's start, UTC: which of two came last */
	bool other_run;			/* a manifest of another run than --run: MISSING */
	bool seen_here;			/* OK: this host re-read the target, unchanged since */
	/* The earlier fills its manifest's history records: they may void other rows. */
	unsigned int nhistory;
	struct guac_manifest_history *history;	/* allocated; NULL when none */
};

struct guac_fleet {
	struct guac_fleet_disk *disk;
	unsigned int n, cap;
	/*
	 * The run reported (guac report --run; issue 40): set before the first
	 * guac_fleet_add, so that a manifest of another run is no row of its
	 * disk but a MISSING one that names the run it is of. NULL: every
	 * manifest counts, and the table shows each one's run and age.
	 */
	const char *run;
	/*
	 * guac report --whole: a disk whose fills do not cover all of the
	 * target (its recorded size) is PARTIAL, not OK. Set before
	 * guac_fleet_judge.
	 */
	bool whole;
	/* The expected list's lines (guac_fleet_expect): their hosts count in host matching. */
	struct guac_fleet_line *line;
	unsigned int nlines;
	/*
	 * Indexes made once rather than a search of every row for every pair of
	 * rows (issue 35, item 6: a report over 100 000 disks): the long host
	 * names the rows and lines know, by short name (fleet_host_eq), and the
	 * rows by target: the rows of row i's target are
	 * by_target[group_lo[i]] to by_target[group_hi[i] - 1], in row order.
	 */
	char **longs;
	size_t nlongs;
	unsigned int *by_target, *group_lo, *group_hi;
};

/*
 * Add the manifest at @path (a row, whatever it holds: one that does not
 * load is an INVALID row with the loader's message), or every *.json
 * manifest in the directory @path. False only when out of memory or the
 * directory cannot be read (after a message).
 */
bool guac_fleet_add(struct guac_fleet *f, const char *path);

/*
 * The expected disks, one a line: "HOST TARGET", TARGET the path the
 * manifest records, or its serial or WWN; '#' comments and blank lines are
 * skipped. Each one no manifest describes becomes a MISSING row. False
 * after a message naming the line for a list that cannot be read or parsed.
 */
bool guac_fleet_expect(struct guac_fleet *f, const char *list);

/*
 * The jobs' end states, one a line: "HOST STATE [WHY...]" (what a report
 * job gathers from sacct or scontrol, or from the files the fill jobs
 * write as they end: docs/examples/slurm, docs/fleet.md). Each row of HOST
 * (or its short name) that is not OK gets "its job: STATE WHY" as its job. '#' comments and blank lines are skipped. Call after
 * guac_fleet_judge(). False after a message naming the line for a list that
 * cannot be read or parsed.
 */
bool guac_fleet_jobs(struct guac_fleet *f, const char *list);

/*
 * Sort the rows and give each its state and reason: duplicates, and the
 * shards missing from a sharded fill some of whose parts are given (MISSING
 * rows); returns how many are not OK. False only when out of memory.
 */
bool guac_fleet_judge(struct guac_fleet *f, unsigned int *notok);

void guac_fleet_free(struct guac_fleet *f);

#endif /* GUAC_FLEET_H */
