// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify: check that a file, block device or pipe holds a segment of the
 * stream, as written by `dd if=/dev/guac of=/dev/sdX` or `guac gen`.
 *
 * Files and devices are read with pread by several threads, each taking the
 * next chunk; pipes are read in order by one. Results are merged strictly in
 * chunk order, so the ranges come out sorted and merged, the first error is
 * the lowest one, and memory stays at a few fixed buffers per thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmds.h"
#include "libguac.h"
#include "util.h"
#include "verify.h"

#define VERIFY_CHUNK (256u << 10)	/* one read; stays in L2 until compared */
#define VERIFY_SLICE (32u << 10)	/* generated then compared while in L1 */
#define VERIFY_MIN_SECTOR 512u
#define VERIFY_CHUNK_RANGES (VERIFY_CHUNK / VERIFY_MIN_SECTOR)
#define VERIFY_SHOWN_RANGES 20
#define VERIFY_MAX_JOBS 1024
#define VERIFY_PROGRESS_PERIOD 0.5	/* seconds between progress lines */

struct verify_run {
	/* Fixed before the workers start. */
	const char *path;
	int fd;
	bool seekable;			/* pread anywhere; else read in order */
	uint64_t base;			/* file position of source byte 0 */
	bool bounded;			/* @length known */
	bool length_given;		/* --length, so an empty SOURCE is short */
	uint64_t length;		/* bytes to check */
	uint64_t offset, origin;	/* as given, for the report */
	u64 block;			/* stream position of source byte 0 */
	unsigned int skip;
	enum guac_impl impl;
	unsigned int sector;
	unsigned int jobs;
	bool json;			/* --json summary instead of text */
	bool progress;			/* standard error is a terminal */

	atomic_uint_fast64_t next_chunk;
	atomic_bool stop;

	/* Under @lock, updated in chunk order. */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t merge_next;
	bool ended;			/* EOF or error seen: ignore later chunks */
	bool short_data;		/* EOF before --length */
	int error;			/* errno of the first failed read */
	uint64_t error_pos;
	uint64_t checked;		/* bytes compared */
	struct guac_badlog log;
	struct guac_range shown[VERIFY_SHOWN_RANGES];
	double start, last_progress;
};

static void verify_usage(FILE *f)
{
	fprintf(f,
		"Usage: guac verify [OPTIONS] SOURCE\n\n"
		"Check that SOURCE (a file, a block device, or - for standard input) holds the\n"
		"guacamole stream: byte k of SOURCE must be byte --offset + k of the stream as\n"
		"seen from block --origin, the bytes `guac gen` with the same options writes.\n\n"
		"  -o, --offset BYTES  stream position of the first byte of SOURCE (default 0)\n"
		"  -n, --length BYTES  bytes to check (default: to the end of the file or\n"
		"                      device, or of the input for a pipe)\n"
		"      --origin BLOCK  block index added to the position, mod 2^64 (default 0)\n"
		"  -j, --jobs N        reader threads for files and devices (default: one per\n"
		"                      CPU, here %u); pipes are read by one\n"
		"      --sector SIZE   512 or 4096: granularity of the reported bad ranges\n"
		"                      (default 512)\n"
		"      --json          print a JSON summary on standard output instead of text\n"
		"      --impl NAME     generator: auto, generic, sse2, avx2, avx512 (default auto)\n"
		"  -h, --help          show this help\n\n"
		"Reports OK with the byte count and throughput, or each bad range (whole\n"
		"sectors, adjacent ones merged, the first %u listed, then totals), the first\n"
		"differing byte with the expected and actual values, and short data (the end\n"
		"of SOURCE before --length); an empty SOURCE fails unless --length is 0.\n"
		"Memory use is fixed, whatever the size.\n"
		"A progress line (bytes, rate, ETA) goes to standard error when it is a\n"
		"terminal. Numbers take 0x hex and suffixes K, M, G, T, P, E (1K = 1024).\n\n"
		"Exit status: 0 the data matches, 1 a mismatch or short data, 2 a usage or I/O\n"
		"error.\n",
		guac_nr_cpus(), VERIFY_SHOWN_RANGES);
}

/* Read up to @len bytes of source byte @pos on; *@got < @len means EOF. */
static int verify_read(struct verify_run *run, u8 *buf, size_t len, uint64_t pos, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n;

		if (run->seekable)
			n = pread(run->fd, buf + *got, len - *got, (off_t)(run->base + pos + *got));
		else
			n = read(run->fd, buf + *got, len - *got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (!n)
			break;
		*got += (size_t)n;
	}
	return 0;
}

static void verify_compare(const struct verify_run *run, struct guac_badlog *part,
			   const u8 *got, u8 *want, size_t len, uint64_t pos)
{
	size_t off;

	for (off = 0; off < len; off += VERIFY_SLICE) {
		size_t n = len - off < VERIFY_SLICE ? len - off : VERIFY_SLICE;
		u64 block = run->block;
		unsigned int skip = run->skip;

		guac_pos_advance(&block, &skip, pos + off);
		guac_fill(run->impl, want, block, skip, n);
		if (memcmp(got + off, want, n))
			guac_badlog_scan(part, got + off, want, n, pos + off, run->sector);
	}
}

/* "5.85 GB/s", or "12.3 MB/s" below 1 GB/s (slow pipes and disks). */
static const char *verify_fmt_rate(char *buf, size_t size, double bytes_per_second)
{
	if (bytes_per_second >= 1e9)
		snprintf(buf, size, "%.2f GB/s", bytes_per_second / 1e9);
	else
		snprintf(buf, size, "%.1f MB/s", bytes_per_second / 1e6);
	return buf;
}

static void verify_fmt_duration(char *buf, size_t size, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
}

/* Called with @run->lock held. */
static void verify_progress(struct verify_run *run, bool final)
{
	char done[32], total[32], eta[32] = "", speed[32];
	double now = guac_now(), rate;

	if (!run->progress)
		return;
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (now - run->last_progress < VERIFY_PROGRESS_PERIOD)
		return;
	run->last_progress = now;
	rate = run->checked / (now - run->start);
	guac_fmt_bytes(done, sizeof(done), (double)run->checked);
	verify_fmt_rate(speed, sizeof(speed), rate);
	if (run->bounded && rate > 0) {
		guac_fmt_bytes(total, sizeof(total), (double)run->length);
		verify_fmt_duration(eta, sizeof(eta), (run->length - run->checked) / rate);
		fprintf(stderr, "\r\033[Kverify: %s of %s, %s, ETA %s", done, total, speed, eta);
	} else {
		fprintf(stderr, "\r\033[Kverify: %s, %s", done, speed);
	}
}

/* Fold chunk @k's outcome into the totals, in chunk order. */
static void verify_merge(struct verify_run *run, uint64_t k, const struct guac_badlog *part,
			 size_t got, size_t asked, int err)
{
	pthread_mutex_lock(&run->lock);
	while (run->merge_next != k)
		pthread_cond_wait(&run->turn, &run->lock);
	if (!run->ended) {
		guac_badlog_merge(&run->log, part);
		run->checked += got;
		if (err) {
			run->error = err;
			run->error_pos = k * VERIFY_CHUNK + got;
		}
		if (err || got < asked) {
			run->ended = true;
			run->short_data = !err && run->bounded;
			atomic_store(&run->stop, true);
		}
		verify_progress(run, false);
	}
	run->merge_next++;
	pthread_cond_broadcast(&run->turn);
	pthread_mutex_unlock(&run->lock);
}

static void *verify_worker(void *arg)
{
	struct verify_run *run = arg;
	struct guac_range ranges[VERIFY_CHUNK_RANGES];
	struct guac_badlog part;
	u8 *got = guac_alloc(VERIFY_CHUNK);
	u8 *want = guac_alloc(VERIFY_SLICE);

	while (!atomic_load(&run->stop)) {
		uint64_t k = atomic_fetch_add(&run->next_chunk, 1);
		uint64_t pos = k * VERIFY_CHUNK;
		size_t asked = VERIFY_CHUNK, n;
		int err;

		if (run->bounded && pos >= run->length)
			break;
		if (run->bounded && run->length - pos < asked)
			asked = (size_t)(run->length - pos);
		guac_badlog_init(&part, ranges, VERIFY_CHUNK_RANGES);
		err = verify_read(run, got, asked, pos, &n);
		verify_compare(run, &part, got, want, n, pos);
		verify_merge(run, k, &part, n, asked, err);
	}
	free(want);
	free(got);
	return NULL;
}

/* Open SOURCE and decide how to read it; false (after a message) on failure. */
static bool verify_open(struct verify_run *run)
{
	struct stat st;
	uint64_t size = 0, avail;

	if (!strcmp(run->path, "-")) {
		run->fd = STDIN_FILENO;
	} else {
		run->fd = open(run->path, O_RDONLY | O_CLOEXEC);
		if (run->fd < 0) {
			guac_err("cannot open '%s': %s", run->path, strerror(errno));
			return false;
		}
	}
	if (fstat(run->fd, &st)) {
		guac_err("cannot stat '%s': %s", run->path, strerror(errno));
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		guac_err("'%s' is a directory", run->path);
		return false;
	}
	if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		if (ioctl(run->fd, BLKGETSIZE64, &size)) {
			guac_err("cannot get the size of '%s': %s", run->path, strerror(errno));
			return false;
		}
	} else {
		return true;	/* pipe, socket or character device: read in order */
	}
	run->seekable = true;
	if (run->fd == STDIN_FILENO) {
		/* `guac verify - < file` checks from where the shell left the file. */
		off_t cur = lseek(run->fd, 0, SEEK_CUR);

		run->base = cur > 0 ? (uint64_t)cur : 0;
	}
	avail = size > run->base ? size - run->base : 0;
	if (!run->bounded) {
		run->length = avail;
		run->bounded = true;
	}
	return true;
}

/* Nothing to compare, and nobody asked for zero bytes: an empty file or device. */
static bool verify_empty(const struct verify_run *run)
{
	return !run->checked && !run->short_data && !run->length_given;
}

static bool verify_failed(const struct verify_run *run)
{
	return run->log.nranges || run->short_data || verify_empty(run);
}

/* User plus system time of the whole process: the cost, whatever the load. */
static double verify_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void verify_report_json(const struct verify_run *run, double secs)
{
	double cpu = verify_cpu_seconds();

	const struct guac_badlog *log = &run->log;
	const char *result = run->error ? "error" : verify_empty(run) ? "empty" :
			     verify_failed(run) ? "mismatch" : "ok";
	uint64_t i;

	printf("{\"source\":");
	guac_json_string(stdout, run->path);
	printf(",\"result\":\"%s\",\"offset\":%llu,\"origin\":%llu,\"sector\":%u,"
	       "\"impl\":\"%s\",\"jobs\":%u,",
	       result, (unsigned long long)run->offset, (unsigned long long)run->origin,
	       run->sector, guac_impl_names[run->impl], run->jobs);
	if (run->bounded)
		printf("\"length\":%llu,", (unsigned long long)run->length);
	else
		printf("\"length\":null,");
	printf("\"bytes_checked\":%llu,\"short\":%s,\"seconds\":%.6f,\"bytes_per_second\":%.0f,"
	       "\"cpu_seconds\":%.6f,\"bytes_per_cpu_second\":%.0f,"
	       "\"bad_sectors\":%llu,\"bad_bytes\":%llu,\"bad_ranges\":%llu,\"ranges\":[",
	       (unsigned long long)run->checked, run->short_data ? "true" : "false", secs,
	       secs > 0 ? run->checked / secs : 0.0, cpu, cpu > 0 ? run->checked / cpu : 0.0,
	       (unsigned long long)log->bad_sectors,
	       (unsigned long long)log->bad_bytes, (unsigned long long)log->nranges);
	for (i = 0; i < log->nranges && i < log->cap; i++)
		printf("%s{\"start\":%llu,\"length\":%llu}", i ? "," : "",
		       (unsigned long long)log->kept[i].start,
		       (unsigned long long)(log->kept[i].end - log->kept[i].start));
	printf("],\"first_mismatch\":");
	if (log->have_first)
		printf("{\"byte\":%llu,\"expected\":%u,\"actual\":%u}",
		       (unsigned long long)log->first_pos, log->first_expected,
		       log->first_actual);
	else
		printf("null");
	printf(",\"error\":");
	if (run->error)
		guac_json_string(stdout, strerror(run->error));
	else
		printf("null");
	printf("}\n");
}

static void verify_report_text(const struct verify_run *run, double secs)
{
	const struct guac_badlog *log = &run->log;
	char human[32];
	uint64_t i;

	guac_fmt_bytes(human, sizeof(human), (double)run->checked);
	if (verify_empty(run)) {
		printf("EMPTY: '%s' holds no data to check\n", run->path);
		return;
	}
	if (!verify_failed(run)) {
		double cpu = verify_cpu_seconds();
		char speed[32];

		verify_fmt_rate(speed, sizeof(speed), secs > 0 ? run->checked / secs : 0.0);
		printf("OK: %llu bytes (%s) match the stream at offset %llu, origin %llu; "
		       "%.3f s, %s, %.2f GB per CPU-second\n",
		       (unsigned long long)run->checked, human, (unsigned long long)run->offset,
		       (unsigned long long)run->origin, secs, speed,
		       cpu > 0 ? run->checked / cpu / 1e9 : 0.0);
		return;
	}
	if (log->nranges) {
		printf("MISMATCH: %llu bad %u-byte sector%s in %llu range%s, %llu bytes differ, "
		       "of %llu bytes (%s) checked\n",
		       (unsigned long long)log->bad_sectors, run->sector,
		       log->bad_sectors == 1 ? "" : "s", (unsigned long long)log->nranges,
		       log->nranges == 1 ? "" : "s", (unsigned long long)log->bad_bytes,
		       (unsigned long long)run->checked, human);
		for (i = 0; i < log->nranges && i < log->cap; i++) {
			const struct guac_range *r = &log->kept[i];

			uint64_t first = r->start / run->sector, last = (r->end - 1) / run->sector;

			printf("  bytes %llu-%llu (%llu bytes, sector%s %llu", (unsigned long long)r->start,
			       (unsigned long long)r->end - 1, (unsigned long long)(r->end - r->start),
			       first == last ? "" : "s", (unsigned long long)first);
			if (first != last)
				printf("-%llu", (unsigned long long)last);
			printf(")\n");
		}
		if (log->nranges > log->cap)
			printf("  ... and %llu more ranges\n",
			       (unsigned long long)(log->nranges - log->cap));
		printf("first difference at byte %llu: expected 0x%02x, got 0x%02x\n",
		       (unsigned long long)log->first_pos, log->first_expected,
		       log->first_actual);
	}
	if (run->short_data)
		printf("SHORT: the data ends at byte %llu, %llu bytes before the requested %llu\n",
		       (unsigned long long)run->checked,
		       (unsigned long long)(run->length - run->checked),
		       (unsigned long long)run->length);
}

static int verify_parse(struct verify_run *run, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'n' },
		{ "origin", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "sector", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'J' },
		{ "impl", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "o:n:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!guac_parse_u64("offset", optarg, &run->offset))
				return GUAC_EXIT_ERROR;
			break;
		case 'n':
			if (!guac_parse_u64("length", optarg, &run->length))
				return GUAC_EXIT_ERROR;
			run->bounded = run->length_given = true;
			break;
		case 'r':
			if (!guac_parse_u64("origin", optarg, &run->origin))
				return GUAC_EXIT_ERROR;
			break;
		case 'j':
			if (!guac_parse_u64("job count", optarg, &v))
				return GUAC_EXIT_ERROR;
			if (!v || v > VERIFY_MAX_JOBS) {
				guac_err("invalid job count '%s': expected 1 to %u", optarg,
					 VERIFY_MAX_JOBS);
				return GUAC_EXIT_ERROR;
			}
			run->jobs = (unsigned int)v;
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
		case 'J':
			run->json = true;
			break;
		case 'i':
			run->impl = guac_parse_impl(optarg);
			break;
		case 'h':
			verify_usage(stdout);
			exit(GUAC_EXIT_OK);
		default:
			verify_usage(stderr);
			return GUAC_EXIT_ERROR;
		}
	}
	if (optind + 1 != argc) {
		if (optind == argc)
			guac_err("missing SOURCE (a file, a block device, or - for standard input)");
		else
			guac_err("unexpected argument '%s' after SOURCE", argv[optind + 1]);
		return GUAC_EXIT_ERROR;
	}
	run->path = argv[optind];
	return GUAC_EXIT_OK;
}

int guac_cmd_verify(int argc, char **argv)
{
	static struct verify_run run;
	pthread_t threads[VERIFY_MAX_JOBS];
	unsigned int i, started = 0;
	uint64_t chunks;
	double secs;
	int err, ret;

	run.impl = guac_impl_best();
	run.sector = VERIFY_MIN_SECTOR;
	run.jobs = guac_nr_cpus();
	ret = verify_parse(&run, argc, argv);
	if (ret)
		return ret;
	run.progress = isatty(STDERR_FILENO);
	if (!verify_open(&run))
		return GUAC_EXIT_ERROR;

	/* Keep the start block and the byte within it: offset + length may pass 2^64. */
	run.block = run.origin + (run.offset >> GUAC_BLOCK_SHIFT);
	run.skip = (unsigned int)(run.offset & (GUAC_BLOCK_SIZE - 1));
	if (!run.seekable)
		run.jobs = 1;
	chunks = run.bounded ? (run.length + VERIFY_CHUNK - 1) / VERIFY_CHUNK : run.jobs;
	if (run.jobs > chunks)
		run.jobs = chunks ? (unsigned int)chunks : 1;
	if (run.seekable)
		posix_fadvise(run.fd, (off_t)run.base, 0, POSIX_FADV_SEQUENTIAL);

	guac_badlog_init(&run.log, run.shown, VERIFY_SHOWN_RANGES);
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.turn, NULL);
	run.start = run.last_progress = guac_now();
	for (i = 0; i < run.jobs; i++) {
		err = pthread_create(&threads[i], NULL, verify_worker, &run);
		if (err) {
			/* The threads already running take every chunk between them. */
			if (!started) {
				guac_err("cannot start a thread: %s", strerror(err));
				return GUAC_EXIT_ERROR;
			}
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	secs = guac_now() - run.start;
	verify_progress(&run, true);

	if (run.json)
		verify_report_json(&run, secs);
	if (run.error) {
		guac_err("read error on '%s' at byte %llu: %s", run.path,
			 (unsigned long long)run.error_pos, strerror(run.error));
		return GUAC_EXIT_ERROR;
	}
	if (!run.json)
		verify_report_text(&run, secs);
	return verify_failed(&run) ? GUAC_EXIT_FAIL : GUAC_EXIT_OK;
}
