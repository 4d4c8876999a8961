/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac bench: sources of random bytes behind one interface, a harness that
 * times them at a request size and thread count over repeated trials, and
 * the results it keeps for the table, CSV, JSON and plot outputs.
 */
#ifndef GUAC_BENCH_H
#define GUAC_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct bench_thread;

/* Something that produces random bytes; one instance per thread. */
struct bench_source {
	const char *name;
	int impl;				/* the core implementation, for core and kpath sources */
	/* Prepare @t (open a file, set up a context); 0 or an errno value. */
	int (*open)(struct bench_thread *t);
	/* Produce up to t->size bytes into t->buf; the count, or -errno. */
	ssize_t (*fill)(struct bench_thread *t);
	void (*close)(struct bench_thread *t);
};

struct bench_thread {
	const struct bench_source *src;
	size_t size;			/* request size */
	unsigned char *buf;		/* t->size bytes, page-aligned */
	int fd;
	void *ctx;			/* source-private state */
	uint64_t pos;			/* stream or file position */
	uint64_t bytes;			/* produced */
	uint64_t words, attempts;	/* RDRAND/RDSEED: successes and tries */
	int err;			/* errno of a failed open or fill */
	double end;			/* when this thread stopped */
	double cpu_seconds;		/* CPU time this thread got while running */
	struct bench_trial *trial;
};

/* Sources by family; the tables end with a NULL name. */
extern const struct bench_source bench_core_sources[];	/* guac impls + EVP ChaCha20 */
extern const struct bench_source bench_dev_sources[];	/* devices and getrandom */
extern const struct bench_source bench_cpu_sources[];	/* RDRAND, RDSEED */
extern const struct bench_source bench_hwrng_source;
/* The read path's two models, in 4 KiB chunks: into the buffer, or via a copy. */
extern const struct bench_source bench_kpath_sources[];

/* The kpath source that generates in place, the yardstick of that suite. */
#define BENCH_KPATH_INPLACE "inplace"
/* GUAC_FPU_CHUNK in the module: the most it generates in one FPU section. */
#define BENCH_KPATH_CHUNK 4096

/* The source name of libcrypto's EVP ChaCha20, the yardstick of the core suite. */
#define BENCH_CHACHA20 "chacha20-evp"

enum bench_status { BENCH_OK, BENCH_ABSENT, BENCH_ERROR };

enum bench_metric {
	BENCH_MBPS,		/* throughput, 10^6 bytes per second, all threads */
	BENCH_NS_PER_VALUE,	/* latency per 16-byte value, one thread */
};

#define BENCH_NONCE_SIZE 16

struct bench_result {
	const char *suite;
	const char *source;
	const char *mode;		/* nonce: "per-value" or "amortized"; kpath: the
					 * implementation; else "" */
	size_t size;
	unsigned int threads;
	enum bench_status status;
	char why[80];			/* for absent sources and errors */
	enum bench_metric metric;
	unsigned int trials;
	double median, min, max;
	/*
	 * Throughput per CPU-second the threads actually got (median over the
	 * trials): the per-core speed, steady even on a loaded machine where
	 * the wall-clock figures swing with the scheduler. NAN for latencies.
	 */
	double per_cpu;
	/*
	 * Per CPU-second against the source @ratio_to at the same size and
	 * threads (core: EVP ChaCha20; kpath: inplace); NAN and NULL if none.
	 */
	double ratio;
	const char *ratio_to;
	double ns_per_word;		/* RDRAND/RDSEED per thread; NAN otherwise */
	double success_rate;		/* RDRAND/RDSEED successes / tries; NAN otherwise */
	double retries_per_word;
};

struct bench_config {
	double seconds;			/* per trial */
	unsigned int trials;
	size_t *sizes;
	size_t nsizes;
	unsigned int *threads;
	size_t nthreads;
};

struct bench_results {
	struct bench_result *v;
	size_t n, cap;
};

/*
 * Check that @src works here (opens and gives 16 bytes). On failure fill
 * @why and return BENCH_ABSENT (not on this machine) or BENCH_ERROR.
 */
enum bench_status bench_probe(const struct bench_source *src, char *why, size_t whylen);

/*
 * Time each of @srcs at @size bytes per request on @threads threads,
 * cfg->trials times, taking turns trial by trial, and append one result per
 * source (a failing source is recorded as such, never as zero).
 */
void bench_measure(struct bench_results *res, const struct bench_config *cfg,
		   const char *suite, const struct bench_source *const *srcs, size_t nsrcs,
		   const char *mode, size_t size, unsigned int threads, enum bench_metric metric);

/* Record that @src was not measured, with the reason. */
void bench_record_absent(struct bench_results *res, const char *suite,
			 const struct bench_source *src, enum bench_status status,
			 const char *why, enum bench_metric metric);

/* Output. */
void bench_print_table(const struct bench_results *res, const struct bench_config *cfg);
void bench_print_csv(const struct bench_results *res);
void bench_print_json(const struct bench_results *res, const struct bench_config *cfg);
/* Write a PNG with gnuplot; false (after a message) on failure. */
bool bench_plot(const struct bench_results *res, const char *png);

/* "1K", "64", "1M": a request size in the shortest exact binary form. */
const char *bench_fmt_size(char *buf, size_t len, size_t size);

/* guac bench small and parallel print their own rows: table, CSV or JSON. */
enum bench_format { BENCH_FORMAT_TABLE, BENCH_FORMAT_CSV, BENCH_FORMAT_JSON };

/* "MODEL (family F, model M, stepping S), N CPUs", from /proc/cpuinfo. */
void bench_cpu_describe(char *buf, size_t len);
/* The table header of small and parallel: the CPU, kernel, glibc and date. */
void bench_print_header(FILE *out, const char *what);

/*
 * guac bench small: ns per call of small requests on one thread, from the
 * vDSO getrandom to /dev/guac and the core in-process (bench_small.c).
 */
int bench_small_run(const struct bench_config *cfg, const size_t *sizes, size_t nsizes, int impl,
		    enum bench_format fmt);

/*
 * guac bench parallel: the core and /dev/guac on 1..N threads, each on its
 * own range, with throughput per thread and the scaling efficiency
 * (bench_parallel.c).
 */
int bench_parallel_run(const struct bench_config *cfg, const size_t *sizes, size_t nsizes,
		       int impl, enum bench_format fmt);

#endif /* GUAC_BENCH_H */
