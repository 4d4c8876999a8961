// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench: the timing harness. Every thread opens its own instance of
 * the source, all start together at a barrier, run until the main thread
 * raises the stop flag, and note when they stopped; a trial's time is from
 * the barrier to the last thread's stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"
#include "util.h"

#define BENCH_WAKE_SIGNAL SIGUSR1
#define BENCH_WAKE_PERIOD_NS 10000000L	/* 10 ms between wake-ups */
#define BENCH_PROBE_SECONDS 5		/* a source's first 16 bytes, at most */

struct bench_trial {
	pthread_barrier_t start;
	atomic_bool stop;
};

struct bench_sample {
	double value;
	double per_cpu;			/* MB per CPU-second, or NAN */
	uint64_t words, attempts;
	double word_seconds;		/* thread-seconds spent, for ns per word */
};

static int bench_thread_open(struct bench_thread *t, const struct bench_source *src, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->src = src;
	t->size = size;
	t->fd = -1;
	t->buf = guac_alloc(size);
	t->err = src->open ? src->open(t) : 0;
	if (t->err) {
		free(t->buf);
		t->buf = NULL;
	}
	return t->err;
}

/* Undo a successful bench_thread_open(), whatever the fills returned since. */
static void bench_thread_close(struct bench_thread *t)
{
	if (t->src->close)
		t->src->close(t);
	free(t->buf);
}

static double bench_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *bench_worker(void *arg)
{
	struct bench_thread *t = arg;
	struct bench_trial *trial = t->trial;
	int open_err = bench_thread_open(t, t->src, t->size);
	double cpu_start;

	pthread_barrier_wait(&trial->start);
	cpu_start = bench_thread_cpu();
	while (!open_err && !atomic_load_explicit(&trial->stop, memory_order_relaxed)) {
		ssize_t n = t->src->fill(t);

		if (n == -EINTR)
			continue;	/* woken to stop, or a stray signal: look at the flag */
		if (n < 0) {
			t->err = (int)-n;
			break;
		}
		t->bytes += (uint64_t)n;
	}
	t->end = guac_now();
	t->cpu_seconds = bench_thread_cpu() - cpu_start;
	if (!open_err)
		bench_thread_close(t);
	return NULL;
}

static void bench_wake(int sig)
{
	(void)sig;
}

/*
 * Wait up to NS nanoseconds for a thread to end; true if it did. The
 * deadline is on the monotonic clock: one on the wall clock lies an hour
 * away after the clock is stepped back an hour.
 */
static bool bench_join_within(pthread_t tid, long ns)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += ns / 1000000000L;
	deadline.tv_nsec += ns % 1000000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	return pthread_clockjoin_np(tid, NULL, CLOCK_MONOTONIC, &deadline) != ETIMEDOUT;
}

/*
 * Join a worker that may sit in a blocking read (a slow /dev/hwrng): signal
 * it until it returns, so every trial ends on time. The handler is installed
 * without SA_RESTART, so the read fails with EINTR or returns what it has.
 */
static void bench_join(pthread_t tid)
{
	static bool installed;

	if (!installed) {
		struct sigaction sa = { .sa_handler = bench_wake };

		sigemptyset(&sa.sa_mask);
		sigaction(BENCH_WAKE_SIGNAL, &sa, NULL);
		installed = true;
	}
	while (!bench_join_within(tid, BENCH_WAKE_PERIOD_NS))
		pthread_kill(tid, BENCH_WAKE_SIGNAL);
}

/* One trial; 0 or the errno of the first thread that failed. */
static int bench_trial_run(const struct bench_config *cfg, const struct bench_source *src,
			   size_t size, unsigned int threads, enum bench_metric metric,
			   struct bench_sample *out)
{
	struct bench_thread *t = calloc(threads, sizeof(*t));
	pthread_t *tid = calloc(threads, sizeof(*tid));
	struct bench_trial trial;
	struct timespec nap;
	uint64_t bytes = 0;
	double start, end = 0, cpu = 0;
	unsigned int i, started;
	int err = 0;

	if (!t || !tid) {
		free(t);
		free(tid);
		return ENOMEM;
	}
	atomic_init(&trial.stop, false);
	pthread_barrier_init(&trial.start, NULL, threads + 1);
	for (started = 0; started < threads; started++) {
		t[started].src = src;
		t[started].size = size;
		t[started].trial = &trial;
		err = pthread_create(&tid[started], NULL, bench_worker, &t[started]);
		if (err)
			break;
	}
	if (err) {
		/* The barrier waits for every thread: a partial trial cannot run. */
		guac_err("cannot start thread %u of %u: %s", started + 1, threads, strerror(err));
		exit(GUAC_EXIT_ERROR);
	}
	pthread_barrier_wait(&trial.start);
	start = guac_now();
	nap.tv_sec = (time_t)cfg->seconds;
	nap.tv_nsec = (long)((cfg->seconds - (double)nap.tv_sec) * 1e9);
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
	atomic_store(&trial.stop, true);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < threads; i++) {
		bench_join(tid[i]);
		if (t[i].err && !err)
			err = t[i].err;
		bytes += t[i].bytes;
		out->words += t[i].words;
		out->attempts += t[i].attempts;
		out->word_seconds += t[i].end - start;
		cpu += t[i].cpu_seconds;
		if (t[i].end > end)
			end = t[i].end;
	}
	pthread_barrier_destroy(&trial.start);
	out->per_cpu = NAN;
	if (metric == BENCH_MBPS) {
		out->value = (double)bytes / (end - start) / 1e6;
		if (cpu > 0)
			out->per_cpu = (double)bytes / cpu / 1e6;
	} else
		out->value = bytes ? (end - start) * 1e9 / ((double)bytes / BENCH_NONCE_SIZE) : NAN;
	free(t);
	free(tid);
	return err;
}

/* Missing files, devices without a backend and CPUs without the instruction. */
static bool bench_errno_absent(int err)
{
	return err == ENOENT || err == ENODEV || err == ENXIO || err == ENOTSUP;
}

/* One read from the source, in a thread of its own (bench_probe). */
static void *bench_probe_read(void *arg)
{
	struct bench_thread *t = arg;
	ssize_t n = t->src->fill(t);

	t->err = n < 0 ? (int)-n : 0;
	return NULL;
}

enum bench_status bench_probe(const struct bench_source *src, char *why, size_t whylen)
{
	struct bench_thread t;
	pthread_t tid;
	bool answered = true;
	int err = bench_thread_open(&t, src, BENCH_NONCE_SIZE);

	if (!err) {
		/*
		 * A device may block for ever (a /dev/hwrng whose backend never
		 * answers): read in a thread, and give up on it after
		 * BENCH_PROBE_SECONDS rather than hang the whole bench.
		 */
		t.err = 0;
		err = pthread_create(&tid, NULL, bench_probe_read, &t);
		if (!err) {
			answered = bench_join_within(tid, BENCH_PROBE_SECONDS * 1000000000L);
			if (!answered)
				bench_join(tid);
			err = answered ? t.err : ETIMEDOUT;
		}
		bench_thread_close(&t);
	}
	if (!err)
		return BENCH_OK;
	if (!answered)
		snprintf(why, whylen, "no byte in %d s", BENCH_PROBE_SECONDS);
	else
		snprintf(why, whylen, "%s", err == ENOTSUP ? "not supported by this CPU" : strerror(err));
	return bench_errno_absent(err) ? BENCH_ABSENT : BENCH_ERROR;
}

static struct bench_result *bench_append(struct bench_results *res, const char *suite,
					 const struct bench_source *src, const char *mode,
					 size_t size, unsigned int threads,
					 enum bench_metric metric)
{
	struct bench_result *r;

	if (res->n == res->cap) {
		res->cap = res->cap ? 2 * res->cap : 64;
		res->v = realloc(res->v, res->cap * sizeof(*res->v));
		if (!res->v) {
			guac_err("out of memory");
			exit(GUAC_EXIT_ERROR);
		}
	}
	r = &res->v[res->n++];
	memset(r, 0, sizeof(*r));
	r->suite = suite;
	r->source = src->name;
	r->mode = mode ? mode : "";
	r->size = size;
	r->threads = threads;
	r->metric = metric;
	r->median = r->min = r->max = r->per_cpu = NAN;
	r->ratio = r->ns_per_word = r->success_rate = r->retries_per_word = NAN;
	return r;
}

void bench_record_absent(struct bench_results *res, const char *suite,
			 const struct bench_source *src, enum bench_status status,
			 const char *why, enum bench_metric metric)
{
	struct bench_result *r = bench_append(res, suite, src, NULL, 0, 0, metric);

	r->status = status;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @v, which it sorts. */
static double bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_measure(struct bench_results *res, const struct bench_config *cfg,
		   const char *suite, const struct bench_source *const *srcs, size_t nsrcs,
		   const char *mode, size_t size, unsigned int threads, enum bench_metric metric)
{
	struct bench_sample *samples = calloc(nsrcs * cfg->trials, sizeof(*samples));
	int *errs = calloc(nsrcs, sizeof(*errs));
	double *values = calloc(cfg->trials, sizeof(*values));
	double *per_cpu = calloc(cfg->trials, sizeof(*per_cpu));
	unsigned int trial;
	size_t k;

	if (!samples || !errs || !values || !per_cpu) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	/* Round robin, so a change in machine load hits every source alike. */
	for (trial = 0; trial < cfg->trials; trial++)
		for (k = 0; k < nsrcs; k++)
			if (!errs[k])
				errs[k] = bench_trial_run(cfg, srcs[k], size, threads, metric,
							  &samples[k * cfg->trials + trial]);

	for (k = 0; k < nsrcs; k++) {
		const struct bench_sample *s = &samples[k * cfg->trials];
		struct bench_result *r = bench_append(res, suite, srcs[k], mode, size, threads,
						      metric);
		uint64_t words = 0, attempts = 0;
		double word_seconds = 0;

		if (errs[k]) {
			r->status = bench_errno_absent(errs[k]) ? BENCH_ABSENT : BENCH_ERROR;
			snprintf(r->why, sizeof(r->why), "%s", strerror(errs[k]));
			continue;
		}
		for (trial = 0; trial < cfg->trials; trial++) {
			values[trial] = s[trial].value;
			per_cpu[trial] = s[trial].per_cpu;
			words += s[trial].words;
			attempts += s[trial].attempts;
			word_seconds += s[trial].word_seconds;
		}
		r->trials = cfg->trials;
		r->median = bench_median(values, cfg->trials);
		r->min = values[0];
		r->max = values[cfg->trials - 1];
		r->per_cpu = bench_median(per_cpu, cfg->trials);
		if (attempts) {
			r->ns_per_word = word_seconds * 1e9 / (double)words;
			r->success_rate = (double)words / (double)attempts;
			r->retries_per_word = (double)(attempts - words) / (double)words;
		}
	}
	free(per_cpu);
	free(values);
	free(errs);
	free(samples);
}

const char *bench_fmt_size(char *buf, size_t len, size_t size)
{
	static const char units[] = "KMG";
	int u = -1;

	while (size >= 1024 && !(size % 1024) && u < 2) {
		size /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%zu", size);
	else
		snprintf(buf, len, "%zu%c", size, units[u]);
	return buf;
}
