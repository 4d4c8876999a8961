// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bad-sector diagnosis library (tools/userspace/storage/diag.h): every
 * class from a known corruption of an in-memory "device" that a pass wrote,
 * the sweep's generator against the core, the search bound and its report.
 *
 * `test_diag --bench [GIB]` measures the misdirection sweep instead (range
 * bytes searched per second on one thread, and the stream generation that
 * is) and prints a table for docs/results/; it asserts nothing about speed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "diag.h"
#include "libguac.h"
#include "util.h"

#define SECTOR 4096u
#define PASS_ORIGIN 1000u		/* the pass being verified */
#define OLD_ORIGIN 77u			/* an earlier pass over the same place */
#define PASS_STREAM (1u << 20)		/* stream offset of device byte 0 */
#define DEV_SIZE (8u << 20)		/* the pass covers the whole device */
#define DEV_SECTORS (DEV_SIZE / SECTOR)

static enum guac_impl impl;

/* The pass: device byte d holds stream byte PASS_STREAM + d from PASS_ORIGIN. */
static const struct guac_diag_pass test_pass = {
	.origin = PASS_ORIGIN, .stream_offset = PASS_STREAM, .device_offset = 0,
	.length = DEV_SIZE,
};

/* The earlier pass wrote stream offset = device offset. */
static const struct guac_diag_pass test_history[] = {
	{ .origin = 5 },
	{ .origin = OLD_ORIGIN },
};

/* What the pass wrote at device sector @lba. */
static void test_pass_sector(uint8_t *buf, uint64_t lba)
{
	guac_stream_fill(impl, buf, PASS_ORIGIN, PASS_STREAM + lba * SECTOR, SECTOR);
}

static void test_config(struct guac_diag_config *cfg)
{
	guac_diag_config_init(cfg, impl, SECTOR, &test_pass);
	cfg->history = test_history;
	cfg->nhistory = 2;
}

/* Diagnose one sector at @lba holding @data; returns its result. */
static struct guac_diag_result test_one(const struct guac_diag_config *cfg, uint64_t lba,
					const uint8_t *data, struct guac_diag_search *search)
{
	struct guac_diag_sector s = { .stream_offset = PASS_STREAM + lba * SECTOR, .data = data };
	struct guac_diag_result r;
	char line[512];

	assert_int_equal(guac_diag_run(cfg, &s, 1, &r, search), 0);
	/* Every description starts with its class name. */
	guac_diag_describe(&r, SECTOR, line, sizeof(line));
	assert_int_equal(strncmp(line, guac_diag_class_name(r.cls),
				 strlen(guac_diag_class_name(r.cls))), 0);
	assert_int_equal(r.device_offset, lba * SECTOR);
	return r;
}

/* The sweep's strided keys (the core's heads) are the first 8 bytes of its blocks, for every impl. */
static void test_block_keys(void **state)
{
	static const uint64_t firsts[] = { 0, 12345, 0xfffffff0ULL, 0xffffffffffffffe0ULL };
	static const uint64_t strides[] = { 1, 8, 64, 0x100000001ULL };
	uint64_t keys[37];
	uint8_t block[GUAC_BLOCK_SIZE];
	int i, f, s, b;
	size_t j;

	(void)state;
	for (i = 0; i < GUAC_IMPL_COUNT; i++) {
		if (!guac_impl_usable((enum guac_impl)i, guac_cpu_features()))
			continue;
		for (f = 0; f < 4; f++) {
			for (s = 0; s < 4; s++) {
				guac_heads((enum guac_impl)i, keys, firsts[f], strides[s], 37);
				for (j = 0; j < 37; j++) {
					uint64_t want = 0;

					guac_blocks_generic(block, firsts[f] + j * strides[s], 1);
					for (b = 0; b < 8; b++)
						want |= (uint64_t)block[b] << (8 * b);
					assert_int_equal(keys[j], want);
				}
			}
		}
	}
}

static void test_ok(void **state)
{
	struct guac_diag_config cfg;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 9);
	assert_int_equal(test_one(&cfg, 9, buf, NULL).cls, GUAC_DIAG_OK);
}

static void test_all_zero(void **state)
{
	struct guac_diag_config cfg;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	memset(buf, 0, SECTOR);
	assert_int_equal(test_one(&cfg, 10, buf, NULL).cls, GUAC_DIAG_ALL_ZERO);
}

static void test_all_ones(void **state)
{
	struct guac_diag_config cfg;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	memset(buf, 0xff, SECTOR);
	assert_int_equal(test_one(&cfg, 11, buf, NULL).cls, GUAC_DIAG_ALL_ONES);
}

/* First 512 bytes right, the rest zeros: a write torn after one 512-byte unit. */
static void test_torn_zeros(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 12);
	memset(buf + 512, 0, SECTOR - 512);
	r = test_one(&cfg, 12, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_TORN);
	assert_int_equal(r.head_ok, 512);
	assert_int_equal(r.tail_ok, 0);
	assert_int_equal(r.rest, GUAC_DIAG_REST_ZEROS);
}

/* The last 1 KiB right, the start still the earlier pass's data. */
static void test_torn_stale(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 13);
	guac_stream_fill(impl, buf, OLD_ORIGIN, 13 * SECTOR, SECTOR - 1024);
	r = test_one(&cfg, 13, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_TORN);
	assert_int_equal(r.head_ok, 0);
	assert_int_equal(r.tail_ok, 1024);
	assert_int_equal(r.rest, GUAC_DIAG_REST_STALE);
	assert_int_equal(r.found_origin, OLD_ORIGIN);
}

static void test_stale_origin(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	guac_stream_fill(impl, buf, OLD_ORIGIN, 14 * SECTOR, SECTOR);
	r = test_one(&cfg, 14, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_STALE_ORIGIN);
	assert_int_equal(r.found_origin, OLD_ORIGIN);
	assert_int_equal(r.found_stream_offset, 14 * SECTOR);

	/* Without the history, the same sector is unknown. */
	cfg.nhistory = 0;
	assert_int_equal(test_one(&cfg, 14, buf, NULL).cls, GUAC_DIAG_UNKNOWN);
}

/* A copy of a nearby sector: found by the probes around the bad sector. */
static void test_misdirected_near(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 103);
	r = test_one(&cfg, 100, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r.found_device_offset, 103 * SECTOR);
	assert_int_equal(r.found_stream_offset, PASS_STREAM + 103 * SECTOR);
	assert_int_equal(r.distance, 3 * SECTOR);

	/* Found before any sweep: neighbours and power-of-two distances are probed first. */
	cfg.max_bytes = 0;
	r = test_one(&cfg, 100, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(search.swept_bytes, 0);
	test_pass_sector(buf, 100 + 64);	/* one flipped LBA bit */
	r = test_one(&cfg, 100, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r.distance, 64 * SECTOR);
	assert_int_equal(search.swept_bytes, 0);
}

/* A copy from far away and at no power-of-two distance: only the sweep finds it. */
static void test_misdirected_far(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 1500);
	r = test_one(&cfg, 5, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r.found_device_offset, 1500 * SECTOR);
	assert_int_equal(r.distance, 1495 * (int64_t)SECTOR);
	assert_int_equal(search.sectors_searched, 1);
	assert_true(search.exhaustive);
	assert_true(search.candidates >= 1);

	/* A bound that stops the sweep before sector 1500: not found, and said so. */
	cfg.max_bytes = 1000 * SECTOR;
	r = test_one(&cfg, 5, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
	assert_false(r.search_complete);
	assert_false(search.exhaustive);
	assert_false(search.stopped_by_time);
	assert_int_equal(search.swept_bytes, 1000 * SECTOR);
	assert_int_equal(search.range_bytes, DEV_SIZE);
}

/* The pass written by four jobs, 2 MiB each. */
static const struct guac_diag_part four_writers[] = {
	{ 0, 2u << 20 }, { 2u << 20, 2u << 20 }, { 4u << 20, 2u << 20 }, { 6u << 20, 2u << 20 },
};

/* Data of device offset X + 2^22 read at X (12 KiB): a wrap at a 4 MiB capacity. */
static void test_wrapped(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 3 + (4u << 20) / SECTOR);
	r = test_one(&cfg, 3, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_WRAPPED);
	assert_int_equal(r.distance, 4 << 20);
	assert_int_equal(r.capacity, 4 << 20);
	assert_int_equal(r.found_device_offset, 3 * SECTOR + (4u << 20));

	/*
	 * And the data of X read at X + 2^21 (the other direction): with one
	 * writer in address order, X + 2^21 was written after X, so no wrap
	 * lets X's data be the last at that place (a wrap would need a
	 * capacity of the whole rest of the pass, which does not divide the
	 * distance): a misdirection (issue 36, U3: a copy at a multiple of
	 * 1 MiB was WRAPPED "at 8 MiB" on a 512 MiB disk).
	 */
	test_pass_sector(buf, 7);
	r = test_one(&cfg, 7 + (2u << 20) / SECTOR, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r.distance, -(2 << 20));

	/*
	 * Four writers of 2 MiB each (guac write --jobs 4), X in the first: a
	 * later writer's alias may have come first, and a 2 MiB capacity
	 * explains it.
	 */
	cfg.parts = four_writers;
	cfg.nparts = 4;
	r = test_one(&cfg, 7 + (2u << 20) / SECTOR, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_WRAPPED);
	assert_int_equal(r.distance, -(2 << 20));
	assert_int_equal(r.capacity, 2 << 20);
	assert_int_equal(r.capacity_max, 2 << 20);

	/* Below the wrap threshold, the same copy is a misdirection. */
	cfg.wrap_min = 8 << 20;
	assert_int_equal(test_one(&cfg, 7 + (2u << 20) / SECTOR, buf, NULL).cls,
			 GUAC_DIAG_MISDIRECTED);
}

/*
 * A whole fake-capacity image: 1 MiB of real storage claiming 8 MiB, written
 * in order, so every device offset reads the last write that aliased it.
 * Every sector before the last MiB is WRAPPED with a 1 MiB capacity, in one
 * batch (one sweep).
 */
static void test_fake_capacity_image(void **state)
{
	const uint64_t real = 1 << 20, nbad = DEV_SECTORS - real / SECTOR;
	struct guac_diag_sector *s = calloc(nbad, sizeof(*s));
	struct guac_diag_result *r = calloc(nbad, sizeof(*r));
	uint8_t *phys = malloc(real);
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	uint64_t i;

	(void)state;
	assert_non_null(s);
	assert_non_null(r);
	assert_non_null(phys);
	test_config(&cfg);
	cfg.jobs = 2;
	/* The last write to each physical place came from the last real-sized slice. */
	guac_stream_fill(impl, phys, PASS_ORIGIN, PASS_STREAM + DEV_SIZE - real, real);
	for (i = 0; i < nbad; i++) {
		s[i].stream_offset = PASS_STREAM + i * SECTOR;
		s[i].data = phys + (i * SECTOR) % real;
	}
	assert_int_equal(guac_diag_run(&cfg, s, nbad, r, &search), 0);
	for (i = 0; i < nbad; i++) {
		assert_int_equal(r[i].cls, GUAC_DIAG_WRAPPED);
		assert_int_equal(r[i].capacity, real);
		assert_int_equal(r[i].found_device_offset, DEV_SIZE - real + (i * SECTOR) % real);
	}
	assert_true(search.exhaustive);
	free(phys);
	free(r);
	free(s);
}

static void test_unknown_random(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];
	FILE *f = fopen("/dev/urandom", "rb");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, SECTOR, f), SECTOR);
	fclose(f);
	test_config(&cfg);
	r = test_one(&cfg, 20, buf, &search);
	assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
	assert_true(r.entropy > 7.5);
	assert_false(r.constant);
	assert_true(r.search_complete);
	assert_true(search.exhaustive);
	assert_int_equal(search.swept_bytes, DEV_SIZE);

	memset(buf, 0x5a, SECTOR);
	r = test_one(&cfg, 20, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
	assert_true(r.constant);
	assert_int_equal(r.constant_byte, 0x5a);
}

/* A handful of flipped bits: scattered damage, not a torn write. */
static void test_partial_match(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];
	int i;

	(void)state;
	test_config(&cfg);
	test_pass_sector(buf, 21);
	for (i = 0; i < 10; i++)
		buf[300 + 371 * i] ^= 0x10;
	r = test_one(&cfg, 21, buf, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_PARTIAL_MATCH);
	assert_int_equal(r.matching_bytes, SECTOR - 10);
	assert_int_equal(r.bit_flips, 10);
}

/*
 * guac_diag_local(), as guac verify calls it for every bad sector with the
 * expected bytes at hand: the same verdict as guac_diag_run() for each local
 * class, false (OTHER, left to the search) for the rest, and exact byte and
 * bit counts (computed 8 bytes at a time) whatever the damage.
 */
static void test_local(void **state)
{
	enum { ZERO, ONES, TORN, STALE, PARTIAL, FLIPS, OTHER_RANDOM, OTHER_COPY, STALE_HEAD,
	       NCASES };
	static const int expect[NCASES] = {
		[ZERO] = GUAC_DIAG_ALL_ZERO, [ONES] = GUAC_DIAG_ALL_ONES, [TORN] = GUAC_DIAG_TORN,
		[STALE] = GUAC_DIAG_STALE_ORIGIN, [PARTIAL] = GUAC_DIAG_PARTIAL_MATCH,
		[FLIPS] = GUAC_DIAG_PARTIAL_MATCH, [OTHER_RANDOM] = -1, [OTHER_COPY] = -1,
		[STALE_HEAD] = -1,
	};
	struct guac_diag_config cfg;
	struct guac_diag_result local, full;
	uint8_t want[SECTOR], buf[SECTOR], scratch[SECTOR];
	uint32_t same, flips;
	uint64_t lba = 30;
	unsigned int i;
	int c;

	(void)state;
	test_config(&cfg);
	test_pass_sector(want, lba);
	for (c = 0; c < NCASES; c++) {
		memcpy(buf, want, SECTOR);
		switch (c) {
		case ZERO:
			memset(buf, 0, SECTOR);
			break;
		case ONES:
			memset(buf, 0xff, SECTOR);
			break;
		case TORN:
			memset(buf + 100, 0, SECTOR - 300);
			break;
		case STALE:
			guac_stream_fill(impl, buf, OLD_ORIGIN, lba * SECTOR, SECTOR);
			break;
		case PARTIAL:
			for (i = 0; i < 7; i++)
				buf[5 + 577 * i] ^= 0x81;
			break;
		case FLIPS:
			/* Bits flipped in every byte position of the words, a byte left whole. */
			for (i = 0; i < SECTOR / 3; i++)
				buf[3 * i + 1] ^= (uint8_t)(1u << (i % 8)) | (i % 5 ? 0 : 0x80);
			break;
		case OTHER_RANDOM:
			for (i = 0; i < SECTOR; i++)
				buf[i] = (uint8_t)(i * 131 + 7 + (i >> 3));
			break;
		case OTHER_COPY:
			test_pass_sector(buf, lba + 1000);
			break;
		case STALE_HEAD:
			/* The earlier pass's first 64 bytes only: the quick check passes, the full one not. */
			guac_stream_fill(impl, buf, OLD_ORIGIN, lba * SECTOR, 64);
			memset(buf + 64, 0x5a, SECTOR - 64);
			buf[SECTOR - 1] = 0;
			break;
		}
		same = 0;
		flips = 0;
		for (i = 0; i < SECTOR; i++) {
			same += buf[i] == want[i];
			flips += (uint32_t)__builtin_popcount(buf[i] ^ want[i]);
		}
		assert_int_equal(guac_diag_local(&cfg, PASS_STREAM + lba * SECTOR, buf, want, scratch,
						 &local), expect[c] >= 0);
		assert_int_equal(local.device_offset, lba * SECTOR);
		assert_int_equal(local.matching_bytes, same);
		assert_int_equal(local.bit_flips, flips);
		if (expect[c] < 0) {
			assert_int_equal(local.cls, GUAC_DIAG_UNKNOWN);
			continue;
		}
		assert_int_equal(local.cls, expect[c]);
		full = test_one(&cfg, lba, buf, NULL);
		assert_int_equal(full.cls, local.cls);
		assert_int_equal(full.head_ok, local.head_ok);
		assert_int_equal(full.tail_ok, local.tail_ok);
		assert_int_equal(full.rest, local.rest);
		assert_int_equal(full.found_origin, local.found_origin);
	}
}

/* The time bound on a range far too big to sweep: stopped, and reported as such. */
static void test_time_bound(void **state)
{
	struct guac_diag_pass huge = { .origin = 3, .stream_offset = 0, .device_offset = 0,
				       .length = 1ULL << 50 };
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_sector s;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	memset(buf, 0x33, SECTOR);
	buf[0] = 1;
	guac_diag_config_init(&cfg, impl, SECTOR, &huge);
	cfg.max_seconds = 0.05;
	s.stream_offset = 1ULL << 40;
	s.data = buf;
	assert_int_equal(guac_diag_run(&cfg, &s, 1, &r, &search), 0);
	assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
	assert_false(r.search_complete);
	assert_false(search.exhaustive);
	assert_true(search.stopped_by_time);
	assert_true(search.swept_bytes > 0 && search.swept_bytes < search.range_bytes);
	assert_true(search.seconds < 10);
}

/* Ctrl-C: a stop flag raised while the sweep runs ends it at once, reported as such. */
static atomic_bool test_stop_flag;

static void *test_raise_stop(void *arg)
{
	(void)arg;
	usleep(100000);
	atomic_store(&test_stop_flag, true);
	return NULL;
}

static void test_stop_flag_ends_search(void **state)
{
	struct guac_diag_pass huge = { .origin = 3, .stream_offset = 0, .device_offset = 0,
				       .length = 1ULL << 50 };
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_sector s;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];
	pthread_t t;

	(void)state;
	memset(buf, 0x35, SECTOR);
	buf[0] = 1;
	guac_diag_config_init(&cfg, impl, SECTOR, &huge);
	cfg.max_seconds = 60;	/* without the flag, a minute */
	atomic_init(&test_stop_flag, false);
	cfg.stop = &test_stop_flag;
	s.stream_offset = 1ULL << 40;
	s.data = buf;
	assert_int_equal(pthread_create(&t, NULL, test_raise_stop, NULL), 0);
	assert_int_equal(guac_diag_run(&cfg, &s, 1, &r, &search), 0);
	pthread_join(t, NULL);
	assert_int_equal(r.cls, GUAC_DIAG_UNKNOWN);
	assert_false(r.search_complete);
	assert_false(search.exhaustive);
	assert_false(search.stopped_by_time);
	assert_true(search.interrupted);
	assert_true(search.seconds < 5);
}

/* Everything at once, in one batch, also with 512-byte sectors. */
static void test_batch(void **state)
{
	enum { N = 5 };
	uint8_t data[N][SECTOR];
	struct guac_diag_sector s[N];
	struct guac_diag_result r[N];
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	static const uint64_t lbas[N] = { 40, 41, 42, 43, 44 };
	static const enum guac_diag_class want[N] = {
		GUAC_DIAG_ALL_ZERO, GUAC_DIAG_MISDIRECTED, GUAC_DIAG_STALE_ORIGIN,
		GUAC_DIAG_MISDIRECTED, GUAC_DIAG_UNKNOWN,
	};
	int i;

	(void)state;
	test_config(&cfg);
	memset(data[0], 0, SECTOR);
	test_pass_sector(data[1], 1777);
	guac_stream_fill(impl, data[2], OLD_ORIGIN, 42 * SECTOR, SECTOR);
	test_pass_sector(data[3], 900);
	memset(data[4], 'x', SECTOR);
	for (i = 0; i < N; i++) {
		s[i].stream_offset = PASS_STREAM + lbas[i] * SECTOR;
		s[i].data = data[i];
	}
	assert_int_equal(guac_diag_run(&cfg, s, N, r, &search), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(r[i].cls, want[i]);
	assert_int_equal(r[1].found_device_offset, 1777 * SECTOR);
	assert_int_equal(r[3].found_device_offset, 900 * SECTOR);
	assert_int_equal(search.sectors_searched, 3);

	/* 512-byte sectors (8 candidates per 4 KiB): sector 41 holds the data of sector 3000. */
	cfg.sector = 512;
	guac_stream_fill(impl, data[0], PASS_ORIGIN, PASS_STREAM + 3000 * 512, 512);
	s[0].stream_offset = PASS_STREAM + 41 * 512;
	s[0].data = data[0];
	assert_int_equal(guac_diag_run(&cfg, s, 1, r, &search), 0);
	assert_int_equal(r[0].cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r[0].found_device_offset, 3000 * 512);
}

/*
 * Bad sectors sharing their bytes: 200 copies of one foreign pattern and two
 * copies of LBA 1999's data. Each copy of LBA 1999 is found (sectors with one
 * key are chained in the table, not stored twice).
 */
static void test_duplicate_keys(void **state)
{
	enum { N = 202 };
	static uint8_t pattern[SECTOR], copy[SECTOR];
	struct guac_diag_sector s[N];
	struct guac_diag_result r[N];
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	int i;

	(void)state;
	test_config(&cfg);
	for (i = 0; i < (int)SECTOR; i++)
		pattern[i] = (uint8_t)(i * 7);
	test_pass_sector(copy, 1999);
	for (i = 0; i < N; i++) {
		s[i].stream_offset = PASS_STREAM + (uint64_t)(200 + 7 * i) * SECTOR;
		s[i].data = i == 50 || i == 150 ? copy : pattern;
	}
	assert_int_equal(guac_diag_run(&cfg, s, N, r, &search), 0);
	for (i = 0; i < N; i++) {
		if (i == 50 || i == 150) {
			assert_int_equal(r[i].cls, GUAC_DIAG_MISDIRECTED);
			assert_int_equal(r[i].found_device_offset, 1999 * SECTOR);
		} else {
			assert_int_equal(r[i].cls, GUAC_DIAG_UNKNOWN);
			assert_true(r[i].search_complete);
		}
	}
	assert_int_equal(search.sectors_searched, N);
	assert_true(search.exhaustive);
}

/* A pass whose stream offset is not block-aligned: keys start mid-sector. */
static void test_unaligned_stream(void **state)
{
	struct guac_diag_pass pass = { .origin = 9, .stream_offset = 1000037, .device_offset = 0,
				       .length = 4 << 20 };
	struct guac_diag_config cfg;
	struct guac_diag_sector s;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];

	(void)state;
	guac_diag_config_init(&cfg, impl, SECTOR, &pass);
	guac_stream_fill(impl, buf, 9, pass.stream_offset + 777 * SECTOR, SECTOR);
	s.stream_offset = pass.stream_offset + 2 * SECTOR;
	s.data = buf;
	assert_int_equal(guac_diag_run(&cfg, &s, 1, &r, NULL), 0);
	assert_int_equal(r.cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(r.found_device_offset, 777 * SECTOR);
}

/* The collecting batch: copies, sorts by offset, caps and counts the rest. */
static void test_batch_collect(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_batch *b;
	struct guac_diag_search search;
	uint8_t buf[SECTOR];

	(void)state;
	test_config(&cfg);
	b = guac_diag_batch_new(&cfg, 2);
	assert_non_null(b);
	test_pass_sector(buf, 2000);
	assert_true(guac_diag_batch_add(b, PASS_STREAM + 60 * SECTOR, buf));
	memset(buf, 0, SECTOR);	/* the batch kept its own copy of the first */
	assert_true(guac_diag_batch_add(b, PASS_STREAM + 30 * SECTOR, buf));
	assert_false(guac_diag_batch_add(b, PASS_STREAM + 31 * SECTOR, buf));
	assert_int_equal(guac_diag_batch_count(b), 2);
	assert_int_equal(guac_diag_batch_dropped(b), 1);
	assert_int_equal(guac_diag_batch_run(b, &search), 0);
	assert_int_equal(guac_diag_batch_result(b, 0)->cls, GUAC_DIAG_ALL_ZERO);
	assert_int_equal(guac_diag_batch_result(b, 0)->device_offset, 30 * SECTOR);
	assert_int_equal(guac_diag_batch_result(b, 1)->cls, GUAC_DIAG_MISDIRECTED);
	assert_int_equal(guac_diag_batch_result(b, 1)->found_device_offset, 2000 * SECTOR);
	assert_null(guac_diag_batch_result(b, 2));
	guac_diag_batch_free(b);
}

static void test_bad_config(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_sector s = { 0 };
	struct guac_diag_result r;

	(void)state;
	test_config(&cfg);
	cfg.sector = 100;
	assert_int_equal(guac_diag_run(&cfg, &s, 1, &r, NULL), -EINVAL);
}

static void test_json(void **state)
{
	struct guac_diag_config cfg;
	struct guac_diag_result r;
	uint8_t buf[SECTOR];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	test_config(&cfg);
	test_pass_sector(buf, 50);
	memset(buf + 1024, 0xff, SECTOR - 1024);
	r = test_one(&cfg, 50, buf, NULL);
	guac_diag_json(f, &r, SECTOR);
	fclose(f);
	assert_string_equal(text, "{\"class\":\"TORN\",\"stream_offset\":1253376,"
			    "\"device_offset\":204800,\"lba\":50,\"head_ok\":1024,"
			    "\"tail_ok\":0,\"rest\":\"ones\"}");
	free(text);
}

/* ---- --bench ---- */

#include <time.h>

/* CPU seconds of the whole process: the cost, whatever else loads the machine. */
static double bench_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Range bytes swept per CPU-second, for one bad sector that is nowhere in the range. */
static double bench_sweep(enum guac_impl bimpl, unsigned int sector, uint64_t range,
			  unsigned int jobs, double *wall_rate)
{
	struct guac_diag_pass pass = { .origin = 1, .length = range };
	struct guac_diag_config cfg;
	struct guac_diag_search search;
	struct guac_diag_sector s;
	struct guac_diag_result r;
	uint8_t *buf = calloc(1, sector);
	double cpu;

	buf[0] = 1;	/* not zeros, not the stream: the sweep must run to the end */
	buf[100] = 2;
	guac_diag_config_init(&cfg, bimpl, sector, &pass);
	cfg.max_seconds = 600;
	cfg.jobs = jobs;
	s.stream_offset = 0;
	s.data = buf;
	cpu = bench_cpu_now();
	if (guac_diag_run(&cfg, &s, 1, &r, &search) || !search.exhaustive)
		exit(1);
	cpu = bench_cpu_now() - cpu;
	free(buf);
	*wall_rate = search.swept_bytes / search.seconds;
	return search.swept_bytes / cpu;
}

/* The naive way, for the ratio: one guac_stream_fill() of the first block per sector. */
static double bench_fill_per_sector(unsigned int sector, uint64_t range)
{
	uint8_t block[GUAC_BLOCK_SIZE];
	uint64_t off, sink = 0;
	double t0 = bench_cpu_now(), secs;

	for (off = 0; off < range; off += sector) {
		guac_stream_fill(guac_impl_best(), block, 1, off, GUAC_BLOCK_SIZE);
		sink += block[3];
	}
	secs = bench_cpu_now() - t0;
	if (sink == 1)
		puts("");
	return range / secs;
}

static void bench_row(unsigned int sector, const char *what, double cpu_rate, double wall_rate,
		      double naive)
{
	printf("| %u | %s | %.1f | %.1f | %.2f | %.1f | %.2fx |\n", sector, what, cpu_rate / 1e9,
	       wall_rate / 1e9, cpu_rate / sector * 64 / 1e9, cpu_rate / sector / 1e6,
	       cpu_rate / naive);
}

static int bench_main(double gib)
{
	static const unsigned int sectors[] = { 4096, 512 };
	uint64_t range = (uint64_t)(gib * (1ULL << 30));
	char model[512] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t k;
	int i;

	if (f) {
		char line[512];

		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "model name", 10)) {
				char *colon = strchr(line, ':');

				snprintf(model, sizeof(model), "%s", colon ? colon + 2 : line);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(f);
	}
	printf("CPU: %s; %u CPUs online; range per row: %.0f GiB (1/16 of it for the slow rows; "
	       "virtual: the sweep regenerates, it reads nothing)\n\n", model, guac_nr_cpus(), gib);
	printf("| sector | generator | range searched, GB per CPU-second | GB/s wall | "
	       "stream generated, GB per CPU-second | sectors per CPU-second (M) | "
	       "vs guac_fill per sector |\n|---|---|---|---|---|---|---|\n");
	for (k = 0; k < 2; k++) {
		double naive = bench_fill_per_sector(sectors[k], range / 16), wall;
		char what[64];

		for (i = GUAC_IMPL_COUNT - 1; i >= 0; i--) {
			double rate;

			if (!guac_impl_usable((enum guac_impl)i, guac_cpu_features()))
				continue;
			rate = bench_sweep((enum guac_impl)i, sectors[k],
					   range / (i == GUAC_IMPL_GENERIC ? 16 : 1), 1, &wall);
			snprintf(what, sizeof(what), "diag sweep, %s, 1 thread", guac_impl_names[i]);
			bench_row(sectors[k], what, rate, wall, naive);
		}
		if (guac_nr_cpus() > 1) {
			double rate = bench_sweep(guac_impl_best(), sectors[k], 2 * range,
						  guac_nr_cpus(), &wall);

			snprintf(what, sizeof(what), "diag sweep, %s, %u threads",
				 guac_impl_names[guac_impl_best()], guac_nr_cpus());
			bench_row(sectors[k], what, rate, wall, naive);
		}
		snprintf(what, sizeof(what), "guac_stream_fill() of 1 block per sector, %s",
			 guac_impl_names[guac_impl_best()]);
		bench_row(sectors[k], what, naive, naive, naive);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_keys),
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_all_zero),
		cmocka_unit_test(test_all_ones),
		cmocka_unit_test(test_torn_zeros),
		cmocka_unit_test(test_torn_stale),
		cmocka_unit_test(test_stale_origin),
		cmocka_unit_test(test_misdirected_near),
		cmocka_unit_test(test_misdirected_far),
		cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_fake_capacity_image),
		cmocka_unit_test(test_unknown_random),
		cmocka_unit_test(test_partial_match),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_time_bound),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_unaligned_stream),
		cmocka_unit_test(test_batch_collect),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_stop_flag_ends_search),
		cmocka_unit_test(test_json),
	};

	impl = guac_impl_best();
	if (argc >= 2 && !strcmp(argv[1], "--bench"))
		return bench_main(argc >= 3 ? atof(argv[2]) : 64);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
