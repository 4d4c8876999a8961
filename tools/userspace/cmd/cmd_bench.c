// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench: throughput and latency of the core, the devices and their
 * peers, side by side in one run. Options, the plan and the suites live
 * here (cmd_bench.h: parse, plan, run); the sources, harness and outputs in
 * bench_*.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "cmd_bench.h"
#include "cmds.h"
#include "parse_options.h"
#include "libguac.h"
#include "util.h"

#define BENCH_DEFAULT_SECONDS 0.25
#define BENCH_DEFAULT_TRIALS 3
#define BENCH_MAX_SECONDS 60.0
#define BENCH_MAX_TRIALS 100
#define BENCH_MAX_THREADS 1024
#define BENCH_MAX_SIZE (1ULL << 30)
#define BENCH_MAX_SOURCES 16
#define BENCH_CPU_REQUEST 64		/* RDRAND/RDSEED, RNDR/RNDRRS: eight words a request */

/* What the help says that depends on the architecture: its implementations and instructions. */
#if defined(__x86_64__)
#define BENCH_HELP_IMPLS "-sse2, -avx2, -avx512"
#define BENCH_HELP_INSNS "the RDRAND and RDSEED instructions"
#define BENCH_HELP_SEED "RDSEED"
#define BENCH_HELP_IMPL_OPT "auto, generic, sse2, avx2 or avx512"
#elif defined(__aarch64__)
#define BENCH_HELP_IMPLS "-neon"
#define BENCH_HELP_INSNS "the RNDR and RNDRRS instructions"
#define BENCH_HELP_SEED "RNDR"
#define BENCH_HELP_IMPL_OPT "auto, generic or neon"
#else
#define BENCH_HELP_IMPLS "the only one"
#define BENCH_HELP_INSNS "the CPU's random instructions (none here)"
#define BENCH_HELP_SEED "random instruction"
#define BENCH_HELP_IMPL_OPT "auto or generic"
#endif
#define BENCH_NONCE_BATCH 4096		/* amortized: one request serves 256 values */

static const size_t bench_default_sizes[] = { 16, 64, 1 << 10, 4 << 10, 64 << 10, 1 << 20 };
static const size_t bench_kpath_sizes[] = { 4 << 10, 64 << 10, 1 << 20 };
static const size_t bench_small_sizes[] = { 4, 16, 64, 256, 4 << 10 };
static const size_t bench_parallel_sizes[] = { 1 << 20 };

static bool bench_show_progress;	/* progress on stderr: set by each run */

/* --help around the options; the about text's numbers are printf's (bench_usage_about). */
static const char bench_about_fmt[] =
	"Measure sources of random bytes side by side (default: all suites).\n\n"
		"  core   the userspace guacamole core, one row per implementation (guac-generic,\n"
		"         " BENCH_HELP_IMPLS "), and yardsticks: libcrypto's EVP ChaCha20\n"
		"         encrypting zeros (chacha20-evp, what `openssl speed -evp chacha20`\n"
		"         measures), EVP AES-128-CTR encrypting zeros (aes128-ctr-evp, as\n"
		"         `openssl speed -evp aes-128-ctr`) and memcpy of the request size from\n"
		"         a buffer of its own (memcpy, the cache and memory ceiling); every row\n"
		"         gives its ratio to ChaCha20 at the same size and threads, per\n"
		"         CPU-second\n"
		"  dev    /dev/guac (pread), /dev/hwrng, /dev/urandom (read) and getrandom(2)\n"
		"  hwrng  /dev/hwrng, and " BENCH_HELP_INSNS " from userspace in\n"
		"         %d-byte requests: ns per 64-bit word per thread, success rate and\n"
		"         retries per word\n"
		"  nonce  latency per %d-byte value on one thread: one request per value\n"
		"         (per-value) against one %d-byte request shared by many (amortized)\n"
		"  kpath  a model of /dev/guac's read path with the best implementation (or\n"
		"         --impl), in %d-byte chunks (one FPU section each): inplace generates\n"
		"         straight into the request's buffer (the pinned-pages path), bounce\n"
		"         into a %d-byte buffer that stays in L1 and copies it out (as\n"
		"         copy_to_iter() would); each bounce row gives its ratio to inplace at\n"
		"         the same size and threads, per CPU-second (sizes default to 4K,64K,1M)\n"
		"  small  ns per call of small requests on one thread (sizes default to\n"
		"         4,16,64,256,4K): the vDSO getrandom called directly (as glibc 2.41+\n"
		"         does), glibc's getrandom() (its mode says vdso or syscall), the\n"
		"         getrandom system call, read() of /dev/urandom, /dev/zero (the floor\n"
		"         of any device read) and /dev/guac, and guac_stream_fill in-process;\n"
		"         ratios per CPU to /dev/zero and to the vDSO getrandom\n"
		"  parallel  the core and /dev/guac on each --threads count, every thread on\n"
		"         a range of its own (1M requests by default): one open file per thread,\n"
		"         one shared with pread and with read (serialised on the position),\n"
		"         and /dev/zero; MB/s per thread and the scaling against 1 thread\n"
		"         (small and parallel are not part of all; no --plot for them)\n";

static const char bench_after[] =
		"Throughput is MB/s (10^6 bytes per second) over all threads, and per\n"
		"CPU-second (MB per second of CPU time the threads got: the per-core speed,\n"
		"steady on a loaded machine). A source that this machine lacks (no /dev/guac\n"
		"without the module, no " BENCH_HELP_SEED " on the CPU) is reported as absent, never as\n"
		"zero. Benchmarks measure; they assert nothing.\n"
		"Exit status: 0 on success, 2 on a usage error or when the plot fails.\n";

/* Parse a comma-separated list of numbers in [1, @max]; false after a message. */
static bool bench_parse_list(const char *what, const char *arg, uint64_t max, uint64_t *out,
			     size_t *n)
{
	char *copy = strdup(arg), *item, *save = NULL;
	bool ok = true;

	if (!copy) {
		guac_err("out of memory");
		return false;
	}
	*n = 0;
	for (item = strtok_r(copy, ",", &save); item && ok; item = strtok_r(NULL, ",", &save)) {
		if (*n == BENCH_MAX_LIST) {
			guac_err("too many %ss in '%s' (at most %d)", what, arg, BENCH_MAX_LIST);
			ok = false;
		} else if (!guac_parse_u64(what, item, &out[*n])) {
			ok = false;
		} else if (!out[*n] || out[*n] > max) {
			guac_err("invalid %s '%s': expected 1 to %llu", what, item,
				 (unsigned long long)max);
			ok = false;
		} else {
			(*n)++;
		}
	}
	if (ok && !*n) {
		guac_err("empty %s list", what);
		ok = false;
	}
	free(copy);
	return ok;
}

static bool bench_parse_double(const char *what, const char *arg, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || *end || !(*out > 0) || *out > max) {
		guac_err("invalid %s '%s': expected a number above 0 and at most %g", what, arg,
			 max);
		return false;
	}
	return true;
}

static void bench_progress(const char *suite, size_t size, unsigned int threads)
{
	char sz[16];

	if (bench_show_progress)
		fprintf(stderr, "\r\033[Kbench: %s, %s-byte requests, %u thread%s", suite,
			bench_fmt_size(sz, sizeof(sz), size), threads, threads == 1 ? "" : "s");
}

/* Probe @srcs into @usable; those this machine cannot run are recorded as such. */
static size_t bench_usable(struct bench_results *res, const char *suite,
			   const struct bench_source *const *srcs, size_t nsrcs,
			   enum bench_metric metric, const struct bench_source **usable)
{
	size_t k, n = 0;
	enum bench_status st;
	char why[80];

	for (k = 0; k < nsrcs; k++) {
		st = bench_probe(srcs[k], why, sizeof(why));
		if (st == BENCH_OK)
			usable[n++] = srcs[k];
		else
			bench_record_absent(res, suite, srcs[k], st, why, metric);
	}
	return n;
}

/*
 * Measure @srcs over every size and thread count, side by side, skipping
 * (and recording) those this machine cannot run; @mode (or NULL) labels the
 * rows.
 */
static void bench_sweep(struct bench_results *res, const struct bench_config *cfg,
			const char *suite, const struct bench_source *const *srcs, size_t nsrcs,
			const char *mode, const size_t *sizes, size_t nsizes)
{
	const struct bench_source *usable[BENCH_MAX_SOURCES];
	size_t nusable = bench_usable(res, suite, srcs, nsrcs, BENCH_MBPS, usable), s, t;

	if (!nusable)
		return;
	for (t = 0; t < cfg->nthreads; t++)
		for (s = 0; s < nsizes; s++) {
			bench_progress(suite, sizes[s], cfg->threads[t]);
			bench_measure(res, cfg, suite, usable, nusable, mode, sizes[s],
				      cfg->threads[t], BENCH_MBPS);
		}
}

/* The sources of a NULL-terminated table, as pointers. */
static size_t bench_table(const struct bench_source *table, const struct bench_source **out)
{
	size_t n = 0;

	for (; table->name && n < BENCH_MAX_SOURCES; table++)
		out[n++] = table;
	return n;
}

/*
 * Each measured row from @first on, other than @ref's, against @ref at the
 * same size, thread count and mode, per CPU-second: the cost of a byte,
 * which a loaded machine does not skew the way it skews wall-clock rates.
 */
static void bench_ratios(struct bench_results *res, size_t first, const char *ref)
{
	size_t i, j;

	for (i = first; i < res->n; i++) {
		struct bench_result *r = &res->v[i];

		if (r->status != BENCH_OK || !strcmp(r->source, ref))
			continue;
		for (j = first; j < res->n; j++) {
			const struct bench_result *c = &res->v[j];

			if (c->status == BENCH_OK && !strcmp(c->source, ref) &&
			    c->size == r->size && c->threads == r->threads &&
			    !strcmp(c->mode, r->mode)) {
				r->ratio = r->per_cpu / c->per_cpu;
				r->ratio_to = ref;
			}
		}
	}
}

static void bench_suite_core(struct bench_results *res, const struct bench_config *cfg,
			     const struct guac_bench_args *a)
{
	(void)a;
	const struct bench_source *srcs[BENCH_MAX_SOURCES];
	size_t first = res->n;

	bench_sweep(res, cfg, "core", srcs, bench_table(bench_core_sources, srcs), NULL,
		    cfg->sizes, cfg->nsizes);
	bench_ratios(res, first, BENCH_CHACHA20);
}

static void bench_suite_dev(struct bench_results *res, const struct bench_config *cfg,
			    const struct guac_bench_args *a)
{
	(void)a;
	const struct bench_source *srcs[BENCH_MAX_SOURCES];

	bench_sweep(res, cfg, "dev", srcs, bench_table(bench_dev_sources, srcs), NULL,
		    cfg->sizes, cfg->nsizes);
}

static void bench_suite_hwrng(struct bench_results *res, const struct bench_config *cfg,
			      const struct guac_bench_args *a)
{
	(void)a;
	static const size_t cpu_size = BENCH_CPU_REQUEST;
	const struct bench_source *srcs[BENCH_MAX_SOURCES] = { &bench_hwrng_source };

	bench_sweep(res, cfg, "hwrng", srcs, 1, NULL, cfg->sizes, cfg->nsizes);
	bench_sweep(res, cfg, "hwrng", srcs, bench_table(bench_cpu_sources, srcs), NULL,
		    &cpu_size, 1);
}

static void bench_suite_nonce(struct bench_results *res, const struct bench_config *cfg,
			      const struct guac_bench_args *a)
{
	(void)a;
	const struct bench_source *srcs[BENCH_MAX_SOURCES], *usable[BENCH_MAX_SOURCES];
	const struct bench_source *src;
	size_t n, nusable;

	n = bench_table(bench_dev_sources, srcs);
	n += bench_table(bench_cpu_sources, srcs + n);
	srcs[n++] = &bench_core_sources[guac_impl_best()];
	for (src = bench_core_sources; src->name; src++)
		if (!strcmp(src->name, BENCH_CHACHA20))
			srcs[n++] = src;
	nusable = bench_usable(res, "nonce", srcs, n, BENCH_NS_PER_VALUE, usable);
	if (!nusable)
		return;
	bench_progress("nonce", BENCH_NONCE_SIZE, 1);
	bench_measure(res, cfg, "nonce", usable, nusable, "per-value", BENCH_NONCE_SIZE, 1,
		      BENCH_NS_PER_VALUE);
	bench_progress("nonce", BENCH_NONCE_BATCH, 1);
	bench_measure(res, cfg, "nonce", usable, nusable, "amortized", BENCH_NONCE_BATCH, 1,
		      BENCH_NS_PER_VALUE);
}

/*
 * The read path's two models with one implementation, named in the mode
 * column, each bounce row against inplace.
 */
static void bench_suite_kpath(struct bench_results *res, const struct bench_config *cfg,
			      const struct guac_bench_args *a)
{
	struct bench_source local[BENCH_MAX_SOURCES];
	const struct bench_source *srcs[BENCH_MAX_SOURCES];
	int impl = a->impl >= 0 ? a->impl : (int)guac_impl_best();
	size_t first = res->n, n = bench_table(bench_kpath_sources, srcs), k;

	for (k = 0; k < n; k++) {
		local[k] = *srcs[k];
		local[k].impl = impl;
		srcs[k] = &local[k];
	}
	if (a->sizes_given)
		bench_sweep(res, cfg, "kpath", srcs, n, guac_impl_names[impl], cfg->sizes,
			    cfg->nsizes);
	else
		bench_sweep(res, cfg, "kpath", srcs, n, guac_impl_names[impl], bench_kpath_sizes,
			    sizeof(bench_kpath_sizes) / sizeof(bench_kpath_sizes[0]));
	bench_ratios(res, first, BENCH_KPATH_INPLACE);
}

static const struct {
	const char *name;
	void (*run)(struct bench_results *res, const struct bench_config *cfg,
		    const struct guac_bench_args *a);
} bench_suites[] = {
	{ "core", bench_suite_core },
	{ "dev", bench_suite_dev },
	{ "hwrng", bench_suite_hwrng },
	{ "nonce", bench_suite_nonce },
	{ "kpath", bench_suite_kpath },
};

#define BENCH_NR_SUITES (sizeof(bench_suites) / sizeof(bench_suites[0]))

/*
 * Each thread holds up to two buffers of the request size (the one filled
 * and a source: memcpy's, the EVP yardsticks' zeros), all at once at the
 * largest size and thread count: more than this machine's memory (guac
 * write's and verify's check) cannot be meant. The small suite runs one thread.
 */
static bool bench_memory_fits(const struct guac_bench_args *a, bool one_thread)
{
	uint64_t threads = 1, size = 0, need, mem;
	char h1[32], h2[32];
	size_t i;

	for (i = 0; !one_thread && i < a->nthreads; i++)
		if (a->threads[i] > threads)
			threads = a->threads[i];
	for (i = 0; i < a->nsizes; i++)
		if (a->sizes[i] > size)
			size = a->sizes[i];
	if (guac_buffers_fit(threads, size, &need, &mem))
		return true;
	guac_err("refusing to bench: %" PRIu64 " threads at size %" PRIu64 " need %" PRIu64
		 " bytes (%s) of buffers (two of the size a thread), more than this machine's "
		 "memory, %" PRIu64 " bytes (%s); use fewer --threads or smaller --sizes", threads,
		 size, need, guac_fmt_bytes(h1, sizeof(h1), (double)need), mem,
		 guac_fmt_bytes(h2, sizeof(h2), (double)mem));
	return false;
}


static bool bench_opt_sizes(const struct guac_option *opt, const char *arg)
{
	struct guac_bench_args *a = opt->value;
	uint64_t list[BENCH_MAX_LIST];
	size_t i, n;

	if (!bench_parse_list("size", arg, BENCH_MAX_SIZE, list, &n))
		return false;
	for (i = 0; i < n; i++)
		a->sizes[i] = (size_t)list[i];
	a->nsizes = n;
	a->sizes_given = true;
	return true;
}

static bool bench_opt_threads(const struct guac_option *opt, const char *arg)
{
	struct guac_bench_args *a = opt->value;
	uint64_t list[BENCH_MAX_LIST];
	size_t i, n;

	if (!bench_parse_list("thread count", arg, BENCH_MAX_THREADS, list, &n))
		return false;
	for (i = 0; i < n; i++)
		a->threads[i] = (unsigned int)list[i];
	a->nthreads = n;
	a->threads_given = true;
	return true;
}

static bool bench_opt_seconds(const struct guac_option *opt, const char *arg)
{
	struct guac_bench_args *a = opt->value;

	return bench_parse_double("trial length", arg, BENCH_MAX_SECONDS, &a->seconds);
}

static bool bench_opt_trials(const struct guac_option *opt, const char *arg)
{
	struct guac_bench_args *a = opt->value;
	double trials;

	if (!bench_parse_double("trial count", arg, BENCH_MAX_TRIALS, &trials))
		return false;
	if (trials != floor(trials)) {
		guac_err("invalid trial count '%s': expected a whole number", arg);
		return false;
	}
	a->trials = (unsigned int)trials;
	return true;
}

/* Each parse starts from the defaults. */
static void bench_set_defaults(struct guac_bench_args *a)
{
	size_t i;

	*a = (struct guac_bench_args){
		.suite = "all", .seconds = BENCH_DEFAULT_SECONDS, .trials = BENCH_DEFAULT_TRIALS,
		.impl = -1,
	};
	memcpy(a->sizes, bench_default_sizes, sizeof(bench_default_sizes));
	a->nsizes = sizeof(bench_default_sizes) / sizeof(bench_default_sizes[0]);
	a->nthreads = guac_nr_cpus() < BENCH_MAX_LIST ? guac_nr_cpus() : BENCH_MAX_LIST;
	for (i = 0; i < a->nthreads; i++)
		a->threads[i] = (unsigned int)i + 1;
}

/* The options table's help texts that printf makes. */
struct bench_help {
	char about[sizeof(bench_about_fmt) + 64], threads[96], seconds[64], trials[96];
};

static void bench_help_fill(struct bench_help *h)
{
	snprintf(h->about, sizeof(h->about), bench_about_fmt, BENCH_CPU_REQUEST, BENCH_NONCE_SIZE,
		 BENCH_NONCE_BATCH, BENCH_KPATH_CHUNK, BENCH_KPATH_CHUNK);
	snprintf(h->threads, sizeof(h->threads),
		 "thread counts, e.g. 1,2 (default 1 to the CPU count, %u)", guac_nr_cpus());
	snprintf(h->seconds, sizeof(h->seconds), "length of one trial (default %.2f)",
		 BENCH_DEFAULT_SECONDS);
	snprintf(h->trials, sizeof(h->trials),
		 "trials per measurement; median, min and max are reported (default %d)",
		 BENCH_DEFAULT_TRIALS);
}

int guac_bench_parse(int argc, char **argv, struct guac_bench_args *a)
{
	struct bench_help h;
	const struct guac_usage usage = {
		.synopsis = "Usage: guac bench [core|dev|hwrng|nonce|kpath|small|parallel|all] [OPTIONS]\n",
		.about = h.about,
		.after = bench_after,
	};
	const struct guac_option opts[] = {
		GUAC_OPT_CALLBACK('s', "sizes", a, "LIST",
				  "request sizes, e.g. 64,4K,1M (default 16,64,1K,4K,64K,1M)",
				  bench_opt_sizes),
		GUAC_OPT_CALLBACK('t', "threads", a, "LIST", h.threads, bench_opt_threads),
		GUAC_OPT_CALLBACK(0, "seconds", a, "S", h.seconds, bench_opt_seconds),
		GUAC_OPT_CALLBACK(0, "trials", a, "N", h.trials, bench_opt_trials),
		GUAC_OPT_FLAG(0, "csv", &a->csv, "CSV on standard output instead of the table"),
		GUAC_OPT_FLAG(0, "json", &a->json, "JSON on standard output instead of the table"),
		GUAC_OPT_IMPL("impl", &a->impl,
			      "kpath, small and parallel: " BENCH_HELP_IMPL_OPT
			      " (default auto, the best this CPU supports)"),
		GUAC_OPT_STRING(0, "plot", &a->plot, "FILE",
				"also write a PNG (gnuplot): throughput and per-core speed against "
				"request size on one thread, and throughput against threads at 64K"),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n;

	bench_help_fill(&h);
	bench_set_defaults(a);
	n = guac_parse_options(argc, argv, opts, &usage, 0);
	if (n < 0)
		return n == GUAC_PARSE_DONE ? n : guac_parse_exit(n);
	if (a->csv && a->json) {
		guac_err("--csv and --json exclude each other");
		return GUAC_EXIT_ERROR;
	}
	if (n > 1) {
		guac_err("unexpected argument '%s'", argv[1]);
		return GUAC_EXIT_ERROR;
	}
	if (n)
		a->suite = argv[0];
	return GUAC_EXIT_OK;
}

static bool bench_suite_known(const char *suite)
{
	size_t i;

	for (i = 0; i < BENCH_NR_SUITES; i++)
		if (!strcmp(suite, bench_suites[i].name))
			return true;
	return !strcmp(suite, "all");
}

/* The small and parallel suites' checks and sizes: their own defaults, no plot. */
static int bench_plan_sized(struct guac_bench_args *a, bool small)
{
	if (a->plot) {
		guac_err("--plot does not apply to the %s suite", a->suite);
		return GUAC_EXIT_ERROR;
	}
	if (small && a->threads_given) {
		guac_err("the small suite runs on one thread: no --threads");
		return GUAC_EXIT_ERROR;
	}
	if (!a->sizes_given) {
		a->nsizes = small ? sizeof(bench_small_sizes) / sizeof(size_t) :
				    sizeof(bench_parallel_sizes) / sizeof(size_t);
		memcpy(a->sizes, small ? bench_small_sizes : bench_parallel_sizes,
		       a->nsizes * sizeof(size_t));
	}
	return GUAC_EXIT_OK;
}

int guac_bench_plan(struct guac_bench_args *a)
{
	bool small = !strcmp(a->suite, "small"), parallel = !strcmp(a->suite, "parallel");

	if (a->impl >= 0 && strcmp(a->suite, "kpath") && strcmp(a->suite, "all") && !small &&
	    !parallel) {
		guac_err("--impl applies to the kpath, small and parallel suites only");
		return GUAC_EXIT_ERROR;
	}
	/* Measured on the sizes given or the common default, as the suites were. */
	if (!bench_memory_fits(a, small))
		return GUAC_EXIT_ERROR;
	a->format = a->json ? BENCH_FORMAT_JSON : a->csv ? BENCH_FORMAT_CSV : BENCH_FORMAT_TABLE;
	if (small || parallel)
		return bench_plan_sized(a, small);
	if (!bench_suite_known(a->suite)) {
		guac_err("unknown suite '%s' (core, dev, hwrng, nonce, kpath, small, parallel or all)",
			 a->suite);
		return GUAC_EXIT_ERROR;
	}
	return GUAC_EXIT_OK;
}

/* @a's suite (one of bench_suites[], or all of them), then the results as asked. */
static int bench_run_suites(const struct bench_config *cfg, const struct guac_bench_args *a)
{
	struct bench_results res = { 0 };
	bool ok = true;
	size_t i;

	bench_show_progress = isatty(STDERR_FILENO);
	for (i = 0; i < BENCH_NR_SUITES; i++)
		if (!strcmp(a->suite, "all") || !strcmp(a->suite, bench_suites[i].name))
			bench_suites[i].run(&res, cfg, a);
	if (bench_show_progress)
		fputs("\r\033[K", stderr);

	if (a->json)
		bench_print_json(&res, cfg);
	else if (a->csv)
		bench_print_csv(&res);
	else
		bench_print_table(&res, cfg);
	if (a->plot)
		ok = bench_plot(&res, a->plot);
	free(res.v);
	return ok ? GUAC_EXIT_OK : GUAC_EXIT_ERROR;
}

int guac_bench_run(const struct guac_bench_args *a)
{
	/* The harness's configuration, on copies of the lists (it takes them writable). */
	size_t sizes[BENCH_MAX_LIST];
	unsigned int threads[BENCH_MAX_LIST];
	const struct bench_config cfg = {
		.seconds = a->seconds, .trials = a->trials,
		.sizes = memcpy(sizes, a->sizes, sizeof(sizes)), .nsizes = a->nsizes,
		.threads = memcpy(threads, a->threads, sizeof(threads)), .nthreads = a->nthreads,
	};
	int impl = a->impl >= 0 ? a->impl : (int)guac_impl_best();

	if (!strcmp(a->suite, "small"))
		return bench_small_run(&cfg, sizes, cfg.nsizes, impl, a->format);
	if (!strcmp(a->suite, "parallel"))
		return bench_parallel_run(&cfg, sizes, cfg.nsizes, impl, a->format);
	return bench_run_suites(&cfg, a);
}

int guac_cmd_bench(int argc, char **argv)
{
	struct guac_bench_args *a = calloc(1, sizeof(*a));
	int ret;

	if (!a) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	ret = guac_bench_parse(argc, argv, a);
	if (ret == GUAC_EXIT_OK)
		ret = guac_bench_plan(a);
	if (ret == GUAC_EXIT_OK)
		ret = guac_bench_run(a);
	free(a);
	return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
}
