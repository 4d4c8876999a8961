/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac verify's run: what the command asked for, the work planned from it
 * (the segments) and what the check found, shared by the command
 * (cmd/cmd_verify.c: options, help, the main flow, the words), the plan
 * (verify_plan.c), the check (verify_check.c: the engine's use, the
 * verdict), the record (verify_record.c: the progress and findings saved)
 * and the reports (cmd/verify_report.c: text and JSON, the command's words).
 */
#ifndef GUAC_VERIFY_RUN_H
#define GUAC_VERIFY_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "diag.h"
#include "io_engine.h"
#include "manifest.h"
#include "permutation.h"
#include "shard.h"
#include "target.h"
#include "util.h"
#include "verify.h"

#define VERIFY_SHOWN_RANGES 20
#define VERIFY_DIAG_MAX 1000		/* bad sectors kept for the diagnosis */
#define VERIFY_HISTORY GUAC_MANIFEST_MAX_HISTORY
#define VERIFY_NAMED_ORIGINS 64		/* --origins: single origins, and ranges, each */
#define VERIFY_PASS_ORIGINS 16		/* a random fill's earlier passes, the latest ones */
#define VERIFY_PAST_ORIGINS (VERIFY_PASS_ORIGINS + VERIFY_HISTORY + VERIFY_NAMED_ORIGINS)

/* A contiguous stretch to check: device bytes and the stream bytes they should hold. */
struct verify_segment {
	uint64_t device_offset, length;
	struct guac_spos stream;	/* the stream position at device_offset */
	uint64_t resume;		/* bytes already verified (a resumed check) */
	int range;			/* manifest range index, or -1 */
};

/* One bad sector kept for the diagnosis. */
struct verify_sample {
	uint64_t device_offset, stream_offset;
	uint8_t *data;
	bool other;			/* the local checks left it to the search */
	bool in_first, in_other;	/* kept as one of the first, of the first OTHER */
};

/*
 * Bad sectors by class, from the local checks (guac_diag_local()), over all
 * of them: cls[GUAC_DIAG_UNKNOWN] counts OTHER (left to the search), stale[i]
 * the STALE_ORIGIN sectors of history entry i (newest first), unclassified
 * the sectors only partly inside the range checked.
 */
struct verify_classes {
	uint64_t cls[GUAC_DIAG_CLASS_COUNT];
	uint64_t stale[VERIFY_PAST_ORIGINS];
	uint64_t unclassified;
};

/*
 * Bad ranges in order, adjacent ones of one kind and class merged, all
 * counted and the first GUAC_MANIFEST_MAX_BAD kept, with the sectors per
 * class (guac_manifest_class_names[]): a job's, and the manifest's verify
 * record (version 4) of the verified parts, which --resume reports.
 */
struct verify_record {
	bool unknown;			/* places not known (continued from version 3) */
	uint64_t nranges;
	unsigned int n;
	struct guac_manifest_bad list[GUAC_MANIFEST_MAX_BAD];
	uint64_t classes[GUAC_MANIFEST_NCLASSES];
	bool have_last, last_kept;	/* the latest range, kept or not, for merging */
	struct guac_manifest_bad last;
};

/*
 * What to check, as the caller asks for it (cmd/cmd_verify.c makes it from
 * the command line): the source, the stream it should hold or the manifest
 * that records it, which part of it, and how to read it. The plan
 * (verify_plan.c) resolves the defaults left open here.
 */
struct verify_request {
	const char *path;		/* SOURCE; NULL: the manifest's target */
	const char *manifest_path;	/* NULL: the stream that offset, origin, seek name */
	const char *bad_list_path;	/* NULL: no list of every bad range */
	uint64_t offset, origin, seek;	/* without a manifest: where the stream lies */
	uint64_t skip, length;		/* the part of the data checked */
	/* No skip: from where the data (or the manifest's part) starts; no length: to its end. */
	bool from_data_start, to_data_end;
	uint64_t bs;			/* bytes per read; 0: the default */
	bool bs_exact;			/* the caller's: refused, never rounded, if it misfits */
	uint64_t jobs, max_errors;	/* max_errors 0: never stop */
	uint64_t rate;			/* bytes read a second over all jobs; 0: no limit */
	bool resume;			/* continue the check the manifest records */
	struct guac_shard shard;
	enum guac_direct direct;
	unsigned int sector;		/* report and class granularity; 0: the default */
	const char *sector_source;	/* the caller's name for where it came from */
	int impl;
	/* Origins named alone (checked like the history), and ranges (searched). */
	uint64_t named_origin[VERIFY_NAMED_ORIGINS];
	size_t nnamed_origins;
	struct guac_diag_origin_range origin_range[VERIFY_NAMED_ORIGINS];
	size_t norigin_ranges;
};

/*
 * Why the plan, the check or the record stopped short: the storage side
 * names the reason and its numbers, the command words it (its words name
 * its own options).
 */
enum verify_reason_kind {
	VERIFY_FINE,
	VERIFY_ALREADY_SAID,		/* a lower layer printed the message */
	VERIFY_OUT_OF_MEMORY,
	VERIFY_OTHER_SHARD,		/* n: the manifest's shard index, count; the asked ones */
	VERIFY_TOO_MANY_SHARDS,		/* n: the length to split, its sector */
	VERIFY_SKIP_PAST_FILL,		/* n: the start asked, the fill's length */
	VERIFY_RANGE_PAST_FILL,		/* n: the fill's length */
	VERIFY_RANGE_OUTSIDE_PART,	/* n: first, last byte asked; shard index, count; part's */
	VERIFY_PIPE_NEEDS_LENGTH,
	VERIFY_BS_OFF_SECTOR,		/* n: bs, the report sector; text: where it came from */
	VERIFY_BS_OFF_DIRECT_SECTOR,	/* n: bs, the target's sector */
	VERIFY_NO_TEMP_FILE,		/* err: tmpfile()'s, for the list of bad ranges */
	VERIFY_BAD_LIST_UNWRITABLE,	/* err; text: the list's path */
	VERIFY_RANDOM_UNFINISHED,	/* n: pass 1, passes, bytes of it done, length */
};

struct verify_reason {
	enum verify_reason_kind kind;
	uint64_t n[6];
	const char *text;
	int err;
};

/*
 * A random fill cut short after its first pass (manifest.h): each block holds
 * the pass's origin when its step is among its range's done steps, else the
 * pass before's. Every block is known: the check compares each with its own.
 */
struct verify_random {
	bool on;			/* off: every byte is run->origin's */
	struct guac_permutation perm;	/* the pass under way's order */
	uint64_t fill_dev, bs;		/* the fill's first device byte; a block */
	uint64_t origin_new, origin_old;
	unsigned int pass, passes;	/* for the report: the pass under way, from 0 */
};

struct verify_run {
	struct verify_request req;	/* as asked; the plan below resolves it */
	struct verify_random random;

	/* The plan: the range and the reads, the request's defaults resolved. */
	const char *path;		/* SOURCE, or the manifest's target */
	uint64_t offset, origin, seek, skip, length, bs, jobs;
	unsigned int sector;
	const char *sector_source;	/* "physical", "the manifest's", or the request's */
	struct verify_reason reason;	/* why a step ended the run (kind VERIFY_FINE: none) */

	/* The work. */
	struct guac_target target;
	struct guac_manifest *manifest;
	struct verify_segment *seg;
	unsigned int nseg;
	bool subrange;			/* a sub-range or shard: not the whole manifest */
	bool recorded_target;		/* SOURCE is the manifest's target: progress is saved */
	char stamp[256];		/* the target's state before the first read */
	char ident[1024];		/* its identity (identity.h) */
	const char *restart_why;	/* resuming found no record it could trust */
	bool restart_partial;		/* the record resumed was of part of the fill */
	uint64_t first_dev;		/* the first byte checked, for the report */
	struct guac_spos first_stream;
	uint64_t stream_pos;		/* a pipe: bytes read from it so far */
	uint64_t end;			/* device byte after the range checked */
	uint64_t planned;		/* bytes the segments hold */
	uint64_t incomplete;		/* manifest bytes never written */
	uint64_t progress_done;		/* segments behind, for the progress line */
	struct guac_progress progress;	/* --progress, over all the segments */

	/* Results. */
	atomic_bool stop;
	atomic_uint_fast64_t errors;	/* bad + unreadable sectors, for --max-errors */
	bool max_reached, interrupted, short_data, fatal;
	uint64_t short_at;		/* device byte where the data ended */
	int fatal_errno;
	uint64_t fatal_pos;
	uint64_t checked;
	double seconds;
	struct guac_badlog mismatch, unreadable;
	struct guac_range mismatch_kept[VERIFY_SHOWN_RANGES];
	struct guac_range unreadable_kept[VERIFY_SHOWN_RANGES];
	int first_errno;
	uint64_t first_error_pos;
	uint64_t prior_bad, prior_unreadable;	/* from the manifest, resuming */
	uint64_t earlier_bad, earlier_unreadable;	/* the earlier run's, as loaded */
	struct verify_record earlier;	/* the earlier run's places, as loaded (resume) */
	struct verify_record record;	/* the record saved: the earlier run's and this one's */
	bool already_complete;		/* resuming a check that had ended */
	bool trust_progress;		/* resuming with a record it can trust */
	FILE **job_lists;		/* every job's part of the bad-range list, in order */
	size_t njob_lists;

	/* The diagnosis: one config for the local checks and the search. */
	bool classify;			/* the sector size allows it */
	struct guac_diag_config diag_cfg;
	/*
	 * Past origins, newest first: a random fill's earlier passes (the first
	 * diag_npasses), the manifest's history, then --origins.
	 */
	struct guac_diag_pass diag_history[VERIFY_PAST_ORIGINS];
	size_t diag_npasses;
	struct guac_diag_part diag_parts[GUAC_MANIFEST_MAX_RANGES];	/* the writers' */
	struct guac_permutation diag_perm;	/* a random fill's last pass's order */
	struct guac_diag_order diag_order;
	struct verify_classes classes;	/* all jobs' */
	uint64_t other_searched;	/* OTHER sectors the search was given */
	uint64_t searched[GUAC_DIAG_CLASS_COUNT];	/* what it made of them */

	pthread_mutex_t sample_lock;
	struct verify_sample sample[2 * VERIFY_DIAG_MAX];
	size_t nsample, nfirst, nother;	/* kept: all, the first ones, OTHER ones */
	/*
	 * Once a set is full, the position of its last sector: a sector past
	 * both takes no lock (UINT64_MAX while not full).
	 */
	_Atomic uint64_t first_last, other_last;
	struct guac_diag_result diag[2 * VERIFY_DIAG_MAX];
	size_t ndiag;
	bool diag_ran;
	struct guac_diag_search search;
	/* The diagnosed sectors by incident: the report's lines (issue 36, U6). */
	struct guac_diag_incident incident[2 * VERIFY_DIAG_MAX];
	size_t nincident;
	/*
	 * The incident the search's bound cut, continued past it: OTHER sectors
	 * [extend_start, extend_end) re-read and found to hold its explanation
	 * (other_extended of them, class extend_cls); extend_stopped if the time
	 * bound or Ctrl-C ended the re-reading while it still went on.
	 */
	uint64_t other_extended, extend_start, extend_end;
	enum guac_diag_class extend_cls;
	bool extend_stopped;
};

/*
 * The plan (verify_plan.c), in the order the command makes it: the run
 * started from the request, whether SOURCE is the manifest's target, the
 * record a resumed check continues, the segments and reads (false with
 * run->reason set), the first byte for the report, and the diagnosis
 * config, set before the reads.
 */
void verify_plan_start(struct verify_run *run, const struct verify_request *req);
bool verify_is_recorded_target(const struct verify_run *run, char *why, size_t size);
void verify_take_record(struct verify_run *run);
bool verify_plan_manifest(struct verify_run *run);
bool verify_plan_plain(struct verify_run *run);
bool verify_plan_reads(struct verify_run *run);
void verify_first_byte(struct verify_run *run);
void verify_diag_setup(struct verify_run *run);

/*
 * The check (verify_check.c): one segment (false when the run must end;
 * run->reason set when it could not go on), all of them with the progress
 * saved now and then, and at the end the diagnosis of the sectors kept.
 */
bool verify_segment(struct verify_run *run, struct verify_segment *seg);
/*
 * The origin device byte @dev holds, and (*@n cut to the end of its block)
 * how many bytes on hold it: run->origin, or a random fill's block's
 * (verify_random). *@alt: the other origin the block may hold as well (a
 * random fill's block past its job's record), else the same.
 */
uint64_t verify_origin_at(const struct verify_run *run, uint64_t dev, size_t *n, uint64_t *alt);
void verify_check_all(struct verify_run *run);
void verify_diagnose(struct verify_run *run);

/*
 * The record (verify_record.c): the manifest's record of bad ranges built
 * as the jobs find them, the progress saved in the manifest ("running" or
 * the end's status), a partial check's findings, and the list of every bad
 * range (false with run->reason set).
 */
void verify_record_add(struct verify_record *rec, const struct guac_manifest_bad *b);
void verify_record_merge(struct verify_record *rec, const struct verify_record *part);
void verify_record_classes(struct verify_record *rec, const struct verify_classes *c);
void verify_save_progress(struct verify_run *run, bool running);
void verify_save_partial(struct verify_run *run);
bool verify_write_bad_list(struct verify_run *run);

/*
 * verify_incident.c: the diagnosed sectors grouped by incident, the one the
 * search's bound cut continued (re-read from the open target); called by
 * verify_diagnose().
 */
void verify_incidents(struct verify_run *run);

/* After verify_diagnose(): the record takes the searched classes; true if it changed. */
bool verify_record_searched(struct verify_run *run);

/*
 * The verdict (verify_check.c, where its one rule is stated): the bytes
 * compared, "ok", "error", "interrupted", "empty", "mismatch" or
 * "unchecked", and the exit status that goes with it.
 */
uint64_t verify_covered(const struct verify_run *run);
bool verify_empty(const struct verify_run *run);
const char *verify_result(const struct verify_run *run);
bool verify_ok(const struct verify_run *run);
int verify_exit_status(const struct verify_run *run);

/* The reports (cmd/verify_report.c), on standard output. */
void verify_report_text(const struct verify_run *run);
void verify_report_json(const struct verify_run *run);

#endif /* GUAC_VERIFY_RUN_H */
