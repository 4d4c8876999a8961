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
 * merged, and memory stays at a few buffers per thread plus the first
 * VERIFY_DIAG_MAX bad sectors kept for the diagnosis. The complete list goes
 * to --bad-list through one temporary file per thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "cmds.h"
#include "diag.h"
#include "io_engine.h"
#include "libguac.h"
#include "manifest.h"
#include "util.h"
#include "verify.h"

#define VERIFY_DEFAULT_BS (256u << 10)	/* one read; stays in L2 until compared */
#define VERIFY_SLICE (32u << 10)	/* generated then compared while in L1 */
#define VERIFY_SHOWN_RANGES 20
#define VERIFY_DIAG_MAX 1000		/* bad sectors kept for the diagnosis */
#define VERIFY_EXIT_INTERRUPTED 130

/* A contiguous stretch to check: device bytes and the stream bytes they should hold. */
struct verify_segment {
	uint64_t device_offset, stream_offset, length;
	uint64_t resume;		/* bytes already verified (--resume) */
	int range;			/* manifest range index, or -1 */
};

/* One bad sector kept for the diagnosis. */
struct verify_sample {
	uint64_t device_offset, stream_offset;
	uint8_t *data;
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
	uint64_t pending_start, pending_end;
	uint8_t *want;
};

struct verify_run {
	/* Options. */
	const char *path, *manifest_path, *bad_list_path;
	uint64_t offset, origin, seek, skip, length, bs, jobs, max_errors;
	bool length_given, seek_given, skip_given, json, resume;
	enum guac_direct direct;
	unsigned int sector;		/* report granularity; 0: the target's */
	int impl;

	/* The work. */
	struct guac_target target;
	struct guac_manifest *manifest;
	struct verify_segment *seg;
	unsigned int nseg;
	bool bounded;			/* the length is known */
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
	FILE **job_lists;		/* every job's bad-list part, in order */
	size_t njob_lists;

	pthread_mutex_t sample_lock;
	struct verify_sample sample[VERIFY_DIAG_MAX];
	size_t nsample;
	struct guac_diag_result diag[VERIFY_DIAG_MAX];
	size_t ndiag;
	bool diag_ran;
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
		"                       device, of the input for a pipe, or of the manifest)\n"
		"      --origin BLOCK   block index added to the position, mod 2^64 (default 0)\n"
		"      --seek BYTES     byte of SOURCE where the stream data starts (default 0)\n"
		"  -m, --manifest FILE  check what guac write recorded in FILE\n"
		"      --skip BYTES     start this many bytes into the data (a sub-range; reports\n"
		"                       still give true device byte offsets and LBAs)\n"
		"      --resume         continue from the progress saved in the manifest\n"
		"      --direct         O_DIRECT reads, from the media, not the page cache\n"
		"                       (default for block devices; refused where impossible)\n"
		"      --buffered       read through the page cache, even a block device\n"
		"      --bs BYTES       bytes per read system call (default 256K)\n"
		"  -j, --jobs N         reader threads, each on its own contiguous part (default:\n"
		"                       one per CPU, here %u); pipes are read by one\n"
		"      --sector SIZE    512 or 4096: granularity of the reported bad ranges\n"
		"                       (default: the device's logical sector, else 512)\n"
		"      --max-errors N   stop after N bad or unreadable sectors (default: never)\n"
		"      --bad-list FILE  write every bad range, one per line:\n"
		"                       KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA\n"
		"      --json           print a JSON summary on standard output instead of text\n"
		"      --impl NAME      generator: auto, generic, sse2, avx2 or avx512\n"
		"      --version        print the version\n"
		"  -h, --help           show this help\n\n"
		"Reports OK with the byte count and throughput, or each bad range (whole\n"
		"sectors, adjacent ones merged, the first %u listed, then totals), the first\n"
		"differing byte with the expected and actual values, unreadable sectors\n"
		"(read errors are retried sector by sector and the check goes on), short data\n"
		"(the end of SOURCE before the length), and for the first %u bad sectors a\n"
		"diagnosis (zeros, ones, torn, stale origin, misdirected, wrapped capacity).\n"
		"The I/O mode (direct or buffered) is part of the report. An empty SOURCE\n"
		"fails unless --length is 0. Ctrl-C stops with a summary of what was found;\n"
		"with a manifest the progress is saved there for --resume. Memory use is\n"
		"fixed, whatever the size.\n"
		"A progress line (bytes, rate, ETA) goes to standard error when it is a\n"
		"terminal.\n" GUAC_NUMBERS_HELP "\n"
		"Exit status: 0 the data matches, 1 a mismatch, short or incomplete data,\n"
		"2 a usage error or unreadable sectors, 130 interrupted.\n",
		guac_nr_cpus(), VERIFY_SHOWN_RANGES, VERIFY_DIAG_MAX);
}

/*
 * The diagnosis, from diag.h: what each of the first VERIFY_DIAG_MAX bad
 * sectors holds instead. One batch, because the misdirection search sweeps
 * the pass range once for all of them. Kept behind this one function so the
 * rest of verify knows nothing of how the classification works.
 */
static void verify_diagnose(struct verify_run *run)
{
	struct guac_diag_pass pass, history[GUAC_MANIFEST_MAX_HISTORY];
	struct guac_diag_sector *sectors;
	struct guac_diag_config cfg;
	unsigned int sector = run->sector;
	size_t i, n = 0;

	if (!run->nsample || sector % 64 || sector < 128)
		return;
	sectors = calloc(run->nsample, sizeof(*sectors));
	if (!sectors)
		return;
	if (run->manifest) {
		pass = (struct guac_diag_pass){ run->origin, run->manifest->stream_offset,
						run->manifest->device_offset,
						run->manifest->length };
	} else {
		pass = (struct guac_diag_pass){ run->origin, run->offset, run->seek,
						run->bounded ? run->length + run->skip : 0 };
	}
	guac_diag_config_init(&cfg, (enum guac_impl)run->impl, sector, &pass);
	if (run->manifest) {
		/* The manifest keeps the oldest first; diag wants the newest first. */
		for (i = 0; i < run->manifest->nhistory; i++) {
			const struct guac_manifest_history *h =
				&run->manifest->history[run->manifest->nhistory - 1 - i];

			history[i] = (struct guac_diag_pass){ h->origin, h->stream_offset,
							      h->device_offset, h->length };
		}
		cfg.history = history;
		cfg.nhistory = run->manifest->nhistory;
	}
	for (i = 0; i < run->nsample; i++)
		sectors[n++] = (struct guac_diag_sector){ run->sample[i].stream_offset,
							  run->sample[i].data };
	if (!guac_diag_run(&cfg, sectors, n, run->diag, NULL)) {
		run->ndiag = n;
		run->diag_ran = true;
	}
	free(sectors);
}

static int verify_sample_cmp(const void *a, const void *b)
{
	const struct verify_sample *x = a, *y = b;

	return x->device_offset < y->device_offset ? -1 : x->device_offset > y->device_offset;
}

/* Keep a whole bad sector for the diagnosis, while there is room. */
static void verify_sample(struct verify_run *run, uint64_t dev, uint64_t stream_off,
			  const uint8_t *data)
{
	uint8_t *copy;

	if (run->nsample >= VERIFY_DIAG_MAX)
		return;
	copy = malloc(run->sector);
	if (!copy)
		return;
	memcpy(copy, data, run->sector);
	pthread_mutex_lock(&run->sample_lock);
	if (run->nsample < VERIFY_DIAG_MAX) {
		run->sample[run->nsample++] = (struct verify_sample){ dev, stream_off, copy };
		copy = NULL;
	}
	pthread_mutex_unlock(&run->sample_lock);
	free(copy);
}

static void verify_list_flush(struct verify_run *run, struct verify_job *vj)
{
	if (!vj->pending_kind || !vj->bad_list)
		return;
	fprintf(vj->bad_list, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		vj->pending_kind == 'm' ? "mismatch" : "unreadable", vj->pending_start,
		vj->pending_end - 1, vj->pending_start / run->sector,
		(vj->pending_end - 1) / run->sector);
	vj->pending_kind = 0;
}

/* A bad range for --bad-list, merged with the previous one when they touch. */
static void verify_list_add(struct verify_run *run, struct verify_job *vj, char kind,
			    uint64_t start, uint64_t end)
{
	if (!vj->bad_list)
		return;
	if (vj->pending_kind == kind && vj->pending_end == start) {
		vj->pending_end = end;
		return;
	}
	verify_list_flush(run, vj);
	vj->pending_kind = kind;
	vj->pending_start = start;
	vj->pending_end = end;
}

static void verify_count_error(struct verify_run *run, uint64_t n)
{
	uint64_t total = atomic_fetch_add(&run->errors, n) + n;

	if (run->max_errors && total >= run->max_errors) {
		run->max_reached = true;
		atomic_store(&run->stop, true);
	}
}

struct verify_job_ctx {
	struct verify_run *run;
	const struct verify_segment *seg;
	struct verify_job *vj;
};

/* Compare what was read at run position @pos with the stream, device sector by sector. */
static void verify_consume(struct guac_io_job *job, const uint8_t *got, uint64_t pos, size_t len)
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

		if (n > len - off)
			n = len - off;
		guac_stream_at(run->impl, vj->want, run->origin, ctx->seg->stream_offset, rel, n);
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
				guac_badlog_scan(&vj->mismatch, got + off + s, vj->want + s, k, d,
						 run->sector);
				verify_list_add(run, vj, 'm', d, d + k);
				if (k == run->sector)
					verify_sample(run, d, ctx->seg->stream_offset + rel + s,
						      got + off + s);
				verify_count_error(run, 1);
			}
			s += k;
		}
		off += n;
	}
}

static void verify_unreadable(struct guac_io_job *job, uint64_t pos, size_t len, int err)
{
	struct verify_job_ctx *ctx = job->priv;
	struct verify_job *vj = ctx->vj;
	uint64_t dev = job->io->base + pos;

	if (!vj->first_errno) {
		vj->first_errno = err;
		vj->first_error_pos = dev;
	}
	guac_badlog_mark(&vj->unreadable, dev, dev + len, ctx->run->sector);
	verify_list_add(ctx->run, vj, 'u', dev, dev + len);
	verify_count_error(ctx->run, (len + ctx->run->sector - 1) / ctx->run->sector);
}

static void verify_merge_findings(struct verify_run *run, struct verify_job *vj)
{
	guac_badlog_merge(&run->mismatch, &vj->mismatch);
	/* Unreadable sectors have no differing bytes to count. */
	guac_badlog_merge(&run->unreadable, &vj->unreadable);
	if (vj->first_errno && !run->first_errno) {
		run->first_errno = vj->first_errno;
		run->first_error_pos = vj->first_error_pos;
	}
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
	} else {
		guac_io_split(&io, run->target.sector);
	}
	for (i = 0; i < io.jobs; i++) {
		memset(&vj[i], 0, sizeof(vj[i]));
		guac_badlog_init(&vj[i].mismatch, vj[i].mismatch_kept, VERIFY_SHOWN_RANGES);
		guac_badlog_init(&vj[i].unreadable, vj[i].unreadable_kept, VERIFY_SHOWN_RANGES);
		vj[i].want = guac_alloc(VERIFY_SLICE);
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
	guac_io_run(&io);
	run->seconds += io.seconds;
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
	}
	if (seg->range >= 0) {
		run->manifest->range[seg->range].verified = seg->resume + prefix;
		run->prior_bad += bad_in_prefix;
		run->prior_unreadable += unread_in_prefix;
	}
	if (io.eof) {
		run->short_data = run->bounded;
		run->short_at = io.base + io.eof_pos;
		more = false;
	}
	if (run->fatal || atomic_load(&run->stop))
		more = false;
	if (atomic_load(&run->stop) && io.interrupted)
		run->interrupted = !run->max_reached;
	return more;
}

/* --bad-list: the jobs' parts in order, ranges touching across parts merged. */
static bool verify_write_bad_list(struct verify_run *run)
{
	char kind[16], pkind[16] = "";
	uint64_t a, b, pa = 0, pb = 0, la, lb;
	FILE *out = fopen(run->bad_list_path, "w");
	size_t i;
	bool ok;

	if (!out) {
		guac_err("cannot write --bad-list '%s': %s", run->bad_list_path, strerror(errno));
		return false;
	}
	fprintf(out, "# guac verify bad sectors of '%s' (%u-byte sectors): "
		"KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA\n", run->path, run->sector);
	for (i = 0; i < run->njob_lists; i++) {
		FILE *f = run->job_lists[i];

		rewind(f);
		while (fscanf(f, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, kind, &a, &b,
			      &la, &lb) == 5) {
			if (pkind[0] && !strcmp(kind, pkind) && pb + 1 == a) {
				pb = b;
				continue;
			}
			if (pkind[0])
				fprintf(out, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
					pkind, pa, pb, pa / run->sector, pb / run->sector);
			strcpy(pkind, kind);
			pa = a;
			pb = b;
		}
		fclose(f);
	}
	if (pkind[0])
		fprintf(out, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", pkind, pa, pb,
			pa / run->sector, pb / run->sector);
	ok = !ferror(out);
	if (fclose(out) || !ok) {
		guac_err("cannot write --bad-list '%s': %s", run->bad_list_path, strerror(errno));
		return false;
	}
	return true;
}

/* Nothing to compare, and nobody asked for zero bytes: an empty file or device. */
static bool verify_empty(const struct verify_run *run)
{
	return !run->manifest && !run->checked && !run->short_data && !run->length_given &&
	       !run->unreadable.nranges && !run->fatal && !run->interrupted;
}

static bool verify_mismatch(const struct verify_run *run)
{
	return run->mismatch.nranges || run->short_data || run->incomplete || verify_empty(run);
}

static const char *verify_result(const struct verify_run *run)
{
	if (run->fatal || run->unreadable.nranges)
		return "error";
	if (run->interrupted)
		return "interrupted";
	if (verify_empty(run))
		return "empty";
	if (verify_mismatch(run))
		return "mismatch";
	if (run->max_reached)
		return "mismatch";
	return "ok";
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

static void verify_report_json(const struct verify_run *run)
{
	const struct guac_badlog *log = &run->mismatch;
	double cpu = verify_cpu_seconds(), secs = run->seconds;
	size_t i;

	printf("{\"source\":");
	guac_json_string(stdout, run->path);
	printf(",\"result\":\"%s\",\"io_mode\":\"%s\",\"offset\":%" PRIu64 ",\"origin\":%" PRIu64
	       ",\"device_offset\":%" PRIu64 ",\"sector\":%u,\"impl\":\"%s\",\"jobs\":%" PRIu64
	       ",\"block_size\":%" PRIu64 ",",
	       verify_result(run), guac_target_mode(&run->target), run->offset, run->origin,
	       run->seek + run->skip, run->sector, guac_impl_names[run->impl], run->jobs, run->bs);
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
	       cpu > 0 ? run->checked / cpu : 0.0, log->bad_sectors, log->bad_bytes, log->nranges);
	verify_json_ranges(log);
	printf("],\"first_mismatch\":");
	if (log->have_first)
		printf("{\"byte\":%" PRIu64 ",\"expected\":%u,\"actual\":%u}", log->first_pos,
		       log->first_expected, log->first_actual);
	else
		printf("null");
	printf(",\"unreadable_sectors\":%" PRIu64 ",\"unreadable_ranges\":%" PRIu64
	       ",\"unreadable\":[", run->unreadable.bad_sectors, run->unreadable.nranges);
	verify_json_ranges(&run->unreadable);
	printf("]");
	if (run->resume)
		printf(",\"resumed_bad_sectors\":%" PRIu64 ",\"resumed_unreadable_sectors\":%" PRIu64,
		       run->manifest->verify_bad_sectors, run->manifest->verify_unreadable_sectors);
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

static void verify_report_text(const struct verify_run *run)
{
	const struct guac_badlog *log = &run->mismatch;
	char human[32], speed[32], line[512];
	double secs = run->seconds;
	size_t i;

	guac_fmt_bytes(human, sizeof(human), (double)run->checked);
	if (verify_empty(run)) {
		printf("EMPTY: '%s' holds no data to check\n", run->path);
	} else if (!verify_mismatch(run) && !run->unreadable.nranges && !run->fatal &&
		   !run->interrupted && !run->max_reached) {
		double cpu = verify_cpu_seconds();

		guac_fmt_rate(speed, sizeof(speed), secs > 0 ? run->checked / secs : 0.0);
		printf("OK: %" PRIu64 " bytes (%s) match the stream at offset %" PRIu64
		       ", origin %" PRIu64 "; %.3f s, %s, %.2f GB per CPU-second\n",
		       run->checked, human, run->offset + run->skip, run->origin, secs, speed,
		       cpu > 0 ? run->checked / cpu / 1e9 : 0.0);
	}
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
		       "requested %" PRIu64 "\n", run->short_at,
		       run->seek + run->skip + run->planned - run->short_at,
		       run->seek + run->skip + run->planned);
	if (run->incomplete)
		printf("INCOMPLETE: the manifest records %" PRIu64 " bytes that were never "
		       "written (status \"%s\"); only the written ones were checked\n",
		       run->incomplete, run->manifest->status);
	if (run->resume && (run->manifest->verify_bad_sectors ||
			    run->manifest->verify_unreadable_sectors))
		printf("RESUMED: the earlier run had found %" PRIu64 " bad and %" PRIu64
		       " unreadable sectors before where this one started\n",
		       run->manifest->verify_bad_sectors, run->manifest->verify_unreadable_sectors);
	if (run->ndiag) {
		printf("DIAGNOSIS of the first %zu bad sector%s:\n", run->ndiag,
		       run->ndiag == 1 ? "" : "s");
		for (i = 0; i < run->ndiag; i++)
			printf("  sector %" PRIu64 " (byte %" PRIu64 "): %s\n",
			       run->sample[i].device_offset / run->sector, run->sample[i].device_offset,
			       guac_diag_describe(&run->diag[i], run->sector, line, sizeof(line)));
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

static void verify_add_segment(struct verify_run *run, uint64_t dev, uint64_t stream_off,
			       uint64_t len, uint64_t resume, int range)
{
	struct verify_segment *seg;

	run->seg = realloc(run->seg, (run->nseg + 1) * sizeof(*run->seg));
	if (!run->seg) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	seg = &run->seg[run->nseg++];
	*seg = (struct verify_segment){ dev, stream_off, len, resume, range };
	run->planned += len;
}

/* The manifest's written bytes within [skip, skip + length) of the fill, as segments. */
static bool verify_plan_manifest(struct verify_run *run)
{
	struct guac_manifest *m = run->manifest;
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
	if (run->skip_given) {
		if (run->skip >= m->length) {
			guac_err("--skip %" PRIu64 " is past the end of the fill (%" PRIu64 " bytes)",
				 run->skip, m->length);
			return false;
		}
		if (run->skip > lo)
			lo = run->skip < hi ? run->skip : hi;
	}
	if (run->length_given) {
		if (run->length > m->length - (run->skip_given ? run->skip : 0)) {
			guac_err("--skip + --length go past the end of the fill (%" PRIu64 " bytes)",
				 m->length);
			return false;
		}
		if ((run->skip_given ? run->skip : 0) + run->length < hi)
			hi = (run->skip_given ? run->skip : 0) + run->length;
	}
	for (i = 0; i < m->nranges; i++) {
		struct guac_manifest_range *r = &m->range[i];
		uint64_t a = r->device_offset - m->device_offset, b = a + r->done;

		/* A fresh whole check starts its progress afresh; a resumed one keeps it. */
		if (!run->resume && !run->skip_given && !run->length_given)
			r->verified = 0;
		run->incomplete += r->length - r->done;
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		if (a >= b) {
			verify_add_segment(run, m->device_offset + a, m->stream_offset + a, 0, 0,
					   (int)i);
			continue;
		}
		/* --resume starts after what the last run verified. */
		verify_add_segment(run, m->device_offset + a, m->stream_offset + a, b - a,
				   run->resume ? (r->verified < b - a ? r->verified : b - a) : 0,
				   (int)i);
	}
	if (run->skip_given || run->length_given)
		run->incomplete = 0;	/* a sub-range check says nothing of the rest */
	run->skip = lo > part_start ? lo : 0;
	run->bounded = true;
	return true;
}

static bool verify_plan_plain(struct verify_run *run)
{
	uint64_t avail, start = run->seek + run->skip;

	if (!run->bs)
		run->bs = VERIFY_DEFAULT_BS;
	if (!run->sector)
		run->sector = run->target.kind == GUAC_TARGET_BLOCK ? run->target.sector : 512;
	if (run->target.kind == GUAC_TARGET_STREAM) {
		if (run->seek || run->skip) {
			guac_err("--seek and --skip need a file or device, not a pipe");
			return false;
		}
		run->bounded = run->length_given;
		verify_add_segment(run, 0, run->offset, run->length_given ? run->length : UINT64_MAX,
				   0, -1);
		if (!run->length_given)
			run->planned = 0;
		return true;
	}
	avail = run->target.size > start ? run->target.size - start : 0;
	if (!run->length_given)
		run->length = avail;
	run->bounded = true;
	verify_add_segment(run, start, run->offset + run->skip, run->length, 0, -1);
	return true;
}

/* Save the verify progress in the manifest, for --resume; a warning if impossible. */
static void verify_save_progress(struct verify_run *run)
{
	struct guac_manifest *m = run->manifest;

	if (!m || run->skip_given || run->length_given)
		return;	/* a sub-range check is no progress of the whole */
	m->have_verify = true;
	snprintf(m->verify_status, sizeof(m->verify_status), "%s",
		 run->interrupted || run->max_reached || run->fatal ? "interrupted" : "complete");
	m->verify_bad_sectors = run->prior_bad;
	m->verify_unreadable_sectors = run->prior_unreadable;
	if (!guac_manifest_save(run->manifest_path, m))
		guac_err("warning: the verify progress is not saved in '%s'", run->manifest_path);
}

int guac_cmd_verify(int argc, char **argv)
{
	static struct verify_run run;
	static struct guac_manifest manifest;
	unsigned int i;
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
		if (run.resume) {
			run.prior_bad = manifest.verify_bad_sectors;
			run.prior_unreadable = manifest.verify_unreadable_sectors;
		}
	}
	if (!guac_target_open(&run.target, run.path, false, run.direct, false))
		return GUAC_EXIT_ERROR;
	if (run.target.fd == STDIN_FILENO && run.target.kind == GUAC_TARGET_FILE) {
		/* `guac verify - < file` checks from where the shell left the file. */
		off_t cur = lseek(STDIN_FILENO, 0, SEEK_CUR);

		run.seek += cur > 0 ? (uint64_t)cur : 0;
	}
	if (run.manifest && !verify_plan_manifest(&run))
		return GUAC_EXIT_ERROR;
	if (!run.manifest && !verify_plan_plain(&run))
		return GUAC_EXIT_ERROR;
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

	guac_io_catch_signals(&run.stop);
	for (i = 0; i < run.nseg; i++) {
		if (run.seg[i].length == run.seg[i].resume) {
			run.progress_done += run.seg[i].length;
			continue;
		}
		if (!verify_segment(&run, &run.seg[i]))
			break;
	}
	guac_target_close(&run.target);
	verify_save_progress(&run);
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
	if (run.fatal || run.unreadable.nranges || ret)
		return GUAC_EXIT_ERROR;
	if (run.interrupted)
		return VERIFY_EXIT_INTERRUPTED;
	return verify_mismatch(&run) || run.max_reached ? GUAC_EXIT_FAIL : GUAC_EXIT_OK;
}
