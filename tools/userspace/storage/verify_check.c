// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify: check that a file, block device or pipe holds a segment of the
 * stream, as written by guac write (with its manifest), `dd if=/dev/guac` or
 * `guac gen`, and say exactly which bytes are wrong and why.
 *
 * The work is a list of segments (one without a manifest, one per manifest
 * range with it), each read by the I/O engine with --jobs threads on
 * contiguous parts. Each thread logs its own findings; they are merged in
 * position order after each segment, so the ranges come out sorted and
 * merged, and memory stays at a few buffers per thread plus the bad sectors
 * kept for the diagnosis (the first VERIFY_DIAG_MAX, and the first
 * VERIFY_DIAG_MAX of class OTHER). Every bad sector is classified where it is
 * found, from what is local to it (diag.h's guac_diag_local(): zeros, ones,
 * torn, stale origin, scattered damage, or OTHER, which needs the
 * misdirection search), so the class counts cover all of them. The complete
 * list, with each range's class, goes to --bad-list through one temporary
 * file per thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmds.h"
#include "diag.h"
#include "io_engine.h"
#include "libguac.h"
#include "manifest.h"
#include "shard.h"
#include "util.h"
#include "verify.h"

#define VERIFY_DEFAULT_BS (256u << 10)	/* one read; stays in L2 until compared */
#define VERIFY_SLICE (32u << 10)	/* generated then compared while in L1 */
#define VERIFY_SHOWN_RANGES 20
#define VERIFY_DIAG_MAX 1000		/* bad sectors kept for the diagnosis */
#define VERIFY_HISTORY GUAC_MANIFEST_MAX_HISTORY
#define VERIFY_EXIT_INTERRUPTED 130
#define VERIFY_SAVE_SECONDS 10		/* between progress saves in a long check */

/* A contiguous stretch to check: device bytes and the stream bytes they should hold. */
struct verify_segment {
	uint64_t device_offset, length;
	struct guac_spos stream;	/* the stream position at device_offset */
	uint64_t resume;		/* bytes already verified (--resume) */
	int range;			/* manifest range index, or -1 */
};

/* One bad sector kept for the diagnosis. */
struct verify_sample {
	uint64_t device_offset, stream_offset;
	uint8_t *data;
	bool other;			/* the local checks left it to the search */
};

/*
 * Bad sectors by class, from the local checks (guac_diag_local()), over all
 * of them: cls[GUAC_DIAG_UNKNOWN] counts OTHER (left to the search), stale[i]
 * the STALE_ORIGIN sectors of history entry i (newest first), unclassified
 * the sectors only partly inside the range checked.
 */
struct verify_classes {
	uint64_t cls[GUAC_DIAG_CLASS_COUNT];
	uint64_t stale[VERIFY_HISTORY];
	uint64_t unclassified;
};

/* Per engine job: its own findings, merged in order after the segment. */
struct verify_job {
	struct guac_badlog mismatch, unreadable;
	struct guac_range mismatch_kept[VERIFY_SHOWN_RANGES];
	struct guac_range unreadable_kept[VERIFY_SHOWN_RANGES];
	int first_errno;
	uint64_t first_error_pos;
	FILE *bad_list;			/* this job's part of --bad-list */
	char pending_kind;		/* 'm' or 'u': the bad-list range not yet written */
	const char *pending_class;	/* its class (a static string) */
	uint64_t pending_start, pending_end;
	uint8_t *want;
	uint8_t *scratch;		/* one sector, for the local checks */
	struct verify_classes classes;
};

struct verify_run {
	/* Options. */
	const char *path, *manifest_path, *bad_list_path, *shard_arg, *shards_arg;
	uint64_t offset, origin, seek, skip, length, bs, jobs, max_errors;
	bool length_given, seek_given, skip_given, bs_given, json, resume;
	struct guac_shard shard;
	enum guac_direct direct;
	unsigned int sector;		/* report granularity; 0: the target's */
	int impl;

	/* The work. */
	struct guac_target target;
	struct guac_manifest *manifest;
	struct verify_segment *seg;
	unsigned int nseg;
	bool bounded;			/* the length is known */
	bool subrange;			/* --skip, --length or --shard: not the whole manifest */
	bool recorded_target;		/* SOURCE is the manifest's target: progress is saved */
	char stamp[128];		/* the target's state before the first read */
	const char *restart_why;	/* --resume found no record it could trust */
	uint64_t first_dev;		/* the first byte checked, for the report */
	struct guac_spos first_stream;
	uint64_t stream_pos;		/* a pipe: bytes read from it so far */
	uint64_t end;			/* device byte after the range checked */
	uint64_t planned;		/* bytes the segments hold */
	uint64_t incomplete;		/* manifest bytes never written */
	uint64_t progress_done;		/* segments behind, for the progress line */

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
	uint64_t prior_bad, prior_unreadable;	/* from the manifest, with --resume */
	uint64_t earlier_bad, earlier_unreadable;	/* the earlier run's, as loaded */
	bool already_complete;		/* --resume of a check that had ended */
	bool trust_progress;		/* --resume with a record it can trust */
	FILE **job_lists;		/* every job's bad-list part, in order */
	size_t njob_lists;

	/* The diagnosis: one config for the local checks and the search. */
	bool classify;			/* the sector size allows it */
	struct guac_diag_config diag_cfg;
	struct guac_diag_pass diag_history[VERIFY_HISTORY];
	struct verify_classes classes;	/* all jobs' */
	uint64_t other_searched;	/* OTHER sectors the search was given */
	uint64_t searched[GUAC_DIAG_CLASS_COUNT];	/* what it made of them */

	pthread_mutex_t sample_lock;
	struct verify_sample sample[2 * VERIFY_DIAG_MAX];
	size_t nsample, nfirst, nother;	/* kept: all, the first ones, OTHER ones */
	atomic_bool first_full, other_full;	/* no lock taken once both are */
	struct guac_diag_result diag[2 * VERIFY_DIAG_MAX];
	size_t ndiag;
	bool diag_ran;
	struct guac_diag_search search;
};

static void verify_usage(FILE *f)
{
	fprintf(f,
		"Usage: guac verify [OPTIONS] SOURCE\n"
		"       guac verify --manifest FILE [OPTIONS] [SOURCE]\n\n"
		"Check that SOURCE (a file, a block device, or - for standard input) holds the\n"
		"guacamole stream: byte --seek + k of SOURCE must be byte --offset + k of the\n"
		"stream as seen from block --origin, the bytes `guac gen` with the same options\n"
		"writes. With --manifest, what guac write recorded is checked instead, on\n"
		"SOURCE or the recorded target (any copy works; a shorter one fails).\n\n"
		"  -o, --offset BYTES   stream position of the first byte (default 0)\n"
		"  -n, --length BYTES   bytes to check (default: to the end of the file or\n"
		"                       device, or of the manifest; a pipe needs it)\n"
		"      --origin BLOCK   block index added to the position, mod 2^64 (default 0)\n"
		"      --seek BYTES     byte of SOURCE where the stream data starts (default 0)\n"
		"  -m, --manifest FILE  check what guac write recorded in FILE\n"
		"      --skip BYTES     start this many bytes into the data (a sub-range; reports\n"
		"                       still give true device byte offsets and LBAs)\n"
		"      --resume         continue from the progress saved in the manifest; the\n"
		"                       earlier run's findings are part of the result (from\n"
		"                       the start if the target changed since that run)\n"
		"      --shard K/N      check part K of N, exactly as guac write --shard K/N\n"
		"      --shards N       the N for JOB_COMPLETION_INDEX (also GUAC_SHARDS);\n"
		"                       SLURM_ARRAY_TASK_ID/COUNT/MIN/STEP work alone\n"
		"      --direct         O_DIRECT reads, from the media, not the page cache\n"
		"                       (default for block devices; refused where impossible)\n"
		"      --buffered       read through the page cache, even a block device\n"
		"      --bs BYTES       bytes per read system call (default 256K)\n"
		"  -j, --jobs N         reader threads, each on its own contiguous part (default:\n"
		"                       one per CPU, here %u); pipes are read by one, from\n"
		"                       their byte 0 (the bytes before the data are dropped)\n"
		"      --sector SIZE    512 or 4096: granularity of the reported bad ranges\n"
		"                       (default: the device's logical sector, else 512)\n"
		"      --max-errors N   stop at N bad or unreadable sectors (default: never)\n"
		"      --bad-list FILE  write every bad range, one per line, split where\n"
		"                       the class changes:\n"
		"                       KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS\n"
		"      --json           print a JSON summary on standard output instead of text\n"
		"      --impl NAME      generator: auto, generic, sse2, avx2 or avx512\n"
		"      --version        print the version\n"
		"  -h, --help           show this help\n\n"
		"Reports OK with the byte count and throughput, or each bad range (whole\n"
		"sectors, adjacent ones merged, the first %u listed, then totals), the first\n"
		"differing byte with the expected and actual values, unreadable sectors\n"
		"(read errors are retried sector by sector and the check goes on), short data\n"
		"(the end of SOURCE before the length), the class of every bad sector (zeros,\n"
		"ones, torn, stale origin, scattered damage, or OTHER), and for the first %u\n"
		"bad sectors, and the first as many OTHER ones (searched for misdirected or\n"
		"wrapped data), a diagnosis line each.\n"
		"The I/O mode (direct or buffered) is part of the report. An empty SOURCE\n"
		"fails unless --length is 0. Ctrl-C stops with a summary of what was found\n"
		"(during the diagnosis, it ends the search); with a manifest, a check of the\n"
		"recorded target saves its progress there for --resume. Memory use is\n"
		"fixed, whatever the size.\n"
		"A progress line (bytes, rate, ETA) goes to standard error when it is a\n"
		"terminal.\n" GUAC_NUMBERS_HELP "\n"
		"OK (exit 0) means every byte described (by the options, or the manifest and\n"
		"--skip, --length or --shard) was compared, now or by the check resumed, and\n"
		"matched; the OK line names a shard or sub-range when it checked one.\n"
		"Exit status: 0 the data matches, 1 a mismatch, short or incomplete data,\n"
		"2 a usage error or unreadable sectors, 130 interrupted.\n",
		guac_nr_cpus(), VERIFY_SHOWN_RANGES, VERIFY_DIAG_MAX);
}

/*
 * The diagnosis config, from diag.h: the pass being verified and the
 * manifest's history, newest first. Set once the plan is made, before the
 * reads, so every job classifies its bad sectors as it finds them.
 */
static void verify_diag_setup(struct verify_run *run)
{
	struct guac_diag_pass pass;
	size_t i;

	run->classify = run->sector % 64 == 0 && run->sector >= 128;
	if (run->manifest) {
		pass = (struct guac_diag_pass){ run->origin, run->manifest->stream_offset,
						run->manifest->device_offset,
						run->manifest->length };
	} else {
		pass = (struct guac_diag_pass){ run->origin, run->offset, run->seek,
						run->bounded ? run->length + run->skip : 0 };
	}
	guac_diag_config_init(&run->diag_cfg, (enum guac_impl)run->impl, run->sector, &pass);
	run->diag_cfg.stop = &run->stop;	/* Ctrl-C ends the search, never the report */
	if (run->manifest) {
		/* The manifest keeps the oldest first; diag wants the newest first. */
		for (i = 0; i < run->manifest->nhistory && i < VERIFY_HISTORY; i++) {
			const struct guac_manifest_history *h =
				&run->manifest->history[run->manifest->nhistory - 1 - i];

			run->diag_history[i] = (struct guac_diag_pass){ h->origin, h->stream_offset,
									h->device_offset, h->length };
		}
		run->diag_cfg.history = run->diag_history;
		run->diag_cfg.nhistory = i;
	}
}

/*
 * The diagnosis lines, and the misdirection search: the sectors kept (the
 * first VERIFY_DIAG_MAX bad ones, and the first VERIFY_DIAG_MAX OTHER ones) in
 * one batch, because the search sweeps the pass range once for all of them.
 * Kept behind this function and verify_classify() so the rest of verify
 * knows nothing of how the classification works.
 */
static void verify_diagnose(struct verify_run *run)
{
	struct guac_diag_sector *sectors;
	size_t i, n = 0;

	if (!run->nsample || !run->classify)
		return;
	sectors = calloc(run->nsample, sizeof(*sectors));
	if (!sectors)
		return;
	for (i = 0; i < run->nsample; i++)
		sectors[n++] = (struct guac_diag_sector){ run->sample[i].stream_offset,
							  run->sample[i].data };
	if (!guac_diag_run(&run->diag_cfg, sectors, n, run->diag, &run->search)) {
		run->ndiag = n;
		run->diag_ran = true;
		for (i = 0; i < n; i++) {
			if (!run->sample[i].other)
				continue;
			run->other_searched++;
			run->searched[run->diag[i].cls]++;
		}
	}
	free(sectors);
}

static int verify_sample_cmp(const void *a, const void *b)
{
	const struct verify_sample *x = a, *y = b;

	return x->device_offset < y->device_offset ? -1 : x->device_offset > y->device_offset;
}

/*
 * Keep a whole bad sector for the diagnosis, while there is room: the first
 * VERIFY_DIAG_MAX of any class (their diagnosis lines), and OTHER ones until
 * VERIFY_DIAG_MAX of those are kept (the search's bound).
 */
static void verify_sample(struct verify_run *run, uint64_t dev, uint64_t stream_off,
			  const uint8_t *data, bool other)
{
	uint8_t *copy;

	if (atomic_load(&run->first_full) && (!other || atomic_load(&run->other_full)))
		return;
	copy = malloc(run->sector);
	if (!copy)
		return;
	memcpy(copy, data, run->sector);
	pthread_mutex_lock(&run->sample_lock);
	if (run->nfirst < VERIFY_DIAG_MAX || (other && run->nother < VERIFY_DIAG_MAX)) {
		if (run->nfirst < VERIFY_DIAG_MAX)
			run->nfirst++;
		if (other)
			run->nother++;
		run->sample[run->nsample++] = (struct verify_sample){ dev, stream_off, copy, other };
		copy = NULL;
		atomic_store(&run->first_full, run->nfirst >= VERIFY_DIAG_MAX);
		atomic_store(&run->other_full, run->nother >= VERIFY_DIAG_MAX);
	}
	pthread_mutex_unlock(&run->sample_lock);
	free(copy);
}

/* The class of a whole bad sector, from what is local to it; its --bad-list name. */
static const char *verify_classify(struct verify_run *run, struct verify_job *vj,
				   uint64_t stream_off, const uint8_t *got, const uint8_t *want)
{
	struct guac_diag_result r;
	size_t i;

	if (!run->classify) {
		vj->classes.unclassified++;
		return "-";
	}
	if (!guac_diag_local(&run->diag_cfg, stream_off, got, want, vj->scratch, &r)) {
		vj->classes.cls[GUAC_DIAG_UNKNOWN]++;
		return "OTHER";
	}
	vj->classes.cls[r.cls]++;
	if (r.cls == GUAC_DIAG_STALE_ORIGIN) {
		for (i = 0; i < run->diag_cfg.nhistory; i++) {
			if (run->diag_history[i].origin == r.found_origin) {
				vj->classes.stale[i]++;
				break;
			}
		}
	}
	return guac_diag_class_name(r.cls);
}

static void verify_list_flush(struct verify_run *run, struct verify_job *vj)
{
	if (!vj->pending_kind || !vj->bad_list)
		return;
	fprintf(vj->bad_list, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
		vj->pending_kind == 'm' ? "mismatch" : "unreadable", vj->pending_start,
		vj->pending_end - 1, vj->pending_start / run->sector,
		(vj->pending_end - 1) / run->sector, vj->pending_class);
	vj->pending_kind = 0;
}

/*
 * A bad range for --bad-list, merged with the previous one when they touch
 * and have the same kind and class (@cls: a static string).
 */
static void verify_list_add(struct verify_run *run, struct verify_job *vj, char kind,
			    const char *cls, uint64_t start, uint64_t end)
{
	if (!vj->bad_list)
		return;
	if (vj->pending_kind == kind && vj->pending_end == start &&
	    !strcmp(vj->pending_class, cls)) {
		vj->pending_end = end;
		return;
	}
	verify_list_flush(run, vj);
	vj->pending_kind = kind;
	vj->pending_class = cls;
	vj->pending_start = start;
	vj->pending_end = end;
}

/*
 * Take @n more bad sectors from the --max-errors budget: returns how many may
 * still be logged, so the run stops at exactly N, not at the end of the read
 * (or of every thread's read) that crossed it.
 */
static uint64_t verify_take_errors(struct verify_run *run, uint64_t n)
{
	uint64_t before;

	if (!run->max_errors || !n)
		return n;
	before = atomic_fetch_add(&run->errors, n);
	if (before + n >= run->max_errors) {
		run->max_reached = true;
		atomic_store(&run->stop, true);
	}
	if (before >= run->max_errors)
		return 0;
	return n < run->max_errors - before ? n : run->max_errors - before;
}

/* Sectors [first, last] that @log has not counted yet (it counts in order). */
static uint64_t verify_new_sectors(const struct guac_badlog *log, uint64_t first, uint64_t last)
{
	if (log->have_sector && first <= log->last_sector)
		first = log->last_sector + 1;
	return last >= first ? last - first + 1 : 0;
}

struct verify_job_ctx {
	struct verify_run *run;
	const struct verify_segment *seg;
	struct verify_job *vj;
};

/*
 * Compare what was read at run position @pos with the stream, device sector by
 * sector. Returns the bytes compared: fewer than @len when --max-errors left
 * no room for a bad sector, which then ends the job before it, uncounted.
 */
static size_t verify_consume(struct guac_io_job *job, const uint8_t *got, uint64_t pos,
			     size_t len)
{
	struct verify_job_ctx *ctx = job->priv;
	struct verify_run *run = ctx->run;
	struct verify_job *vj = ctx->vj;
	uint64_t dev = job->io->base + pos;
	size_t off = 0;

	while (off < len) {
		/* Slices end on VERIFY_SLICE boundaries of the device: sector-aligned. */
		size_t n = VERIFY_SLICE - (size_t)((dev + off) % VERIFY_SLICE), s;
		uint64_t rel = dev + off - ctx->seg->device_offset;
		struct guac_spos at = guac_spos_add(ctx->seg->stream, rel);

		if (n > len - off)
			n = len - off;
		guac_spos_fill(run->impl, vj->want, run->origin, at, n);
		if (!memcmp(got + off, vj->want, n)) {
			off += n;
			continue;
		}
		for (s = 0; s < n;) {
			uint64_t d = dev + off + s;
			size_t k = run->sector - (size_t)(d % run->sector);

			if (k > n - s)
				k = n - s;
			if (memcmp(got + off + s, vj->want + s, k)) {
				/* 0 for the second piece of a sector already counted. */
				uint64_t fresh = verify_new_sectors(&vj->mismatch, d / run->sector,
								    d / run->sector);
				uint64_t soff = guac_spos_low64(guac_spos_add(at, s));
				const char *cls = "-";

				if (fresh && !verify_take_errors(run, fresh))
					return off + s;	/* --max-errors reached */
				guac_badlog_scan(&vj->mismatch, got + off + s, vj->want + s, k, d,
						 run->sector);
				if (k == run->sector) {
					/* Classified here, with the expected bytes at hand. */
					cls = verify_classify(run, vj, soff, got + off + s,
							      vj->want + s);
					verify_sample(run, d, soff, got + off + s,
						      !strcmp(cls, "OTHER"));
				} else if (fresh) {
					/* Part of a sector: the rest is outside the range. */
					vj->classes.unclassified++;
				}
				verify_list_add(run, vj, 'm', cls, d, d + k);
			}
			s += k;
		}
		off += n;
	}
	return len;
}

/* Unreadable sectors, as many as --max-errors allows: returns the bytes taken. */
static size_t verify_unreadable(struct guac_io_job *job, uint64_t pos, size_t len, int err)
{
	struct verify_job_ctx *ctx = job->priv;
	struct verify_job *vj = ctx->vj;
	unsigned int sector = ctx->run->sector;
	uint64_t dev = job->io->base + pos, end = dev + len, first = dev / sector;
	uint64_t n = verify_new_sectors(&vj->unreadable, first, (end - 1) / sector);
	uint64_t allowed = verify_take_errors(ctx->run, n);

	if (allowed < n) {
		/* --max-errors reached: log the sectors still allowed, no more. */
		uint64_t keep_end = (end - 1) / sector - (n - allowed) + 1;

		if (keep_end * sector <= dev)
			return 0;
		end = keep_end * sector < end ? keep_end * sector : end;
		len = (size_t)(end - dev);
	}
	if (!vj->first_errno) {
		vj->first_errno = err;
		vj->first_error_pos = dev;
	}
	guac_badlog_mark(&vj->unreadable, dev, end, sector);
	verify_list_add(ctx->run, vj, 'u', "-", dev, end);
	return len;
}

static void verify_merge_findings(struct verify_run *run, struct verify_job *vj)
{
	size_t i;

	guac_badlog_merge(&run->mismatch, &vj->mismatch);
	/* Unreadable sectors have no differing bytes to count. */
	guac_badlog_merge(&run->unreadable, &vj->unreadable);
	for (i = 0; i < GUAC_DIAG_CLASS_COUNT; i++)
		run->classes.cls[i] += vj->classes.cls[i];
	for (i = 0; i < VERIFY_HISTORY; i++)
		run->classes.stale[i] += vj->classes.stale[i];
	run->classes.unclassified += vj->classes.unclassified;
	if (vj->first_errno && !run->first_errno) {
		run->first_errno = vj->first_errno;
		run->first_error_pos = vj->first_error_pos;
	}
}

/*
 * Split the segment into --jobs parts on boundaries of the report sector (and
 * of the target's, for O_DIRECT), counted from byte 0 of the device: a sector
 * split between two jobs, or between two reads of one job, would be counted
 * twice and diagnosed by neither. The reads are --bs, a multiple of both, from
 * each part's start; so when the segment starts mid-sector, that partial
 * sector is a part of its own and the others start aligned.
 */
static void verify_split(struct guac_io *io, const struct verify_run *run)
{
	uint64_t align = run->sector > run->target.sector ? run->sector : run->target.sector;
	uint64_t head = (align - io->base % align) % align, sectors, pos;
	unsigned int i, n = 0, jobs = io->jobs;

	if (head > io->length)
		head = io->length;
	if (head) {
		io->job[n] = (struct guac_io_job){ .io = io, .index = n, .start = 0, .end = head };
		n++;
	}
	pos = head;
	sectors = (io->length - head + align - 1) / align;
	if (jobs > GUAC_IO_MAX_JOBS - n)
		jobs = GUAC_IO_MAX_JOBS - n;
	for (i = 0; i < jobs && pos < io->length; i++) {
		/* Sector counts differ by at most one between parts. */
		uint64_t part = sectors / jobs + (i < sectors % jobs);
		uint64_t end = part > (io->length - pos) / align ? io->length : pos + part * align;

		if (end == pos)
			continue;
		io->job[n] = (struct guac_io_job){ .io = io, .index = n, .start = pos, .end = end };
		n++;
		pos = end;
	}
	io->jobs = n;
}

/*
 * A pipe is the device (or file) from its byte 0: read and drop what comes
 * before @dev, the first byte to check, so that `cat /dev/sdb | guac verify
 * -m sdb.json -` checks the fill where it lies. False at the end of the pipe
 * (short data) or on a read error.
 */
static bool verify_discard(struct verify_run *run, uint64_t dev)
{
	static uint8_t drop[1 << 16];

	while (run->stream_pos < dev && !atomic_load(&run->stop)) {
		uint64_t want = dev - run->stream_pos;
		ssize_t n = read(run->target.fd, drop, want < sizeof(drop) ? (size_t)want :
					      sizeof(drop));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			run->fatal = true;
			run->fatal_errno = errno;
			run->fatal_pos = run->stream_pos;
			return false;
		}
		if (!n) {
			run->short_data = true;
			run->short_at = run->stream_pos;
			return false;
		}
		run->stream_pos += (uint64_t)n;
	}
	if (atomic_load(&run->stop)) {
		run->interrupted = true;
		return false;
	}
	return true;
}

/* Check one segment; false when the run must end (EOF, interrupt, fatal error). */
static bool verify_segment(struct verify_run *run, struct verify_segment *seg)
{
	static struct guac_io io;
	static struct verify_job vj[GUAC_IO_MAX_JOBS];
	static struct verify_job_ctx ctx[GUAC_IO_MAX_JOBS];
	uint64_t prefix = 0, bad_in_prefix = 0, unread_in_prefix = 0;
	bool prefix_open = true, more = true;
	unsigned int i;
	int ret;

	memset(&io, 0, sizeof(io));
	io.target = &run->target;
	io.base = seg->device_offset + seg->resume;
	io.length = seg->length - seg->resume;
	io.bs = (size_t)run->bs;
	io.jobs = (unsigned int)run->jobs;
	io.hooks.consume = verify_consume;
	io.hooks.unreadable = verify_unreadable;
	io.label = "verify";
	io.progress = isatty(STDERR_FILENO);
	io.progress_before = run->progress_done + seg->resume;
	io.progress_total = run->bounded ? run->planned : 0;
	io.stop = &run->stop;
	if (run->target.kind == GUAC_TARGET_STREAM) {
		io.jobs = 1;
		io.job[0] = (struct guac_io_job){ .io = &io, .start = 0, .end = io.length };
		if (!verify_discard(run, io.base))
			return false;
	} else {
		verify_split(&io, run);
	}
	for (i = 0; i < io.jobs; i++) {
		memset(&vj[i], 0, sizeof(vj[i]));
		guac_badlog_init(&vj[i].mismatch, vj[i].mismatch_kept, VERIFY_SHOWN_RANGES);
		guac_badlog_init(&vj[i].unreadable, vj[i].unreadable_kept, VERIFY_SHOWN_RANGES);
		vj[i].want = guac_alloc(VERIFY_SLICE);
		vj[i].scratch = guac_alloc(run->sector);
		if (run->bad_list_path) {
			vj[i].bad_list = tmpfile();
			if (!vj[i].bad_list) {
				guac_err("cannot create a temporary file for --bad-list: %s",
					 strerror(errno));
				exit(GUAC_EXIT_ERROR);
			}
		}
		ctx[i] = (struct verify_job_ctx){ run, seg, &vj[i] };
		io.job[i].priv = &ctx[i];
	}
	ret = guac_io_run(&io);
	if (ret && !run->fatal) {
		/* A thread that cannot start leaves its part unchecked: an error, not a stop. */
		run->fatal = true;
		run->fatal_errno = ret;
		run->fatal_pos = io.base;
	}
	run->seconds += io.seconds;
	run->stream_pos = io.base + guac_io_done(&io);
	run->progress_done += seg->length;

	for (i = 0; i < io.jobs; i++) {
		const struct guac_io_job *j = &io.job[i];
		uint64_t done = atomic_load(&j->done);

		run->checked += done;
		verify_merge_findings(run, &vj[i]);
		if (j->error && !run->fatal) {
			run->fatal = true;
			run->fatal_errno = j->error;
			run->fatal_pos = io.base + j->error_pos;
		}
		/* What --resume may skip: whole parts from the start, then the first partial one. */
		if (prefix_open) {
			prefix += done;
			bad_in_prefix += vj[i].mismatch.bad_sectors;
			unread_in_prefix += vj[i].unreadable.bad_sectors;
			prefix_open = done == j->end - j->start;
		}
		verify_list_flush(run, &vj[i]);
		if (vj[i].bad_list) {
			run->job_lists = realloc(run->job_lists,
						 (run->njob_lists + 1) * sizeof(*run->job_lists));
			if (!run->job_lists) {
				guac_err("out of memory");
				exit(GUAC_EXIT_ERROR);
			}
			run->job_lists[run->njob_lists++] = vj[i].bad_list;
		}
		free(vj[i].want);
		free(vj[i].scratch);
	}
	if (seg->range >= 0) {
		run->manifest->range[seg->range].verified = seg->resume + prefix;
		run->prior_bad += bad_in_prefix;
		run->prior_unreadable += unread_in_prefix;
	}
	if (io.eof) {
		run->short_data = true;
		run->short_at = io.base + io.eof_pos;
		more = false;
	}
	if (run->fatal || atomic_load(&run->stop))
		more = false;
	return more;
}

/*
 * --bad-list: the jobs' parts in order, ranges touching across parts merged
 * when their kind and class are the same.
 */
static bool verify_write_bad_list(struct verify_run *run)
{
	char kind[16], pkind[16] = "", cls[32], pcls[32] = "";
	uint64_t a, b, pa = 0, pb = 0, la, lb;
	FILE *out = fopen(run->bad_list_path, "w");
	size_t i;
	bool ok;

	if (!out) {
		guac_err("cannot write --bad-list '%s': %s", run->bad_list_path, strerror(errno));
		return false;
	}
	fprintf(out, "# guac verify bad sectors of '%s' (%u-byte sectors): "
		"KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS\n", run->path, run->sector);
	for (i = 0; i < run->njob_lists; i++) {
		FILE *f = run->job_lists[i];

		rewind(f);
		while (fscanf(f, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %31s", kind,
			      &a, &b, &la, &lb, cls) == 6) {
			if (pkind[0] && !strcmp(kind, pkind) && !strcmp(cls, pcls) && pb + 1 == a) {
				pb = b;
				continue;
			}
			if (pkind[0])
				fprintf(out, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
					pkind, pa, pb, pa / run->sector, pb / run->sector, pcls);
			strcpy(pkind, kind);
			strcpy(pcls, cls);
			pa = a;
			pb = b;
		}
		fclose(f);
	}
	if (pkind[0])
		fprintf(out, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n", pkind, pa,
			pb, pa / run->sector, pb / run->sector, pcls);
	ok = !ferror(out);
	if (fclose(out) || !ok) {
		guac_err("cannot write --bad-list '%s': %s", run->bad_list_path, strerror(errno));
		return false;
	}
	return true;
}

/*
 * The verdict. One rule decides it, and with it the exit status: OK only when
 * every byte of the range described (by the arguments, or by the manifest and
 * --skip, --length or --shard) was compared, in this run or in the recorded
 * run it resumed, and matched; and the manifest records every byte of that
 * range as written. Every other outcome is a named state that is not OK:
 * error (read errors, unreadable sectors), interrupted, empty, mismatch
 * (bad, short or unwritten data, --max-errors), or unchecked, which no
 * known path reaches: it stands guard over the rule itself.
 */

/* Bytes of the described range compared: in this run, and in the run resumed. */
static uint64_t verify_covered(const struct verify_run *run)
{
	uint64_t sum = run->checked;
	unsigned int i;

	for (i = 0; i < run->nseg; i++)
		sum += run->seg[i].resume;
	return sum;
}

/* Nothing to compare, and nobody asked for zero bytes: an empty file or device. */
static bool verify_empty(const struct verify_run *run)
{
	return !run->manifest && !run->checked && !run->short_data && !run->length_given &&
	       !run->unreadable.nranges && !run->fatal && !run->interrupted;
}

/* What this run found, and what the earlier run it resumed had found: one result. */
static bool verify_mismatch(const struct verify_run *run)
{
	return run->mismatch.nranges || run->short_data || run->incomplete || verify_empty(run) ||
	       run->earlier_bad || run->max_reached;
}

static bool verify_unreadable_any(const struct verify_run *run)
{
	return run->unreadable.nranges || run->earlier_unreadable;
}

static const char *verify_result(const struct verify_run *run)
{
	if (run->fatal || verify_unreadable_any(run))
		return "error";
	if (run->interrupted)
		return "interrupted";
	if (verify_empty(run))
		return "empty";
	if (verify_mismatch(run))
		return "mismatch";
	if (!run->bounded || verify_covered(run) != run->planned)
		return "unchecked";
	return "ok";
}

static bool verify_ok(const struct verify_run *run)
{
	return !strcmp(verify_result(run), "ok");
}

static int verify_exit_status(const struct verify_run *run)
{
	const char *r = verify_result(run);

	if (!strcmp(r, "ok"))
		return GUAC_EXIT_OK;
	if (!strcmp(r, "error"))
		return GUAC_EXIT_ERROR;
	if (!strcmp(r, "interrupted"))
		return VERIFY_EXIT_INTERRUPTED;
	return GUAC_EXIT_FAIL;
}

static double verify_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void verify_json_ranges(const struct guac_badlog *log)
{
	uint64_t i;

	for (i = 0; i < log->nranges && i < log->cap; i++)
		printf("%s{\"start\":%" PRIu64 ",\"length\":%" PRIu64 "}", i ? "," : "",
		       log->kept[i].start, log->kept[i].end - log->kept[i].start);
}

/* The local classes in report order, OTHER (left to the search) last. */
static const enum guac_diag_class verify_class_order[] = {
	GUAC_DIAG_ALL_ZERO, GUAC_DIAG_ALL_ONES, GUAC_DIAG_TORN, GUAC_DIAG_STALE_ORIGIN,
	GUAC_DIAG_PARTIAL_MATCH, GUAC_DIAG_OK,
};
static const enum guac_diag_class verify_search_order[] = {
	GUAC_DIAG_MISDIRECTED, GUAC_DIAG_WRAPPED, GUAC_DIAG_UNKNOWN,
};
#define VERIFY_NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t verify_other(const struct verify_run *run)
{
	return run->classes.cls[GUAC_DIAG_UNKNOWN];
}

/*
 * "classes: 1500 ALL_ZERO, 1200 STALE_ORIGIN (origin 7), 3 TORN, 5 OTHER (all
 * 5 searched: 4 MISDIRECTED, 1 UNKNOWN)": every bad sector of this run.
 */
static void verify_classes_text(const struct verify_run *run)
{
	const struct verify_classes *c = &run->classes;
	const char *sep = "", *ssep = " (";
	size_t i, j, nstale = 0;

	if (!run->classify)
		return;
	printf("classes:");
	for (i = 0; i < VERIFY_NELEM(verify_class_order); i++) {
		enum guac_diag_class k = verify_class_order[i];

		if (!c->cls[k])
			continue;
		printf("%s %" PRIu64 " %s", sep, c->cls[k], guac_diag_class_name(k));
		sep = ",";
		if (k != GUAC_DIAG_STALE_ORIGIN)
			continue;
		for (j = 0; j < run->diag_cfg.nhistory; j++)
			nstale += c->stale[j] != 0;
		/* One origin: "(origin 7)"; several: "(origin 7: 1000, origin 5: 200)". */
		for (j = 0; j < run->diag_cfg.nhistory; j++) {
			if (!c->stale[j])
				continue;
			if (nstale == 1)
				printf(" (origin %" PRIu64 ")", run->diag_history[j].origin);
			else
				printf("%sorigin %" PRIu64 ": %" PRIu64, ssep,
				       run->diag_history[j].origin, c->stale[j]);
			ssep = ", ";
		}
		if (nstale > 1)
			printf(")");
	}
	if (verify_other(run)) {
		ssep = ": ";

		printf("%s %" PRIu64 " OTHER (", sep, verify_other(run));
		if (run->other_searched == verify_other(run))
			printf("all %" PRIu64 " searched", run->other_searched);
		else
			printf("the first %" PRIu64 " searched", run->other_searched);
		for (i = 0; i < VERIFY_NELEM(verify_search_order); i++) {
			enum guac_diag_class k = verify_search_order[i];

			if (!run->searched[k])
				continue;
			printf("%s%" PRIu64 " %s", ssep, run->searched[k], guac_diag_class_name(k));
			ssep = ", ";
		}
		if (run->other_searched < verify_other(run))
			printf("; %" PRIu64 " not searched: the search takes at most %u",
			       verify_other(run) - run->other_searched, VERIFY_DIAG_MAX);
		printf(")");
		sep = ",";
	}
	if (c->unclassified)
		printf("%s %" PRIu64 " unclassified (only part of the sector was checked)", sep,
		       c->unclassified);
	printf("\n");
}

static void verify_classes_json(const struct verify_run *run)
{
	const struct verify_classes *c = &run->classes;
	const char *sep = "";
	size_t i;

	printf(",\"classes\":{");
	for (i = 0; i < VERIFY_NELEM(verify_class_order); i++) {
		if (verify_class_order[i] == GUAC_DIAG_OK)
			continue;
		printf("%s\"%s\":%" PRIu64, i ? "," : "",
		       guac_diag_class_name(verify_class_order[i]), c->cls[verify_class_order[i]]);
	}
	printf(",\"OTHER\":%" PRIu64 ",\"unclassified\":%" PRIu64 "},\"stale_origins\":[",
	       verify_other(run), c->unclassified);
	for (i = 0; i < run->diag_cfg.nhistory; i++) {
		if (!c->stale[i])
			continue;
		printf("%s{\"origin\":%" PRIu64 ",\"sectors\":%" PRIu64 "}", sep,
		       run->diag_history[i].origin, c->stale[i]);
		sep = ",";
	}
	printf("],\"search_bound\":%u,\"other_searched\":%" PRIu64
	       ",\"other_not_searched\":%" PRIu64 ",\"searched_classes\":{", VERIFY_DIAG_MAX,
	       run->other_searched, verify_other(run) - run->other_searched);
	for (i = 0; i < VERIFY_NELEM(verify_search_order); i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "",
		       guac_diag_class_name(verify_search_order[i]),
		       run->searched[verify_search_order[i]]);
	printf("}");
}

static void verify_report_json(const struct verify_run *run)
{
	const struct guac_badlog *log = &run->mismatch;
	double cpu = verify_cpu_seconds(), secs = run->seconds;
	char soff[32];
	size_t i;

	printf("{\"source\":");
	guac_json_string(stdout, run->path);
	printf(",\"result\":\"%s\",\"io_mode\":\"%s\",\"offset\":%s,\"origin\":%" PRIu64
	       ",\"device_offset\":%" PRIu64 ",\"sector\":%u,\"impl\":\"%s\",\"jobs\":%" PRIu64
	       ",\"block_size\":%" PRIu64 ",\"bytes_described\":%" PRIu64
	       ",\"bytes_compared\":%" PRIu64 ",\"shard\":",
	       verify_result(run), guac_target_mode(&run->target),
	       guac_spos_str(soff, sizeof(soff), run->first_stream), run->origin,
	       run->first_dev, run->sector, guac_impl_names[run->impl], run->jobs, run->bs,
	       run->planned, verify_covered(run));
	if (run->shard.count > 1) {
		printf("{\"index\":%u,\"count\":%u,\"from\":", run->shard.index, run->shard.count);
		guac_json_string(stdout, run->shard.source);
		printf("},");
	} else {
		printf("null,");
	}
	if (run->manifest) {
		printf("\"manifest\":");
		guac_json_string(stdout, run->manifest_path);
		printf(",");
	}
	if (run->bounded)
		printf("\"length\":%" PRIu64 ",", run->planned);
	else
		printf("\"length\":null,");
	printf("\"bytes_checked\":%" PRIu64 ",\"short\":%s,\"interrupted\":%s,"
	       "\"max_errors_reached\":%s,\"incomplete_bytes\":%" PRIu64 ",\"seconds\":%.6f,"
	       "\"bytes_per_second\":%.0f,\"cpu_seconds\":%.6f,\"bytes_per_cpu_second\":%.0f,"
	       "\"bad_sectors\":%" PRIu64 ",\"bad_bytes\":%" PRIu64 ",\"bad_ranges\":%" PRIu64
	       ",\"ranges\":[",
	       run->checked, run->short_data ? "true" : "false",
	       run->interrupted ? "true" : "false", run->max_reached ? "true" : "false",
	       run->incomplete, secs, secs > 0 ? run->checked / secs : 0.0, cpu,
	       cpu > 0 ? run->checked / cpu : 0.0, log->bad_sectors + run->earlier_bad,
	       log->bad_bytes, log->nranges);
	verify_json_ranges(log);
	printf("],\"first_mismatch\":");
	if (log->have_first)
		printf("{\"byte\":%" PRIu64 ",\"expected\":%u,\"actual\":%u}", log->first_pos,
		       log->first_expected, log->first_actual);
	else
		printf("null");
	printf(",\"unreadable_sectors\":%" PRIu64 ",\"unreadable_ranges\":%" PRIu64
	       ",\"unreadable\":[", run->unreadable.bad_sectors + run->earlier_unreadable,
	       run->unreadable.nranges);
	verify_json_ranges(&run->unreadable);
	printf("]");
	if (run->resume)
		printf(",\"resumed_bad_sectors\":%" PRIu64 ",\"resumed_unreadable_sectors\":%" PRIu64
		       ",\"already_complete\":%s", run->earlier_bad, run->earlier_unreadable,
		       run->already_complete ? "true" : "false");
	if (run->mismatch.nranges)
		verify_classes_json(run);
	printf(",\"search_interrupted\":%s", run->search.interrupted ? "true" : "false");
	printf(",\"diagnosed_sectors\":%zu,\"diagnosis\":[", run->ndiag);
	for (i = 0; i < run->ndiag; i++) {
		printf("%s{\"byte\":%" PRIu64 ",\"lba\":%" PRIu64 ",\"class\":", i ? "," : "",
		       run->sample[i].device_offset, run->sample[i].device_offset / run->sector);
		guac_diag_json(stdout, &run->diag[i], run->sector);
		printf("}");
	}
	printf("],\"error\":");
	if (run->fatal)
		guac_json_string(stdout, strerror(run->fatal_errno));
	else if (run->first_errno)
		guac_json_string(stdout, strerror(run->first_errno));
	else
		printf("null");
	printf("}\n");
}

static void verify_text_ranges(const struct verify_run *run, const struct guac_badlog *log)
{
	uint64_t i;

	for (i = 0; i < log->nranges && i < log->cap; i++) {
		const struct guac_range *r = &log->kept[i];
		uint64_t first = r->start / run->sector, last = (r->end - 1) / run->sector;

		printf("  bytes %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes, sector%s %" PRIu64,
		       r->start, r->end - 1, r->end - r->start, first == last ? "" : "s", first);
		if (first != last)
			printf("-%" PRIu64, last);
		printf(")\n");
	}
	if (log->nranges > log->cap)
		printf("  ... and %" PRIu64 " more ranges\n", log->nranges - log->cap);
}

/*
 * What of the fill the check covered, when not all of it: ", shard 1/2 of
 * the fill (from SLURM_ARRAY_TASK_ID)" or ", fill bytes 0-4095 only".
 */
static void verify_scope(const struct verify_run *run, char *buf, size_t size)
{
	buf[0] = 0;
	if (run->shard.count > 1)
		snprintf(buf, size, ", shard %u/%u of the %s (from %s)", run->shard.index,
			 run->shard.count, run->manifest ? "fill" : "data", run->shard.source);
	else if (run->manifest && run->subrange)
		snprintf(buf, size, ", fill bytes %" PRIu64 "-%" PRIu64 " only", run->skip,
			 run->end - run->manifest->device_offset - 1);
}

static void verify_report_text(const struct verify_run *run)
{
	const struct guac_badlog *log = &run->mismatch;
	char human[32], speed[32], line[512], scope[160];
	double secs = run->seconds;
	size_t i;

	guac_fmt_bytes(human, sizeof(human), (double)run->checked);
	verify_scope(run, scope, sizeof(scope));
	if (verify_empty(run)) {
		printf("EMPTY: '%s' holds no data to check\n", run->path);
	} else if (run->already_complete && (run->earlier_bad || run->earlier_unreadable)) {
		printf("MISMATCH: the check was already complete: it had found %" PRIu64
		       " bad and %" PRIu64 " unreadable %u-byte sectors (their places are in "
		       "that run's output and --bad-list); nothing left to resume\n",
		       run->earlier_bad, run->earlier_unreadable, run->sector);
	} else if (run->already_complete && verify_ok(run)) {
		guac_fmt_bytes(human, sizeof(human), (double)run->planned);
		printf("OK: the recorded check of this fill was complete: all %" PRIu64 " bytes "
		       "(%s) matched%s, and the target is unchanged since (%s); nothing left to "
		       "resume\n", run->planned, human, scope,
		       run->target.kind == GUAC_TARGET_BLOCK ? "its size: a block device's "
		       "writes leave no time stamp" : "its inode, size and times");
	} else if (run->already_complete) {
		printf("RESUMED: the recorded check had compared every written byte, all matching; "
		       "nothing left to resume\n");
	} else if (verify_ok(run)) {
		double cpu = verify_cpu_seconds();
		uint64_t covered = verify_covered(run);
		char soff[32], all[32];

		guac_fmt_rate(speed, sizeof(speed), secs > 0 ? run->checked / secs : 0.0);
		guac_fmt_bytes(all, sizeof(all), (double)covered);
		printf("OK: %" PRIu64 " bytes (%s) match the stream at offset %s, origin %" PRIu64
		       "%s", covered, all, guac_spos_str(soff, sizeof(soff), run->first_stream),
		       run->origin, scope);
		if (covered != run->checked)
			printf("; %" PRIu64 " of them checked by the run resumed", covered -
			       run->checked);
		printf("; %.3f s, %s, %.2f GB per CPU-second\n", secs, speed,
		       cpu > 0 ? run->checked / cpu / 1e9 : 0.0);
	}
	if (!strcmp(verify_result(run), "unchecked"))
		printf("NOT CHECKED: %" PRIu64 " of the %" PRIu64 " bytes described were not "
		       "compared: no verdict can be given for them\n",
		       run->planned - (verify_covered(run) < run->planned ? verify_covered(run) :
				       run->planned), run->planned);
	if (run->restart_why)
		printf("NOTE: --resume started from the beginning: %s\n", run->restart_why);
	if (run->interrupted)
		printf("INTERRUPTED: stopped after %" PRIu64 " bytes (%s) checked; the findings "
		       "so far follow%s\n", run->checked, human,
		       run->manifest ? " (progress saved in the manifest: --resume continues)" : "");
	if (run->max_reached)
		printf("STOPPED: --max-errors %" PRIu64 " reached after %" PRIu64 " bytes (%s)\n",
		       run->max_errors, run->checked, human);
	if (log->nranges) {
		printf("MISMATCH: %" PRIu64 " bad %u-byte sector%s in %" PRIu64 " range%s, %" PRIu64
		       " bytes differ, of %" PRIu64 " bytes (%s) checked\n",
		       log->bad_sectors, run->sector, log->bad_sectors == 1 ? "" : "s",
		       log->nranges, log->nranges == 1 ? "" : "s", log->bad_bytes, run->checked,
		       human);
		verify_text_ranges(run, log);
		printf("first difference at byte %" PRIu64 ": expected 0x%02x, got 0x%02x\n",
		       log->first_pos, log->first_expected, log->first_actual);
		verify_classes_text(run);
	}
	if (run->unreadable.nranges) {
		printf("UNREADABLE: %" PRIu64 " %u-byte sector%s in %" PRIu64 " range%s could not "
		       "be read (%s), even one sector at a time\n", run->unreadable.bad_sectors,
		       run->sector, run->unreadable.bad_sectors == 1 ? "" : "s",
		       run->unreadable.nranges, run->unreadable.nranges == 1 ? "" : "s",
		       strerror(run->first_errno));
		verify_text_ranges(run, &run->unreadable);
	}
	if (run->short_data)
		printf("SHORT: the data ends at byte %" PRIu64 ", %" PRIu64 " bytes before the "
		       "requested %" PRIu64 "\n", run->short_at, run->end - run->short_at, run->end);
	if (run->incomplete)
		printf("INCOMPLETE: the manifest records %" PRIu64 " bytes that were never "
		       "written (status \"%s\"); only the written ones were checked\n",
		       run->incomplete, run->manifest->status);
	if (!run->already_complete && (run->earlier_bad || run->earlier_unreadable)) {
		char soff[32];

		printf("RESUMED: this run checked %" PRIu64 " bytes (%s) from byte %" PRIu64
		       " (stream offset %s)%s\n", run->checked, human, run->first_dev,
		       guac_spos_str(soff, sizeof(soff), run->first_stream),
		       run->mismatch.nranges || run->unreadable.nranges ? "" : ", all matching");
		printf("MISMATCH: RESUMED: the earlier run had found %" PRIu64 " bad and %" PRIu64
		       " unreadable %u-byte sectors before where this one started (byte %" PRIu64
		       "); the manifest keeps only their count: their places are in that run's "
		       "output and --bad-list\n", run->earlier_bad, run->earlier_unreadable,
		       run->sector, run->first_dev);
	}
	if (run->ndiag && run->ndiag == run->nfirst) {
		printf("DIAGNOSIS of the first %zu bad sector%s:\n", run->ndiag,
		       run->ndiag == 1 ? "" : "s");
	} else if (run->ndiag) {
		printf("DIAGNOSIS of %zu bad sectors: the first %zu found, and %zu more of class "
		       "OTHER (the search takes the first %u OTHER ones):\n", run->ndiag, run->nfirst,
		       run->ndiag - run->nfirst, VERIFY_DIAG_MAX);
	}
	if (run->ndiag) {
		for (i = 0; i < run->ndiag; i++)
			printf("  sector %" PRIu64 " (byte %" PRIu64 "): %s\n",
			       run->sample[i].device_offset / run->sector, run->sample[i].device_offset,
			       guac_diag_describe(&run->diag[i], run->sector, line, sizeof(line)));
		if (run->search.interrupted)
			printf("  search interrupted: not exhaustive (Ctrl-C); an UNKNOWN sector may "
			       "hold data from a place not searched\n");
	}
	printf("mode: %s I/O%s, %" PRIu64 " job%s, %" PRIu64 "-byte reads, %u-byte sectors\n",
	       guac_target_mode(&run->target), run->target.direct ? " (O_DIRECT)" : "",
	       run->jobs, run->jobs == 1 ? "" : "s", run->bs, run->sector);
}

static int verify_parse(struct verify_run *run, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'n' },
		{ "origin", required_argument, NULL, 'r' },
		{ "seek", required_argument, NULL, 'S' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "skip", required_argument, NULL, 'k' },
		{ "resume", no_argument, NULL, 'R' },
		{ "direct", no_argument, NULL, 'D' },
		{ "buffered", no_argument, NULL, 'B' },
		{ "bs", required_argument, NULL, 'b' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "sector", required_argument, NULL, 's' },
		{ "max-errors", required_argument, NULL, 'E' },
		{ "bad-list", required_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'J' },
		{ "impl", required_argument, NULL, 'i' },
		{ "shard", required_argument, NULL, 'H' },
		{ "shards", required_argument, NULL, 'N' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool offset_given = false, origin_given = false;
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "o:n:j:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!guac_parse_u64("offset", optarg, &run->offset))
				return GUAC_EXIT_ERROR;
			offset_given = true;
			break;
		case 'n':
			if (!guac_parse_u64("length", optarg, &run->length))
				return GUAC_EXIT_ERROR;
			run->length_given = true;
			break;
		case 'r':
			if (!guac_parse_u64("origin", optarg, &run->origin))
				return GUAC_EXIT_ERROR;
			origin_given = true;
			break;
		case 'S':
			if (!guac_parse_u64("seek", optarg, &run->seek))
				return GUAC_EXIT_ERROR;
			run->seek_given = true;
			break;
		case 'm':
			run->manifest_path = optarg;
			break;
		case 'k':
			if (!guac_parse_u64("skip", optarg, &run->skip))
				return GUAC_EXIT_ERROR;
			run->skip_given = true;
			break;
		case 'R':
			run->resume = true;
			break;
		case 'D':
		case 'B':
			if (run->direct != GUAC_DIRECT_DEFAULT) {
				guac_err("--direct and --buffered exclude each other");
				return GUAC_EXIT_ERROR;
			}
			run->direct = c == 'D' ? GUAC_DIRECT_ON : GUAC_DIRECT_OFF;
			break;
		case 'b':
			if (!guac_parse_u64("block size", optarg, &run->bs))
				return GUAC_EXIT_ERROR;
			if (run->bs < 512 || run->bs > GUAC_IO_MAX_BS) {
				guac_err("invalid block size '%s': expected 512 to 64M", optarg);
				return GUAC_EXIT_ERROR;
			}
			run->bs_given = true;
			break;
		case 'j':
			if (!guac_parse_u64("job count", optarg, &run->jobs))
				return GUAC_EXIT_ERROR;
			if (!run->jobs || run->jobs > GUAC_IO_MAX_JOBS) {
				guac_err("invalid job count '%s': expected 1 to %u", optarg,
					 GUAC_IO_MAX_JOBS);
				return GUAC_EXIT_ERROR;
			}
			break;
		case 's':
			if (!guac_parse_u64("sector size", optarg, &v))
				return GUAC_EXIT_ERROR;
			if (v != 512 && v != 4096) {
				guac_err("invalid sector size '%s': expected 512 or 4096", optarg);
				return GUAC_EXIT_ERROR;
			}
			run->sector = (unsigned int)v;
			break;
		case 'E':
			if (!guac_parse_u64("error limit", optarg, &run->max_errors))
				return GUAC_EXIT_ERROR;
			if (!run->max_errors) {
				guac_err("invalid --max-errors '%s': expected at least 1", optarg);
				return GUAC_EXIT_ERROR;
			}
			break;
		case 'L':
			run->bad_list_path = optarg;
			break;
		case 'J':
			run->json = true;
			break;
		case 'i':
			run->impl = guac_parse_impl(optarg);
			break;
		case 'H':
			run->shard_arg = optarg;
			break;
		case 'N':
			run->shards_arg = optarg;
			break;
		case 'V':
			guac_print_version();
			exit(GUAC_EXIT_OK);
		case 'h':
			verify_usage(stdout);
			exit(GUAC_EXIT_OK);
		default:
			fprintf(stderr, "Try 'guac verify --help'.\n");
			return GUAC_EXIT_ERROR;
		}
	}
	if (run->manifest_path && (offset_given || origin_given || run->seek_given)) {
		guac_err("--offset, --origin and --seek come from the manifest; use --skip and "
			 "--length for a sub-range");
		return GUAC_EXIT_ERROR;
	}
	if (run->resume && !run->manifest_path) {
		guac_err("--resume needs --manifest (the progress is saved there)");
		return GUAC_EXIT_ERROR;
	}
	if (run->resume && (run->skip_given || run->length_given)) {
		guac_err("--resume continues the whole check: no --skip or --length with it");
		return GUAC_EXIT_ERROR;
	}
	/* Like guac write: a range past 2^64 would wrap and check the wrong bytes. */
	if (run->seek + run->skip < run->seek) {
		guac_err("--seek %" PRIu64 " + --skip %" PRIu64 " overflows", run->seek, run->skip);
		return GUAC_EXIT_ERROR;
	}
	if (run->length_given && run->seek + run->skip + run->length < run->seek + run->skip) {
		guac_err("--seek %" PRIu64 " + --skip %" PRIu64 " + --length %" PRIu64 " overflows",
			 run->seek, run->skip, run->length);
		return GUAC_EXIT_ERROR;
	}
	if (run->manifest_path && run->length_given && !run->length) {
		guac_err("--length 0 with --manifest checks nothing");
		return GUAC_EXIT_ERROR;
	}
	if (!guac_shard_parse(&run->shard, run->shard_arg, run->shards_arg))
		return GUAC_EXIT_ERROR;
	/* Without a manifest, --length is the whole data's, as for guac write --shard. */
	if (run->shard.count > 1 && (run->skip_given || run->resume ||
				     (run->manifest_path && run->length_given))) {
		guac_err("--shard (%s) chooses the range: no --skip, --resume, or --length with "
			 "--manifest", run->shard.source);
		return GUAC_EXIT_ERROR;
	}
	if (optind + 1 < argc) {
		guac_err("unexpected argument '%s' after SOURCE", argv[optind + 1]);
		return GUAC_EXIT_ERROR;
	}
	if (optind == argc && !run->manifest_path) {
		guac_err("missing SOURCE (a file, a block device, or - for standard input)");
		return GUAC_EXIT_ERROR;
	}
	run->path = optind < argc ? argv[optind] : NULL;
	return GUAC_EXIT_OK;
}

static void verify_add_segment(struct verify_run *run, uint64_t dev, struct guac_spos stream,
			       uint64_t len, uint64_t resume, int range)
{
	struct verify_segment *seg;

	run->seg = realloc(run->seg, (run->nseg + 1) * sizeof(*run->seg));
	if (!run->seg) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	seg = &run->seg[run->nseg++];
	*seg = (struct verify_segment){ dev, len, stream, resume, range };
	run->planned += len;
}

/*
 * The manifest's written bytes within the range asked for, as segments: this
 * manifest's part of the fill, or of it --shard K/N's part (of a whole-fill
 * manifest), or [--skip, --skip + --length) of the fill, the part's start and
 * end standing in for what is not given. A range outside the part is refused;
 * bytes in it the manifest does not record as written are INCOMPLETE, never OK.
 */
static bool verify_plan_manifest(struct verify_run *run)
{
	struct guac_manifest *m = run->manifest;
	struct guac_spos fill = guac_spos_of(m->stream_offset);
	uint64_t lo, hi, i;
	uint64_t part_start = m->range[0].device_offset - m->device_offset;
	uint64_t part_len = guac_manifest_ranges_length(m);

	run->origin = m->origin;
	run->offset = m->stream_offset;
	run->seek = m->device_offset;
	if (!run->bs)
		run->bs = m->block_size < VERIFY_DEFAULT_BS ? m->block_size : VERIFY_DEFAULT_BS;
	if (!run->sector)
		run->sector = m->sector_size;
	lo = part_start;
	hi = part_start + part_len;
	if (run->shard.count > 1 && m->shard_count > 1 &&
	    (run->shard.index != m->shard_index || run->shard.count != m->shard_count)) {
		guac_err("the manifest is shard %u/%u of the fill; %s asks for %u/%u",
			 m->shard_index, m->shard_count, run->shard.source, run->shard.index,
			 run->shard.count);
		return false;
	}
	if (run->shard.count > 1 && m->shard_count == 1) {
		/* Exactly the part guac write --shard K/N writes (shard.c, the fill's sectors). */
		guac_shard_range(&run->shard, m->length, m->sector_size, &lo, &hi);
		if (lo == hi) {
			guac_err("shard %u/%u of %" PRIu64 " bytes is empty: fewer sectors than shards",
				 run->shard.index, run->shard.count, m->length);
			return false;
		}
		run->subrange = true;
	}
	if (run->skip_given || run->length_given) {
		uint64_t a = run->skip_given ? run->skip : lo, b;

		if (a >= m->length) {
			guac_err("--skip %" PRIu64 " is past the end of the fill (%" PRIu64 " bytes)",
				 a, m->length);
			return false;
		}
		if (run->length_given && run->length > m->length - a) {
			guac_err("--skip + --length go past the end of the fill (%" PRIu64 " bytes)",
				 m->length);
			return false;
		}
		b = run->length_given ? a + run->length : hi;
		if (a < lo || b > hi || a >= b) {
			guac_err("bytes %" PRIu64 "-%" PRIu64 " of the fill are not all in this "
				 "manifest's part, shard %u/%u: bytes %" PRIu64 "-%" PRIu64 " (--skip "
				 "counts from the fill's start; use the manifest of the part that holds "
				 "them)", a, (b > a ? b : a + 1) - 1, m->shard_index, m->shard_count,
				 lo, hi - 1);
			return false;
		}
		lo = a;
		hi = b;
		run->subrange = true;
	}
	for (i = 0; i < m->nranges; i++) {
		struct guac_manifest_range *r = &m->range[i];
		uint64_t a = r->device_offset - m->device_offset, b = a + r->done;
		uint64_t ua = b, ub = a + r->length;	/* never written */

		/* A fresh whole check starts its progress afresh; a resumed one keeps it. */
		if (!run->trust_progress && !run->subrange)
			r->verified = 0;
		/* Only what the range asked for counts as incomplete. */
		ua = ua > lo ? ua : lo;
		ub = ub < hi ? ub : hi;
		if (ua < ub)
			run->incomplete += ub - ua;
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		if (a >= b) {
			verify_add_segment(run, m->device_offset + a, guac_spos_add(fill, a), 0, 0,
					   (int)i);
			continue;
		}
		/* --resume starts after what the last run verified. */
		verify_add_segment(run, m->device_offset + a, guac_spos_add(fill, a), b - a,
				   run->trust_progress ? (r->verified < b - a ? r->verified : b - a) :
				   0, (int)i);
	}
	run->skip = lo;
	run->end = m->device_offset + hi;
	run->bounded = true;
	return true;
}

static bool verify_plan_plain(struct verify_run *run)
{
	uint64_t avail, start = run->seek + run->skip;
	struct guac_spos data = guac_spos_of(run->offset);

	if (!run->bs)
		run->bs = VERIFY_DEFAULT_BS;
	if (!run->sector)
		run->sector = run->target.kind == GUAC_TARGET_BLOCK ? run->target.sector : 512;
	if (run->target.kind == GUAC_TARGET_STREAM && !run->length_given) {
		/* `ssh host cat /dev/sdX | guac verify -` would pass if cat died early. */
		guac_err("a pipe needs --length (the bytes it must hold) or a --manifest: without "
			 "one, an input that ends early could not be told from a whole one");
		return false;
	}
	if (run->target.kind == GUAC_TARGET_STREAM) {
		/* The pipe is the data from byte 0: the bytes before --seek + --skip are dropped. */
		run->bounded = run->length_given;
		if (run->shard.count > 1 && !run->length_given) {
			guac_err("--shard on a pipe needs --length (the whole data's)");
			return false;
		}
		verify_add_segment(run, start, guac_spos_add(data, run->skip),
				   run->length_given ? run->length : UINT64_MAX - start, 0, -1);
		if (!run->length_given)
			run->planned = 0;
		run->end = run->length_given ? start + run->length : UINT64_MAX;
	} else {
		avail = run->target.size > start ? run->target.size - start : 0;
		if (!run->length_given)
			run->length = avail;
		run->bounded = true;
		verify_add_segment(run, start, guac_spos_add(data, run->skip), run->length, 0, -1);
		run->end = start + run->length;
	}
	if (run->shard.count > 1) {
		/* Like guac write --shard K/N --length L: part K of the L bytes. */
		uint64_t a, b;

		guac_shard_range(&run->shard, run->length, run->target.sector, &a, &b);
		if (a == b) {
			guac_err("shard %u/%u of %" PRIu64 " bytes is empty: fewer sectors than shards",
				 run->shard.index, run->shard.count, run->length);
			return false;
		}
		run->seg[0] = (struct verify_segment){ start + a, b - a, guac_spos_add(data, a), 0,
						       -1 };
		run->planned = b - a;
		run->skip = a;
		run->end = start + b;
	}
	return true;
}

/*
 * Whether this run's progress belongs in the manifest: a check of the whole
 * (not of a sub-range) of the recorded target (not of a copy) that has work
 * to do.
 */
static bool verify_records_progress(const struct verify_run *run)
{
	return run->manifest && !run->subrange && run->recorded_target && !run->already_complete;
}

/*
 * Save the verify progress in the manifest, for --resume; a warning if
 * impossible. "running" before the first read and while the check goes on,
 * so that a check killed mid-way (SIGKILL, OOM, power loss) leaves that and
 * never an earlier "complete"; at the end "complete" when every done byte of
 * every range was verified, else "interrupted". The target's stamp, taken
 * before the first read, goes with it: a --resume that finds the target
 * changed since starts afresh.
 */
static void verify_save_progress(struct verify_run *run, bool running)
{
	struct guac_manifest *m = run->manifest;
	bool complete = true;
	unsigned int i;

	if (!verify_records_progress(run))
		return;
	for (i = 0; i < m->nranges; i++)
		complete = complete && m->range[i].verified == m->range[i].done;
	m->have_verify = true;
	snprintf(m->verify_status, sizeof(m->verify_status), "%s",
		 running ? "running" : complete ? "complete" : "interrupted");
	m->verify_bad_sectors = run->prior_bad;
	m->verify_unreadable_sectors = run->prior_unreadable;
	snprintf(m->verify_stamp, sizeof(m->verify_stamp), "%s", run->stamp);
	if (!guac_manifest_save(run->manifest_path, m))
		guac_err("warning: the verify progress is not saved in '%s'", run->manifest_path);
}

/*
 * --resume: take the manifest's record of the last check, if it can be
 * trusted: written by this format (version 2 recorded "complete" for checks
 * that were not), with the target unchanged since the check began. Otherwise
 * the check starts from the beginning and the report says why.
 */
static void verify_take_record(struct verify_run *run)
{
	static char why[512];
	const struct guac_manifest *m = run->manifest;

	if (!m->have_verify)
		return;
	if (m->version < 3 || !m->verify_stamp[0]) {
		run->restart_why = "the progress was recorded by an older guac (manifest version 2), "
				   "whose records can say complete for checks that were not";
		return;
	}
	if (strcmp(m->verify_stamp, run->stamp)) {
		snprintf(why, sizeof(why), "the target changed since the recorded check began "
			 "(then: %s; now: %s), so what it checked may be different now",
			 m->verify_stamp, run->stamp);
		run->restart_why = why;
		return;
	}
	run->trust_progress = true;
	run->prior_bad = run->earlier_bad = m->verify_bad_sectors;
	run->prior_unreadable = run->earlier_unreadable = m->verify_unreadable_sectors;
	run->already_complete = !strcmp(m->verify_status, "complete");
}

/* Whether SOURCE is the file or device the manifest recorded (not a copy). */
static bool verify_is_recorded_target(const struct verify_run *run)
{
	struct stat a, b;

	if (run->target.kind == GUAC_TARGET_STREAM)
		return false;
	if (!strcmp(run->path, run->manifest->target_path))
		return true;
	if (stat(run->manifest->target_path, &a) || fstat(run->target.fd, &b))
		return false;
	if (S_ISBLK(a.st_mode) && S_ISBLK(b.st_mode))
		return a.st_rdev == b.st_rdev;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The first byte checked, device and stream, for the report (after --skip, --resume). */
static void verify_first_byte(struct verify_run *run)
{
	unsigned int i;

	run->first_dev = run->nseg ? run->seg[0].device_offset : run->seek + run->skip;
	run->first_stream = run->nseg ? run->seg[0].stream :
			    guac_spos_add(guac_spos_of(run->offset), run->skip);
	for (i = 0; i < run->nseg; i++) {
		if (run->seg[i].length > run->seg[i].resume) {
			run->first_dev = run->seg[i].device_offset + run->seg[i].resume;
			run->first_stream = guac_spos_add(run->seg[i].stream, run->seg[i].resume);
			break;
		}
	}
}

int guac_cmd_verify(int argc, char **argv)
{
	static struct verify_run run;
	static struct guac_manifest manifest;
	unsigned int i;
	double saved;
	int ret;

	run.impl = guac_impl_best();
	run.jobs = guac_nr_cpus();
	pthread_mutex_init(&run.sample_lock, NULL);
	ret = verify_parse(&run, argc, argv);
	if (ret)
		return ret;
	if (run.manifest_path) {
		if (!guac_manifest_load(run.manifest_path, &manifest))
			return GUAC_EXIT_ERROR;
		run.manifest = &manifest;
		if (!run.path)
			run.path = manifest.target_path;
	}
	if (!guac_target_open(&run.target, run.path, false, run.direct, false))
		return GUAC_EXIT_ERROR;
	guac_target_stamp(&run.target, run.stamp, sizeof(run.stamp));
	if (run.target.fd == STDIN_FILENO && run.target.kind == GUAC_TARGET_FILE) {
		/* `guac verify - < file` checks from where the shell left the file. */
		off_t cur = lseek(STDIN_FILENO, 0, SEEK_CUR);

		run.seek += cur > 0 ? (uint64_t)cur : 0;
	}
	if (run.target.kind == GUAC_TARGET_STREAM)
		run.jobs = 1;	/* a pipe is read by one thread, whatever --jobs says */
	if (run.manifest) {
		run.recorded_target = verify_is_recorded_target(&run);
		if (run.resume && !run.recorded_target) {
			guac_err("--resume continues the check of the manifest's target '%s', not "
				 "of '%s'", manifest.target_path, run.path);
			return GUAC_EXIT_ERROR;
		}
		if (run.resume)
			verify_take_record(&run);
	}
	if (run.manifest && !verify_plan_manifest(&run))
		return GUAC_EXIT_ERROR;
	if (!run.manifest && !verify_plan_plain(&run))
		return GUAC_EXIT_ERROR;
	if (run.bs % run.sector) {
		/* A read must end on a sector boundary, or a sector is seen in two pieces. */
		if (run.bs_given) {
			guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector verify "
				 "reports in (--sector or the manifest's)", run.bs, run.sector);
			return GUAC_EXIT_ERROR;
		}
		run.bs = (run.bs + run.sector - 1) / run.sector * run.sector;
	}
	verify_first_byte(&run);
	verify_diag_setup(&run);
	if (run.target.direct && run.bs % run.target.sector) {
		guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector O_DIRECT needs",
			 run.bs, run.target.sector);
		return GUAC_EXIT_ERROR;
	}
	if (run.manifest && run.manifest->serial[0] && run.target.serial[0] &&
	    strcmp(run.manifest->serial, run.target.serial))
		guac_err("note: '%s' has serial %s, the manifest's target had %s (a copy?)",
			 run.path, run.target.serial, run.manifest->serial);
	guac_badlog_init(&run.mismatch, run.mismatch_kept, VERIFY_SHOWN_RANGES);
	guac_badlog_init(&run.unreadable, run.unreadable_kept, VERIFY_SHOWN_RANGES);

	if (run.manifest && !run.subrange && !run.recorded_target)
		/* The manifest's progress is its target's: a copy's check is no part of it. */
		guac_err("note: progress not saved in '%s': '%s' is not its target '%s'",
			 run.manifest_path, run.path, manifest.target_path);

	guac_io_catch_signals(&run.stop);
	verify_save_progress(&run, true);
	saved = guac_now();
	for (i = 0; i < run.nseg && !run.already_complete; i++) {
		if (run.seg[i].length == run.seg[i].resume) {
			run.progress_done += run.seg[i].length;
			continue;
		}
		if (!verify_segment(&run, &run.seg[i]))
			break;
		/* A manifest of many ranges records its progress as it goes, now and then. */
		if (guac_now() - saved >= VERIFY_SAVE_SECONDS) {
			verify_save_progress(&run, true);
			saved = guac_now();
		}
	}
	guac_target_close(&run.target);
	/* Stopped before every byte was compared (a stop that came later changes nothing). */
	if (atomic_load(&run.stop) && !run.max_reached && !run.fatal && !run.short_data &&
	    verify_covered(&run) < run.planned)
		run.interrupted = true;
	verify_save_progress(&run, false);
	if (run.bad_list_path && !verify_write_bad_list(&run))
		ret = GUAC_EXIT_ERROR;
	qsort(run.sample, run.nsample, sizeof(run.sample[0]), verify_sample_cmp);
	verify_diagnose(&run);

	if (run.json)
		verify_report_json(&run);
	else
		verify_report_text(&run);
	if (run.fatal)
		guac_err("read error on '%s' at byte %" PRIu64 ": %s", run.path, run.fatal_pos,
			 strerror(run.fatal_errno));
	for (i = 0; i < run.nsample; i++)
		free(run.sample[i].data);
	return ret ? GUAC_EXIT_ERROR : verify_exit_status(&run);
}
