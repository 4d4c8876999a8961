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
#include "io_engine.h"

#define GUAC_MANIFEST_FORMAT "guacrng-manifest"
/*
 * 7: the verify status "partial" (a check of part of the fill that found
 * damage: its findings stand until a whole check); 6: target.identity
 * (identity.h) and run (the fleet run that wrote it:
 * guac write --run, GUAC_RUN); 5: the classes MISDIRECTED and WRAPPED (the
 * search's); 4: host, the verify record's places; 3: verify.target_stamp,
 * "running"; 2 to 5 read (no check they record is trusted: no identity); 1
 * refused.
 * A newer version is refused with its number, never half-read.
 */
#define GUAC_MANIFEST_VERSION 7
#define GUAC_MANIFEST_MAX_RANGES 4096	/* shards x jobs of one manifest */
#define GUAC_MANIFEST_MAX_HISTORY 64
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

/* An earlier write to the same target, kept to name stale data. */
struct guac_manifest_history {
	uint64_t origin, stream_offset, device_offset, length;
	char finished[32];
};

struct guac_manifest {
	unsigned int version;		/* as read (2 to 6); saves write GUAC_MANIFEST_VERSION */
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
	char status[16];		/* "running", "complete", "interrupted", "failed" */
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
	char verify_status[16];
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

/* Now as "2026-11-23T19:30:00Z". */
void guac_manifest_now(char *buf, size_t size);

/*
 * Read and check @path. False after a message naming the file and what is
 * wrong with it (syntax, truncation, version, an inconsistency).
 */
bool guac_manifest_load(const char *path, struct guac_manifest *m);

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
