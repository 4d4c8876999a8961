// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench parallel: do readers in parallel scale with cores? The same
 * sources on 1..N threads (--threads), each thread on a range of its own
 * (2^48 bytes apart), in 1 MiB requests by default:
 *
 *  guac_stream_fill   the core in-process (the best implementation, or --impl)
 *  guac-own-fd        /dev/guac, one open file per thread, read()
 *  guac-shared-pread  /dev/guac, one open file for all threads, pread() at
 *                     each thread's own offsets (no file position: no lock)
 *  guac-shared-read   /dev/guac, one open file for all threads, read(): the
 *                     VFS serialises the position (FMODE_ATOMIC_POS), so
 *                     these readers take turns by design
 *  zero-own-fd        /dev/zero, one open file per thread: what a read that
 *                     only clears the buffer does on this machine
 *
 * Each round runs every source once at every thread count, in turn, so a
 * change in the machine's load hits all alike; a thread count's scaling
 * efficiency is, per round, the throughput of N threads over N times that of
 * one thread in the same round (1.00: linear), and its median is reported.
 * The per CPU-second figure, N threads over one, says whether a core got
 * slower for the company (a shared cache line written per request would
 * show there) rather than got less of the CPU (a loaded machine).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "libguac.h"
#include "util.h"

#define BENCH_PAR_SPACING_SHIFT 48	/* each thread's range starts 2^48 bytes on */
#define BENCH_PAR_RANGES 4096		/* ranges before they repeat: 2^60 bytes in all */
#define BENCH_PAR_WRAP (1ULL << 62)	/* well below the 2^63 file position limit */
#define BENCH_PAR_MAX_SOURCES 8

static atomic_uint bench_par_next;	/* a range for each thread that opens a source */
static pthread_mutex_t bench_par_lock = PTHREAD_MUTEX_INITIALIZER;
static int bench_par_shared_fd = -1;	/* the one open file of the shared sources */
static unsigned int bench_par_shared_refs;

static uint64_t bench_par_range(void)
{
	unsigned int i = atomic_fetch_add(&bench_par_next, 1) % BENCH_PAR_RANGES;

	return (uint64_t)i << BENCH_PAR_SPACING_SHIFT;
}

static int bench_par_core_open(struct bench_thread *t)
{
	t->pos = bench_par_range();
	return guac_impl_usable(t->src->impl, guac_cpu_features()) ? 0 : ENOTSUP;
}

static ssize_t bench_par_core_fill(struct bench_thread *t)
{
	guac_stream_fill(t->src->impl, t->buf, 0, t->pos, t->size);
	t->pos += t->size;
	return (ssize_t)t->size;
}

/* An open file of the thread's own, positioned at its range. */
static int bench_par_own_open(struct bench_thread *t, const char *path)
{
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0)
		return errno;
	if (lseek(t->fd, (off_t)bench_par_range(), SEEK_SET) < 0) {
		int err = errno;

		close(t->fd);
		return err;
	}
	return 0;
}

static int bench_par_guac_own_open(struct bench_thread *t)
{
	return bench_par_own_open(t, "/dev/guac");
}

static int bench_par_zero_own_open(struct bench_thread *t)
{
	return bench_par_own_open(t, "/dev/zero");
}

static void bench_par_own_close(struct bench_thread *t)
{
	close(t->fd);
}

/* The shared open file: the first thread of a trial opens it, the last closes it. */
static int bench_par_shared_open(struct bench_thread *t)
{
	int err = 0;

	pthread_mutex_lock(&bench_par_lock);
	if (!bench_par_shared_refs) {
		bench_par_shared_fd = open("/dev/guac", O_RDONLY | O_CLOEXEC);
		if (bench_par_shared_fd < 0)
			err = errno;
	}
	if (!err) {
		bench_par_shared_refs++;
		t->fd = bench_par_shared_fd;
		t->pos = bench_par_range();
	}
	pthread_mutex_unlock(&bench_par_lock);
	return err;
}

static void bench_par_shared_close(struct bench_thread *t)
{
	(void)t;
	pthread_mutex_lock(&bench_par_lock);
	if (!--bench_par_shared_refs) {
		close(bench_par_shared_fd);
		bench_par_shared_fd = -1;
	}
	pthread_mutex_unlock(&bench_par_lock);
}

static ssize_t bench_par_read(struct bench_thread *t)
{
	ssize_t n = read(t->fd, t->buf, t->size);

	return n < 0 ? -errno : n;
}

static ssize_t bench_par_pread(struct bench_thread *t)
{
	ssize_t n = pread(t->fd, t->buf, t->size, (off_t)t->pos);

	if (n < 0)
		return -errno;
	t->pos = (t->pos + (uint64_t)n) % BENCH_PAR_WRAP;
	return n;
}

static const struct bench_source bench_par_sources[] = {
	{ .name = "guac_stream_fill", .open = bench_par_core_open, .fill = bench_par_core_fill },
	{ .name = "guac-own-fd", .open = bench_par_guac_own_open, .fill = bench_par_read,
	  .close = bench_par_own_close },
	{ .name = "guac-shared-pread", .open = bench_par_shared_open, .fill = bench_par_pread,
	  .close = bench_par_shared_close },
	{ .name = "guac-shared-read", .open = bench_par_shared_open, .fill = bench_par_read,
	  .close = bench_par_shared_close },
	{ .name = "zero-own-fd", .open = bench_par_zero_own_open, .fill = bench_par_read,
	  .close = bench_par_own_close },
};

#define BENCH_PAR_NR (sizeof(bench_par_sources) / sizeof(bench_par_sources[0]))

/* One source at one size and thread count, over the rounds. */
struct bench_par_row {
	const char *source;
	const char *mode;
	size_t size;
	unsigned int threads;
	enum bench_status status;
	char why[80];
	double mbps, min, max;		/* all threads, MB/s: median, min, max */
	double per_cpu;			/* MB per CPU-second, median */
	double efficiency;		/* median of mbps / (threads * mbps at 1 thread) per round */
	double cpu_ratio;		/* per_cpu / per_cpu at 1 thread */
	double *mbps_v, *cpu_v;		/* one per round */
};

static int bench_par_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double bench_par_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), bench_par_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_par_num(double v, const char *none)
{
	if (isnan(v))
		fputs(none, stdout);
	else
		printf("%.6g", v);
}

static void bench_par_cell(double v)
{
	if (isnan(v))
		printf(" %9s", "-");
	else
		printf(" %9.*f", v >= 1000 ? 0 : v >= 100 ? 1 : v >= 10 ? 2 : 3, v);
}

/* What comes before the rows: the CSV header, the JSON's opening, the table's. */
static void bench_par_print_head(const struct bench_config *cfg, enum bench_format fmt)
{
	char cpu[256];

	if (fmt == BENCH_FORMAT_CSV) {
		printf("suite,source,mode,size,threads,status,median,min,max,unit,per_thread,"
		       "per_cpu_second,efficiency,cpu_ratio,note\n");
	} else if (fmt == BENCH_FORMAT_JSON) {
		bench_cpu_describe(cpu, sizeof(cpu));
		printf("{\"machine\":{\"cpu\":");
		guac_json_string(stdout, cpu);
		printf(",\"cpus\":%u},\"seconds\":%g,\"trials\":%u,\"results\":[", guac_nr_cpus(),
		       cfg->seconds, cfg->trials);
	} else {
		bench_print_header(stdout, "parallel");
		printf("# MB/s = 10^6 bytes/s over all threads, median [min, max] of %u rounds of "
		       "%.2f s; per thread = median / threads;\n# per CPU-s: MB per second of CPU "
		       "time the threads got; eff: N threads against N x 1 thread in the same\n"
		       "# round (median; 1.00 = linear); cpu: per CPU-s against 1 thread (1.00 = "
		       "no core slowed down)\n\n", cfg->trials, cfg->seconds);
		printf("%-8s %-17s %-7s %5s %3s %9s %9s %9s %9s %9s %6s %6s\n", "suite", "source",
		       "mode", "size", "thr", "MB/s", "min", "max", "/thread", "per CPU-s", "eff",
		       "cpu");
	}
}

/*
 * The row's numbers: CSV columns (the unit after max), or JSON members (each
 * after its name; "null" for none).
 */
static void bench_par_print_numbers(const struct bench_par_row *r, double per_thread,
				    bool json)
{
	const struct {
		const char *name;
		double v;
	} nums[] = {
		{ "median", r->mbps }, { "min", r->min }, { "max", r->max },
		{ "per_thread", per_thread }, { "per_cpu_second", r->per_cpu },
		{ "efficiency", r->efficiency }, { "cpu_ratio", r->cpu_ratio },
	};
	size_t k;

	for (k = 0; k < sizeof(nums) / sizeof(nums[0]); k++) {
		if (json)
			printf(",\"%s\":", nums[k].name);
		else if (k == 3)
			printf(",MB/s,");
		else if (k)
			putchar(',');
		bench_par_num(nums[k].v, json ? "null" : "");
	}
}

static void bench_par_print_csv(const struct bench_par_row *r, const char *status,
				double per_thread)
{
	printf("parallel,%s,%s,%zu,%u,%s,", r->source, r->mode, r->size, r->threads,
	       status);
	bench_par_print_numbers(r, per_thread, false);
	printf(",%s\n", r->why);
}

/* Row @r, the @i-th (a comma before all but the first). */
static void bench_par_print_json(const struct bench_par_row *r, size_t i, const char *status,
				 double per_thread)
{
	printf("%s\n{\"suite\":\"parallel\",\"source\":\"%s\",\"mode\":\"%s\","
	       "\"size\":%zu,\"threads\":%u,\"status\":\"%s\",\"why\":", i ? "," : "",
	       r->source, r->mode, r->size, r->threads, status);
	guac_json_string(stdout, r->why);
	printf(",\"unit\":\"MB/s\"");
	bench_par_print_numbers(r, per_thread, true);
	putchar('}');
}

static void bench_par_print_table(const struct bench_par_row *r, const char *status,
				  double per_thread)
{
	char sz[16];

	if (r->status != BENCH_OK) {
		printf("%-8s %-17s %s (%s)\n", "parallel", r->source, status, r->why);
		return;
	}
	printf("%-8s %-17s %-7s %5s %3u", "parallel", r->source, r->mode,
	       bench_fmt_size(sz, sizeof(sz), r->size), r->threads);
	bench_par_cell(r->mbps);
	bench_par_cell(r->min);
	bench_par_cell(r->max);
	bench_par_cell(per_thread);
	bench_par_cell(r->per_cpu);
	if (isnan(r->efficiency))
		printf(" %6s %6s\n", "-", "-");
	else
		printf(" %6.2f %6.2f\n", r->efficiency, r->cpu_ratio);
}

static void bench_par_print(const struct bench_par_row *rows, size_t n,
			    const struct bench_config *cfg, enum bench_format fmt)
{
	size_t i;

	bench_par_print_head(cfg, fmt);
	for (i = 0; i < n; i++) {
		const struct bench_par_row *r = &rows[i];
		const char *status = r->status == BENCH_OK ? "ok" :
				     r->status == BENCH_ABSENT ? "absent" : "error";
		double per_thread = r->status == BENCH_OK ? r->mbps / r->threads : NAN;

		if (fmt == BENCH_FORMAT_CSV)
			bench_par_print_csv(r, status, per_thread);
		else if (fmt == BENCH_FORMAT_JSON)
			bench_par_print_json(r, i, status, per_thread);
		else
			bench_par_print_table(r, status, per_thread);
	}
	if (fmt == BENCH_FORMAT_JSON)
		printf("\n]}\n");
}

/* The row of @source at @size and 1 thread, if it was measured. */
static const struct bench_par_row *bench_par_base(const struct bench_par_row *rows, size_t n,
						  const struct bench_par_row *r)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].status == BENCH_OK && rows[i].threads == 1 &&
		    rows[i].size == r->size && !strcmp(rows[i].source, r->source))
			return &rows[i];
	return NULL;
}

/*
 * Rounds: every size and thread count once, all sources side by side, into
 * @measured (the rows of bench_parallel_run(), source-major, then size, then
 * thread count).
 */
static void bench_par_rounds(const struct bench_config *cfg, const size_t *sizes, size_t nsizes,
			     const struct bench_source **usable, size_t nusable,
			     struct bench_par_row *measured)
{
	struct bench_config one = *cfg;
	struct bench_results res = { 0 };
	unsigned int round;
	size_t s, t, k;

	one.trials = 1;
	for (round = 0; round < cfg->trials; round++)
		for (s = 0; s < nsizes; s++)
			for (t = 0; t < cfg->nthreads; t++) {
				res.n = 0;
				bench_measure(&res, &one, "parallel", usable, nusable, NULL,
					      sizes[s], cfg->threads[t], BENCH_MBPS);
				for (k = 0; k < res.n; k++) {
					struct bench_par_row *r = &measured[(k * nsizes + s) *
									    cfg->nthreads + t];

					if (res.v[k].status != BENCH_OK && r->status == BENCH_OK) {
						r->status = res.v[k].status;
						snprintf(r->why, sizeof(r->why), "%s", res.v[k].why);
					}
					r->mbps_v[round] = res.v[k].median;
					r->cpu_v[round] = res.v[k].per_cpu;
				}
			}
	free(res.v);
}

/* Medians, then each row against its 1-thread row, round by round. */
static void bench_par_summarize(const struct bench_config *cfg, struct bench_par_row *rows,
				size_t nrows, double *scratch)
{
	unsigned int round;
	size_t i;

	for (i = 0; i < nrows; i++) {
		struct bench_par_row *r = &rows[i];

		r->efficiency = r->cpu_ratio = NAN;
		if (r->status != BENCH_OK || !r->mbps_v) {
			r->mbps = r->min = r->max = r->per_cpu = NAN;
			continue;
		}
		memcpy(scratch, r->cpu_v, cfg->trials * sizeof(double));
		r->per_cpu = bench_par_median(scratch, cfg->trials);
		memcpy(scratch, r->mbps_v, cfg->trials * sizeof(double));
		r->mbps = bench_par_median(scratch, cfg->trials);
		r->min = scratch[0];
		r->max = scratch[cfg->trials - 1];
	}
	for (i = 0; i < nrows; i++) {
		struct bench_par_row *r = &rows[i];
		const struct bench_par_row *b;

		if (r->status != BENCH_OK || !r->mbps_v)
			continue;
		b = bench_par_base(rows, nrows, r);
		if (!b)
			continue;
		for (round = 0; round < cfg->trials; round++)
			scratch[round] = r->mbps_v[round] / (r->threads * b->mbps_v[round]);
		r->efficiency = bench_par_median(scratch, cfg->trials);
		r->cpu_ratio = r->per_cpu / b->per_cpu;
	}
}

int bench_parallel_run(const struct bench_config *cfg, const size_t *sizes, size_t nsizes,
		       int impl, enum bench_format fmt)
{
	struct bench_source local[BENCH_PAR_NR];
	const struct bench_source *usable[BENCH_PAR_MAX_SOURCES];
	struct bench_par_row *rows;
	size_t nusable = 0, nrows = 0, k, s, t, i;
	double *scratch;
	char why[80];

	rows = calloc((BENCH_PAR_NR * cfg->nthreads + BENCH_PAR_NR) * nsizes, sizeof(*rows));
	scratch = calloc(cfg->trials, sizeof(*scratch));
	if (!rows || !scratch) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	/* Probe each source; the absent ones get one row saying why. */
	for (k = 0; k < BENCH_PAR_NR; k++) {
		enum bench_status st;

		local[k] = bench_par_sources[k];
		local[k].impl = impl;
		st = bench_probe(&local[k], why, sizeof(why));
		if (st == BENCH_OK) {
			usable[nusable++] = &local[k];
			continue;
		}
		rows[nrows] = (struct bench_par_row){ .source = local[k].name, .mode = "",
						      .status = st };
		snprintf(rows[nrows].why, sizeof(rows[nrows].why), "%s", why);
		nrows++;
	}
	/* The measured rows, source-major, then size, then thread count. */
	for (k = 0; k < nusable; k++)
		for (s = 0; s < nsizes; s++)
			for (t = 0; t < cfg->nthreads; t++) {
				struct bench_par_row *r = &rows[nrows++];

				r->source = usable[k]->name;
				r->mode = usable[k]->fill == bench_par_core_fill ?
					  guac_impl_names[impl] : "";
				r->size = sizes[s];
				r->threads = cfg->threads[t];
				r->status = BENCH_OK;
				r->mbps_v = calloc(cfg->trials, sizeof(double));
				r->cpu_v = calloc(cfg->trials, sizeof(double));
				if (!r->mbps_v || !r->cpu_v) {
					guac_err("out of memory");
					exit(GUAC_EXIT_ERROR);
				}
			}
	bench_par_rounds(cfg, sizes, nsizes, usable, nusable,
			 rows + nrows - nusable * nsizes * cfg->nthreads);
	bench_par_summarize(cfg, rows, nrows, scratch);
	bench_par_print(rows, nrows, cfg, fmt);
	for (i = 0; i < nrows; i++) {
		free(rows[i].mbps_v);
		free(rows[i].cpu_v);
	}
	free(scratch);
	free(rows);
	return GUAC_EXIT_OK;
}
