// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Buffer filling on top of the block implementations: any start byte, any
 * length, any alignment. Built without SIMD code generation; the SIMD step
 * functions it calls are the only code that needs the FPU.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif
#include <guacrng/core.h>

const char *const guac_impl_names[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = "generic",
#if defined(__x86_64__)
	[GUAC_IMPL_SSE2] = "sse2",
	[GUAC_IMPL_AVX2] = "avx2",
	[GUAC_IMPL_AVX512] = "avx512",
#elif defined(__aarch64__)
	[GUAC_IMPL_NEON] = "neon",
#endif
};

const unsigned int guac_impl_lanes[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = 1,
#if defined(__x86_64__)
	[GUAC_IMPL_SSE2] = 4,
	[GUAC_IMPL_AVX2] = 8,
	[GUAC_IMPL_AVX512] = 16,
#elif defined(__aarch64__)
	[GUAC_IMPL_NEON] = 4,
#endif
};

static void guac_steps(enum guac_impl impl, u8 *out, u64 block, size_t nsteps)
{
	switch (impl) {
#if defined(__x86_64__)
	case GUAC_IMPL_SSE2:
		guac_steps_sse2(out, block, nsteps);
		break;
	case GUAC_IMPL_AVX2:
		guac_steps_avx2(out, block, nsteps);
		break;
	case GUAC_IMPL_AVX512:
		guac_steps_avx512(out, block, nsteps);
		break;
#elif defined(__aarch64__)
	case GUAC_IMPL_NEON:
		guac_steps_neon(out, block, nsteps);
		break;
#endif
	default:
		guac_blocks_generic(out, block, nsteps);
		break;
	}
}

void guac_blocks(enum guac_impl impl, u8 *out, u64 block, size_t nblocks)
{
	/* Whole steps at @impl, the remainder at each narrower width in turn. */
	for (;;) {
		unsigned int lanes = guac_impl_lanes[impl];
		size_t nsteps = nblocks / lanes;

		if (nsteps) {
			guac_steps(impl, out, block, nsteps);
			out += nsteps * lanes * GUAC_BLOCK_SIZE;
			block += nsteps * lanes;
			nblocks -= nsteps * lanes;
		}
		if (!nblocks || impl == GUAC_IMPL_GENERIC)
			return;
		impl--;
	}
}

#ifndef __KERNEL__	/* heads: guac verify's diagnosis only (core.h) */
static void guac_head_steps(enum guac_impl impl, u64 *heads, u64 block,
			    u64 stride, size_t nsteps)
{
	switch (impl) {
#if defined(__x86_64__)
	case GUAC_IMPL_SSE2:
		guac_head_steps_sse2(heads, block, stride, nsteps);
		break;
	case GUAC_IMPL_AVX2:
		guac_head_steps_avx2(heads, block, stride, nsteps);
		break;
	case GUAC_IMPL_AVX512:
		guac_head_steps_avx512(heads, block, stride, nsteps);
		break;
#elif defined(__aarch64__)
	case GUAC_IMPL_NEON:
		guac_head_steps_neon(heads, block, stride, nsteps);
		break;
#endif
	default:
		guac_heads_generic(heads, block, stride, nsteps);
		break;
	}
}

void guac_heads(enum guac_impl impl, u64 *heads, u64 block, u64 stride,
		size_t n)
{
	/* As guac_blocks(): whole steps, then each narrower width in turn. */
	for (;;) {
		size_t whole = n - n % guac_impl_lanes[impl];

		if (whole) {
			guac_head_steps(impl, heads, block, stride,
					whole / guac_impl_lanes[impl]);
			heads += whole;
			block += whole * stride;
			n -= whole;
		}
		if (!n || impl == GUAC_IMPL_GENERIC)
			return;
		impl--;
	}
}
#endif

void guac_fill(enum guac_impl impl, u8 *out, u64 block, unsigned int skip,
	       size_t len)
{
	u8 partial[GUAC_BLOCK_SIZE];
	size_t whole;

	if (!len)
		return;

	if (skip) {
		size_t n = GUAC_BLOCK_SIZE - skip;

		if (n > len)
			n = len;
		guac_blocks_generic(partial, block++, 1);
		memcpy(out, partial + skip, n);
		out += n;
		len -= n;
	}

	whole = len / GUAC_BLOCK_SIZE;
	guac_blocks(impl, out, block, whole);
	out += whole * GUAC_BLOCK_SIZE;
	block += whole;
	len -= whole * GUAC_BLOCK_SIZE;

	if (len) {
		guac_blocks_generic(partial, block, 1);
		memcpy(out, partial, len);
	}
}
