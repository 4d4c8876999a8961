// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time self-tests: every supported implementation must reproduce the
 * published vectors, inside multi-block runs where the SIMD lanes and the
 * narrower fallbacks all take part, and must match the portable
 * implementation from an unaligned start across the 2^64 block wrap.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <guacrng/vectors.h>
#include "guacrng.h"
#include "testing.h"

/* 37 blocks: two AVX-512 steps and a remainder for every narrower width. */
#define GUAC_TEST_BLOCKS 37
#define GUAC_TEST_LEAD 13	/* the vector's block sits mid-step */
#define GUAC_TEST_BYTES (GUAC_TEST_BLOCKS * GUAC_BLOCK_SIZE)

static bool guac_selftest_vectors(enum guac_impl impl, u8 *buf)
{
	const u8 *block0 = guac_vectors[0].bytes;
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(guac_vectors); i++) {
		const struct guac_vector *v = &guac_vectors[i];
		const u8 *at = buf + GUAC_TEST_LEAD * GUAC_BLOCK_SIZE;

		if (!guac_generate_impl(impl, buf, v->block - GUAC_TEST_LEAD, 0,
					GUAC_TEST_BYTES))
			return false;
		if (!strcmp(guac_test_selftest_fault(), guac_impl_names[impl]))
			buf[GUAC_TEST_LEAD * GUAC_BLOCK_SIZE] ^= 1;
		if (memcmp(at, v->bytes, v->len)) {
			pr_err("%s self-test: vector %zu (block %#llx) mismatch\n",
			       guac_impl_names[impl], i + 1, v->block);
			ok = false;
		}
		/* After the last block comes block 0 again. */
		if (v->block == U64_MAX &&
		    memcmp(at + GUAC_BLOCK_SIZE, block0, GUAC_BLOCK_SIZE)) {
			pr_err("%s self-test: wrap to block 0 mismatch\n",
			       guac_impl_names[impl]);
			ok = false;
		}
	}
	return ok;
}

static bool guac_selftest_unaligned(enum guac_impl impl, u8 *buf, u8 *ref)
{
	static const unsigned int skips[] = { 1, 17, 63 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(skips); i++) {
		u64 block = U64_MAX - 20;
		size_t len = GUAC_TEST_BYTES - GUAC_BLOCK_SIZE - 3 * i;

		guac_fill(GUAC_IMPL_GENERIC, ref, block, skips[i], len);
		if (!guac_generate_impl(impl, buf, block, skips[i], len))
			return false;
		if (memcmp(buf, ref, len)) {
			pr_err("%s self-test: unaligned run (skip %u) differs from generic\n",
			       guac_impl_names[impl], skips[i]);
			return false;
		}
	}
	return true;
}

bool guac_selftest_impl(enum guac_impl impl)
{
	u8 *buf, *ref;
	bool ok;

	buf = kmalloc(GUAC_TEST_BYTES, GFP_KERNEL);
	ref = kmalloc(GUAC_TEST_BYTES, GFP_KERNEL);
	ok = buf && ref && guac_selftest_vectors(impl, buf) &&
	     guac_selftest_unaligned(impl, buf, ref);
	kfree(ref);
	kfree(buf);
	return ok;
}
