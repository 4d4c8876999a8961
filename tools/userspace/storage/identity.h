/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Which target a manifest's fill and check are of, and whether a check it
 * records can still be trusted (docs/manifest.md "Identity and trust").
 *
 * A target is known by what it is, not by its path: a block device by its
 * serial, WWN, model and size (and, when it has neither serial nor WWN, by
 * the host, the boot and the kernel's diskseq: a re-attached loop or nbd
 * device is a new medium; its host is recorded either way, for the report); a file by the host, its file system (statfs type
 * and fsid), its device and inode. The identity is one string of key=value
 * words, recorded by guac write (manifest "target.identity", version 6) and
 * compared by write --resume, verify, verify --resume, manifest merge and
 * report through guac_ident_diff(); guac_record_trust() is the one rule that
 * decides whether a recorded check stands for the target as it is.
 */
#ifndef GUAC_IDENTITY_H
#define GUAC_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include "manifest.h"
#include "target.h"

#define GUAC_IDENT_MAX 1024	/* manifest.h's identity and stamp buffers */

/* The identity of the open (or probed) @t into @out; false (and "") for a pipe. */
bool guac_ident_of(const struct guac_target *t, char *out, size_t size);

/*
 * Whether the identities @then (recorded) and @now name one target. False
 * with @why saying what differs ("its diskseq differs (then 12, now 15): the
 * medium was re-attached"). Keys missing on one side count as empty; on a
 * shared file system (NFS, Lustre, GPFS, CephFS, ...) the host and the
 * local device numbers are not compared.
 */
bool guac_ident_diff(const char *then, const char *now, char *why, size_t size);

/*
 * The running kernel (boot id) whose machine alone holds the target of
 * @ident: a file's on a local file system, a block device's that no serial
 * or WWN names; "" for a target any host may reach (a named disk, a file on
 * a shared file system) or an identity without it.
 */
void guac_ident_machine(const char *ident, char *out, size_t size);

/*
 * Whether @a and @b, the identities of two parts of one fill (guac manifest
 * merge), name one target: guac_ident_diff(), and a file on a local file
 * system (not shared on both sides) written under one running kernel, since
 * the kernel is all that tells two machines cloned from one image apart
 * (issue 35, F7). False with @why saying what differs.
 */
bool guac_ident_part_diff(const char *a, const char *b, char *why, size_t size);

/*
 * A key of the medium identity @ident names, for grouping: identities that
 * guac_ident_diff() finds the same always have the same key (a disk: its
 * serial and WWN; a device without either: the boot and its diskseq; a
 * file: its file system type and inode, and its file system's id unless
 * it is shared). Others may share a key too; compare them. False when
 * @ident names nothing that lasts (empty, a pipe, no diskseq).
 */
bool guac_ident_medium_key(const char *ident, char *out, size_t size);

/* "serial X, WWN Y, model M, 1.00 GiB" or "file inode N on host H (ext4 fsid F)": for messages. */
void guac_ident_describe(const char *ident, char *out, size_t size);

/*
 * The target's stamp (guac_target_stamp(), and for a block device its
 * diskseq and the boot), taken so that a change after it changes it: when
 * the file's last change is within its time stamps' granularity of now (1 s
 * or 2 s on file systems that keep whole seconds, a clock tick on others),
 * a later change could leave the same stamp, so it waits (@wait, at most
 * that granularity) until it is not; if it still is, the stamp says
 * "untrusted", which guac_record_trust() never trusts.
 */
bool guac_ident_stamp(const struct guac_target *t, bool wait, char *buf, size_t size);

/*
 * The host name identities record and the report compares: uname -n, not
 * --host (a label), so that a file's host is the machine whose file it is.
 */
void guac_ident_host(char *out, size_t size);

/* Whether the identity @ident was taken on this host (its host= key is ours). */
bool guac_ident_here(const char *ident);

/*
 * The one trust rule: whether @m's verify record is a check that stands for
 * the target. NULL when it does; else the reason, in @why. A record stands
 * when the manifest records the target's identity (version 6), the record
 * has a trusted stamp (not version 2, not null, not "untrusted"), its
 * classes sum to its bad sectors; and, when @ident_now and @stamp_now are
 * given (the target as it is now), the identity is the recorded one and the
 * stamp the check's. @changed is set when the reason is a change of the
 * target seen now (not a flaw of the record).
 */
const char *guac_record_trust(const struct guac_manifest *m, const char *ident_now,
			      const char *stamp_now, bool *changed, char *why, size_t size);

/*
 * Fill identity: the circular distance, in 64-byte stream blocks, between
 * the stream blocks two fills put at the same device byte (origin +
 * (stream_offset - device_offset) / 64, mod 2^64). Fills closer than the
 * target's length in blocks are the same stream shifted: their bytes alias.
 */
uint64_t guac_fill_distance(uint64_t origin_a, uint64_t soff_a, uint64_t doff_a,
			    uint64_t origin_b, uint64_t soff_b, uint64_t doff_b);

/* Why no origin was chosen, for the command to word (its options explain it). */
enum guac_origin_refusal {
	GUAC_ORIGIN_CHOSEN,
	GUAC_ORIGIN_NO_RANDOMNESS,	/* getrandom failed: clash->err */
	GUAC_ORIGIN_NONE_FREE,		/* 1000 draws all aliased a recorded fill */
	GUAC_ORIGIN_SHARD_NEEDS_ONE,	/* a part of a sharded fill cannot draw its own */
	GUAC_ORIGIN_ALIASES,		/* the one given aliases a recorded fill: clash says which */
};

/* The numbers an origin refusal is worded with. */
struct guac_origin_clash {
	int err;			/* NO_RANDOMNESS: getrandom's errno */
	int fill;			/* ALIASES: 0 the recorded fill, k its history[k - 1] */
	uint64_t other;			/* that fill's origin */
	uint64_t distance;		/* blocks between the two streams there */
};

/*
 * A fresh origin for a fill of @span blocks at (@soff, @doff): random, and
 * at least @span blocks from every fill of @old (its own and its history;
 * NULL: none). NO_RANDOMNESS (@clash->err) or NONE_FREE when there is none.
 */
enum guac_origin_refusal guac_fill_fresh_origin(const struct guac_manifest *old, uint64_t soff,
						uint64_t doff, uint64_t span, uint64_t *origin,
						struct guac_origin_clash *clash);

/*
 * The first fill of @old (its own, then its history) whose stream aliases a
 * fill of @origin at (@soff, @doff) within @span blocks: its index (0: the
 * manifest's own fill, k: history[k - 1]) and distance; -1 when none. The
 * manifest's own random fill is each of its passes' origins (the nearest).
 */
int guac_fill_alias(const struct guac_manifest *old, uint64_t origin, uint64_t soff,
		    uint64_t doff, uint64_t span, uint64_t *distance);

/*
 * The report's verdict on @m's complete, clean check: "OK" when the trust
 * rule lets it stand; where the target is this host's, re-read: "GONE"
 * (its path is no more) or "CHANGED" (another identity, another stamp);
 * "UNVERIFIED" for a record the rule rejects. @why gets the reason.
 */
const char *guac_record_verdict(const struct guac_manifest *m, char *why, size_t size);

/* What guac write knows when it chooses the origin of a fill. */
struct guac_fill_choice {
	const struct guac_manifest *old;	/* the manifest it replaces or resumes; NULL */
	bool origin_given, force, resume;	/* as the fill's options say */
	unsigned int shard_index, shard_count;
	uint64_t soff, doff, span;		/* stream, device offsets; the target's blocks */
};

/*
 * The origin of a new fill into *@origin (which holds --origin when given):
 * a resumed fill's own; else a fresh one (guac_fill_fresh_origin()), which a
 * sharded fill cannot have (its parts would differ); else the one given,
 * unless it aliases a fill of c->old (guac_fill_alias()) and not forced.
 * CHOSEN, or why not (@clash: the numbers).
 */
enum guac_origin_refusal guac_fill_choose_origin(const struct guac_fill_choice *c,
						 uint64_t *origin, struct guac_origin_clash *clash);

#endif /* GUAC_IDENTITY_H */
