// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac write: fill a file or block device with a range of the stream, the
 * bytes `guac gen` with the same --origin, --offset and --length prints, at
 * byte --seek of the target, and record what was done in a manifest so that
 * guac verify can check it later and say which bytes are wrong.
 *
 * Every argument is checked, and the target probed, before the target is
 * opened for writing: a typo must never cost a disk.
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
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "cmds.h"
#include "io_engine.h"
#include "libguac.h"
#include "identity.h"
#include "manifest.h"
#include "io_options.h"
#include "shard.h"
#include "shard_env.h"
#include "util.h"
#include "write_target.h"

#define WRITE_EXIT_INTERRUPTED 130	/* 128 + SIGINT, as shells report it */

struct write_args {
	const char *target;
	uint64_t origin, offset, length, seek, bs, jobs;
	bool length_given, origin_given, offset_given, seek_given, bs_given;
	enum guac_direct direct;
	bool sync, resume, allow_overcommit;
	bool force, dry_run;		/* past the refusals (signatures, an aliasing origin); only print the plan */
	const char *manifest;
	const char *shard_arg, *shards_arg;
	const char *host;		/* --host, else GUAC_HOST, else gethostname() */
	const char *run;		/* --run, else GUAC_RUN, else none */
	int impl;
	bool json;			/* the report as one JSON object on standard output */
	enum guac_progress_mode progress;
	double progress_interval;
};

struct write_stream {
	uint64_t origin;
	struct guac_spos start;		/* the stream position at run position 0 */
	int impl;
};

static const struct guac_usage write_usage = {
	.synopsis = "Usage: guac write [OPTIONS] TARGET\n",
	.about =
		"Write the guacamole stream to TARGET, a block device or a regular file (created\n"
		"if missing, never truncated; never under /dev, /proc or /sys): byte --seek + k\n"
		"of TARGET gets byte --offset + k of the stream seen from block --origin, what\n"
		"`guac gen` prints. A target that holds a file system, partition table, RAID or\n"
		"LVM member (libblkid's signatures, as wipefs lists them) is refused unless\n"
		"--force; one in use (mounted, swap, held by dm or md, or a partition of it)\n"
		"or read-only is refused always.\n",
	.after =
		"With O_DIRECT, --seek, --length and --bs must be multiples of the sector size.\n"
		"Everything is fsynced at the end; the report says how many bytes are durable.\n"
		"Ctrl-C stops cleanly after the current block and records the progress.\n"
		"A log's first progress line comes after one interval: a shorter write prints\n"
		"none, a longer one ends with an \"ended\" line.\n"
		GUAC_NUMBERS_HELP "\n"
		"Exit status: 0 written and fsynced (--dry-run: the write would go ahead), 2 a\n"
		"usage error or a target refused (nothing written), 3 the target's I/O failed\n"
		"(EIO, ENOSPC, a failed fsync), 130 interrupted.\n",
};

/* @name, from @from, as one word of UTF-8 in @out: false with the reason said. */
static bool write_word(const char *name, const char *from, const char *what, char *out,
		       size_t size)
{
	const char *p;

	for (p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			break;
	if (!*name || *p || strlen(name) >= size || !guac_manifest_utf8(name)) {
		guac_err("invalid %s '%s': expected %s of 1 to %zu bytes of UTF-8, "
			 "no space or control character", from, name, what, size - 1);
		return false;
	}
	snprintf(out, size, "%s", name);
	return true;
}

/*
 * The host to record: --host, else GUAC_HOST when set and not empty (a
 * script's GUAC_HOST=${SLURMD_NODENAME:-} off Slurm), else gethostname().
 * A name given must be one word of UTF-8 (an inventory's HOST column): false
 * with the reason said; a host name that is not UTF-8 is left out.
 */
static bool write_host(const struct write_args *a, char *host, size_t size)
{
	const char *name = a->host, *from = "--host";

	if (!name && getenv("GUAC_HOST") && *getenv("GUAC_HOST")) {
		name = getenv("GUAC_HOST");
		from = "GUAC_HOST";
	}
	if (!name) {
		if (gethostname(host, size - 1) || !guac_manifest_utf8(host))
			host[0] = '\0';
		host[size - 1] = '\0';
		return true;
	}
	return write_word(name, from, "a host name", host, size);
}

/*
 * The run to record (issue 40): --run, else GUAC_RUN when set and not empty,
 * else none (empty). One word, as the host is: a report's --run names it.
 */
static bool write_run(const struct write_args *a, char *run, size_t size)
{
	const char *name = a->run, *from = "--run";

	if (!name && getenv("GUAC_RUN") && *getenv("GUAC_RUN")) {
		name = getenv("GUAC_RUN");
		from = "GUAC_RUN";
	}
	run[0] = '\0';
	return !name || write_word(name, from, "a run ID", run, size);
}

/* GUAC_EXIT_OK with @a filled, GUAC_PARSE_DONE after --help, or an exit status. */
static int write_parse(struct write_args *a, int argc, char **argv)
{
	char impl_help[128];
	const struct guac_option opts[] = {
		GUAC_OPT_U64_GIVEN('o', "offset", &a->offset, "BYTES",
				   "stream position of the first byte written (default 0)",
				   &a->offset_given),
		GUAC_OPT_U64_GIVEN('n', "length", &a->length, "BYTES",
				   "bytes to write (default: the rest of TARGET from --seek; required "
				   "for a file that is not that long)", &a->length_given),
		GUAC_OPT_U64_GIVEN(0, "origin", &a->origin, "BLOCK",
				   "block index added to the position, mod 2^64 (default: a fresh one "
				   "for every fill, printed; see docs/storage.md)", &a->origin_given),
		GUAC_OPT_U64_GIVEN(0, "seek", &a->seek, "BYTES",
				   "byte of TARGET where the data starts (default 0)", &a->seek_given),
		GUAC_OPT_CALLBACK(0, "direct", &a->direct, NULL,
				  "O_DIRECT: bypass the page cache (default for block devices; "
				  "refused where impossible, e.g. tmpfs)", guac_opt_direct),
		GUAC_OPT_CALLBACK(0, "buffered", &a->direct, NULL,
				  "go through the page cache, even on a block device",
				  guac_opt_direct),
		GUAC_OPT_CALLBACK_GIVEN(0, "bs", &a->bs, "BYTES",
					"bytes per write system call, whole sectors (default 1M)",
					guac_opt_bs, &a->bs_given),
		GUAC_OPT_CALLBACK('j', "jobs", &a->jobs, "N",
				  "threads, each writing its own contiguous part (default 1)",
				  guac_opt_jobs),
		GUAC_OPT_FLAG(0, "sync", &a->sync, "O_DSYNC: every write is durable when it returns"),
		GUAC_OPT_STRING('m', "manifest", &a->manifest, "FILE",
				"record the write (docs/manifest.md); an existing manifest of another "
				"stream range moves into its history; not TARGET itself"),
		GUAC_OPT_FLAG(0, "resume", &a->resume,
			      "continue the fill the manifest records, from its durable bytes (a "
			      "requeued batch task) with its options (--origin, --offset, --seek, "
			      "--length, --bs: any given must match) and target; no manifest yet: a "
			      "new fill; a writer killed outright resumes from what it recorded "
			      "while writing (every GUAC_CHECKPOINT_SECONDS, 10)"),
		GUAC_OPT_FLAG(0, "allow-overcommit", &a->allow_overcommit,
			      "write a file even when the length is more than its file system "
			      "reports free (thin-provisioned, compressing or deduplicating file "
			      "systems)"),
		GUAC_OPT_STRING(0, "shard", &a->shard_arg, "K/N",
				"write only part K of N equal sector-aligned parts (N and N x --jobs "
				"at most 4096, what a merge holds)"),
		GUAC_OPT_STRING(0, "shards", &a->shards_arg, "N",
				"the N for JOB_COMPLETION_INDEX (also GUAC_SHARDS); "
				"SLURM_ARRAY_TASK_ID/COUNT work alone"),
		GUAC_OPT_STRING(0, "host", &a->host, "NAME",
				"the host the manifest records (default: GUAC_HOST, else the host "
				"name): the name a fleet's inventory uses, such as Slurm's "
				"SLURMD_NODENAME or a pod's node"),
		GUAC_OPT_FLAG('f', "force", &a->force,
			      "write over the signatures found on TARGET (file system, partition "
			      "table, RAID or LVM member), not over a target in use; and write an "
			      "--origin whose stream is within the target's length of a fill the "
			      "manifest records (the bytes alias)"),
		GUAC_OPT_FLAG(0, "dry-run", &a->dry_run,
			      "check everything, print the plan (target, its kind, size and "
			      "signatures, the range, the manifest) and write nothing, not even "
			      "the manifest"),
		GUAC_OPT_STRING(0, "run", &a->run, "ID",
				"the run the manifest records (default: GUAC_RUN, else none; a resume "
				"without one keeps the manifest's): the fleet run this fill is of, "
				"which `guac report --run ID` counts alone (a Slurm job or array ID, "
				"a label)"),
		GUAC_OPT_FLAG(0, "json", &a->json,
			      "print the report as one JSON object on standard output (the text's "
			      "facts, the exit status and its reason)"),
		GUAC_OPT_CALLBACK(0, "progress", &a->progress, "MODE",
				  GUAC_IO_PROGRESS_HELP "), none, or auto (default: tty on a terminal, "
				  "else log, as in a batch job's output file)", guac_opt_progress),
		GUAC_OPT_CALLBACK(0, "progress-interval", &a->progress_interval, "SECONDS",
				  "seconds between log lines (default 30)", guac_opt_progress_interval),
		GUAC_OPT_CALLBACK(0, "impl", &a->impl, "NAME", impl_help, guac_opt_impl),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n;

	snprintf(impl_help, sizeof(impl_help), "generator: %s", guac_impl_choices());
	n = guac_parse_options(argc, argv, opts, &write_usage, 0);
	if (n < 0)
		return n == GUAC_PARSE_DONE ? GUAC_PARSE_DONE : GUAC_EXIT_ERROR;
	if (n != 1) {
		if (!n)
			guac_err("missing TARGET (a block device or a regular file)");
		else
			guac_err("unexpected argument '%s' after TARGET", argv[1]);
		return GUAC_EXIT_ERROR;
	}
	a->target = argv[0];
	if (a->json && a->dry_run) {
		guac_err("--json reports a write: not with --dry-run (its plan is text)");
		return GUAC_EXIT_ERROR;
	}
	return GUAC_EXIT_OK;
}

/*
 * Size and sector of TARGET before it is opened for writing, and what is
 * on it (@p); a missing file is empty. A target that cannot be meant (a
 * missing device, a read-only one) is refused here.
 */
static bool write_probe(const char *path, struct guac_target *t, struct guac_probe *p)
{
	struct stat st;

	guac_probe_target(path, p);
	if (!write_target_usable(path, p))
		return false;
	if (stat(path, &st) && errno == ENOENT) {
		memset(t, 0, sizeof(*t));
		snprintf(t->path, sizeof(t->path), "%s", path);
		t->kind = GUAC_TARGET_FILE;
		t->sector = guac_dir_sector(path);	/* O_DIRECT's alignment there */
		return true;
	}
	if (!guac_target_probe(t, path))
		return false;
	if (t->kind == GUAC_TARGET_STREAM) {
		guac_err("'%s' is neither a regular file nor a block device", path);
		return false;
	}
	return true;
}

/* The manifest is written after the target is opened: find out now if it cannot be. */
static bool write_manifest_dir_unwritable(const char *path)
{
	char copy[4096];
	const char *dir;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (access(dir, W_OK)) {
		guac_err("cannot write the manifest in '%s': %s", dir, strerror(errno));
		return true;
	}
	return false;
}

/*
 * @path made absolute without following its last component: the directory
 * is resolved (so "cd elsewhere; guac verify -m" finds the target), but a
 * /dev/disk/by-id/ link stays the stable name it was typed as.
 */
static bool write_abspath(const char *path, char *out, size_t size)
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
 * The manifest is renamed into place at the end: if its path is the
 * target's (typed twice, or a symlink or hard link to it), the data would
 * be replaced by the manifest. Same inode, or the same absolute path for
 * files not yet created. (A dangling symlink is replaced, not followed.)
 */
static bool write_manifest_is_target(const char *manifest, const char *target)
{
	char ma[PATH_MAX + 256], ta[PATH_MAX + 256];
	struct stat ms, ts;

	if (!stat(manifest, &ms) && !stat(target, &ts))
		return ms.st_dev == ts.st_dev && ms.st_ino == ts.st_ino;
	return write_abspath(manifest, ma, sizeof(ma)) && write_abspath(target, ta, sizeof(ta)) &&
	       !strcmp(ma, ta);
}

static void write_produce(struct guac_io_job *job, uint8_t *buf, uint64_t pos, size_t len)
{
	const struct write_stream *s = job->priv;

	guac_spos_fill(s->impl, buf, s->origin, guac_spos_add(s->start, pos), len);
}

/* The old manifest's fill moves to the history when this write replaces it. */
static void write_history(struct guac_manifest *m, const struct guac_manifest *old)
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

/*
 * The bytes a write fills in a file target are its alone while it runs: an
 * OFD write lock on [@start, @start + @len), the shard's part of the file, so
 * that the shards of one fill run at once (from several hosts, on a
 * clustered file system) while a second write of the same bytes is refused.
 * It is advisory: it stops a second guac write, which takes it too (block
 * devices have O_EXCL for that), not other programs; what they do meanwhile
 * write_check_file() finds afterwards.
 */
static bool write_lock(const struct guac_target *t, const char *path, uint64_t start,
		       uint64_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)start,
			    .l_len = (off_t)len };

	if (t->kind != GUAC_TARGET_FILE || !fcntl(t->fd, F_OFD_SETLK, &fl))
		return true;
	if (errno != EAGAIN && errno != EACCES) {
		/* A file system without locks (some FUSE ones): the check after the fill stays. */
		guac_err("note: cannot lock '%s' (%s): a second guac write would not be refused",
			 path, strerror(errno));
		return true;
	}
	guac_err("'%s' is being written by another guac write (it holds the lock of bytes %"
		 PRIu64 "-%" PRIu64 " or some of them): two fills of the same bytes at once would "
		 "both be wrong; nothing written", path, start, start + len - 1);
	return false;
}

/*
 * After the final fsync, whether the file written still holds what the jobs
 * count as done: the path may have been removed or replaced, or the file
 * truncated, by someone else meanwhile. A truncation that later writes
 * extended again leaves a hole where the data was, which SEEK_HOLE finds.
 * Each job's done is cut to what is still there; returns the reason (for the
 * manifest's error; @why gets the details), or NULL when nothing was lost.
 */
static const char *write_check_file(const struct guac_target *t, const char *path,
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

/*
 * --resume: what of the recorded fill @old differs from this write, or NULL
 * when it is the same fill of the same target, so that the bytes it counts
 * durable need not be written again.
 */
static const char *write_resume_differs(const struct write_args *a, const struct guac_manifest *old,
					const struct guac_shard *shard, const struct guac_target *t,
					const char *target_abs)
{
	static char why[160];
	const char *name = NULL;
	uint64_t was = 0, now = 0;

	/* The numbers with their values: the one to give again, or to leave out. */
	if (a->origin_given && old->origin != a->origin)
		name = "origin", was = old->origin, now = a->origin;
	else if (old->stream_offset != a->offset)
		name = "stream offset (--offset)", was = old->stream_offset, now = a->offset;
	else if (old->device_offset != a->seek)
		name = "device offset (--seek)", was = old->device_offset, now = a->seek;
	else if (old->length != a->length)
		name = "length", was = old->length, now = a->length;
	else if (old->block_size != a->bs)
		name = "block size (--bs)", was = old->block_size, now = a->bs;
	if (name) {
		snprintf(why, sizeof(why), "%s differs (recorded %" PRIu64 ", given %" PRIu64
			 "; without it --resume takes the recorded one)", name, was, now);
		return why;
	}
	return old->sector_size != t->sector ? "sector size differs" :
	       old->shard_index != shard->index || old->shard_count != shard->count ? "shard differs" :
	       strcmp(old->target_path, target_abs) ? "target path differs" :
	       strcmp(old->target_type, t->kind == GUAC_TARGET_BLOCK ? "block" : "file") ?
	       "target type differs" :
	       strcmp(old->serial, t->serial) ? "target serial differs" :
	       strcmp(old->wwid, t->wwid) ? "target WWN differs" :
	       old->direct != t->direct ? "I/O mode (--direct/--buffered) differs" : NULL;
}

/* "1.50 GiB" of @n, for the messages below. */
static const char *write_human(char *buf, size_t size, uint64_t n)
{
	return guac_fmt_bytes(buf, size, (double)n);
}

/*
 * Bytes of [@start, @end) that the file @path already has allocated: writing
 * over them needs no new space. SEEK_DATA/SEEK_HOLE find the data; a file
 * system that reports everything as data is capped by the blocks the file
 * has (st_blocks). 0 for a file that does not exist yet.
 */
static uint64_t write_allocated(const char *path, uint64_t start, uint64_t end)
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
 * Whether a regular file can hold device bytes [@start, @end) at all, found
 * before anything is written (a length typed with T for G, or 2^63-1, would
 * otherwise write until the file system is full): the largest offset Linux
 * has (2^63-1), the file system's largest
 * file (its s_maxbytes, which lseek() enforces: guac_target_seek_fits(), a
 * seek to @end on the target, or on an empty probe file beside it, removed
 * at once, changes no data; pathconf's FILESIZEBITS is no help, glibc says 32 for tmpfs), and
 * its free space (statvfs: what the file does not hold yet must fit in
 * f_bavail, the space available to unprivileged users; root's use of
 * reserved blocks is not counted on; ramfs, which reports no size, is not
 * checked). False after a message with the
 * numbers. @allow_overcommit skips the free-space check only. A process's
 * own file size limit (ulimit -f) is left to the write, which ends in EFBIG
 * with the durable bytes reported and recorded (the suites use it as a
 * fault that really happens).
 */
static bool write_file_fits(const struct write_args *a, const struct guac_target *t,
			    uint64_t start, uint64_t end)
{
	char copy[4096], h1[32], h2[32];
	const char *dir;
	struct statvfs vfs;
	uint64_t avail, need, have;

	if (t->kind != GUAC_TARGET_FILE)
		return true;
	snprintf(copy, sizeof(copy), "%s", a->target);
	dir = dirname(copy);
	if (end > (uint64_t)INT64_MAX) {
		guac_err("refusing to write: the data would end at byte %" PRIu64 " of '%s', past "
			 "2^63-1 = %" PRId64 ", the largest file offset Linux has; nothing written",
			 end, a->target, INT64_MAX);
		return false;
	}
	if (!guac_target_seek_fits(a->target, dir, end)) {
		guac_err("refusing to write: the data would end at byte %" PRIu64 " of '%s' (%s), "
			 "past the largest file its file system holds (a seek there is refused); "
			 "nothing written", end, a->target, write_human(h1, sizeof(h1), end));
		return false;
	}
	/* A file system that reports no size (ramfs: f_blocks 0) has no free space to check. */
	if (!a->allow_overcommit && !statvfs(t->size ? a->target : dir, &vfs) && vfs.f_blocks) {
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		have = write_allocated(a->target, start, end);
		need = end - start - have;
		if (need > avail) {
			guac_err("refusing to write: %" PRIu64 " bytes (%s) at device bytes %" PRIu64
				 "-%" PRIu64 " of '%s' need %" PRIu64 " bytes of new space (the file "
				 "already holds %" PRIu64 " of them), but its file system has %" PRIu64
				 " bytes (%s) available (statvfs f_bavail); the fill would end in "
				 "ENOSPC. Nothing written. Give a --length that fits, or "
				 "--allow-overcommit for a thin-provisioned, compressing or "
				 "deduplicating file system that holds more than it reports free",
				 end - start, write_human(h1, sizeof(h1), end - start), start, end - 1,
				 a->target, need, have, avail, write_human(h2, sizeof(h2), avail));
			return false;
		}
	}
	return true;
}

/*
 * Buffers: each job holds up to two of --bs bytes (the block written and the
 * next one generated), of which it touches no more than its part. More than
 * the machine's memory cannot be meant.
 */
static bool write_memory_fits(const struct write_args *a, uint64_t length, unsigned int sector)
{
	uint64_t jobs = a->jobs, mem, need, part, sectors = length / sector + (length % sector != 0);
	char h1[32], h2[32];

	if (jobs > sectors)
		jobs = sectors;	/* guac_io_split() drops parts with nothing to do */
	if (!jobs)
		return true;
	/* A job touches no more of its buffers than its part: memory is taken as it is used. */
	part = length / jobs + (length % jobs != 0);
	if (!guac_buffers_fit(jobs, part < a->bs ? part : a->bs, &need, &mem)) {
		guac_err("refusing to write: %" PRIu64 " jobs with --bs %" PRIu64 " need %" PRIu64
			 " bytes (%s) of buffers (two blocks a job), more than this machine's "
			 "memory, %" PRIu64 " bytes (%s); use fewer jobs or a smaller --bs", jobs,
			 a->bs, need, write_human(h1, sizeof(h1), need), mem,
			 write_human(h2, sizeof(h2), mem));
		return false;
	}
	return true;
}

/* Progress into the manifest's ranges: one range per job. */
static void write_ranges(struct guac_manifest *m, const struct guac_io *io, uint64_t shard_start,
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

/* What write_checkpoint needs besides the engine: the manifest being filled in. */
struct write_ckpt {
	struct guac_manifest *m;
	const char *path;
	uint64_t shard_start;
	bool sync;
	bool warned;
};

/*
 * While the jobs write: the bytes done so far, fsynced (with --sync each was
 * durable when its write returned), go into the manifest, still "running".
 * A writer killed without a chance to save (SIGKILL, the node lost: Slurm
 * cancels a task "due to node failure") then leaves what --resume continues
 * from, not a fill to begin again. The count is taken before the fsync, so
 * every byte it says is durable is.
 */
static void write_checkpoint(struct guac_io *io, void *arg)
{
	struct write_ckpt *ck = arg;

	if (io->sync_error)
		return;
	write_ranges(ck->m, io, ck->shard_start, true);
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

/* GUAC_CHECKPOINT_SECONDS: between write_checkpoint's records (default 10; 0: none). */
static bool write_checkpoint_seconds(double *secs)
{
	const char *env = getenv("GUAC_CHECKPOINT_SECONDS");
	char *end;

	*secs = 10;
	if (!env || !*env)
		return true;
	errno = 0;
	*secs = strtod(env, &end);
	if (errno || *end || !(*secs >= 0 && *secs <= 86400)) {
		guac_err("invalid GUAC_CHECKPOINT_SECONDS '%s': expected 0 (never) to 86400", env);
		return false;
	}
	return true;
}

/* What a write did, for its report in text or JSON and its exit status. */
struct write_outcome {
	const struct write_args *a;
	const struct guac_target *t;
	const struct guac_io *io;
	const struct guac_manifest *m;
	const struct guac_shard *shard;
	struct guac_spos stream_start;	/* the stream position at the first device byte */
	uint64_t done, durable, total;	/* bytes of the fill written, durable, in all */
	uint64_t ran, resumed;		/* written by this run; durable before it (--resume) */
	int first_err;			/* the first job's errno, at device byte first_err_pos */
	uint64_t first_err_pos;
	int thread_err;
	const char *lost, *lost_why;	/* the file lost bytes during the fill, and where */
	bool durable_ok, failed, saved;
	int exit_status;
};

/* The exit status, from the worst of what happened; @ret: an error found before. */
static int write_exit_status(const struct write_outcome *o, int ret)
{
	/* The target's I/O, not this machine's memory or limits: exit status 3. */
	if ((o->first_err && !guac_errno_local(o->first_err)) || o->io->sync_error)
		return GUAC_EXIT_IO;
	if (o->failed)
		return GUAC_EXIT_ERROR;
	if (o->done < o->total)
		return WRITE_EXIT_INTERRUPTED;
	return ret;
}

/* The word a script tests: why the write ended with its exit status. */
static const char *write_exit_reason(const struct write_outcome *o)
{
	switch (o->exit_status) {
	case GUAC_EXIT_OK:
		return "complete";
	case GUAC_EXIT_IO:
		return "io_error";
	case WRITE_EXIT_INTERRUPTED:
		return "interrupted";
	default:
		return "error";
	}
}

/* The FAILED lines, and the OK, INTERRUPTED or DURABLE line with the fill's numbers. */
static void write_report_text(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	char human[32], rate[32], soff[32];
	unsigned int i;

	guac_fmt_bytes(human, sizeof(human), (double)o->durable);
	guac_fmt_rate(rate, sizeof(rate), io->seconds > 0 ? o->ran / io->seconds : 0);
	if (o->first_err)
		printf("FAILED: %s at device byte %" PRIu64 " (sector %" PRIu64 ")\n",
		       strerror(o->first_err), o->first_err_pos, o->first_err_pos / o->t->sector);
	if (io->sync_error)
		printf("FAILED: fsync: %s%s\n", strerror(io->sync_error),
		       o->a->sync ? " (each write was O_DSYNC, so what completed is durable)" :
		       ": no byte of this run can be counted durable");
	if (o->thread_err)
		printf("FAILED: cannot start a thread: %s: its part was not written\n",
		       strerror(o->thread_err));
	if (o->lost)
		printf("FAILED: %s: %s\n", o->lost, o->lost_why);
	if (!o->saved)
		printf("FAILED: the manifest '%s' could not be saved: no record of this fill\n",
		       o->a->manifest);
	printf("%s", !o->failed && o->done == o->total ? "OK: " : !o->failed ? "INTERRUPTED: " :
	       "DURABLE: ");
	/*
	 * Short of the whole, the range is the fill's, not what is durable: say
	 * so (issue 36, U10; the job lines below say which bytes are).
	 */
	printf("%" PRIu64 " of %" PRIu64 " bytes (%s) durable (fsynced)%s at device bytes %" PRIu64
	       "-%" PRIu64 " of %s '%s': stream offset %s, origin %" PRIu64,
	       o->durable, o->total, human, o->durable == o->total ? "" : ", of the fill",
	       io->base, io->base + o->total - 1,
	       o->t->kind == GUAC_TARGET_BLOCK ? "block device" : "file", o->a->target,
	       guac_spos_str(soff, sizeof(soff), o->stream_start), o->a->origin);
	if (o->shard->count > 1)
		printf(", shard %u/%u", o->shard->index, o->shard->count);
	printf("; %s I/O, %u job%s, bs %" PRIu64 ", %u-byte sectors; %.3f s, %s\n",
	       guac_target_mode(o->t), io->jobs, io->jobs == 1 ? "" : "s", o->a->bs,
	       o->t->sector, io->seconds, rate);
	if (o->durable < o->total && o->durable_ok) {
		for (i = 0; i < io->jobs; i++) {
			const struct guac_io_job *j = &io->job[i];
			uint64_t d = atomic_load(&j->done);

			if (d == j->end - j->start)
				continue;
			printf("  job %u: ", i);
			if (d)
				printf("device bytes %" PRIu64 "-%" PRIu64 " durable, ",
				       io->base + j->start, io->base + j->start + d - 1);
			printf("device bytes %" PRIu64 "-%" PRIu64 " not written\n",
			       io->base + j->start + d, io->base + j->end - 1);
		}
	}
}

/* "key":"value" (null when empty), with the comma before it. */
static void write_json_text(const char *key, const char *value)
{
	printf(",\"%s\":", key);
	if (value && *value)
		guac_json_string(stdout, value);
	else
		printf("null");
}

/* The parts not durable, as the text's job lines: "not_durable":[{...}]. */
static void write_json_not_durable(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	unsigned int i, n = 0;

	printf(",\"not_durable\":[");
	for (i = 0; i < io->jobs; i++) {
		const struct guac_io_job *j = &io->job[i];
		uint64_t d = o->durable_ok ? atomic_load(&j->done) : 0;

		if (d == j->end - j->start)
			continue;
		printf("%s{\"job\":%u,\"first_byte\":%" PRIu64 ",\"last_byte\":%" PRIu64 "}",
		       n++ ? "," : "", i, io->base + j->start + d, io->base + j->end - 1);
	}
	printf("]");
}

/*
 * --resume of a fill the manifest records complete: nothing is written, and
 * the report says so (--json: an object with the recorded numbers).
 */
static void write_report_complete(const struct write_args *a, const struct guac_manifest *old)
{
	if (!a->json) {
		printf("OK: nothing to resume: '%s' records this fill complete, %" PRIu64
		       " bytes durable (finished %s)\n", a->manifest, guac_manifest_done(old),
		       old->finished);
		return;
	}
	printf("{\"target\":");
	guac_json_string(stdout, a->target);
	printf(",\"kind\":\"%s\",\"origin\":%" PRIu64 ",\"offset\":%" PRIu64
	       ",\"device_offset\":%" PRIu64 ",\"length\":%" PRIu64 ",\"bytes_written\":0"
	       ",\"bytes_durable\":%" PRIu64 ",\"status\":\"complete\",\"result\":\"ok\""
	       ",\"nothing_to_resume\":true", old->target_type, old->origin, old->stream_offset,
	       old->device_offset, old->length, guac_manifest_done(old));
	write_json_text("manifest", a->manifest);
	write_json_text("finished", old->finished);
	printf(",\"exit_status\":0,\"exit_reason\":\"complete\"}\n");
}

/* --json: the text report's facts as one object on standard output. */
static void write_report_json(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	const struct guac_manifest *m = o->m;
	char soff[32];

	printf("{\"target\":");
	guac_json_string(stdout, o->a->target);
	printf(",\"kind\":\"%s\",\"size\":%" PRIu64 ",\"sector\":%u",
	       o->t->kind == GUAC_TARGET_BLOCK ? "block" : "file", m->target_size, o->t->sector);
	write_json_text("serial", m->serial);
	write_json_text("wwid", m->wwid);
	write_json_text("identity", m->identity);
	write_json_text("host", m->host);
	write_json_text("run", m->run);
	printf(",\"origin\":%" PRIu64 ",\"offset\":%s,\"device_offset\":%" PRIu64
	       ",\"length\":%" PRIu64 ",\"shard\":", o->a->origin,
	       guac_spos_str(soff, sizeof(soff), o->stream_start), io->base, o->total);
	if (o->shard->count > 1) {
		printf("{\"index\":%u,\"count\":%u,\"from\":", o->shard->index, o->shard->count);
		guac_json_string(stdout, o->shard->source);
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"io_mode\":\"%s\",\"jobs\":%u,\"block_size\":%" PRIu64 ",\"sync\":%s"
	       ",\"resumed_bytes\":%" PRIu64 ",\"bytes_written\":%" PRIu64
	       ",\"bytes_durable\":%" PRIu64 ",\"fsynced\":%s",
	       guac_target_mode(o->t), io->jobs, o->a->bs, o->a->sync ? "true" : "false",
	       o->resumed, o->done, o->durable, o->durable_ok ? "true" : "false");
	write_json_not_durable(o);
	printf(",\"status\":\"%s\",\"result\":\"%s\"", guac_fill_status_name(m->status),
	       !o->failed && o->done == o->total ? "ok" : !o->failed ? "interrupted" : "failed");
	write_json_text("error", m->error);
	if (o->first_err)
		printf(",\"error_byte\":%" PRIu64 ",\"error_sector\":%" PRIu64, o->first_err_pos,
		       o->first_err_pos / o->t->sector);
	write_json_text("manifest", o->a->manifest);
	printf(",\"manifest_saved\":%s", o->a->manifest && o->saved ? "true" : "false");
	write_json_text("started", m->started);
	write_json_text("finished", m->finished);
	printf(",\"seconds\":%.6f,\"bytes_per_second\":%.0f,\"exit_status\":%d,"
	       "\"exit_reason\":\"%s\"}\n", io->seconds,
	       io->seconds > 0 ? o->ran / io->seconds : 0.0, o->exit_status, write_exit_reason(o));
}

int guac_cmd_write(int argc, char **argv)
{
	static struct write_args a = { .bs = GUAC_IO_DEFAULT_BS, .jobs = 1 };
	static struct guac_manifest m, old;
	static struct guac_target t;
	static struct guac_probe probe;
	static char target_abs[sizeof(m.target_path)];
	static struct guac_io io;
	static atomic_bool stop;
	static struct guac_progress progress;
	struct write_stream stream;
	struct write_outcome out;
	struct write_ckpt ckpt;
	struct guac_shard shard;
	uint64_t shard_start, shard_end, durable, done, total, ran, resumed = 0;
	bool have_old = false, durable_ok, existed;
	const struct guac_manifest *resume_of;
	unsigned int i;
	int ret, first_err = 0, thread_err;
	uint64_t first_err_pos = 0;
	bool failed, saved = true;
	char lost_why[256], ident_why[512];
	const char *lost;
	struct stat st;

	/* The state is static for its size: each call starts from the defaults. */
	a = (struct write_args){ .bs = GUAC_IO_DEFAULT_BS, .jobs = 1,
				 .progress_interval = GUAC_PROGRESS_LOG_SECONDS };
	guac_progress_parse("auto", &a.progress);
	memset(&m, 0, sizeof(m));
	memset(&old, 0, sizeof(old));
	memset(&t, 0, sizeof(t));
	memset(&io, 0, sizeof(io));
	target_abs[0] = 0;
	atomic_store(&stop, false);
	a.impl = guac_impl_best();
	ret = write_parse(&a, argc, argv);
	if (ret)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	if (!guac_shard_parse(&shard, a.shard_arg, a.shards_arg))
		return GUAC_EXIT_ERROR;
	/* Each job writes a range of its own: the merged manifest holds them all. */
	if (shard.count > 1 && shard.count * a.jobs > GUAC_MANIFEST_MAX_RANGES) {
		guac_err("%u shards of %" PRIu64 " jobs each would make %" PRIu64 " ranges, and "
			 "guac manifest merge holds at most %d: use at most %u jobs per shard",
			 shard.count, a.jobs, shard.count * a.jobs, GUAC_MANIFEST_MAX_RANGES,
			 GUAC_MANIFEST_MAX_RANGES / shard.count);
		return GUAC_EXIT_ERROR;
	}
	if (a.resume && !a.manifest) {
		guac_err("--resume needs --manifest (the fill to continue is recorded there)");
		return GUAC_EXIT_ERROR;
	}
	/*
	 * --resume continues the recorded fill: the options it was written with
	 * are taken from there when not given again (issue 36, U10); a given one
	 * that differs is refused below, named.
	 */
	if (a.resume && !write_manifest_is_target(a.manifest, a.target) &&
	    !access(a.manifest, F_OK)) {
		if (!guac_manifest_load(a.manifest, &old)) {
			guac_err("refusing to write: '%s' exists and is not a valid manifest "
				 "(move it away to start a new one)", a.manifest);
			return GUAC_EXIT_ERROR;
		}
		have_old = true;
		a.origin = a.origin_given ? a.origin : old.origin;
		a.offset = a.offset_given ? a.offset : old.stream_offset;
		a.seek = a.seek_given ? a.seek : old.device_offset;
		a.length = a.length_given ? a.length : old.length;
		a.bs = a.bs_given ? a.bs : old.block_size;
		if (a.direct == GUAC_DIRECT_DEFAULT)
			a.direct = old.direct ? GUAC_DIRECT_ON : GUAC_DIRECT_OFF;
		a.origin_given = a.length_given = true;
	}
	if (!write_host(&a, m.host, sizeof(m.host)) || !write_run(&a, m.run, sizeof(m.run)))
		return GUAC_EXIT_ERROR;
	if (!write_checkpoint_seconds(&io.checkpoint_seconds))
		return GUAC_EXIT_ERROR;
	if (!write_probe(a.target, &t, &probe))
		return GUAC_EXIT_ERROR;

	/* Everything that can be wrong is found here, before the open for writing. */
	if (!a.length_given) {
		if (t.size <= a.seek) {
			guac_err("--length is needed: '%s' holds %" PRIu64 " bytes, nothing after "
				 "--seek %" PRIu64, a.target, t.size, a.seek);
			return GUAC_EXIT_ERROR;
		}
		a.length = t.size - a.seek;
	}
	if (a.seek + a.length < a.seek) {
		guac_err("--seek %" PRIu64 " + --length %" PRIu64 " overflows", a.seek, a.length);
		return GUAC_EXIT_ERROR;
	}
	if (t.kind == GUAC_TARGET_BLOCK && a.seek + a.length > t.size) {
		guac_err("--seek %" PRIu64 " + --length %" PRIu64 " = %" PRIu64 " is past the end "
			 "of '%s' (%" PRIu64 " bytes)", a.seek, a.length, a.seek + a.length,
			 a.target, t.size);
		return GUAC_EXIT_ERROR;
	}
	if (a.direct == GUAC_DIRECT_ON || (a.direct == GUAC_DIRECT_DEFAULT &&
					   t.kind == GUAC_TARGET_BLOCK)) {
		if (a.seek % t.sector || a.length % t.sector || a.bs % t.sector) {
			/*
			 * A disk takes whole sectors whatever the mode (--buffered
			 * would only read the partial ones back first): say what
			 * to give, not how to get round it (issue 36, U10).
			 */
			if (t.kind == GUAC_TARGET_BLOCK)
				guac_err("'%s' is written in whole %u-byte sectors: give --seek, "
					 "--length and --bs in multiples of %u (got %" PRIu64 ", %"
					 PRIu64 ", %" PRIu64 "; for example --seek %" PRIu64
					 " --length %" PRIu64 ")", a.target, t.sector, t.sector,
					 a.seek, a.length, a.bs, a.seek / t.sector * t.sector,
					 a.length / t.sector * t.sector);
			else
				guac_err("--direct on '%s' needs --seek, --length and --bs in whole "
					 "%u-byte sectors (got %" PRIu64 ", %" PRIu64 ", %" PRIu64
					 "); without --direct a file takes any size", a.target,
					 t.sector, a.seek, a.length, a.bs);
			return GUAC_EXIT_ERROR;
		}
	}
	if (!a.length) {
		guac_err("--length 0: nothing to write");
		return GUAC_EXIT_ERROR;
	}
	/* Every shard has a sector at least: no shard count beyond the sectors. */
	if (!guac_shard_fits(&shard, a.length, t.sector, "refusing to write"))
		return GUAC_EXIT_ERROR;
	guac_shard_range(&shard, a.length, t.sector, &shard_start, &shard_end);
	/* The manifest records whole sectors; O_DIRECT and verify's reads need them too. */
	if (a.bs % t.sector) {
		guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector size of '%s'",
			 a.bs, t.sector, a.target);
		return GUAC_EXIT_ERROR;
	}
	/* A length, job count or block size that cannot be meant: refused before any byte. */
	if (!write_memory_fits(&a, shard_end - shard_start, t.sector) ||
	    !write_file_fits(&a, &t, a.seek + shard_start, a.seek + shard_end))
		return GUAC_EXIT_ERROR;
	if (a.manifest && write_manifest_is_target(a.manifest, a.target)) {
		guac_err("refusing to write: the manifest '%s' is the target '%s' itself (the "
			 "manifest would replace the data); give the manifest another path",
			 a.manifest, a.target);
		return GUAC_EXIT_ERROR;
	}
	if (a.manifest && !write_abspath(a.target, target_abs, sizeof(target_abs))) {
		guac_err("cannot make an absolute path of '%s' for the manifest: %s", a.target,
			 strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	/* JSON is UTF-8: a path with a byte like 0xff cannot be recorded faithfully. */
	if (a.manifest && !guac_manifest_utf8(target_abs)) {
		guac_err("the path '%s' is not valid UTF-8: a manifest (JSON) cannot record it; "
			 "use a name or link that is", a.target);
		return GUAC_EXIT_ERROR;
	}
	if (a.manifest && write_manifest_dir_unwritable(a.manifest))
		return GUAC_EXIT_ERROR;
	if (a.manifest && !have_old && !access(a.manifest, F_OK)) {
		if (!guac_manifest_load(a.manifest, &old)) {
			guac_err("refusing to write: '%s' exists and is not a valid manifest "
				 "(move it away to start a new one)", a.manifest);
			return GUAC_EXIT_ERROR;
		}
		have_old = true;
	}
	/* The fill's origin: fresh, or the one given if it does not alias a recorded fill. */
	{
		uint64_t end = t.kind == GUAC_TARGET_BLOCK || t.size > a.seek + a.length ?
			       t.size : a.seek + a.length;
		struct guac_fill_choice choice = {
			have_old ? &old : NULL, a.origin_given, a.force, a.resume, shard.index,
			shard.count, a.offset, a.seek, end / 64 + 1,
		};

		if (!guac_fill_choose_origin(&choice, &a.origin))
			return GUAC_EXIT_ERROR;
	}
	/* Resuming its own recorded fill, guac counts only what is in the bytes it wrote. */
	resume_of = a.resume && have_old && !strcmp(old.target_path, target_abs) ? &old : NULL;
	if (a.dry_run) {
		write_target_plan(&(struct write_plan){ a.target, a.manifest,
			t.kind == GUAC_TARGET_BLOCK, t.size, t.sector, t.serial, t.wwid, a.origin,
			a.offset, a.seek, a.length, shard_start, shard_end, shard.index,
			shard.count, !a.origin_given && !resume_of }, &probe, resume_of);
		return write_target_clear(a.target, &probe, resume_of, a.force) ? GUAC_EXIT_OK :
		       GUAC_EXIT_ERROR;
	}
	if (!write_target_clear(a.target, &probe, resume_of, a.force))
		return GUAC_EXIT_ERROR;
	if (!a.origin_given && !a.manifest)
		guac_err("note: origin %" PRIu64 " was drawn for this fill (a fresh one "
			 "each time); without a manifest, check it with guac verify --origin %"
			 PRIu64, a.origin, a.origin);
	existed = !stat(a.target, &st);

	if (!guac_target_open(&t, a.target, true, a.direct, a.sync))
		return GUAC_EXIT_ERROR;
	/* A manifest of another target (its identity differs) is not this fill's to continue. */
	guac_ident_of(&t, m.identity, sizeof(m.identity));
	if (have_old && old.identity[0] &&
	    !guac_ident_diff(old.identity, m.identity, ident_why, sizeof(ident_why))) {
		char which[512];

		guac_ident_describe(m.identity, which, sizeof(which));
		guac_err("refusing to write: '%s' records another target than '%s' (%s); this is "
			 "%s. Its fill and history are not this target's: give another --manifest "
			 "(or move that one away); nothing written", a.manifest, a.target, ident_why,
			 which);
		guac_target_close(&t);
		if (!existed)
			unlink(a.target);
		return GUAC_EXIT_ERROR;
	}
	if (!write_lock(&t, a.target, a.seek + shard_start, shard_end - shard_start)) {
		guac_target_close(&t);
		return GUAC_EXIT_ERROR;
	}

	if (a.resume && have_old) {
		const char *why = write_resume_differs(&a, &old, &shard, &t, target_abs);

		if (why) {
			guac_err("cannot resume: '%s' records another fill: its %s; nothing written",
				 a.manifest, why);
			guac_target_close(&t);
			return GUAC_EXIT_ERROR;
		}
		if (old.status == GUAC_STATUS_COMPLETE) {
			write_report_complete(&a, &old);
			guac_target_close(&t);
			return GUAC_EXIT_OK;
		}
		a.jobs = old.nranges;	/* the recorded parts, each from its own durable end */
	} else if (a.resume) {
		guac_err("note: no manifest '%s' yet: nothing to resume, a new fill", a.manifest);
	}

	/* The manifest first says "running": a crash leaves a record of the attempt. */
	snprintf(m.tool_version, sizeof(m.tool_version), "%s", guac_version());
	/* m.host: the host that writes, for a fleet's report (write_host, above). */
	m.stream_version = GUAC_STREAM_VERSION;
	m.origin = a.origin;
	m.stream_offset = a.offset;
	m.device_offset = a.seek;
	m.length = a.length;
	m.block_size = a.bs;
	m.sector_size = t.sector;
	m.direct = t.direct;
	m.sync = a.sync;
	snprintf(m.target_path, sizeof(m.target_path), "%s", target_abs);
	snprintf(m.target_type, sizeof(m.target_type), "%s",
		 t.kind == GUAC_TARGET_BLOCK ? "block" : "file");
	m.target_size = t.kind == GUAC_TARGET_BLOCK ? t.size :
			(t.size > a.seek + a.length ? t.size : a.seek + a.length);
	snprintf(m.serial, sizeof(m.serial), "%s", t.serial);
	snprintf(m.wwid, sizeof(m.wwid), "%s", t.wwid);
	m.shard_index = shard.index;
	m.shard_count = shard.count;
	m.status = GUAC_STATUS_RUNNING;
	guac_manifest_now(m.started, sizeof(m.started));
	if (have_old)
		write_history(&m, &old);

	io.target = &t;
	io.write = true;
	io.base = a.seek + shard_start;
	io.length = shard_end - shard_start;
	io.bs = (size_t)a.bs;
	io.jobs = (unsigned int)a.jobs;
	io.hooks.produce = write_produce;
	progress = (struct guac_progress){ .mode = a.progress, .interval = a.progress_interval,
					   .label = "write", .target = a.target };
	io.progress = &progress;
	io.stop = &stop;
	guac_io_split(&io, t.sector);
	stream = (struct write_stream){ a.origin, guac_spos_add(guac_spos_of(a.offset), shard_start),
					a.impl };
	for (i = 0; i < io.jobs; i++)
		io.job[i].priv = &stream;
	if (a.resume && have_old) {
		/* Each part continues from its durable end: the split must be the recorded one. */
		for (i = 0; i < io.jobs && io.jobs == old.nranges; i++)
			if (old.range[i].device_offset != a.seek + shard_start + io.job[i].start ||
			    old.range[i].length != io.job[i].end - io.job[i].start)
				break;
		if (i != io.jobs || io.jobs != old.nranges) {
			guac_err("cannot resume: the ranges of '%s' are not the parts this write "
				 "makes of its shard (edited?); nothing written", a.manifest);
			guac_target_close(&t);
			return GUAC_EXIT_ERROR;
		}
		for (i = 0; i < io.jobs; i++) {
			io.job[i].resume = old.range[i].done;
			atomic_store(&io.job[i].done, old.range[i].done);
			resumed += old.range[i].done;
		}
		memcpy(m.started, old.started, sizeof(m.started));
		/* A requeued task that lost its GUAC_RUN goes on in the run it began. */
		if (!m.run[0])
			memcpy(m.run, old.run, sizeof(m.run));
	}
	write_ranges(&m, &io, shard_start, true);
	if (a.manifest && !guac_manifest_save(a.manifest, &m)) {
		guac_target_close(&t);
		return GUAC_EXIT_ERROR;
	}
	if (a.resume && have_old)
		fprintf(a.json ? stderr : stdout, "resuming '%s' (%s): %" PRIu64 " of %" PRIu64
			" bytes already durable\n", a.manifest, guac_fill_status_name(old.status),
			resumed, io.length);

	if (a.manifest) {
		ckpt = (struct write_ckpt){ &m, a.manifest, shard_start, a.sync, false };
		io.checkpoint = write_checkpoint;
		io.checkpoint_arg = &ckpt;
	}
	/* A file size limit must end in EFBIG, reported like ENOSPC, not in a kill. */
	signal(SIGXFSZ, SIG_IGN);
	guac_io_catch_signals(&stop);
	thread_err = guac_io_run(&io);
	guac_progress_finish(&progress);
	/* This run's bytes, for its rate: before a loss cuts done below the resumed ones. */
	ran = guac_io_done(&io) - resumed;
	lost = write_check_file(&t, a.target, &io, lost_why, sizeof(lost_why));
	/* The size after the fill, which an error, a stop or a shard leave smaller. */
	if (t.kind == GUAC_TARGET_FILE && !fstat(t.fd, &st))
		m.target_size = (uint64_t)st.st_size;
	guac_target_close(&t);

	for (i = 0; i < io.jobs; i++) {
		if (io.job[i].error && !first_err) {
			first_err = io.job[i].error;
			first_err_pos = io.base + io.job[i].error_pos;
		}
	}
	done = guac_io_done(&io);
	total = io.length;
	/* With O_DSYNC each completed write was already durable; else fsync decides. */
	durable_ok = !io.sync_error || a.sync;
	durable = durable_ok ? done : 0;
	write_ranges(&m, &io, shard_start, durable_ok);
	m.seconds = io.seconds + (a.resume && have_old ? old.seconds : 0);
	guac_manifest_now(m.finished, sizeof(m.finished));
	failed = first_err || io.sync_error || thread_err || lost;
	if (lost) {
		m.status = GUAC_STATUS_FAILED;
		snprintf(m.error, sizeof(m.error), "%s", lost);
	} else if (thread_err) {
		m.status = GUAC_STATUS_FAILED;
		snprintf(m.error, sizeof(m.error), "cannot start a thread: %s",
			 strerror(thread_err));
	} else if (first_err || io.sync_error) {
		m.status = GUAC_STATUS_FAILED;
		snprintf(m.error, sizeof(m.error), "%s%s", first_err ? "" : "fsync: ",
			 strerror(first_err ? first_err : io.sync_error));
	} else if (done < total) {
		m.status = GUAC_STATUS_INTERRUPTED;
	} else {
		m.status = GUAC_STATUS_COMPLETE;
	}
	if (a.manifest && !guac_manifest_save(a.manifest, &m)) {
		/* The record of the fill is what a later check reads: without it, no OK. */
		ret = GUAC_EXIT_ERROR;
		failed = true;
		saved = false;
	}

	out = (struct write_outcome){ &a, &t, &io, &m, &shard, stream.start, done, durable, total,
				      ran, resumed, first_err, first_err_pos, thread_err, lost,
				      lost_why, durable_ok, failed, saved, 0 };
	out.exit_status = write_exit_status(&out, ret);
	if (a.json)
		write_report_json(&out);
	else
		write_report_text(&out);
	return out.exit_status;
}
