// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shared core, natively: the published vectors through every
 * implementation, every implementation against the portable one on thousands
 * of random (offset, length) pairs, every subset of CPU features, and the
 * small helpers the tools rely on. The implementations are the target
 * architecture's (x86-64: sse2, avx2, avx512; arm64: neon, built and run
 * under qemu-aarch64 by make check-user-arm64). GUAC_TEST_REQUIRE="neon ..."
 * makes an implementation this CPU lacks a failure, not a skip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <guacrng/vectors.h>
#include "libguac.h"
#include "util.h"

#define TEST_PAIRS 4000
#define TEST_MAX_LEN (96 * 1024)

static uint64_t test_rng_state = 0x9e3779b97f4a7c15ULL;

/* splitmix64: reproducible pairs, seed printed on failure via the case name. */
static uint64_t test_rand(void)
{
	uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int detected;

static void for_each_usable_impl(void (*fn)(enum guac_impl impl))
{
	int impl;

	for (impl = 0; impl < GUAC_IMPL_COUNT; impl++) {
		if (guac_impl_usable(impl, detected))
			fn(impl);
		else
			print_message("[   INFO   ] %s not supported by this CPU: not tested\n",
				      guac_impl_names[impl]);
	}
}

/* Vectors inside a 37-block run, so every SIMD lane position and fallback is used. */
static void check_vectors(enum guac_impl impl)
{
	enum { LEAD = 13, BLOCKS = 37 };
	static u8 buf[BLOCKS * GUAC_BLOCK_SIZE];
	size_t i;
	unsigned int lead;

	for (i = 0; i < ARRAY_SIZE(guac_vectors); i++) {
		const struct guac_vector *v = &guac_vectors[i];

		for (lead = 0; lead < BLOCKS - 1; lead += 5) {
			memset(buf, 0xa5, sizeof(buf));
			guac_fill(impl, buf, v->block - lead, 0, sizeof(buf));
			assert_memory_equal(buf + lead * GUAC_BLOCK_SIZE, v->bytes, v->len);
			if (v->block == UINT64_MAX)
				assert_memory_equal(buf + (lead + 1) * GUAC_BLOCK_SIZE,
						    guac_vectors[0].bytes, GUAC_BLOCK_SIZE);
		}
		/* The vector alone, as a single short request. */
		memset(buf, 0, sizeof(buf));
		guac_fill(impl, buf, v->block, 0, v->len);
		assert_memory_equal(buf, v->bytes, v->len);
		/* From odd bytes inside it, to odd lengths short of its end. */
		for (lead = 1; lead + 2 < v->len; lead += 13) {
			memset(buf, 0, sizeof(buf));
			guac_fill(impl, buf, v->block + lead / GUAC_BLOCK_SIZE,
				  lead % GUAC_BLOCK_SIZE, v->len - lead - lead % 3);
			assert_memory_equal(buf, v->bytes + lead, v->len - lead - lead % 3);
		}
	}
}

static void test_vectors(void **state)
{
	(void)state;
	for_each_usable_impl(check_vectors);
}

static void check_against_generic(enum guac_impl impl)
{
	static u8 got[TEST_MAX_LEN + 64], want[TEST_MAX_LEN + 64];
	int i;

	for (i = 0; i < TEST_PAIRS; i++) {
		uint64_t r = test_rand();
		u64 block;
		unsigned int skip = r & 63;
		size_t len;

		/*
		 * A quarter of the starts sit within 40 blocks of the 2^64 wrap,
		 * a quarter within 40 of the 2^32 one (the low counter word's
		 * carry into the high word).
		 */
		switch ((r >> 8) % 4) {
		case 0:
			block = UINT64_MAX - (test_rand() % 40);
			break;
		case 1:
			block = test_rand() % 100000;
			break;
		case 2:
			block = 0xffffffffULL - (test_rand() % 40);
			break;
		default:
			block = test_rand();
			break;
		}
		/* Tiny, medium and large lengths, mostly not multiples of a step. */
		switch ((r >> 16) % 4) {
		case 0:
			len = test_rand() % 130;
			break;
		case 1:
			len = test_rand() % 4200;
			break;
		case 2:
			len = (test_rand() % 64) * GUAC_BLOCK_SIZE;
			break;
		default:
			len = test_rand() % TEST_MAX_LEN;
			break;
		}

		/* Guard bytes past the end catch overruns. */
		memset(got, 0x5a, len + 64);
		memset(want, 0x5a, len + 64);
		guac_fill(GUAC_IMPL_GENERIC, want, block, skip, len);
		guac_fill(impl, got, block, skip, len);
		if (memcmp(got, want, len + 64))
			fail_msg("%s differs from generic at block %#llx skip %u len %zu",
				 guac_impl_names[impl], (unsigned long long)block, skip, len);
	}
}

static void test_impls_match_generic(void **state)
{
	(void)state;
	for_each_usable_impl(check_against_generic);
}

/* Each implementation's step functions: of consecutive blocks, and of heads. */
static const struct {
	void (*steps)(u8 *out, u64 block, size_t nsteps);
	void (*head_steps)(u64 *heads, u64 block, u64 stride, size_t nsteps);
} impl_steps[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = { NULL, guac_heads_generic },
#if defined(__x86_64__)
	[GUAC_IMPL_SSE2] = { guac_steps_sse2, guac_head_steps_sse2 },
	[GUAC_IMPL_AVX2] = { guac_steps_avx2, guac_head_steps_avx2 },
	[GUAC_IMPL_AVX512] = { guac_steps_avx512, guac_head_steps_avx512 },
#elif defined(__aarch64__)
	[GUAC_IMPL_NEON] = { guac_steps_neon, guac_head_steps_neon },
#endif
};

/*
 * The step functions themselves, for every step count up to 7: the main loop
 * runs two groups of blocks at a time where the width does, and an odd count
 * ends with one group alone. The starts put the low counter word's wrap (a
 * carry into the high word) and the stream's 2^64 wrap inside a group,
 * between two groups and at a step's first block.
 */
static void check_steps(enum guac_impl impl)
{
	static const u64 starts[] = {
		0, 0xffffffffULL - 3, 0xffffffffULL - 16, 0xffffffffULL - 20,
		0x100000000ULL, 0x7ffffffffULL - 37, UINT64_MAX - 16, UINT64_MAX - 40,
		UINT64_MAX,
	};
	enum { MAX_STEPS = 7 };
	static u8 got[MAX_STEPS * 16 * GUAC_BLOCK_SIZE + 64];
	static u8 want[sizeof(got)];
	unsigned int lanes = guac_impl_lanes[impl];
	size_t i, n, len;

	if (!impl_steps[impl].steps)
		return;
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		for (n = 0; n <= MAX_STEPS; n++) {
			len = n * lanes * GUAC_BLOCK_SIZE;
			memset(got, 0x5a, sizeof(got));
			memset(want, 0x5a, sizeof(want));
			guac_blocks_generic(want, starts[i], n * lanes);
			impl_steps[impl].steps(got, starts[i], n);
			if (memcmp(got, want, len + 64))
				fail_msg("%s: %zu steps from block %#llx differ from generic",
					 guac_impl_names[impl], n, (unsigned long long)starts[i]);
		}
	}
}

static void test_steps(void **state)
{
	(void)state;
	for_each_usable_impl(check_steps);
}

/*
 * The head step functions, for every step count up to 7 (the main loop
 * runs two groups where the width does), at strides that put the lanes
 * across the low word's carry and the 2^64 wrap: each head is the first 8
 * bytes of the generic block, and nothing past the last head is written.
 */
static void check_head_steps(enum guac_impl impl)
{
	static const u64 starts[] = { 0, 0xffffffffULL - 20, UINT64_MAX - 40 };
	static const u64 strides[] = { 1, 64, 0x100000001ULL };
	enum { MAX_STEPS = 7 };
	u64 got[MAX_STEPS * 16 + 1];
	unsigned int lanes = guac_impl_lanes[impl];
	u8 block[GUAC_BLOCK_SIZE];
	size_t i, k, n, j;
	int b;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		for (k = 0; k < ARRAY_SIZE(strides); k++) {
			for (n = 0; n <= MAX_STEPS; n++) {
				memset(got, 0x5a, sizeof(got));
				impl_steps[impl].head_steps(got, starts[i], strides[k], n);
				for (j = 0; j < n * lanes; j++) {
					u64 want = 0;

					guac_blocks_generic(block, starts[i] + j * strides[k], 1);
					for (b = 7; b >= 0; b--)
						want = want << 8 | block[b];
					if (got[j] != want)
						fail_msg("%s: head %zu of %zu steps from %#llx, stride %#llx differs",
							 guac_impl_names[impl], j, n,
							 (unsigned long long)starts[i],
							 (unsigned long long)strides[k]);
				}
				if (got[n * lanes] != 0x5a5a5a5a5a5a5a5aULL)
					fail_msg("%s: %zu head steps wrote past their end",
						 guac_impl_names[impl], n);
			}
		}
	}
}

static void test_head_steps(void **state)
{
	(void)state;
	for_each_usable_impl(check_head_steps);
}

/* Splitting a request anywhere gives the same bytes as one request. */
static void test_split_requests(void **state)
{
	static u8 whole[8192], parts[8192];
	enum guac_impl impl = guac_impl_best();
	u64 block = UINT64_MAX - 50;
	size_t cut;

	(void)state;
	guac_fill(impl, whole, block, 3, sizeof(whole));
	for (cut = 0; cut <= sizeof(parts); cut += 61) {
		u64 b = block;
		unsigned int skip = 3;

		guac_fill(impl, parts, b, skip, cut);
		guac_pos_advance(&b, &skip, cut);
		guac_fill(impl, parts + cut, b, skip, sizeof(parts) - cut);
		assert_memory_equal(parts, whole, sizeof(whole));
	}
}

/* The SIMD features of this architecture, and which implementation they allow. */
#if defined(__x86_64__)
static const unsigned int simd_bits[] = { GUAC_CPU_SSE2, GUAC_CPU_AVX2, GUAC_CPU_AVX512 };

static enum guac_impl expected_best(unsigned int allowed)
{
	enum guac_impl expect = GUAC_IMPL_GENERIC;

	/* Each implementation needs every narrower one (remainders cascade). */
	if (allowed & GUAC_CPU_SSE2) {
		expect = GUAC_IMPL_SSE2;
		if (allowed & GUAC_CPU_AVX2) {
			expect = GUAC_IMPL_AVX2;
			if (allowed & GUAC_CPU_AVX512)
				expect = GUAC_IMPL_AVX512;
		}
	}
	return expect;
}
#elif defined(__aarch64__)
/* RNDR is no implementation's: masking it changes nothing. */
static const unsigned int simd_bits[] = { GUAC_CPU_NEON, GUAC_CPU_RNDR };

static enum guac_impl expected_best(unsigned int allowed)
{
	return allowed & GUAC_CPU_NEON ? GUAC_IMPL_NEON : GUAC_IMPL_GENERIC;
}
#else
static const unsigned int simd_bits[] = { 0 };

static enum guac_impl expected_best(unsigned int allowed)
{
	(void)allowed;
	return GUAC_IMPL_GENERIC;
}
#endif

/* Every subset of the SIMD features picks the widest implementation it allows. */
static void test_feature_subsets(void **state)
{
	static u8 got[20000], want[20000];
	unsigned int subset, i;

	(void)state;
	guac_fill(GUAC_IMPL_GENERIC, want, UINT64_MAX - 100, 9, sizeof(want));
	for (subset = 0; subset < 1u << ARRAY_SIZE(simd_bits); subset++) {
		unsigned int mask = ~0u, allowed;
		enum guac_impl best;

		for (i = 0; i < ARRAY_SIZE(simd_bits); i++)
			if (!(subset & (1u << i)))
				mask &= ~simd_bits[i];
		guac_cpu_restrict(mask);
		allowed = detected & mask;
		best = guac_impl_best();
		assert_int_equal(best, expected_best(allowed));
		assert_int_equal(guac_cpu_features(), allowed);
		for (i = 0; i < GUAC_IMPL_COUNT; i++)
			if (guac_impl_usable(i, allowed))
				assert_true(i <= (unsigned int)best);

		memset(got, 0, sizeof(got));
		guac_fill(best, got, UINT64_MAX - 100, 9, sizeof(got));
		assert_memory_equal(got, want, sizeof(want));
	}
	guac_cpu_restrict(~0u);
}

static void test_impl_names(void **state)
{
	int impl;

	(void)state;
	for (impl = 0; impl < GUAC_IMPL_COUNT; impl++)
		assert_int_equal(guac_impl_parse(guac_impl_names[impl]), impl);
	assert_int_equal(guac_impl_parse("auto"), guac_impl_best());
	assert_int_equal(guac_impl_parse("avx1024"), -1);
	assert_int_equal(guac_impl_parse(""), -1);
	/* Another architecture's implementations are unknown names here. */
#if defined(__x86_64__)
	assert_int_equal(guac_impl_parse("neon"), -1);
	assert_string_equal(guac_impl_choices(), "auto, generic, sse2, avx2 or avx512");
#elif defined(__aarch64__)
	assert_int_equal(guac_impl_parse("avx2"), -1);
	assert_int_equal(guac_impl_parse("sse2"), -1);
	assert_string_equal(guac_impl_choices(), "auto, generic or neon");
#endif
}

/* GUAC_TEST_REQUIRE: implementations that must be usable here (a CI that expects them). */
static void test_required_impls(void **state)
{
	const char *req = getenv("GUAC_TEST_REQUIRE");
	char name[32];
	int n, impl;

	(void)state;
	while (req && sscanf(req, " %31s%n", name, &n) == 1) {
		req += n;
		impl = guac_impl_parse(name);
		if (impl < 0)
			fail_msg("GUAC_TEST_REQUIRE: '%s' is not an implementation of this build (%s)",
				 name, guac_impl_choices());
		if (!guac_impl_usable(impl, detected))
			fail_msg("GUAC_TEST_REQUIRE: '%s' is not supported by this CPU", name);
		print_message("[   INFO   ] %s required and supported\n", name);
	}
}

static void test_pos_advance(void **state)
{
	u64 block = UINT64_MAX;
	unsigned int skip = 63;

	(void)state;
	guac_pos_advance(&block, &skip, 1);
	assert_int_equal(block, 0);
	assert_int_equal(skip, 0);
	guac_pos_advance(&block, &skip, 64 * 5 + 7);
	assert_int_equal(block, 5);
	assert_int_equal(skip, 7);
	guac_pos_advance(&block, &skip, 0);
	assert_int_equal(block, 5);
	assert_int_equal(skip, 7);
}

static void test_parse_sizes(void **state)
{
	static const struct {
		const char *text;
		uint64_t value;
	} good[] = {
		{ "0", 0 }, { "64", 64 }, { "0x40", 64 }, { "1K", 1024 },
		{ "1k", 1024 }, { "2KiB", 2048 }, { "3MiB", 3u << 20 },
		/* Decimal units are powers of 1000; leading zeros are not octal. */
		{ "3MB", 3000000 }, { "1kB", 1000 }, { "2TB", 2000000000000ULL },
		{ "010", 10 }, { "08", 8 },
		{ "1G", 1ULL << 30 }, { "1T", 1ULL << 40 }, { "1P", 1ULL << 50 },
		{ "15E", 15ULL << 60 }, { "18446744073709551615", UINT64_MAX },
		{ "0xffffffffffffffff", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "-1", "K", "1X", "1KB2", "12 ", "18446744073709551616",
		"16E", "0x1p3", "1.5G", " 1", "0x", "1mB", "19EB",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		assert_true(guac_parse_u64("test", good[i].text, &v));
		assert_int_equal(v, good[i].value);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (guac_parse_u64("test", bad[i], &v))
			fail_msg("'%s' was accepted", bad[i]);
		assert_int_equal(v, 12345);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_impls_match_generic),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_head_steps),
		cmocka_unit_test(test_split_requests),
		cmocka_unit_test(test_feature_subsets),
		cmocka_unit_test(test_impl_names),
		cmocka_unit_test(test_required_impls),
		cmocka_unit_test(test_pos_advance),
		cmocka_unit_test(test_parse_sizes),
	};

	detected = guac_cpu_detect();
#if defined(__x86_64__)
	print_message("[   INFO   ] CPU features: sse2=%d avx2=%d avx512=%d\n",
		      !!(detected & GUAC_CPU_SSE2), !!(detected & GUAC_CPU_AVX2),
		      !!(detected & GUAC_CPU_AVX512));
#elif defined(__aarch64__)
	print_message("[   INFO   ] CPU features: neon=%d rndr=%d\n",
		      !!(detected & GUAC_CPU_NEON), !!(detected & GUAC_CPU_RNDR));
#endif
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
