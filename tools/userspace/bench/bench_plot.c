// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench --plot: a PNG through gnuplot with three panels, throughput
 * and per-core speed against request size on one thread, and throughput
 * against threads at one size, one line (and colour) per source. The data
 * goes inline as gnuplot datablocks.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "bench.h"
#include "util.h"

#define BENCH_PLOT_SIZE (64u << 10)	/* the threads panel's size, when measured */

static bool bench_plottable(const struct bench_result *r)
{
	return r->status == BENCH_OK && r->metric == BENCH_MBPS;
}

/* Whether result @i is the first of its suite and source among the plottable ones. */
static bool bench_first_of_source(const struct bench_results *res, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (bench_plottable(&res->v[j]) && !strcmp(res->v[j].suite, res->v[i].suite) &&
		    !strcmp(res->v[j].source, res->v[i].source))
			return false;
	return true;
}

/*
 * Write one datablock per source holding the points where @axis_size (or
 * @axis_threads) varies and the other is fixed; returns the block count.
 */
static unsigned int bench_plot_blocks(FILE *gp, const struct bench_results *res, bool by_size,
				      size_t size, const char *prefix)
{
	unsigned int nblocks = 0;
	size_t i, j;

	for (i = 0; i < res->n; i++) {
		const struct bench_result *first = &res->v[i];
		bool any = false;

		if (!bench_plottable(first) || !bench_first_of_source(res, i))
			continue;
		for (j = i; j < res->n; j++) {
			const struct bench_result *r = &res->v[j];

			if (!bench_plottable(r) || strcmp(r->suite, first->suite) ||
			    strcmp(r->source, first->source))
				continue;
			if (by_size ? r->threads != 1 : r->size != size)
				continue;
			if (!any)
				fprintf(gp, "$%s%u << EOD\n# %s %s\n", prefix, nblocks, first->suite,
					first->source);
			any = true;
			fprintf(gp, "%zu %u %g %g %g %g\n", r->size, r->threads, r->median, r->min,
				r->max, r->per_cpu);
		}
		if (!any)
			continue;
		fprintf(gp, "EOD\n");
		nblocks++;
	}
	return nblocks;
}

/* Distinct colours, so each source keeps its own across the panels. */
static const char *const bench_plot_colours[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ffbb78", "#98df8a",
};

#define BENCH_PLOT_COLOURS (sizeof(bench_plot_colours) / sizeof(bench_plot_colours[0]))

/* The position of result @i's source among all plotted sources. */
static unsigned int bench_source_index(const struct bench_results *res, size_t i)
{
	unsigned int idx = 0;
	size_t j;

	for (j = 0; j < i; j++)
		if (bench_plottable(&res->v[j]) && bench_first_of_source(res, j))
			idx++;
	return idx;
}

/*
 * The plot command for the blocks bench_plot_blocks() wrote, titled by
 * source; @style picks the columns (size 1, threads 2, median 3, min 4,
 * max 5, per CPU-second 6) and how they are drawn.
 */
static void bench_plot_lines(FILE *gp, const struct bench_results *res, bool by_size,
			     size_t size, const char *prefix, unsigned int nblocks,
			     const char *style)
{
	unsigned int b = 0, idx;
	size_t i, j;

	fprintf(gp, "plot ");
	for (i = 0; i < res->n && b < nblocks; i++) {
		const struct bench_result *first = &res->v[i];
		bool any = false;

		if (!bench_plottable(first) || !bench_first_of_source(res, i))
			continue;
		for (j = i; j < res->n && !any; j++)
			any = bench_plottable(&res->v[j]) &&
			      !strcmp(res->v[j].suite, first->suite) &&
			      !strcmp(res->v[j].source, first->source) &&
			      (by_size ? res->v[j].threads == 1 : res->v[j].size == size);
		if (!any)
			continue;
		idx = bench_source_index(res, i);
		fprintf(gp, "%s$%s%u %s lw 1.5 pt %u lc rgb \"%s\" title \"%s %s\"",
			b ? ", " : "", prefix, b, style, idx % 13 + 1,
			bench_plot_colours[idx % BENCH_PLOT_COLOURS], first->suite, first->source);
		b++;
	}
	fprintf(gp, "\n");
}

/* Label the size axis with the sizes measured, as "64", "4K". */
static void bench_plot_size_tics(FILE *gp, const struct bench_results *res)
{
	const char *sep = "";
	char label[16];
	size_t i, j;

	size_t lo = SIZE_MAX, hi = 0;

	fprintf(gp, "set xtics (");
	for (i = 0; i < res->n; i++) {
		bool seen = false;

		if (bench_plottable(&res->v[i])) {
			lo = res->v[i].size < lo ? res->v[i].size : lo;
			hi = res->v[i].size > hi ? res->v[i].size : hi;
		}

		for (j = 0; j < i && !seen; j++)
			seen = bench_plottable(&res->v[j]) && res->v[j].size == res->v[i].size;
		if (seen || !bench_plottable(&res->v[i]))
			continue;
		fprintf(gp, "%s\"%s\" %zu", sep,
			bench_fmt_size(label, sizeof(label), res->v[i].size), res->v[i].size);
		sep = ", ";
	}
	fprintf(gp, ")\n");
	/* A margin either side, and a range even when one size was measured. */
	if (hi)
		fprintf(gp, "set xrange [%g:%g]\n", lo / 1.5, hi * 1.5);
}

static unsigned int bench_plot_max_threads(const struct bench_results *res)
{
	unsigned int max = 1;
	size_t i;

	for (i = 0; i < res->n; i++)
		if (bench_plottable(&res->v[i]) && res->v[i].threads > max)
			max = res->v[i].threads;
	return max;
}

/* The size for the threads panel: 64 KiB if measured, else the largest. */
static size_t bench_plot_threads_size(const struct bench_results *res)
{
	size_t i, best = 0;

	for (i = 0; i < res->n; i++) {
		if (!bench_plottable(&res->v[i]))
			continue;
		if (res->v[i].size == BENCH_PLOT_SIZE)
			return BENCH_PLOT_SIZE;
		if (res->v[i].size > best)
			best = res->v[i].size;
	}
	return best;
}

bool bench_plot(const struct bench_results *res, const char *png)
{
	size_t tsize = bench_plot_threads_size(res);
	unsigned int nsize, nthr;
	char sizebuf[16];
	FILE *gp;
	int status;

	if (strpbrk(png, "\"\\\n")) {
		guac_err("plot file name '%s' has a quote, backslash or newline", png);
		return false;
	}
	gp = popen("gnuplot", "w");
	if (!gp) {
		guac_err("cannot run gnuplot: %m");
		return false;
	}
	fprintf(gp, "set terminal pngcairo size 2100,760 font \"sans,10\"\n"
		"set output \"%s\"\n"
		"set multiplot layout 1,3 title \"guac bench: median of trials, bars min..max\"\n"
		"set key below horizontal maxrows 5 font \",9\"\n"
		"set grid\nset logscale y 10\nset ylabel \"MB/s (10^6 bytes/s)\"\n", png);
	nsize = bench_plot_blocks(gp, res, true, 0, "s");
	nthr = bench_plot_blocks(gp, res, false, tsize, "t");
	fprintf(gp, "set logscale x 2\n");
	bench_plot_size_tics(gp, res);
	fprintf(gp, "set title \"throughput vs request size in bytes, 1 thread\"\n");
	if (nsize)
		bench_plot_lines(gp, res, true, 0, "s", nsize, "using 1:3:4:5 with yerrorlines");
	else
		fprintf(gp, "plot NaN notitle\n");
	fprintf(gp, "set title \"per-core speed: MB per CPU-second vs request size, 1 thread\"\n"
		"set ylabel \"MB per CPU-second\"\n");
	if (nsize)
		bench_plot_lines(gp, res, true, 0, "s", nsize, "using 1:6 with linespoints");
	else
		fprintf(gp, "plot NaN notitle\n");
	fprintf(gp, "unset logscale x\nset format x \"%%g\"\nset xtics 1\n"
		"set xrange [0.5:%u.5]\n", bench_plot_max_threads(res));
	fprintf(gp,
		"set ylabel \"MB/s (10^6 bytes/s)\"\n"
		"set title \"throughput vs threads, %s-byte requests\"\n",
		bench_fmt_size(sizebuf, sizeof(sizebuf), tsize));
	if (nthr)
		bench_plot_lines(gp, res, false, tsize, "t", nthr, "using 2:3:4:5 with yerrorlines");
	else
		fprintf(gp, "plot NaN notitle\n");
	fprintf(gp, "unset multiplot\n");
	status = pclose(gp);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		guac_err("gnuplot failed writing '%s' (is gnuplot installed? scripts/install-deps.sh)",
			 png);
		return false;
	}
	return true;
}
