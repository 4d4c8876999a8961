// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench: throughput and latency of the core, the devices and their
 * peers, side by side in one run. Options and the suites live here; the
 * sources, harness and outputs in bench_*.c.
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
#define BENCH_MAX_LIST 32
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

static bool bench_show_progress;
static bool bench_sizes_given;		/* --sizes, which overrides every suite's default */
static int bench_kpath_impl = -1;	/* --impl, or -1 for the best one */

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
		exit(GUAC_EXIT_ERROR);
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

static void bench_suite_core(struct bench_results *res, const struct bench_config *cfg)
{
	const struct bench_source *srcs[BENCH_MAX_SOURCES];
	size_t first = res->n;

	bench_sweep(res, cfg, "core", srcs, bench_table(bench_core_sources, srcs), NULL,
		    cfg->sizes, cfg->nsizes);
	bench_ratios(res, first, BENCH_CHACHA20);
}

static void bench_suite_dev(struct bench_results *res, const struct bench_config *cfg)
{
	const struct bench_source *srcs[BENCH_MAX_SOURCES];

	bench_sweep(res, cfg, "dev", srcs, bench_table(bench_dev_sources, srcs), NULL,
		    cfg->sizes, cfg->nsizes);
}

static void bench_suite_hwrng(struct bench_results *res, const struct bench_config *cfg)
{
	static const size_t cpu_size = BENCH_CPU_REQUEST;
	const struct bench_source *srcs[BENCH_MAX_SOURCES] = { &bench_hwrng_source };

	bench_sweep(res, cfg, "hwrng", srcs, 1, NULL, cfg->sizes, cfg->nsizes);
	bench_sweep(res, cfg, "hwrng", srcs, bench_table(bench_cpu_sources, srcs), NULL,
		    &cpu_size, 1);
}

static void bench_suite_nonce(struct bench_results *res, const struct bench_config *cfg)
{
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
static void bench_suite_kpath(struct bench_results *res, const struct bench_config *cfg)
{
	struct bench_source local[BENCH_MAX_SOURCES];
	const struct bench_source *srcs[BENCH_MAX_SOURCES];
	int impl = bench_kpath_impl >= 0 ? bench_kpath_impl : (int)guac_impl_best();
	size_t first = res->n, n = bench_table(bench_kpath_sources, srcs), k;

	for (k = 0; k < n; k++) {
		local[k] = *srcs[k];
		local[k].impl = impl;
		srcs[k] = &local[k];
	}
	if (bench_sizes_given)
		bench_sweep(res, cfg, "kpath", srcs, n, guac_impl_names[impl], cfg->sizes,
			    cfg->nsizes);
	else
		bench_sweep(res, cfg, "kpath", srcs, n, guac_impl_names[impl], bench_kpath_sizes,
			    sizeof(bench_kpath_sizes) / sizeof(bench_kpath_sizes[0]));
	bench_ratios(res, first, BENCH_KPATH_INPLACE);
}

static const struct {
	const char *name;
	void (*run)(struct bench_results *res, const struct bench_config *cfg);
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
static bool bench_memory_fits(const struct bench_config *cfg, bool one_thread)
{
	uint64_t threads = 1, size = 0, need, mem;
	char h1[32], h2[32];
	size_t i;

	for (i = 0; !one_thread && i < cfg->nthreads; i++)
		if (cfg->threads[i] > threads)
			threads = cfg->threads[i];
	for (i = 0; i < cfg->nsizes; i++)
		if (cfg->sizes[i] > size)
			size = cfg->sizes[i];
	if (guac_buffers_fit(threads, size, &need, &mem))
		return true;
	guac_err("refusing to bench: %" PRIu64 " threads at size %" PRIu64 " need %" PRIu64
		 " bytes (%s) of buffers (two of the size a thread), more than this machine's "
		 "memory, %" PRIu64 " bytes (%s); use fewer --threads or smaller --sizes", threads,
		 size, need, guac_fmt_bytes(h1, sizeof(h1), (double)need), mem,
		 guac_fmt_bytes(h2, sizeof(h2), (double)mem));
	return false;
}

/* What the options set: the callbacks' context. */
struct bench_opts {
	struct bench_config cfg;
	size_t sizes[BENCH_MAX_LIST];
	unsigned int threads[BENCH_MAX_LIST];
	bool threads_given;
};

static bool bench_opt_sizes(const struct guac_option *opt, const char *arg)
{
	struct bench_opts *o = opt->value;
	uint64_t list[BENCH_MAX_LIST];
	size_t i, n;

	if (!bench_parse_list("size", arg, BENCH_MAX_SIZE, list, &n))
		return false;
	for (i = 0; i < n; i++)
		o->sizes[i] = (size_t)list[i];
	o->cfg.nsizes = n;
	bench_sizes_given = true;
	return true;
}

static bool bench_opt_threads(const struct guac_option *opt, const char *arg)
{
	struct bench_opts *o = opt->value;
	uint64_t list[BENCH_MAX_LIST];
	size_t i, n;

	if (!bench_parse_list("thread count", arg, BENCH_MAX_THREADS, list, &n))
		return false;
	for (i = 0; i < n; i++)
		o->threads[i] = (unsigned int)list[i];
	o->cfg.nthreads = n;
	o->threads_given = true;
	return true;
}

static bool bench_opt_seconds(const struct guac_option *opt, const char *arg)
{
	struct bench_opts *o = opt->value;

	return bench_parse_double("trial length", arg, BENCH_MAX_SECONDS, &o->cfg.seconds);
}

static bool bench_opt_trials(const struct guac_option *opt, const char *arg)
{
	struct bench_opts *o = opt->value;
	double trials;

	if (!bench_parse_double("trial count", arg, BENCH_MAX_TRIALS, &trials))
		return false;
	if (trials != floor(trials)) {
		guac_err("invalid trial count '%s': expected a whole number", arg);
		return false;
	}
	o->cfg.trials = (unsigned int)trials;
	return true;
}

/* Each call of guac_cmd_bench() starts from the defaults. */
static void bench_set_defaults(struct bench_opts *o)
{
	struct bench_config *cfg = &o->cfg;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->cfg = (struct bench_config){
		.seconds = BENCH_DEFAULT_SECONDS, .trials = BENCH_DEFAULT_TRIALS,
		.sizes = o->sizes, .threads = o->threads,
	};
	bench_show_progress = false;
	bench_sizes_given = false;
	bench_kpath_impl = -1;
	memcpy(o->sizes, bench_default_sizes, sizeof(bench_default_sizes));
	cfg->nsizes = sizeof(bench_default_sizes) / sizeof(bench_default_sizes[0]);
	cfg->nthreads = guac_nr_cpus() < BENCH_MAX_LIST ? guac_nr_cpus() : BENCH_MAX_LIST;
	for (i = 0; i < cfg->nthreads; i++)
		o->threads[i] = (unsigned int)i + 1;
}

/* The small and parallel suites: their own sizes, table and formats. */
static int bench_run_sized(struct bench_opts *o, const char *suite, const char *plot,
			   enum bench_format fmt)
{
	struct bench_config *cfg = &o->cfg;
	size_t *sizes = o->sizes;
	bool small = !strcmp(suite, "small");
	int impl = bench_kpath_impl >= 0 ? bench_kpath_impl : (int)guac_impl_best();

	if (plot) {
		guac_err("--plot does not apply to the %s suite", suite);
		return GUAC_EXIT_ERROR;
	}
	if (small && o->threads_given) {
		guac_err("the small suite runs on one thread: no --threads");
		return GUAC_EXIT_ERROR;
	}
	if (!bench_sizes_given) {
		cfg->nsizes = small ? sizeof(bench_small_sizes) / sizeof(size_t) :
				     sizeof(bench_parallel_sizes) / sizeof(size_t);
		memcpy(sizes, small ? bench_small_sizes : bench_parallel_sizes,
		       cfg->nsizes * sizeof(size_t));
	}
	return small ? bench_small_run(cfg, sizes, cfg->nsizes, impl, fmt) :
		       bench_parallel_run(cfg, sizes, cfg->nsizes, impl, fmt);
}

/* @suite (one of bench_suites[], or all of them), then the results as asked. */
static int bench_run_suites(struct bench_config *cfg, const char *suite, const char *plot,
			    bool json, bool csv)
{
	struct bench_results res = { 0 };
	bool ran = false, ok = true;
	size_t i;

	bench_show_progress = isatty(STDERR_FILENO);

	for (i = 0; i < BENCH_NR_SUITES; i++) {
		if (strcmp(suite, "all") && strcmp(suite, bench_suites[i].name))
			continue;
		bench_suites[i].run(&res, cfg);
		ran = true;
	}
	if (!ran) {
		guac_err("unknown suite '%s' (core, dev, hwrng, nonce, kpath, small, parallel or all)",
			 suite);
		return GUAC_EXIT_ERROR;
	}
	if (bench_show_progress)
		fputs("\r\033[K", stderr);

	if (json)
		bench_print_json(&res, cfg);
	else if (csv)
		bench_print_csv(&res);
	else
		bench_print_table(&res, cfg);
	if (plot)
		ok = bench_plot(&res, plot);
	free(res.v);
	return ok ? GUAC_EXIT_OK : GUAC_EXIT_ERROR;
}

int guac_cmd_bench(int argc, char **argv)
{
	static struct bench_opts o;
	const char *suite = "all", *plot = NULL;
	bool csv = false, json = false;
	char about[sizeof(bench_about_fmt) + 64], threads_help[96], seconds_help[64],
		trials_help[96];
	const struct guac_usage usage = {
		.synopsis = "Usage: guac bench [core|dev|hwrng|nonce|kpath|small|parallel|all] [OPTIONS]\n",
		.about = about,
		.after = bench_after,
	};
	const struct guac_option opts[] = {
		GUAC_OPT_CALLBACK('s', "sizes", &o, "LIST",
				  "request sizes, e.g. 64,4K,1M (default 16,64,1K,4K,64K,1M)",
				  bench_opt_sizes),
		GUAC_OPT_CALLBACK('t', "threads", &o, "LIST", threads_help, bench_opt_threads),
		GUAC_OPT_CALLBACK(0, "seconds", &o, "S", seconds_help, bench_opt_seconds),
		GUAC_OPT_CALLBACK(0, "trials", &o, "N", trials_help, bench_opt_trials),
		GUAC_OPT_FLAG(0, "csv", &csv, "CSV on standard output instead of the table"),
		GUAC_OPT_FLAG(0, "json", &json, "JSON on standard output instead of the table"),
		GUAC_OPT_IMPL("impl", &bench_kpath_impl,
			      "kpath, small and parallel: " BENCH_HELP_IMPL_OPT
			      " (default auto, the best this CPU supports)"),
		GUAC_OPT_STRING(0, "plot", &plot, "FILE",
				"also write a PNG (gnuplot): throughput and per-core speed against "
				"request size on one thread, and throughput against threads at 64K"),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	struct bench_config *cfg = &o.cfg;
	int n;

	snprintf(about, sizeof(about), bench_about_fmt, BENCH_CPU_REQUEST, BENCH_NONCE_SIZE,
		 BENCH_NONCE_BATCH, BENCH_KPATH_CHUNK, BENCH_KPATH_CHUNK);
	snprintf(threads_help, sizeof(threads_help),
		 "thread counts, e.g. 1,2 (default 1 to the CPU count, %u)", guac_nr_cpus());
	snprintf(seconds_help, sizeof(seconds_help), "length of one trial (default %.2f)",
		 BENCH_DEFAULT_SECONDS);
	snprintf(trials_help, sizeof(trials_help),
		 "trials per measurement; median, min and max are reported (default %d)",
		 BENCH_DEFAULT_TRIALS);
	bench_set_defaults(&o);

	n = guac_parse_options(argc, argv, opts, &usage, 0);
	if (n < 0)
		return guac_parse_exit(n);
	if (csv && json) {
		guac_err("--csv and --json exclude each other");
		return GUAC_EXIT_ERROR;
	}
	if (n > 1) {
		guac_err("unexpected argument '%s'", argv[1]);
		return GUAC_EXIT_ERROR;
	}
	if (n)
		suite = argv[0];
	if (bench_kpath_impl >= 0 && strcmp(suite, "kpath") && strcmp(suite, "all") &&
	    strcmp(suite, "small") && strcmp(suite, "parallel")) {
		guac_err("--impl applies to the kpath, small and parallel suites only");
		return GUAC_EXIT_ERROR;
	}
	if (!bench_memory_fits(cfg, !strcmp(suite, "small")))
		return GUAC_EXIT_ERROR;
	if (!strcmp(suite, "small") || !strcmp(suite, "parallel"))
		return bench_run_sized(&o, suite, plot,
				       json ? BENCH_FORMAT_JSON :
				       csv ? BENCH_FORMAT_CSV : BENCH_FORMAT_TABLE);
	return bench_run_suites(&o.cfg, suite, plot, json, csv);
}
