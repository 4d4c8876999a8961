// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The diagnosis's origin search (diag.h, docs/diagnosis.md, issue 24): a bad
 * sector holding the data of an origin the history does not name is
 * STALE_ORIGIN when that origin lies within cfg.origin_radius of a known one
 * (the pass's, or a history pass's, with its own mapping) or in a range the
 * user named; an origin a whole number of sectors from the pass's is another
 * sector of the pass (MISDIRECTED), as the sweep would say; a run of stale
 * sectors costs about one window; the windows stop at 0 and never wrap.
 *
 * `test_diag_origins --bench [SECTORS]` measures the search's cost instead
 * (blocks per CPU-second, and per bad sector with the default radius) for
 * docs/diagnosis.md; it asserts nothing about speed.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "diag.h"
#include "libguac.h"
#include "util.h"

#define SECTOR 4096u
#define PASS_ORIGIN 100000u		/* the pass being verified */
#define OLD_ORIGIN 5000u		/* a pass in the history */
#define PASS_STREAM (1u << 20)		/* stream offset of device byte 0 */
#define DEV_SIZE (8u << 20)

static enum guac_impl impl;

static const struct guac_diag_pass test_pass = {
	.origin = PASS_ORIGIN, .stream_offset = PASS_STREAM, .device_offset = 0,
	.length = DEV_SIZE,
};

/* The history pass wrote stream offset = device offset. */
static const struct guac_diag_pass test_history[] = { { .origin = OLD_ORIGIN } };

static void test_config(struct guac_diag_config *cfg, bool history)
{
	guac_diag_config_init(cfg, impl, SECTOR, &test_pass);
	cfg->history = history ? test_history : NULL;
	cfg->nhistory = history;
}

/* What a pass with @origin and the pass's mapping wrote at sector @lba. */
static void pass_sector(uint8_t *buf, uint64_t origin, uint64_t lba)
{
	guac_stream_fill(impl, buf, origin, PASS_STREAM + lba * SECTOR, SECTOR);
}

static struct guac_diag_result run_one(const struct guac_diag_config *cfg, uint64_t lba,
				       const uint8_t *data, struct guac_diag_search *search)
{
	struct guac_diag_sector s = { .stream_offset = PASS_STREAM + lba * SECTOR, .data = data };
	struct guac_diag_result r;
	char line[512];

	assert_int_equal(guac_diag_run(cfg, &s, 1, &r, search), 0);
	guac_diag_describe(&r, SECTOR, line, sizeof(line));
	assert_int_equal(strncmp(line, guac_diag_class_name(r.cls),
				 strlen(guac_diag_class_name(r.cls))), 0);
	return r;
}

/* The previous run had origin PASS_ORIGIN - 1, its manifest is gone: found near the pass's. */
static void test_near_pass_origin(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];
	char line[512];

	(void)state;
	test_config(&cfg, false);
	pass_sector(buf, PASS_ORIGIN - 1, 14);
	r = run_one(&cfg, 14, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.found_origin, PASS_ORIGIN - 1);
	assert_int_equal(r.origin_source, GUAC_DIAG_ORIGIN_NEAR);
	assert_int_equal(r.near_origin, PASS_ORIGIN);
	assert_int_equal(r.found_stream_offset, PASS_STREAM + 14 * SECTOR);
	assert_true(search.origin_exhaustive);
	assert_int_equal(search.origin_found, 1);
	guac_diag_describe(&r, SECTOR, line, sizeof(line));
	assert_non_null(strstr(line, "origin 99999"));
	assert_non_null(strstr(line, "not in the manifest's history"));
	/* Issue 36, U4: a pass the history does not name may be a later one. */
	assert_null(strstr(line, "earlier run"));
	assert_non_null(strstr(line, "if that pass came before this fill, this fill's write was "
				     "lost; if after, it wrote here since"));

	/* The far end of the radius, on both sides; one past it is unknown. */
	pass_sector(buf, PASS_ORIGIN + GUAC_DIAG_DEFAULT_ORIGIN_RADIUS - 1, 14);
	assert_int_equal(run_one(&cfg, 14, buf, NULL).cls, GUAC_DIAG_STALE_ORIGIN);
	pass_sector(buf, PASS_ORIGIN - GUAC_DIAG_DEFAULT_ORIGIN_RADIUS + 3, 14);
	assert_int_equal(run_one(&cfg, 14, buf, NULL).found_origin,
			 PASS_ORIGIN - GUAC_DIAG_DEFAULT_ORIGIN_RADIUS + 3);
	pass_sector(buf, PASS_ORIGIN + GUAC_DIAG_DEFAULT_ORIGIN_RADIUS + 1, 14);
	r = run_one(&cfg, 14, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
	assert_true(search.origin_exhaustive);

	/* Without the search (radius 0), what it found is unknown, as before it existed. */
	cfg.origin_radius = 0;
	pass_sector(buf, PASS_ORIGIN - 1, 14);
	assert_int_equal(run_one(&cfg, 14, buf, NULL).cls, GUAC_DIAG_UNKNOWN);
}

/* Origin OLD_ORIGIN + 2, written with the history pass's mapping: found near it. */
static void test_near_history_origin(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg, true);
	guac_stream_fill(impl, buf, OLD_ORIGIN + 2, 30 * SECTOR, SECTOR);
	r = run_one(&cfg, 30, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.found_origin, OLD_ORIGIN + 2);
	assert_int_equal(r.origin_source, GUAC_DIAG_ORIGIN_NEAR);
	assert_int_equal(r.near_origin, OLD_ORIGIN);
	assert_int_equal(r.found_stream_offset, 30 * SECTOR);
	/* The history's own origin is still the local check's (HISTORY). */
	guac_stream_fill(impl, buf, OLD_ORIGIN, 30 * SECTOR, SECTOR);
	r = run_one(&cfg, 30, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.origin_source, GUAC_DIAG_ORIGIN_HISTORY);
}

/* Far origins: only a range the user names finds them; a single one is a history pass. */
static void test_named(void **state)
{
	static const struct guac_diag_origin_range range = { 20261101, 20261130 };
	struct guac_diag_pass named = test_pass;
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg, false);
	pass_sector(buf, 20261117, 9);
	assert_int_equal(run_one(&cfg, 9, buf, NULL).cls, GUAC_DIAG_UNKNOWN);
	cfg.origin_ranges = &range;
	cfg.norigin_ranges = 1;
	r = run_one(&cfg, 9, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.found_origin, 20261117);
	assert_int_equal(r.origin_source, GUAC_DIAG_ORIGIN_NAMED);
	assert_int_equal(search.origin_windows, 2);	/* near the pass's, then the range */

	/* Named alone: checked locally like a history pass, reported as named. */
	cfg.norigin_ranges = 0;
	named.origin = 20261117;
	cfg.history = &named;
	cfg.nhistory = 1;
	cfg.nhistory_named = 1;
	r = run_one(&cfg, 9, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.origin_source, GUAC_DIAG_ORIGIN_NAMED);
	assert_int_equal(search.origin_sectors, 0);	/* no search needed */
}

/*
 * Origin PASS_ORIGIN + 64 k (k whole 4 KiB sectors) under the pass's mapping is
 * LBA + k's data: MISDIRECTED, also with the sweep off (max_bytes 0) and k
 * beyond the probes' reach.
 */
static void test_whole_sectors_are_misdirected(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg, false);
	cfg.max_bytes = 0;
	pass_sector(buf, PASS_ORIGIN, 14 + 1000);
	r = run_one(&cfg, 14, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r.found_device_offset, (14 + 1000) * SECTOR);
	/* Past the pass's end it is no sector of the pass: another origin's data. */
	cfg.pass.length = 1u << 20;
	r = run_one(&cfg, 14, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.found_origin, PASS_ORIGIN + 1000 * (SECTOR / 64));
}

/* 300 stale sectors in a row cost about one window, not 300. */
static void test_run_of_sectors(void **state)
{
	enum { N = 300 };
	struct guac_diag_sector s[N];
	struct guac_diag_result r[N];
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	uint8_t *data = malloc((size_t)N * SECTOR);
	uint64_t window = 2 * GUAC_DIAG_DEFAULT_ORIGIN_RADIUS + 1;
	size_t i;

	(void)state;
	assert_non_null(data);
	test_config(&cfg, false);
	guac_stream_fill(impl, data, PASS_ORIGIN - 7, PASS_STREAM + 100 * SECTOR, (size_t)N * SECTOR);
	for (i = 0; i < N; i++)
		s[i] = (struct guac_diag_sector){ PASS_STREAM + (100 + i) * SECTOR, data + i * SECTOR };
	assert_int_equal(guac_diag_run(&cfg, s, N, r, &search), 0);
	for (i = 0; i < N; i++) {
		assert_int_equal(r[i].cls, GUAC_DIAG_STALE_ORIGIN);
		assert_int_equal(r[i].found_origin, PASS_ORIGIN - 7);
	}
	assert_int_equal(search.origin_found, N);
	assert_true(search.origin_blocks <= window + N * (SECTOR / 64));
	free(data);
}

/* Around origin 3 the window is [0, 3 + radius]: no wrap to 2^64 - radius. */
static void test_no_wrap(void **state)
{
	struct guac_diag_pass low = test_pass;
	struct guac_diag_config cfg;
	uint8_t buf[SECTOR];

	(void)state;
	low.origin = 3;
	guac_diag_config_init(&cfg, impl, SECTOR, &low);
	guac_stream_fill(impl, buf, (uint64_t)-5, PASS_STREAM + 9 * SECTOR, SECTOR);
	{
		struct guac_diag_sector s = { PASS_STREAM + 9 * SECTOR, buf };
		struct guac_diag_result r;

		assert_int_equal(guac_diag_run(&cfg, &s, 1, &r, NULL), 0);
		assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
		guac_stream_fill(impl, buf, 0, PASS_STREAM + 9 * SECTOR, SECTOR);
		assert_int_equal(guac_diag_run(&cfg, &s, 1, &r, NULL), 0);
		assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
		assert_int_equal(r.found_origin, 0);
	}
}

/* ---- --bench ---- */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * @n random (UNKNOWN) 4 KiB sectors 1 GiB apart, so no two windows overlap:
 * the worst case, every sector searched across the whole window alone.
 */
static int bench_main(size_t n)
{
	struct guac_diag_pass pass = { .origin = 1000000, .length = (uint64_t)n << 30 };
	struct guac_diag_sector *s = calloc(n, sizeof(*s));
	struct guac_diag_result *r = calloc(n, sizeof(*r));
	uint8_t *data = malloc(n * SECTOR);
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	char model[256] = "unknown", line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	double cpu;
	size_t i;
	int k;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
	if (!s || !r || !data)
		return 1;
	srand(1);
	for (i = 0; i < n * SECTOR; i++)
		data[i] = (uint8_t)rand();
	for (i = 0; i < n; i++)
		s[i] = (struct guac_diag_sector){ ((uint64_t)i << 30), data + i * SECTOR };
	printf("CPU: %s; %zu random 4 KiB sectors 1 GiB apart, radius %u, no history\n\n",
	       model, n, GUAC_DIAG_DEFAULT_ORIGIN_RADIUS);
	printf("| generator | origin search CPU s | blocks | M blocks per CPU-second | "
	       "ms per sector and window |\n|---|---|---|---|---|\n");
	for (k = GUAC_IMPL_COUNT - 1; k >= 0; k--) {
		if (!guac_impl_usable((enum guac_impl)k, guac_cpu_features()) ||
		    k == GUAC_IMPL_GENERIC)
			continue;
		guac_diag_config_init(&cfg, (enum guac_impl)k, SECTOR, &pass);
		cfg.max_bytes = 0;	/* probes only: the sweep is test_diag --bench's */
		cfg.max_seconds = 600;
		cpu = cpu_now();
		if (guac_diag_run(&cfg, s, n, r, &search) || !search.origin_exhaustive)
			return 1;
		cpu = cpu_now() - cpu;
		printf("| %s | %.3f | %llu | %.0f | %.3f |\n", guac_impl_names[k], cpu,
		       (unsigned long long)search.origin_blocks, search.origin_blocks / cpu / 1e6,
		       cpu * 1e3 / (double)search.origin_sectors / (double)search.origin_windows);
	}
	free(s);
	free(r);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near_pass_origin),
		cmocka_unit_test(test_near_history_origin),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_whole_sectors_are_misdirected),
		cmocka_unit_test(test_run_of_sectors),
		cmocka_unit_test(test_no_wrap),
	};

	impl = guac_impl_best();
	if (argc >= 2 && !strcmp(argv[1], "--bench"))
		return bench_main(argc >= 3 ? (size_t)atol(argv[2]) : 1000);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
