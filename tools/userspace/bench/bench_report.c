// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guac bench: results as a table, CSV or JSON, each saying what machine made them. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include "bench.h"
#include "libguac.h"
#include "util.h"

static const char *const bench_status_names[] = {
	[BENCH_OK] = "ok", [BENCH_ABSENT] = "absent", [BENCH_ERROR] = "error",
};

static const char *bench_unit(const struct bench_result *r)
{
	return r->metric == BENCH_MBPS ? "MB/s" : "ns/value";
}

/* The CPU model from /proc/cpuinfo, or "unknown CPU". */
static void bench_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

struct bench_machine {
	char cpu[128];
	char kernel[2 * sizeof(((struct utsname *)0)->release) + 2];
	char date[32];
	unsigned int cpus;
};

static void bench_machine(struct bench_machine *m)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	bench_cpu_model(m->cpu, sizeof(m->cpu));
	if (uname(&u))
		snprintf(m->kernel, sizeof(m->kernel), "unknown");
	else
		snprintf(m->kernel, sizeof(m->kernel), "%s %s", u.sysname, u.release);
	gmtime_r(&now, &tm);
	strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m->cpus = guac_nr_cpus();
}

/* Four significant digits at least, without exponents. */
static void bench_put_cell(double v)
{
	printf("%10.*f ", v >= 1000 ? 0 : v >= 100 ? 1 : v >= 10 ? 2 : v >= 1 ? 3 : 4, v);
}

void bench_print_table(const struct bench_results *res, const struct bench_config *cfg)
{
	struct bench_machine m;
	const char *suite = NULL;
	size_t i;

	bench_machine(&m);
	printf("# guac bench on %s (%u CPUs), %s, %s\n", m.cpu, m.cpus, m.kernel, m.date);
	printf("# median [min, max] of %u trials of %.2f s; MB/s = 10^6 bytes/s over all threads;\n"
	       "# per CPU-s: MB per second of CPU time the threads got (per-core speed)\n",
	       cfg->trials, cfg->seconds);
	for (i = 0; i < res->n; i++) {
		const struct bench_result *r = &res->v[i];
		char size[16];

		if (!suite || strcmp(suite, r->suite)) {
			suite = r->suite;
			printf("\n%-6s %-14s %-10s %5s %3s %10s %10s %10s %-9s %10s  %s\n", "suite",
			       "source", "mode", "size", "thr", "median", "min", "max", "unit",
			       "per CPU-s", "notes");
		}
		if (r->status != BENCH_OK) {
			printf("%-6s %-14s %s (%s)\n", r->suite, r->source,
			       bench_status_names[r->status], r->why);
			continue;
		}
		printf("%-6s %-14s %-10s %5s %3u ", r->suite, r->source, r->mode,
		       bench_fmt_size(size, sizeof(size), r->size), r->threads);
		bench_put_cell(r->median);
		bench_put_cell(r->min);
		bench_put_cell(r->max);
		printf("%-9s", bench_unit(r));
		if (isnan(r->per_cpu))
			printf(" %10s ", "");
		else
			bench_put_cell(r->per_cpu);
		if (!isnan(r->ratio))
			printf(" %.2fx %s", r->ratio, r->ratio_to);
		if (!isnan(r->success_rate))
			printf(" %.1f ns/word/thread, %.4f%% success, %.4f retries/word",
			       r->ns_per_word, 100 * r->success_rate, r->retries_per_word);
		putchar('\n');
	}
}

/* A number, or an empty CSV cell / JSON null when there is none. */
static void bench_put_number(double v, const char *none)
{
	if (isnan(v))
		fputs(none, stdout);
	else
		printf("%.6g", v);
}

/*
 * The numeric columns, in output order, with their CSV and JSON names. The
 * first BENCH_NR_STATS are the trial statistics; the CSV puts the unit after
 * them. The ratio is followed by ratio_to, the source it is against.
 */
static const struct {
	const char *name;
	size_t offset;
} bench_numbers[] = {
	{ "median", offsetof(struct bench_result, median) },
	{ "min", offsetof(struct bench_result, min) },
	{ "max", offsetof(struct bench_result, max) },
	{ "per_cpu_second", offsetof(struct bench_result, per_cpu) },
	{ "ratio", offsetof(struct bench_result, ratio) },
	{ "ns_per_word", offsetof(struct bench_result, ns_per_word) },
	{ "success_rate", offsetof(struct bench_result, success_rate) },
	{ "retries_per_word", offsetof(struct bench_result, retries_per_word) },
};

#define BENCH_NR_NUMBERS (sizeof(bench_numbers) / sizeof(bench_numbers[0]))
#define BENCH_NR_STATS 3

static double bench_number(const struct bench_result *r, size_t k)
{
	return *(const double *)((const char *)r + bench_numbers[k].offset);
}

static bool bench_is_ratio(size_t k)
{
	return bench_numbers[k].offset == offsetof(struct bench_result, ratio);
}

void bench_print_csv(const struct bench_results *res)
{
	size_t i, k;

	printf("suite,source,mode,size,threads,status");
	for (k = 0; k < BENCH_NR_NUMBERS; k++)
		printf("%s,%s%s", k == BENCH_NR_STATS ? ",unit" : "", bench_numbers[k].name,
		       bench_is_ratio(k) ? ",ratio_to" : "");
	printf(",note\n");
	for (i = 0; i < res->n; i++) {
		const struct bench_result *r = &res->v[i];

		printf("%s,%s,%s,%zu,%u,%s", r->suite, r->source, r->mode, r->size, r->threads,
		       bench_status_names[r->status]);
		for (k = 0; k < BENCH_NR_NUMBERS; k++) {
			if (k == BENCH_NR_STATS)
				printf(",%s", bench_unit(r));
			putchar(',');
			bench_put_number(bench_number(r, k), "");
			/* Source names have no commas or quotes either. */
			if (bench_is_ratio(k))
				printf(",%s", r->ratio_to ? r->ratio_to : "");
		}
		/* Reasons are strerror texts: no commas or quotes to escape. */
		printf(",%s\n", r->why);
	}
}

void bench_print_json(const struct bench_results *res, const struct bench_config *cfg)
{
	struct bench_machine m;
	size_t i, k;

	bench_machine(&m);
	printf("{\"machine\":{\"cpu\":");
	guac_json_string(stdout, m.cpu);
	printf(",\"cpus\":%u,\"kernel\":", m.cpus);
	guac_json_string(stdout, m.kernel);
	printf(",\"date\":\"%s\",\"best_impl\":\"%s\"},\"seconds\":%g,\"trials\":%u,\"results\":[",
	       m.date, guac_impl_names[guac_impl_best()], cfg->seconds, cfg->trials);
	for (i = 0; i < res->n; i++) {
		const struct bench_result *r = &res->v[i];

		printf("%s\n{\"suite\":\"%s\",\"source\":", i ? "," : "", r->suite);
		guac_json_string(stdout, r->source);
		printf(",\"mode\":\"%s\",\"size\":%zu,\"threads\":%u,\"status\":\"%s\",\"why\":",
		       r->mode, r->size, r->threads, bench_status_names[r->status]);
		guac_json_string(stdout, r->why);
		printf(",\"unit\":\"%s\"", bench_unit(r));
		for (k = 0; k < BENCH_NR_NUMBERS; k++) {
			printf(",\"%s\":", bench_numbers[k].name);
			bench_put_number(bench_number(r, k), "null");
			if (bench_is_ratio(k)) {
				printf(",\"ratio_to\":");
				if (r->ratio_to)
					guac_json_string(stdout, r->ratio_to);
				else
					fputs("null", stdout);
			}
		}
		putchar('}');
	}
	printf("\n]}\n");
}
