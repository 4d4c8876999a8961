// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A fill: a range of the stream written at a place of a file or block
 * device, and recorded in a manifest so that guac verify can check it later
 * (fill.h). The plan finds everything that can be wrong before the target is
 * opened for writing (a typo must never cost a disk); the run opens and
 * locks it, continues or replaces the recorded fill, writes with the I/O
 * engine's jobs, records the progress while they run, and finds afterwards
 * whether the file lost bytes meanwhile. The caller words the refusals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "fill.h"
#include "identity.h"
#include "util.h"

static enum guac_fill_reason fill_refuse(struct guac_fill *f, enum guac_fill_reason reason)
{
	f->refusal.reason = reason;
	return reason;
}

static void fill_note(const struct guac_fill *f, enum guac_fill_note note)
{
	if (f->o->note)
		f->o->note(f, note, f->o->note_arg);
}

/*
 * @path made absolute without following its last component: the directory
 * is resolved (so "cd elsewhere; guac verify -m" finds the target), but a
 * /dev/disk/by-id/ link stays the stable name it was typed as.
 */
static bool fill_abspath(const char *path, char *out, size_t size)
{
	char dcopy[4096], bcopy[4096], dir[PATH_MAX];
	const char *base;
	int n;

	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	base = basename(bcopy);
	if (!realpath(dirname(dcopy), dir))
		return false;
	if (!strcmp(base, "/") || !strcmp(base, ".") || !strcmp(base, ".."))
		return false;	/* not a file name: the caller refuses it anyway */
	n = snprintf(out, size, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

/*
 * Whether two paths name one file or device: the manifest is renamed into
 * place at the end, and a crash-safe fill's journal is written at its byte
 * 0, so either typed as the target (twice, or a symlink or hard link to it)
 * would destroy the data. Same inode (or device), or the same absolute path
 * for files not yet created. (A dangling symlink is replaced, not followed.)
 */
static bool fill_same_path(const char *a, const char *b)
{
	char aa[PATH_MAX + 256], ba[PATH_MAX + 256];
	struct stat as, bs;

	if (!stat(a, &as) && !stat(b, &bs))
		return S_ISBLK(as.st_mode) && S_ISBLK(bs.st_mode) ? as.st_rdev == bs.st_rdev :
		       as.st_dev == bs.st_dev && as.st_ino == bs.st_ino;
	return fill_abspath(a, aa, sizeof(aa)) && fill_abspath(b, ba, sizeof(ba)) &&
	       !strcmp(aa, ba);
}

/* The manifest's fill before this one, if there is a manifest: false if it does not parse. */
static bool fill_load_old(struct guac_fill *f)
{
	if (f->have_old || !f->o->manifest || access(f->o->manifest, F_OK))
		return true;
	if (!guac_manifest_load(f->o->manifest, &f->old))
		return false;
	f->have_old = true;
	return true;
}

/*
 * A resume continues the recorded fill: the values it was written with
 * are taken from there when not fixed again (issue 36, U10); a fixed one
 * that differs is refused by the run, named.
 */
static enum guac_fill_reason fill_plan_resume(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	const struct guac_manifest *old = &f->old;

	if (!o->resume || !o->manifest || fill_same_path(o->manifest, o->target) ||
	    access(o->manifest, F_OK))
		return GUAC_FILL_OK;
	if (!fill_load_old(f))
		return fill_refuse(f, GUAC_FILL_MANIFEST_INVALID);
	if (!(f->fixed & GUAC_FILL_FIXED_ORIGIN))
		f->shape.origin = old->origin;
	if (!(f->fixed & GUAC_FILL_FIXED_OFFSET))
		f->shape.offset = old->stream_offset;
	if (!(f->fixed & GUAC_FILL_FIXED_SEEK))
		f->shape.seek = old->device_offset;
	if (!(f->fixed & GUAC_FILL_FIXED_LENGTH))
		f->shape.length = old->length;
	if (!(f->fixed & GUAC_FILL_FIXED_BLOCK_SIZE))
		f->shape.block_size = old->block_size;
	if (f->direct == GUAC_DIRECT_DEFAULT)
		f->direct = old->direct ? GUAC_DIRECT_ON : GUAC_DIRECT_OFF;
	if (!(f->fixed & GUAC_FILL_FIXED_PATTERN))
		f->shape.random = old->random;
	if (!(f->fixed & GUAC_FILL_FIXED_SEED))
		f->shape.seed = old->seed;
	if (!(f->fixed & GUAC_FILL_FIXED_PASSES))
		f->shape.passes = old->random ? old->passes : 1;
	if (!(f->fixed & GUAC_FILL_FIXED_BS_SPLIT))
		f->shape.split = old->bs_split;
	/* The passes' origins are the recorded ones, whatever the target's size now. */
	f->shape.pass_stride = old->pass_stride;
	f->fixed |= GUAC_FILL_FIXED_ORIGIN | GUAC_FILL_FIXED_LENGTH | GUAC_FILL_FIXED_SEED;
	return GUAC_FILL_OK;
}

/*
 * Size and sector of the target before it is opened for writing, and what
 * is on it (f->probe); a missing file is empty. A target that cannot be
 * meant (a missing device, a read-only one) is refused here.
 */
static enum guac_fill_reason fill_plan_probe(struct guac_fill *f)
{
	const char *path = f->o->target;
	struct guac_target *t = &f->t;
	struct stat st;

	/* guac write - means no file named "-": standard input, which is only read. */
	if (!strcmp(path, "-")) {
		memset(t, 0, sizeof(*t));
		snprintf(t->path, sizeof(t->path), "%s", path);
		t->refused = GUAC_TARGET_STDIN_READ_ONLY;
		return fill_refuse(f, GUAC_FILL_TARGET_REFUSED);
	}
	guac_probe_target(path, &f->probe);
	if (f->probe.no_such_device || f->probe.pseudo_file || f->probe.readonly)
		return fill_refuse(f, GUAC_FILL_TARGET_UNUSABLE);
	if (stat(path, &st) && errno == ENOENT) {
		memset(t, 0, sizeof(*t));
		snprintf(t->path, sizeof(t->path), "%s", path);
		t->kind = GUAC_TARGET_FILE;
		t->sector = guac_dir_sector(path);	/* O_DIRECT's alignment there */
		return GUAC_FILL_OK;
	}
	if (!guac_target_probe(t, path))
		return fill_refuse(f, GUAC_FILL_REFUSED_SAID);
	if (t->kind == GUAC_TARGET_STREAM)
		return fill_refuse(f, GUAC_FILL_NOT_FILE_OR_DEVICE);
	return GUAC_FILL_OK;
}

/* The range against the target: its length, its end, its sectors; then this shard's part. */
static enum guac_fill_reason fill_plan_range(struct guac_fill *f)
{
	const struct guac_target *t = &f->t;
	struct guac_fill_shape *sh = &f->shape;
	bool direct = f->direct == GUAC_DIRECT_ON ||
		      (f->direct == GUAC_DIRECT_DEFAULT && t->kind == GUAC_TARGET_BLOCK);

	if (!(f->fixed & GUAC_FILL_FIXED_LENGTH)) {
		if (t->size <= sh->seek)
			return fill_refuse(f, GUAC_FILL_NOTHING_AFTER_SEEK);
		sh->length = t->size - sh->seek;
	}
	if (sh->seek + sh->length < sh->seek)
		return fill_refuse(f, GUAC_FILL_RANGE_OVERFLOWS);
	if (t->kind == GUAC_TARGET_BLOCK && sh->seek + sh->length > t->size)
		return fill_refuse(f, GUAC_FILL_PAST_DEVICE_END);
	/* A disk takes whole sectors whatever the mode; O_DIRECT on a file needs them too. */
	if (direct && (sh->seek % t->sector || sh->length % t->sector || sh->block_size % t->sector))
		return fill_refuse(f, GUAC_FILL_NOT_WHOLE_SECTORS);
	if (!sh->length)
		return fill_refuse(f, GUAC_FILL_EMPTY);
	/* Every shard has a sector at least: no shard count beyond the sectors. */
	if (!guac_shard_fits(&f->o->shard, sh->length, t->sector))
		return fill_refuse(f, GUAC_FILL_TOO_MANY_SHARDS);
	guac_shard_range(&f->o->shard, sh->length, t->sector, &f->shard_start, &f->shard_end);
	/* The manifest records whole sectors; O_DIRECT and verify's reads need them too. */
	if (sh->block_size % t->sector)
		return fill_refuse(f, GUAC_FILL_BLOCK_NOT_SECTORS);
	/* A block's writes are whole sectors too, and make the block up exactly. */
	f->refusal.split_problem = guac_bs_split_check(&sh->split, sh->block_size, t->sector,
						       &f->refusal.split_entry);
	if (f->refusal.split_problem)
		return fill_refuse(f, GUAC_FILL_BS_SPLIT_INVALID);
	return GUAC_FILL_OK;
}

/*
 * The random pattern permutes the fill's blocks: whole --bs blocks of one
 * part (a shard's blocks would be another permutation's), and a seed drawn
 * when none is given (recorded, so that a resume and a check find it).
 */
static enum guac_fill_reason fill_plan_workload(struct guac_fill *f)
{
	struct guac_fill_shape *sh = &f->shape;

	if (!sh->random) {
		/* Given to resume a sequential fill, they stay for the resume check to name. */
		if (!(f->o->fixed & GUAC_FILL_FIXED_PASSES))
			sh->passes = 1;
		if (!(f->o->fixed & GUAC_FILL_FIXED_SEED))
			sh->seed = 0;
		sh->pass_stride = 0;
		return GUAC_FILL_OK;
	}
	if (f->o->shard.count > 1)
		return fill_refuse(f, GUAC_FILL_RANDOM_SHARDED);
	if (sh->length % sh->block_size)
		return fill_refuse(f, GUAC_FILL_RANDOM_NOT_WHOLE_BLOCKS);
	if (!(f->fixed & GUAC_FILL_FIXED_SEED) &&
	    getrandom(&sh->seed, sizeof(sh->seed), 0) != sizeof(sh->seed)) {
		f->refusal.error = errno;
		return fill_refuse(f, GUAC_FILL_NO_SEED);
	}
	return GUAC_FILL_OK;
}

/*
 * A crash-safe fill's journal (journal.h): on a file or device of its own,
 * or in the target, past the fill: a block device's last 16 KiB, which its
 * default length leaves out; past a file's end and the fill's, 4 KiB
 * aligned. One writer, from the start, with a part a job.
 */
static enum guac_fill_reason fill_plan_journal(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	struct guac_fill_shape *sh = &f->shape;
	uint64_t end;

	if (!o->crash_safe)
		return GUAC_FILL_OK;
	if (o->resume)
		return fill_refuse(f, GUAC_FILL_CRASH_SAFE_RESUME);
	if (o->shard.count > 1)
		return fill_refuse(f, GUAC_FILL_CRASH_SAFE_SHARDED);
	if (sh->jobs > GUAC_JOURNAL_MAX_JOBS)
		return fill_refuse(f, GUAC_FILL_CRASH_SAFE_JOBS);
	if (o->journal && fill_same_path(o->journal, o->target))
		return fill_refuse(f, GUAC_FILL_JOURNAL_IS_TARGET);
	if (o->journal && o->manifest && fill_same_path(o->journal, o->manifest))
		return fill_refuse(f, GUAC_FILL_JOURNAL_IS_MANIFEST);
	if (o->journal)
		return GUAC_FILL_OK;
	if (f->t.kind != GUAC_TARGET_BLOCK) {
		end = f->t.size > sh->seek + sh->length ? f->t.size : sh->seek + sh->length;
		f->journal_at = (end + 4095) & ~(uint64_t)4095;
		return GUAC_FILL_OK;
	}
	f->journal_at = guac_journal_in_target(f->t.size);
	if (f->journal_at == UINT64_MAX || f->journal_at <= sh->seek)
		return fill_refuse(f, GUAC_FILL_JOURNAL_NO_ROOM);
	if (!(f->fixed & GUAC_FILL_FIXED_LENGTH)) {
		sh->length = f->journal_at - sh->seek;
		f->shard_end = sh->length;
	} else if (sh->seek + sh->length > f->journal_at) {
		f->refusal.start = f->journal_at;
		f->refusal.end = f->journal_at + GUAC_JOURNAL_SIZE;
		return fill_refuse(f, GUAC_FILL_JOURNAL_OVERLAP);
	}
	return GUAC_FILL_OK;
}

uint64_t guac_fill_job_buffers(const struct guac_fill_options *o)
{
	/* A read-back (verify_backlog) takes two blocks more a job: one read, one produced. */
	return 2 * (o->verify_backlog ? 2 : 1) * (o->iodepth > 2 ? (o->iodepth + 1) / 2 : 1);
}

/*
 * Buffers: each job holds up to two blocks (the one written and the next
 * one generated), or with a queue depth one a write in flight, of which it
 * touches no more than its part. More than the machine's memory cannot be
 * meant.
 */
static enum guac_fill_reason fill_plan_memory(struct guac_fill *f)
{
	uint64_t length = f->shard_end - f->shard_start, sector = f->t.sector;
	uint64_t jobs = f->shape.jobs, part, sectors = length / sector + (length % sector != 0);

	if (jobs > sectors)
		jobs = sectors;	/* guac_io_split() drops parts with nothing to do */
	if (!jobs)
		return GUAC_FILL_OK;
	/* A job touches no more of its buffers than its part: memory is taken as it is used. */
	part = length / jobs + (length % jobs != 0);
	f->refusal.jobs = jobs;
	if (!guac_buffers_fit(jobs * guac_fill_job_buffers(f->o) / 2,
			      part < f->shape.block_size ? part : f->shape.block_size,
			      &f->refusal.need, &f->refusal.avail))
		return fill_refuse(f, GUAC_FILL_BUFFERS_EXCEED_MEMORY);
	return GUAC_FILL_OK;
}

/*
 * Bytes of [@start, @end) that the file @path already has allocated: writing
 * over them needs no new space. SEEK_DATA/SEEK_HOLE find the data; a file
 * system that reports everything as data is capped by the blocks the file
 * has (st_blocks). 0 for a file that does not exist yet.
 */
static uint64_t fill_allocated(const char *path, uint64_t start, uint64_t end)
{
	struct stat st;
	uint64_t sum = 0, cap;
	off_t pos, hole;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	if (end > (uint64_t)st.st_size)
		end = (uint64_t)st.st_size;
	pos = (off_t)start;
	while ((uint64_t)pos < end) {
		pos = lseek(fd, pos, SEEK_DATA);
		if (pos < 0 || (uint64_t)pos >= end)
			break;
		hole = lseek(fd, pos, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > end)
			hole = (off_t)end;
		sum += (uint64_t)(hole - pos);
		pos = hole;
	}
	close(fd);
	cap = (uint64_t)st.st_blocks * 512;
	return sum < cap ? sum : cap;
}

/*
 * Whether a regular file can hold the shard's device bytes at all, found
 * before anything is written (a length typed with T for G, or 2^63-1, would
 * otherwise write until the file system is full): the largest offset Linux
 * has (2^63-1), the file system's largest file (its s_maxbytes, which
 * lseek() enforces: guac_target_seek_fits(), a seek to the end on the
 * target, or on an empty probe file beside it, removed at once, changes no
 * data; pathconf's FILESIZEBITS is no help, glibc says 32 for tmpfs), and
 * its free space (statvfs: what the file does not hold yet must fit in
 * f_bavail, the space available to unprivileged users; root's use of
 * reserved blocks is not counted on; ramfs, which reports no size, is not
 * checked). allow_overcommit skips the free-space check only. A process's
 * own file size limit (ulimit -f) is left to the write, which ends in EFBIG
 * with the durable bytes reported and recorded (the suites use it as a
 * fault that really happens).
 */
static enum guac_fill_reason fill_plan_file_fits(struct guac_fill *f)
{
	struct guac_fill_refusal *r = &f->refusal;
	const char *target = f->o->target;
	char copy[4096];
	const char *dir;
	struct statvfs vfs;

	r->start = f->shape.seek + f->shard_start;
	r->end = f->shape.seek + f->shard_end;
	if (f->t.kind != GUAC_TARGET_FILE)
		return GUAC_FILL_OK;
	snprintf(copy, sizeof(copy), "%s", target);
	dir = dirname(copy);
	if (r->end > (uint64_t)INT64_MAX)
		return fill_refuse(f, GUAC_FILL_PAST_LARGEST_OFFSET);
	if (!guac_target_seek_fits(target, dir, r->end))
		return fill_refuse(f, GUAC_FILL_PAST_LARGEST_FILE);
	/* A file system that reports no size (ramfs: f_blocks 0) has no free space to check. */
	if (!f->o->allow_overcommit && !statvfs(f->t.size ? target : dir, &vfs) && vfs.f_blocks) {
		r->avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		r->have = fill_allocated(target, r->start, r->end);
		r->need = r->end - r->start - r->have;
		if (r->need > r->avail)
			return fill_refuse(f, GUAC_FILL_NO_SPACE);
	}
	return GUAC_FILL_OK;
}

/* The manifest is written after the target is opened: find out now if it cannot be. */
static enum guac_fill_reason fill_plan_manifest(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	char copy[4096];

	if (!o->manifest)
		return GUAC_FILL_OK;
	if (fill_same_path(o->manifest, o->target))
		return fill_refuse(f, GUAC_FILL_MANIFEST_IS_TARGET);
	if (!fill_abspath(o->target, f->target_abs, sizeof(f->target_abs))) {
		f->refusal.error = errno;
		return fill_refuse(f, GUAC_FILL_NO_ABSOLUTE_PATH);
	}
	/* JSON is UTF-8: a path with a byte like 0xff cannot be recorded faithfully. */
	if (!guac_manifest_utf8(f->target_abs))
		return fill_refuse(f, GUAC_FILL_PATH_NOT_UTF8);
	snprintf(copy, sizeof(copy), "%s", o->manifest);
	snprintf(f->refusal.dir, sizeof(f->refusal.dir), "%s", dirname(copy));
	if (access(f->refusal.dir, W_OK)) {
		f->refusal.error = errno;
		return fill_refuse(f, GUAC_FILL_MANIFEST_DIR_UNWRITABLE);
	}
	if (!fill_load_old(f))
		return fill_refuse(f, GUAC_FILL_MANIFEST_INVALID);
	return GUAC_FILL_OK;
}

/*
 * The fill's origin: fresh, or the one fixed if it does not alias a recorded
 * fill. A random fill's passes are the target's blocks apart (so no two
 * alias), and the choice covers them all: its first pass's origin with all
 * their blocks; the origin recorded (and given) is the last pass's.
 */
static enum guac_fill_reason fill_plan_origin(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	struct guac_fill_shape *sh = &f->shape;
	uint64_t end = f->t.kind == GUAC_TARGET_BLOCK || f->t.size > sh->seek + sh->length ?
		       f->t.size : sh->seek + sh->length;
	struct guac_fill_choice choice = {
		f->have_old ? &f->old : NULL, f->fixed & GUAC_FILL_FIXED_ORIGIN, o->force, o->resume,
		o->shard.index, o->shard.count, sh->offset, sh->seek, end / 64 + 1,
	};
	/* A resume of the recorded fill takes its origin as it is. */
	bool passes = sh->random && !(o->resume && f->have_old);
	uint64_t before = 0;

	if (passes) {
		sh->pass_stride = choice.span;
		before = (uint64_t)(sh->passes - 1) * sh->pass_stride;
		choice.span = choice.span > UINT64_MAX / sh->passes ? UINT64_MAX :
			      choice.span * sh->passes;
		sh->origin -= before;
	}
	f->refusal.origin = guac_fill_choose_origin(&choice, &sh->origin, &f->refusal.clash);
	sh->origin += before;
	if (f->refusal.origin != GUAC_ORIGIN_CHOSEN) {
		f->refusal.need = choice.span;
		return fill_refuse(f, GUAC_FILL_ORIGIN_REFUSED);
	}
	/* Resuming its own recorded fill, guac counts only what is in the bytes it wrote. */
	if (o->resume && f->have_old && !strcmp(f->old.target_path, f->target_abs))
		f->resume_of = &f->old;
	return GUAC_FILL_OK;
}

enum guac_fill_reason guac_fill_plan(struct guac_fill *f, const struct guac_fill_options *o)
{
	/*
	 * In order: the recorded values a resume takes, the target, the range
	 * on it, then what cannot be meant (buffers past the memory, a file
	 * past its file system), the manifest, and last the origin, which
	 * depends on the recorded fill.
	 */
	static enum guac_fill_reason (*const checks[])(struct guac_fill *f) = {
		fill_plan_resume, fill_plan_probe, fill_plan_range, fill_plan_journal,
		fill_plan_workload, fill_plan_memory, fill_plan_file_fits, fill_plan_manifest,
		fill_plan_origin,
	};
	enum guac_fill_reason r = GUAC_FILL_OK;
	size_t i;

	f->o = o;
	f->shape = o->shape;
	f->fixed = o->fixed;
	f->direct = o->direct;
	/* Each job writes a range of its own: the merged manifest holds them all. */
	if (o->shard.count > 1 && o->shard.count * o->shape.jobs > GUAC_MANIFEST_MAX_RANGES)
		return fill_refuse(f, GUAC_FILL_TOO_MANY_RANGES);
	for (i = 0; !r && i < sizeof(checks) / sizeof(checks[0]); i++)
		r = checks[i](f);
	return r;
}

bool guac_fill_resume_same(const struct guac_fill *f, const struct guac_manifest *old,
			   struct guac_fill_diff *d)
{
	const struct guac_target *t = &f->t;
	struct guac_fill_key was, now;

	guac_fill_key_of(old, &was);
	/* This write's key; an origin drawn afresh is no mismatch, the recorded one stands. */
	now = (struct guac_fill_key){
		.origin = (f->fixed & GUAC_FILL_FIXED_ORIGIN) ? f->shape.origin : old->origin,
		.stream_offset = f->shape.offset, .device_offset = f->shape.seek,
		.length = f->shape.length, .block_size = f->shape.block_size,
		/* A --seed or --passes given to resume a sequential fill differs from its none. */
		.random = f->shape.random,
		.seed = f->shape.random || (f->o->fixed & GUAC_FILL_FIXED_SEED) ? f->shape.seed : 0,
		.passes = f->shape.random || (f->o->fixed & GUAC_FILL_FIXED_PASSES) ?
			  f->shape.passes : 1,
		.sector_size = t->sector, .shard_index = f->o->shard.index,
		.shard_count = f->o->shard.count, .is_file = t->kind != GUAC_TARGET_BLOCK,
		.direct = t->direct, .target_path = f->target_abs, .serial = t->serial,
		.wwid = t->wwid, .identity = "",
	};
	if (!guac_fill_same(&was, &now, GUAC_FILL_RESUME, d))
		return false;
	/* The split is the workload's, not the fill's place: this rule's alone. */
	if (guac_bs_split_same(&old->bs_split, &f->shape.split))
		return true;
	d->field = GUAC_FILL_BS_SPLIT;
	return false;
}

/*
 * The bytes a fill writes in a file target are its alone while it runs: an
 * OFD write lock on its shard's part of the file, so that the shards of one
 * fill run at once (from several hosts, on a clustered file system) while a
 * second write of the same bytes is refused. It is advisory: it stops a
 * second guac write, which takes it too (block devices have O_EXCL for
 * that), not other programs; what they do meanwhile fill_check_file() finds
 * afterwards.
 */
static bool fill_lock(struct guac_fill *f)
{
	const struct guac_target *t = &f->t;
	uint64_t start = f->shape.seek + f->shard_start, len = f->shard_end - f->shard_start;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)start,
			    .l_len = (off_t)len };

	if (t->kind != GUAC_TARGET_FILE || !fcntl(t->fd, F_OFD_SETLK, &fl))
		return true;
	if (errno != EAGAIN && errno != EACCES) {
		/* A file system without locks (some FUSE ones): the check after the fill stays. */
		guac_err("note: cannot lock '%s' (%s): a second guac write would not be refused",
			 f->o->target, strerror(errno));
		return true;
	}
	f->refusal.start = start;
	f->refusal.end = start + len;
	return false;
}

/*
 * On the open target, before a byte is written: that it is the target the
 * manifest's fill was of, that no other writer holds the bytes, and when
 * resuming, that the recorded fill is this one and not complete.
 */
static enum guac_fill_reason fill_claim(struct guac_fill *f)
{
	struct guac_fill_refusal *r = &f->refusal;

	/* A manifest of another target (its identity differs) is not this fill's to continue. */
	guac_ident_of(&f->t, f->m.identity, sizeof(f->m.identity));
	if (f->have_old && f->old.identity[0] &&
	    !guac_ident_diff(f->old.identity, f->m.identity, r->why, sizeof(r->why))) {
		guac_ident_describe(f->m.identity, r->which, sizeof(r->which));
		return fill_refuse(f, GUAC_FILL_OTHER_TARGET);
	}
	if (!fill_lock(f))
		return fill_refuse(f, GUAC_FILL_LOCKED);
	if (!f->o->resume)
		return GUAC_FILL_OK;
	if (!f->have_old) {
		fill_note(f, GUAC_FILL_NOTE_NEW_FILL);
		return GUAC_FILL_OK;
	}
	if (!guac_fill_resume_same(f, &f->old, &r->mismatch))
		return fill_refuse(f, GUAC_FILL_RESUME_DIFFERS);
	if (f->old.status == GUAC_STATUS_COMPLETE)
		return fill_refuse(f, GUAC_FILL_NOTHING_TO_RESUME);
	f->shape.jobs = f->old.nranges;	/* the recorded parts, each from its own durable end */
	return GUAC_FILL_OK;
}

/* The old manifest's fill moves to the history when this fill replaces it. */
static void fill_history(struct guac_manifest *m, const struct guac_manifest *old)
{
	unsigned int i;

	for (i = 0; i < old->nhistory && m->nhistory < GUAC_MANIFEST_MAX_HISTORY; i++)
		m->history[m->nhistory++] = old->history[i];
	if (old->origin == m->origin && old->stream_offset - old->device_offset ==
	    m->stream_offset - m->device_offset)
		return;	/* the same stream at the same place: nothing becomes stale */
	if (m->nhistory == GUAC_MANIFEST_MAX_HISTORY) {
		memmove(m->history, m->history + 1, sizeof(m->history[0]) * (m->nhistory - 1));
		m->nhistory--;
	}
	m->history[m->nhistory++] = (struct guac_manifest_history){
		.origin = old->origin, .stream_offset = old->stream_offset,
		.device_offset = old->device_offset, .length = old->length,
	};
	snprintf(m->history[m->nhistory - 1].finished, sizeof(m->history[0].finished), "%s",
		 old->finished[0] ? old->finished : old->started);
}

/* The manifest first says "running": a crash leaves a record of the attempt. */
static void fill_record_start(struct guac_fill *f)
{
	struct guac_manifest *m = &f->m;
	const struct guac_target *t = &f->t;

	snprintf(m->tool_version, sizeof(m->tool_version), "%s", guac_version());
	/* The host that writes, for a fleet's report; the run it is of. */
	snprintf(m->host, sizeof(m->host), "%s", f->o->host ? f->o->host : "");
	snprintf(m->run, sizeof(m->run), "%s", f->o->run ? f->o->run : "");
	m->stream_version = GUAC_STREAM_VERSION;
	m->origin = f->shape.origin;
	m->stream_offset = f->shape.offset;
	m->device_offset = f->shape.seek;
	m->length = f->shape.length;
	m->block_size = f->shape.block_size;
	m->sector_size = t->sector;
	m->direct = t->direct;
	m->sync = f->o->sync;
	snprintf(m->target_path, sizeof(m->target_path), "%s", f->target_abs);
	snprintf(m->target_type, sizeof(m->target_type), "%s",
		 t->kind == GUAC_TARGET_BLOCK ? "block" : "file");
	m->target_size = t->kind == GUAC_TARGET_BLOCK ? t->size :
			 (t->size > f->shape.seek + f->shape.length ? t->size : f->shape.seek + f->shape.length);
	snprintf(m->serial, sizeof(m->serial), "%s", t->serial);
	snprintf(m->wwid, sizeof(m->wwid), "%s", t->wwid);
	m->shard_index = f->o->shard.index;
	m->shard_count = f->o->shard.count;
	m->random = f->shape.random;
	m->seed = f->shape.seed;
	m->passes = f->shape.passes;
	m->pass_stride = f->shape.pass_stride;
	m->iodepth = f->iodepth > 1 ? f->iodepth : 1;
	m->bs_split = f->shape.split;
	m->status = GUAC_STATUS_RUNNING;
	guac_manifest_now(m->started, sizeof(m->started));
	if (f->have_old)
		fill_history(m, &f->old);
}

/* Where the block for run position @pos lands: a random pass's step @pos / bs is a block. */
static uint64_t fill_place(struct guac_io_job *job, uint64_t pos)
{
	const struct guac_fill_stream *s = job->priv;

	return s->perm ? guac_permute(s->perm, pos / s->bs) * s->bs : pos;
}

/* The bytes at the block's place: what a sequential fill of the pass's origin puts there. */
static void fill_produce(struct guac_io_job *job, uint8_t *buf, uint64_t pos, size_t len)
{
	const struct guac_fill_stream *s = job->priv;

	guac_spos_fill(s->impl, buf, s->origin, guac_spos_add(s->start, fill_place(job, pos)),
		       len);
}

/*
 * The size of the writes of the block produced for @pos: drawn for the fill's
 * --bs block it lands at (counted from the fill's first byte), in this pass.
 */
static size_t fill_piece(struct guac_io_job *job, uint64_t pos)
{
	const struct guac_fill_stream *s = job->priv;
	uint64_t index = (s->shard_start + fill_place(job, pos)) / s->bs;

	return (size_t)guac_bs_split_draw(s->split, s->seed, s->pass, index);
}

/* Each part continues from its durable end: the split must be the recorded one. */
static enum guac_fill_reason fill_resume_parts(struct guac_fill *f)
{
	const struct guac_manifest *old = &f->old;
	struct guac_io *io = &f->io;
	unsigned int i;

	for (i = 0; i < io->jobs && io->jobs == old->nranges; i++)
		if (old->range[i].device_offset != io->base + io->job[i].start ||
		    old->range[i].length != io->job[i].end - io->job[i].start)
			break;
	if (i != io->jobs || io->jobs != old->nranges)
		return fill_refuse(f, GUAC_FILL_RESUME_RANGES_DIFFER);
	for (i = 0; i < io->jobs; i++) {
		io->job[i].resume = old->range[i].done;
		atomic_store(&io->job[i].done, old->range[i].done);
		f->out.resumed += old->range[i].done;
	}
	f->pass = old->random ? old->pass : 0;	/* the steps done are this pass's */
	memcpy(f->m.started, old->started, sizeof(f->m.started));
	/* A requeued task that lost its run ID goes on in the run it began. */
	if (!f->m.run[0])
		memcpy(f->m.run, old->run, sizeof(f->m.run));
	return GUAC_FILL_OK;
}

/*
 * Verify while writing: the target opened again to read the blocks back,
 * with O_DIRECT where it can be (a tmpfs before Linux 6.6 cannot: then
 * through the page cache). False after a message.
 */
static bool fill_open_backlog(struct guac_fill *f)
{
	struct guac_io *io = &f->io;
	int flags = O_RDONLY | O_CLOEXEC;

	io->backlog_fd = -1;
	if (!io->backlog)
		return true;
	io->backlog_fd = open(f->o->target, flags | O_DIRECT);
	io->backlog_direct = io->backlog_fd >= 0;
	if (io->backlog_fd < 0 && errno == EINVAL)
		io->backlog_fd = open(f->o->target, flags);
	if (io->backlog_fd < 0)
		guac_err("cannot open '%s' to read the blocks written back: %s", f->o->target,
			 strerror(errno));
	return io->backlog_fd >= 0;
}

/* The jobs, each with its contiguous part of the shard. */
static enum guac_fill_reason fill_split(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	struct guac_io *io = &f->io;
	unsigned int i;

	io->target = &f->t;
	io->write = true;
	io->base = f->shape.seek + f->shard_start;
	io->length = f->shard_end - f->shard_start;
	io->bs = (size_t)f->shape.block_size;
	io->jobs = (unsigned int)f->shape.jobs;
	io->hooks.produce = fill_produce;
	io->hooks.place = f->shape.random ? fill_place : NULL;
	io->hooks.piece = f->shape.split.n ? fill_piece : NULL;
	io->backlog = o->verify_backlog;
	io->backlog_continue = o->backlog_continue;
	io->rate = o->rate;
	io->checkpoint_seconds = o->checkpoint_seconds;
	io->iodepth = f->iodepth;
	f->progress = (struct guac_progress){ .mode = o->progress,
					      .interval = o->progress_interval,
					      .label = "write", .target = o->target };
	io->progress = &f->progress;
	io->stop = &f->stop;
	/* A random pass's jobs take whole blocks of its steps. */
	guac_io_split(io, f->shape.random ? (unsigned int)f->shape.block_size : f->t.sector);
	f->stream = (struct guac_fill_stream){
		f->shape.origin, guac_spos_add(guac_spos_of(f->shape.offset), f->shard_start), o->impl,
		NULL, f->shape.block_size, 0, &f->shape.split, f->shape.random ? f->shape.seed : 0,
		f->shard_start };
	f->out.stream_start = f->stream.start;
	for (i = 0; i < io->jobs; i++)
		io->job[i].priv = &f->stream;
	if (!fill_open_backlog(f))
		return fill_refuse(f, GUAC_FILL_REFUSED_SAID);
	return o->resume && f->have_old ? fill_resume_parts(f) : GUAC_FILL_OK;
}

/* Progress into the manifest's ranges: one range per job. */
static void fill_ranges(struct guac_manifest *m, const struct guac_io *io, uint64_t shard_start,
			bool durable)
{
	unsigned int i;

	m->nranges = io->jobs;
	for (i = 0; i < io->jobs; i++) {
		const struct guac_io_job *j = &io->job[i];

		m->range[i] = (struct guac_manifest_range){
			.device_offset = m->device_offset + shard_start + j->start,
			.stream_offset = guac_spos_low64(guac_spos_add(
				guac_spos_of(m->stream_offset), shard_start + j->start)),
			.length = j->end - j->start,
			.done = durable ? atomic_load(&j->done) : 0,
		};
	}
}

/*
 * While the jobs write: the bytes done so far, fsynced (with O_DSYNC each
 * was durable when its write returned), go into the manifest, still
 * "running". A writer killed without a chance to save (SIGKILL, the node
 * lost: Slurm cancels a task "due to node failure") then leaves what a
 * resume continues from, not a fill to begin again. The count is taken
 * before the fsync, so every byte it says is durable is.
 */
static void fill_checkpoint(struct guac_io *io, void *arg)
{
	struct guac_fill_checkpoint *ck = arg;

	if (io->sync_error)
		return;
	fill_ranges(ck->m, io, ck->shard_start, true);
	/*
	 * A failed fsync is reported once per open file: the one at the end
	 * could then succeed over lost data. So the first failure is the
	 * run's, and nothing more is recorded as durable.
	 */
	if (!ck->sync && fsync(io->target->fd)) {
		io->sync_error = errno;
		return;
	}
	if (!guac_manifest_save(ck->path, ck->m) && !ck->warned) {
		guac_err("note: cannot record the progress in '%s' meanwhile", ck->path);
		ck->warned = true;
	}
}

/*
 * fill_check_file() of a random fill: its blocks land anywhere, so only a
 * pass written whole (the last one, or any before the pass under way) says
 * where data must be: all of the fill. A loss there leaves no block whose
 * content is known: every job's done is cut to nothing (the caller goes back
 * to the first pass).
 */
static const char *fill_check_random(const struct guac_target *t, struct guac_io *io,
				     char *why, size_t size)
{
	const struct guac_fill_stream *s = io->job[0].priv;
	uint64_t end = io->base + io->length;
	struct stat st;
	off_t hole;
	unsigned int i;

	if (s->pass == 0 && guac_io_done(io) < io->length)
		return NULL;	/* the first pass under way: holes are the blocks to come */
	hole = lseek(t->fd, (off_t)io->base, SEEK_HOLE);
	if (!fstat(t->fd, &st) && (uint64_t)st.st_size >= end && (hole < 0 || (uint64_t)hole >= end))
		return NULL;
	for (i = 0; i < io->jobs; i++)
		atomic_store(&io->job[i].done, 0);
	snprintf(why, size, "device bytes from %" PRIu64 " of the random fill are gone",
		 hole >= 0 && (uint64_t)hole < end ? (uint64_t)hole : (uint64_t)st.st_size);
	return "the target was truncated during the fill";
}

/*
 * After the final fsync, whether the file written still holds what the jobs
 * count as done: the path may have been removed or replaced, or the file
 * truncated, by someone else meanwhile. A truncation that later writes
 * extended again leaves a hole where the data was, which SEEK_HOLE finds.
 * Each job's done is cut to what is still there; returns the reason (for the
 * manifest's error; @why gets the details), or NULL when nothing was lost.
 */
static const char *fill_check_file(const struct guac_target *t, const char *path,
				   struct guac_io *io, char *why, size_t size)
{
	struct stat now, st;
	unsigned int i;
	bool lost = false;

	if (t->kind != GUAC_TARGET_FILE || fstat(t->fd, &st))
		return NULL;
	if (stat(path, &now) || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		for (i = 0; i < io->jobs; i++)
			atomic_store(&io->job[i].done, 0);
		snprintf(why, size, "'%s' no longer names the file written", path);
		return "the target was removed or replaced during the fill";
	}
	if (io->hooks.place)
		return fill_check_random(t, io, why, size);
	for (i = 0; i < io->jobs; i++) {
		struct guac_io_job *j = &io->job[i];
		uint64_t start = io->base + j->start, done = atomic_load(&j->done), keep = done;
		off_t hole;

		if (!done)
			continue;
		if ((uint64_t)st.st_size < start + keep)
			keep = (uint64_t)st.st_size > start ? (uint64_t)st.st_size - start : 0;
		hole = keep ? lseek(t->fd, (off_t)start, SEEK_HOLE) : -1;
		if (hole >= 0 && (uint64_t)hole < start + keep)
			keep = (uint64_t)hole - start;
		if (keep == done)
			continue;
		if (!lost)
			snprintf(why, size, "device bytes %" PRIu64 "-%" PRIu64 " written by job %u "
				 "are gone", start + keep, start + done - 1, i);
		lost = true;
		atomic_store(&j->done, keep);
	}
	return lost ? "the target was truncated during the fill" : NULL;
}

/* A pass begins: a random one's order and origin, for the producer and the manifest. */
static void fill_pass_begin(struct guac_fill *f)
{
	f->stream.pass = f->m.pass = f->pass;
	if (!f->shape.random)
		return;
	guac_permutation_init(&f->perm, f->io.length / f->shape.block_size,
			      guac_permutation_pass_seed(f->shape.seed, f->pass));
	f->stream.perm = &f->perm;
	f->stream.origin = guac_manifest_pass_origin(&f->m, f->pass);
}

/* The pass ended short of its steps: an error, a stop, a thread that did not start. */
static bool fill_pass_short(const struct guac_fill *f)
{
	const struct guac_io *io = &f->io;

	return guac_io_done(io) < io->length || io->sync_error || f->out.thread_err;
}

/*
 * A crash-safe fill: the pass's first record, synced, before any of its
 * writes, and the flushes while the jobs run. False (nothing written) when
 * the journal cannot be written.
 */
static bool fill_journal_begin(struct guac_fill *f)
{
	struct guac_io *io = &f->io;

	if (f->journal.fd < 0)
		return true;
	io->flush = guac_journal_flush;
	io->flush_arg = &f->journal;
	io->flush_seconds = f->o->flush_interval > 0 ? f->o->flush_interval :
			    GUAC_JOURNAL_DEFAULT_INTERVAL;
	if (!guac_journal_begin(&f->journal, io, f->pass))
		return true;
	f->out.journal_err = f->journal.error;
	return false;
}

/* After the pass's fsync: what it flushed, and whether the fill is whole. */
static void fill_journal_end(struct guac_fill *f)
{
	const struct guac_io *io = &f->io;
	bool whole = guac_io_done(io) == io->length && !fill_pass_short(f);

	if (f->journal.fd < 0)
		return;
	guac_journal_end(&f->journal, &f->io, whole && f->pass + 1 >= f->shape.passes);
	f->out.journal_err = f->journal.error;
	f->out.journal_records = f->journal.records;
}

/*
 * The jobs write a sequential fill in one run of the engine, a random one
 * in one run a pass (each ended by its fsync), from the pass and steps a
 * resume continues. A pass written whole is followed by the next, which
 * starts with none of its steps done, even when a stop came meanwhile: the
 * manifest then says so, and never that a pass short of the last is the end.
 */
static void fill_passes(struct guac_fill *f)
{
	struct guac_io *io = &f->io;
	uint64_t before = f->out.resumed;
	double seconds = 0;
	unsigned int i;

	io->progress_before = (uint64_t)f->pass * io->length;
	io->progress_total = f->shape.random ? f->shape.passes * io->length : 0;
	for (;;) {
		fill_pass_begin(f);
		if (!fill_journal_begin(f))
			return;
		f->out.thread_err = guac_io_run(io);
		fill_journal_end(f);
		/* This run's bytes, for its rate: before a loss cuts done below the resumed ones. */
		f->out.ran += guac_io_done(io) - before;
		seconds += io->seconds;
		io->seconds = seconds;	/* the whole write's, every pass */
		if (!f->shape.random || f->pass + 1 >= f->shape.passes || fill_pass_short(f) ||
		    f->out.journal_err)
			return;
		f->stream.pass = f->m.pass = ++f->pass;
		before = 0;
		io->progress_before += io->length;
		for (i = 0; i < io->jobs; i++) {
			io->job[i].resume = 0;
			atomic_store(&io->job[i].done, 0);
		}
		if (atomic_load(&f->stop))
			return;
	}
}

/* The jobs write; then what the file still holds of it, and its size. */
static void fill_jobs(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	struct guac_io *io = &f->io;
	struct stat st;

	if (o->manifest) {
		f->checkpoint = (struct guac_fill_checkpoint){ &f->m, o->manifest, f->shard_start,
							       o->sync, false };
		io->checkpoint = fill_checkpoint;
		io->checkpoint_arg = &f->checkpoint;
	}
	/* A file size limit must end in EFBIG, reported like ENOSPC, not in a kill. */
	signal(SIGXFSZ, SIG_IGN);
	guac_io_catch_signals(&f->stop);
	fill_passes(f);
	guac_progress_finish(&f->progress);
	f->out.lost = fill_check_file(&f->t, o->target, io, f->out.lost_why,
				      sizeof(f->out.lost_why));
	if (f->out.lost)
		f->pass = 0;	/* a random fill: no block's content is known (fill_check_random) */
	/* The size after the fill, which an error, a stop or a shard leave smaller. */
	if (f->t.kind == GUAC_TARGET_FILE && !fstat(f->t.fd, &st))
		f->m.target_size = (uint64_t)st.st_size;
}

/* The manifest's status and error for how the jobs ended. */
static void fill_status(struct guac_fill *f)
{
	struct guac_manifest *m = &f->m;
	const struct guac_fill_outcome *out = &f->out;
	int sync_error = f->io.sync_error;

	if (out->lost) {
		m->status = GUAC_STATUS_FAILED;
		snprintf(m->error, sizeof(m->error), "%s", out->lost);
	} else if (out->journal_err) {
		m->status = GUAC_STATUS_FAILED;
		snprintf(m->error, sizeof(m->error), "the crash-safe journal: %s",
			 strerror(out->journal_err));
	} else if (out->thread_err) {
		m->status = GUAC_STATUS_FAILED;
		snprintf(m->error, sizeof(m->error), "cannot start a thread: %s",
			 strerror(out->thread_err));
	} else if (out->first_err || sync_error) {
		m->status = GUAC_STATUS_FAILED;
		snprintf(m->error, sizeof(m->error), "%s%s", out->first_err ? "" : "fsync: ",
			 strerror(out->first_err ? out->first_err : sync_error));
	} else if (out->mismatches) {
		m->status = GUAC_STATUS_FAILED;
		snprintf(m->error, sizeof(m->error), "read back differs: device bytes %" PRIu64
			 "-%" PRIu64 ", first at byte %" PRIu64, out->mismatch_start,
			 out->mismatch_start + out->mismatch_len - 1, out->mismatch_byte);
	} else if (out->done < out->total) {
		m->status = GUAC_STATUS_INTERRUPTED;
	} else {
		m->status = GUAC_STATUS_COMPLETE;
	}
}

/* The jobs' read-backs (verify_backlog), summed, and the first mismatch. */
static void fill_read_back(struct guac_fill *f)
{
	const struct guac_io *io = &f->io;
	struct guac_fill_outcome *out = &f->out;
	unsigned int i;

	for (i = 0; i < io->jobs; i++) {
		const struct guac_io_job *j = &io->job[i];

		out->read_back_blocks += j->read_back_blocks;
		out->read_back_bytes += j->read_back_bytes;
		if (j->mismatches && !out->mismatches) {
			out->mismatch_start = io->base + j->mismatch_at;
			out->mismatch_len = j->mismatch_len;
			out->mismatch_byte = io->base + j->mismatch_byte;
		}
		out->mismatches += j->mismatches;
	}
}

/* After the jobs and the close: the outcome, recorded in the manifest. */
static void fill_conclude(struct guac_fill *f)
{
	const struct guac_io *io = &f->io;
	struct guac_fill_outcome *out = &f->out;
	unsigned int i;

	for (i = 0; i < io->jobs; i++) {
		if (io->job[i].error && !out->first_err) {
			out->first_err = io->job[i].error;
			out->first_err_pos = io->base + io->job[i].error_pos;
		}
	}
	fill_read_back(f);
	out->done = guac_io_done(io);
	out->total = io->length;
	/* With O_DSYNC each completed write was already durable; else fsync decides. */
	out->durable_ok = !io->sync_error || f->o->sync;
	out->durable = out->durable_ok ? out->done : 0;
	fill_ranges(&f->m, io, f->shard_start, out->durable_ok);
	f->m.pass = f->pass;
	f->m.seconds = io->seconds + (f->o->resume && f->have_old ? f->old.seconds : 0);
	guac_manifest_now(f->m.finished, sizeof(f->m.finished));
	out->failed = out->first_err || io->sync_error || out->thread_err || out->lost ||
		      out->mismatches || out->journal_err;
	fill_status(f);
	/* The record of the fill is what a later check reads: without it, no success. */
	out->saved = !f->o->manifest || guac_manifest_save(f->o->manifest, &f->m);
	out->failed |= !out->saved;
	/* The target's I/O, not this machine's memory or limits, first. */
	out->end = (out->first_err && !guac_errno_local(out->first_err)) || io->sync_error ?
		   GUAC_FILL_IO_ERROR : out->journal_err ? GUAC_FILL_JOURNAL_FAILED :
		   out->mismatches ? GUAC_FILL_BAD_DATA :
		   out->failed ? GUAC_FILL_FAILED :
		   out->done < out->total ? GUAC_FILL_INTERRUPTED : GUAC_FILL_COMPLETE;
}

/*
 * A crash-safe fill's journal, opened for writing: its own file (created if
 * missing) or device, or the target's path again. Its record describes the
 * fill; the parts and the state are the engine's (journal.c).
 */
static enum guac_fill_reason fill_open_journal(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	const struct guac_fill_shape *sh = &f->shape;
	struct guac_journal *j = &f->journal;

	if (!o->crash_safe)
		return GUAC_FILL_OK;
	j->fd = open(o->journal ? o->journal : o->target, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (j->fd < 0) {
		f->refusal.error = errno;
		return fill_refuse(f, GUAC_FILL_JOURNAL_UNUSABLE);
	}
	j->at = f->journal_at;
	j->rec = (struct guac_journal_record){
		.origin = sh->origin, .stream_offset = sh->offset, .seek = sh->seek,
		.length = sh->length, .block_size = sh->block_size, .seed = sh->seed,
		.pass_stride = sh->pass_stride, .random = sh->random, .passes = sh->passes,
		.sector = f->t.sector,
		.window = o->crash_window ? o->crash_window : GUAC_JOURNAL_DEFAULT_WINDOW,
		.split = sh->split,
	};
	return GUAC_FILL_OK;
}

enum guac_fill_reason guac_fill_run(struct guac_fill *f)
{
	const struct guac_fill_options *o = f->o;
	enum guac_fill_reason r;
	struct stat st;

	f->existed = !stat(o->target, &st);
	f->journal.fd = -1;
	if (!guac_target_open(&f->t, o->target, true, f->direct, o->sync))
		return fill_refuse(f, GUAC_FILL_TARGET_REFUSED);
	r = fill_claim(f);
	if (r)
		goto close;
	fill_record_start(f);
	r = fill_split(f);
	if (!r)
		r = fill_open_journal(f);
	if (r)
		goto close;
	fill_ranges(&f->m, &f->io, f->shard_start, true);
	if (o->manifest && !guac_manifest_save(o->manifest, &f->m)) {
		r = fill_refuse(f, GUAC_FILL_REFUSED_SAID);
		goto close;
	}
	if (o->resume && f->have_old)
		fill_note(f, GUAC_FILL_NOTE_RESUMING);
	fill_jobs(f);
close:
	guac_target_close(&f->t);
	if (f->journal.fd >= 0)
		close(f->journal.fd);
	guac_journal_release(&f->journal);
	if (f->io.backlog && f->io.backlog_fd >= 0)
		close(f->io.backlog_fd);
	/* A file the open created for another target's manifest is not left behind. */
	if (r == GUAC_FILL_OTHER_TARGET && !f->existed)
		unlink(o->target);
	if (!r)
		fill_conclude(f);
	return r;
}
