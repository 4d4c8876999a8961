/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The write manifest (docs/manifest.md): what guac write put where, so that
 * guac verify can check it later, on any copy, and name stale data. Small
 * versioned JSON, written atomically, read back by a strict parser that
 * rejects anything truncated, of another version or inconsistent.
 */
#ifndef GUAC_MANIFEST_H
#define GUAC_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "bs_split.h"
#include "io_engine.h"

#define GUAC_MANIFEST_FORMAT "guacrng-manifest"
/*
 * 8: "workload", the write's pattern (random: its seed, passes, the pass reached
 * and the stride between the passes' origins; a queue depth above 1; a
 * --bs-split's sizes); a sequential fill's manifest
 * stays version 7, so that an older guac still reads it, and one that cannot
 * tell a random fill's progress refuses it by its number.
 * 7: the verify status "partial" (a check of part of the fill that found
 * damage: its findings stand until a whole check); 6: target.identity
 * (identity.h) and run (the fleet run that wrote it:
 * guac write --run, GUAC_RUN); 5: the classes MISDIRECTED and WRAPPED (the
 * search's); 4: host, the verify record's places; 3: verify.target_stamp,
 * "running"; 2 to 5 read (no check they record is trusted: no identity); 1
 * refused.
 * A newer version is refused with its number, never half-read.
 */
#define GUAC_MANIFEST_VERSION 8
#define GUAC_MANIFEST_SEQUENTIAL_VERSION 7	/* what a sequential fill is saved as */
#define GUAC_MANIFEST_MAX_RANGES 4096	/* shards x jobs of one manifest */
#define GUAC_MANIFEST_MAX_HISTORY 64
#define GUAC_MANIFEST_MAX_IODEPTH 256	/* writes in flight a job (guac write --iodepth) */
#define GUAC_MANIFEST_MAX_BYTES (16u << 20)

/* One job's (or one merged shard's) contiguous part. */
struct guac_manifest_range {
	uint64_t device_offset;
	uint64_t stream_offset;
	uint64_t length;
	uint64_t done;			/* bytes written and fsynced */
	uint64_t verified;		/* bytes checked by guac verify (for --resume) */
};

/*
 * A bad range a verify record keeps (version 4): where, which kind, and the
 * class of its sectors ("ALL_ZERO" ... "OTHER", "-" for unreadable ones or
 * sectors only partly checked), as --bad-list gives it.
 */
#define GUAC_MANIFEST_MAX_BAD 64	/* the first bad ranges of a record */
#define GUAC_MANIFEST_NCLASSES 9	/* guac_manifest_class_names[] */
struct guac_manifest_bad {
	uint64_t device_offset, length;
	bool unreadable;
	char cls[16];
};

/*
 * The class names a verify record counts, in this order: ALL_ZERO, ALL_ONES,
 * TORN, STALE_ORIGIN (found where the sector lies, or by the origin search),
 * MISDIRECTED and WRAPPED (found by the misdirection search: version 5),
 * PARTIAL_MATCH, OTHER (what the search did not name, or did not reach) and
 * unclassified.
 */
extern const char *const guac_manifest_class_names[GUAC_MANIFEST_NCLASSES];

/* Whether a manifest of @version knows class @i (MISDIRECTED and WRAPPED came with 5). */
bool guac_manifest_class_in(unsigned int i, unsigned int version);

/*
 * A fill's status, and its verify record's: "running" (from before the first
 * byte; a writer or check killed mid-way leaves it), "complete",
 * "interrupted", "failed" (a write only) and "partial" (a check of part of
 * the fill, version 7: a record only). The JSON keeps the words
 * (guac_fill_status_name()); GUAC_STATUS_NONE is a record never made, "".
 */
enum guac_fill_status {
	GUAC_STATUS_NONE,
	GUAC_STATUS_RUNNING,
	GUAC_STATUS_COMPLETE,
	GUAC_STATUS_INTERRUPTED,
	GUAC_STATUS_FAILED,
	GUAC_STATUS_PARTIAL,
};

/* The JSON word of @s ("running" ...; "" for none). */
const char *guac_fill_status_name(enum guac_fill_status s);

/* The status the word @name is; false for a word that is none (nor ""). */
bool guac_fill_status_parse(const char *name, enum guac_fill_status *s);

/* An earlier write to the same target, kept to name stale data. */
struct guac_manifest_history {
	uint64_t origin, stream_offset, device_offset, length;
	char finished[32];
};

struct guac_manifest {
	unsigned int version;		/* as read (2 to 8); saves write guac_manifest_save_version() */
	char tool_version[32];
	char host[256];			/* the writer's host name; empty: unknown (before 4) or several */
	char run[128];			/* the run that wrote it (version 6); empty: none given */
	unsigned int stream_version;
	uint64_t origin;		/* stream origin block */
	uint64_t stream_offset;		/* stream byte at device_offset */
	uint64_t device_offset;		/* first byte of the whole fill in the target */
	uint64_t length;		/* bytes of the whole fill (all shards) */
	uint64_t block_size;
	unsigned int sector_size;
	bool direct, sync;
	char target_path[4096];
	char target_type[16];		/* "file" or "block" */
	uint64_t target_size;
	char serial[256], wwid[256];	/* empty when not exposed */
	char identity[1024];		/* identity.h (version 6); empty: not recorded */
	unsigned int shard_index, shard_count;
	/*
	 * Version 8: the random pattern (docs/storage.md "Random pattern").
	 * Pass p writes every block once, in the order of the permutation of
	 * (seed, p), each block holding origin - (passes - 1 - p) * pass_stride's
	 * stream at its place: a complete fill is a sequential fill of @origin.
	 * The ranges are then the jobs' parts of a pass's steps (a step a
	 * block), and their done counts steps of pass @pass done (in bytes).
	 */
	bool random;
	uint64_t seed;
	unsigned int passes, pass;	/* 1 and 0 for a sequential fill */
	uint64_t pass_stride;		/* stream blocks between two passes' origins */
	/*
	 * Writes in flight a job (guac write --iodepth) of the run that wrote
	 * it last: 1, one at a time (no "iodepth" in the workload); more, version
	 * 8 records it. How the blocks were sent, never which data they hold.
	 */
	unsigned int iodepth;
	/*
	 * guac write --bs-split (bs_split.h): the write sizes each block drew
	 * from, n 0 for none (whole blocks; no "bs_split" in the workload). Set
	 * when the fill began and kept by its resumes: version 8 records it.
	 * How the blocks were sent, never which data they hold.
	 */
	struct guac_bs_split bs_split;
	enum guac_fill_status status;	/* running, complete, interrupted or failed */
	char error[128];		/* strerror of the failure, or empty */
	char started[32], finished[32];	/* UTC, ISO 8601 */
	double seconds;
	unsigned int nranges;
	struct guac_manifest_range range[GUAC_MANIFEST_MAX_RANGES];
	unsigned int nhistory;
	struct guac_manifest_history history[GUAC_MANIFEST_MAX_HISTORY];
	/*
	 * guac verify's saved progress, for --resume: "running" from before its
	 * first read (a check killed mid-way leaves that), then "interrupted" or
	 * "complete" (every done byte verified); the bad and unreadable sectors
	 * in the verified parts; and the target's state when the check began
	 * (guac_target_stamp()), so that a target changed since voids it.
	 */
	bool have_verify;
	enum guac_fill_status verify_status;	/* running, complete, interrupted or partial */
	uint64_t verify_bad_sectors, verify_unreadable_sectors;
	char verify_stamp[256];		/* empty: unknown (version 2), never trusted */
	/*
	 * Version 4: where the record's bad sectors are. verify_places false:
	 * not known (a record continued from version 3, which kept counts only;
	 * JSON null). Else the bad ranges of the verified parts (mismatching and
	 * unreadable, adjacent ones of one kind and class merged), all counted,
	 * the first GUAC_MANIFEST_MAX_BAD kept, and the bad sectors per class.
	 */
	bool verify_places;
	uint64_t verify_bad_ranges;
	unsigned int nverify_bad;
	struct guac_manifest_bad verify_bad[GUAC_MANIFEST_MAX_BAD];
	uint64_t verify_classes[GUAC_MANIFEST_NCLASSES];
};

/*
 * "Is this the same fill?": asked when a write resumes an old manifest, when
 * merge joins the shards' parts, and when a report counts a sharded fill's
 * shards. A fill is its stream's place (origin, stream and device offsets,
 * length) on one target, split into shard_count parts. A key holds what the
 * rule reads, taken from a manifest (guac_fill_key_of()) or built by a caller
 * that has no manifest (a report's row, a write's arguments); its strings are
 * borrowed, never NULL.
 */
struct guac_fill_key {
	uint64_t origin, stream_offset, device_offset, length;
	bool random;			/* the pattern, with its seed and passes */
	uint64_t seed;
	unsigned int passes;
	uint64_t block_size, target_size;
	unsigned int sector_size;
	unsigned int shard_index, shard_count;
	bool is_file;			/* a regular file: named by its path */
	bool direct;			/* written with O_DIRECT */
	const char *target_path, *serial, *wwid;
	const char *identity;		/* identity.h; "": not recorded */
	char machine[64];		/* guac_ident_machine(): "" when any host's */
};

/*
 * What the callers differ in, each explicit. Every rule compares the fill's
 * place, the target's type, the shard count and the target's name: a block
 * device by its serial and WWN when it has either, else (and a file always)
 * by its path, and the machine a target only one machine holds is on.
 */
enum {
	/* Sector and block size: parts merged into one manifest must share them. */
	GUAC_FILL_SAME_LAYOUT = 1 << 0,
	/* A block device's size (a file's grows as its parts land: never compared). */
	GUAC_FILL_SAME_SIZE = 1 << 1,
	/*
	 * A file's disk (its serial and WWN) too, and a device's serial and WWN
	 * even when one side has neither: merge keeps one serial for the whole.
	 */
	GUAC_FILL_SAME_DISK = 1 << 2,
	/* The shard index: the same part of the fill (a resume), not another part of it. */
	GUAC_FILL_SAME_PART = 1 << 3,
	/*
	 * The whole identity (guac_ident_part_diff(), both recorded) rather than
	 * the machine alone: what merge writes as one target must be one.
	 */
	GUAC_FILL_SAME_IDENTITY = 1 << 4,
	/* The path even of a device named by serial, and the I/O mode: a resume's target. */
	GUAC_FILL_SAME_PATH = 1 << 5,
	GUAC_FILL_SAME_IO_MODE = 1 << 6,
};

/*
 * The callers' rules. guac report (fleet.c) asks nothing more (0): it counts
 * a sharded fill's parts, it writes nothing of them. guac manifest merge
 * writes the parts as one manifest: they must share all it keeps.
 * guac write --resume continues the same part on the same target, opened the
 * same way (cmd_write.c's write_resume_differs() is to build its key from
 * its arguments and the open target, with the recorded origin when none is
 * given and no machine: the identity check follows it).
 */
#define GUAC_FILL_MERGE (GUAC_FILL_SAME_LAYOUT | GUAC_FILL_SAME_SIZE | GUAC_FILL_SAME_DISK | \
			 GUAC_FILL_SAME_IDENTITY)
#define GUAC_FILL_RESUME (GUAC_FILL_SAME_LAYOUT | GUAC_FILL_SAME_DISK | GUAC_FILL_SAME_PART | \
			  GUAC_FILL_SAME_PATH | GUAC_FILL_SAME_IO_MODE)

/* The field that differs first, in this order (none: GUAC_FILL_SAME). */
enum guac_fill_field {
	GUAC_FILL_SAME,
	GUAC_FILL_ORIGIN,
	GUAC_FILL_STREAM_OFFSET,
	GUAC_FILL_DEVICE_OFFSET,
	GUAC_FILL_LENGTH,
	GUAC_FILL_PATTERN,
	GUAC_FILL_SEED,
	GUAC_FILL_PASSES,
	GUAC_FILL_SECTOR_SIZE,
	GUAC_FILL_BLOCK_SIZE,
	GUAC_FILL_TARGET_SIZE,
	GUAC_FILL_TARGET_TYPE,
	GUAC_FILL_SERIAL,
	GUAC_FILL_WWID,
	GUAC_FILL_SHARD_COUNT,
	GUAC_FILL_SHARD_INDEX,
	GUAC_FILL_TARGET_PATH,
	GUAC_FILL_MACHINE,
	GUAC_FILL_IO_MODE,
	GUAC_FILL_IDENTITY,
	GUAC_FILL_BS_SPLIT,		/* a resume's --bs-split (guac_fill_resume_same() alone) */
};

/* What differs, with both sides' values, for the caller to word. */
struct guac_fill_diff {
	enum guac_fill_field field;
	uint64_t a, b;			/* the numbers (a type, a mode: 0 or 1) */
	const char *sa, *sb;		/* the strings (serial, WWN, path, machine) */
	char why[512];			/* GUAC_FILL_IDENTITY: guac_ident_part_diff()'s words */
};

/* The key of @m's fill (borrowing @m's strings). */
void guac_fill_key_of(const struct guac_manifest *m, struct guac_fill_key *k);

/* Whether @a and @b are one fill under the rule @flags (GUAC_FILL_SAME_*); @d says where not. */
bool guac_fill_same(const struct guac_fill_key *a, const struct guac_fill_key *b,
		    unsigned int flags, struct guac_fill_diff *d);

/* guac_fill_same() of two manifests' fills. */
bool guac_manifest_same_fill(const struct guac_manifest *a, const struct guac_manifest *b,
			     unsigned int flags, struct guac_fill_diff *d);

/* Now as "2026-11-23T19:30:00Z". */
void guac_manifest_now(char *buf, size_t size);

/*
 * Read and check @path. False after a message naming the file and what is
 * wrong with it (syntax, truncation, version, an inconsistency).
 */
bool guac_manifest_load(const char *path, struct guac_manifest *m);

/*
 * The version @m is saved as: the lowest that holds it (8 for a random fill,
 * a queue depth or a --bs-split; else 7).
 */
unsigned int guac_manifest_save_version(const struct guac_manifest *m);

/* The origin pass @pass of @m's fill writes (the last pass's is m->origin). */
uint64_t guac_manifest_pass_origin(const struct guac_manifest *m, unsigned int pass);

/* Write @m to @path atomically (temporary file, fsync, rename). */
bool guac_manifest_save(const char *path, const struct guac_manifest *m);

/* Check the invariants the loader enforces; @why gets the first broken one. */
bool guac_manifest_consistent(const struct guac_manifest *m, char *why, size_t size);

/* Sum of the ranges' lengths and done bytes. */
uint64_t guac_manifest_ranges_length(const struct guac_manifest *m);
uint64_t guac_manifest_done(const struct guac_manifest *m);

/* True if @s is valid UTF-8 (JSON text must be: paths are refused otherwise). */
bool guac_manifest_utf8(const char *s);

/* Print @m as JSON (the file's format, with its checksum). */
void guac_manifest_print(FILE *f, const struct guac_manifest *m);

#endif /* GUAC_MANIFEST_H */
