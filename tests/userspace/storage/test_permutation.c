// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The random pattern's block order (storage/permutation.c): a bijection of
 * [0, n) for every n (exhaustively for small and awkward sizes, against the
 * inverse for large ones), guac_unpermute its inverse, an order that looks
 * shuffled (few fixed points and runs, spread displacements, seeds that
 * differ), and pinned values: a recorded random fill is checked against this
 * order, so a change to it must show here first.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "permutation.h"

/* Every index once, and unpermute undoes permute, over all of [0, n). */
static void check_bijection(uint64_t n, uint64_t seed)
{
	struct guac_permutation p;
	unsigned char *seen = calloc(n, 1);
	uint64_t i, b;

	assert_non_null(seen);
	guac_permutation_init(&p, n, seed);
	for (i = 0; i < n; i++) {
		b = guac_permute(&p, i);
		assert_true(b < n);
		assert_int_equal(seen[b], 0);
		seen[b] = 1;
		assert_int_equal(guac_unpermute(&p, b), i);
	}
	free(seen);
}

static void test_bijection_small(void **state)
{
	static const uint64_t sizes[] = { 1, 2, 3, 4, 5, 7, 15, 16, 17, 63, 64, 65, 255, 1000,
					  4095, 4096, 4097, 65537, 1000003 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		check_bijection(sizes[i], 0);
		check_bijection(sizes[i], 0x1234567890abcdefULL + i);
	}
}

/* Sizes of real disks in blocks, up to 2^64 - 1: the inverse holds at sampled steps. */
static void test_inverse_large(void **state)
{
	static const uint64_t sizes[] = { 2441406250ULL /* 10 TB in 4 KiB */, 1ULL << 34,
					  (1ULL << 40) + 3, (1ULL << 62) + 1, UINT64_MAX };
	struct guac_permutation p;
	uint64_t step, b;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		guac_permutation_init(&p, sizes[i], i);
		for (k = 0; k < 2000; k++) {
			step = k < 1000 ? (uint64_t)k : sizes[i] - 1 - (uint64_t)(k - 1000) * 7919;
			b = guac_permute(&p, step);
			assert_true(b < sizes[i]);
			assert_true(guac_unpermute(&p, b) == step);
		}
	}
}

/* Shuffled: few fixed points and ascending runs, displacement near n/3, seeds give other orders. */
static void test_looks_shuffled(void **state)
{
	const uint64_t n = 1 << 16;
	struct guac_permutation p, q;
	uint64_t i, fixed = 0, runs = 0, same = 0, a;
	double displacement = 0;

	(void)state;
	guac_permutation_init(&p, n, 42);
	guac_permutation_init(&q, n, 43);
	for (i = 0; i < n; i++) {
		a = guac_permute(&p, i);
		fixed += a == i;
		runs += i + 1 < n && guac_permute(&p, i + 1) == a + 1;
		same += guac_permute(&q, i) == a;
		displacement += a > i ? (double)(a - i) : (double)(i - a);
	}
	assert_true(fixed < 10);
	assert_true(runs < 10);
	assert_true(same < 10);
	displacement /= (double)n;
	assert_true(displacement > n / 3.0 * 0.95 && displacement < n / 3.0 * 1.05);
}

/* The order manifests rely on: these values must never change. */
static void test_pinned(void **state)
{
	static const struct { uint64_t n, seed, step, block; } pinned[] = {
		{ 1ULL, 0ULL, 0ULL, 0ULL },
		{ 10ULL, 1ULL, 3ULL, 0ULL },
		{ 1000ULL, 7ULL, 999ULL, 158ULL },
		{ 4097ULL, 3735928559ULL, 2048ULL, 2845ULL },
		{ 2441406250ULL, 99ULL, 123456789ULL, 610702119ULL },
		{ 18446744073709551615ULL, 5ULL, 18446744073709551614ULL, 5994962870526463783ULL },
	};
	struct guac_permutation p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		guac_permutation_init(&p, pinned[i].n, pinned[i].seed);
		assert_true(guac_permute(&p, pinned[i].step) == pinned[i].block);
	}
}

/* A random fill's pass seeds (fill.c): pinned like the order, and pass by pass apart. */
static void test_pass_seed(void **state)
{
	(void)state;
	assert_true(guac_permutation_pass_seed(0, 0) == 0x4e96155e5f0a1c3fULL);
	assert_true(guac_permutation_pass_seed(42, 0) == 0xda95f8cdc55f04e5ULL);
	assert_true(guac_permutation_pass_seed(42, 1) == 0xd5bd8388b15911aeULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bijection_small),
		cmocka_unit_test(test_inverse_large),
		cmocka_unit_test(test_looks_shuffled),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_pass_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
