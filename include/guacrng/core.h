/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The guacamole generator core, shared verbatim by the kernel module and the
 * userspace library so that userspace tests and benchmarks exercise the very
 * code the kernel runs.
 *
 * The stream is 2^64 blocks of 64 bytes. Block i is a function of i alone, so
 * any byte of the 2^70-byte stream can be produced without producing the bytes
 * before it.
 */
#ifndef GUACRNG_CORE_H
#define GUACRNG_CORE_H

/* Userspace builds get u8..u64 from tools/userspace/include/linux/types.h. */
#include <linux/types.h>

#define GUAC_BLOCK_SIZE 64
#define GUAC_BLOCK_SHIFT 6

/*
 * Implementations, from the portable one up; each step processes more blocks
 * and hands its remainder to the one before it. The list is the
 * architecture's: the portable one everywhere, SIMD ones where the core has a
 * step function for the architecture's vector unit.
 */
enum guac_impl {
	GUAC_IMPL_GENERIC,
#if defined(__x86_64__)
	GUAC_IMPL_SSE2,
	GUAC_IMPL_AVX2,
	GUAC_IMPL_AVX512,
#elif defined(__aarch64__)
	GUAC_IMPL_NEON,
#endif
	GUAC_IMPL_COUNT
};

/* Lowercase names, as used by the impl= module parameter and the tools. */
extern const char *const guac_impl_names[GUAC_IMPL_COUNT];

/* Blocks one SIMD step of each implementation produces. */
extern const unsigned int guac_impl_lanes[GUAC_IMPL_COUNT];

/*
 * Produce @nblocks whole blocks starting at block index @block (mod 2^64).
 * The SIMD implementations run in steps of guac_impl_lanes[] blocks and hand
 * any remainder to the next narrower implementation, down to the portable one.
 *
 * In the kernel, the caller must hold an FPU section for any impl other than
 * GUAC_IMPL_GENERIC; the caller must also have checked that the CPU supports
 * @impl (and, by construction, every narrower one).
 */
void guac_blocks(enum guac_impl impl, u8 *out, u64 block, size_t nblocks);

/*
 * Fill @len bytes with the stream starting at byte @skip (0..63) of block
 * @block. Neither @out nor the start need any alignment. Same FPU and CPU
 * rules as guac_blocks().
 */
void guac_fill(enum guac_impl impl, u8 *out, u64 block, unsigned int skip,
	       size_t len);

/*
 * The head of a block is its first 8 bytes, as a little-endian u64: enough
 * to tell a block among many (the bad-sector diagnosis looks found data up
 * by it) at the cost of the rounds alone, without the 64 bytes' feed-forward
 * and transpose. Put the heads of the @n blocks @block + j * @stride (mod
 * 2^64), j < @n, in @heads. Steps and remainders as guac_blocks(); same FPU
 * and CPU rules. Userspace only: the module has no caller, and its step
 * objects stay free of the stack protector the heads' word arrays need.
 */
#ifndef __KERNEL__
void guac_heads(enum guac_impl impl, u64 *heads, u64 block, u64 stride,
		size_t n);
#endif

/* Move a stream position (block, byte in block) forward by @n bytes. */
static inline void guac_pos_advance(u64 *block, unsigned int *skip, size_t n)
{
	u64 bytes = (u64)*skip + n;

	*block += bytes >> GUAC_BLOCK_SHIFT;
	*skip = (unsigned int)(bytes & (GUAC_BLOCK_SIZE - 1));
}

/* The per-implementation step functions; SIMD ones process whole steps. */
void guac_blocks_generic(u8 *out, u64 block, size_t nblocks);
#if defined(__x86_64__)
void guac_steps_sse2(u8 *out, u64 block, size_t nsteps);
void guac_steps_avx2(u8 *out, u64 block, size_t nsteps);
void guac_steps_avx512(u8 *out, u64 block, size_t nsteps);
#elif defined(__aarch64__)
void guac_steps_neon(u8 *out, u64 block, size_t nsteps);
#endif
#ifndef __KERNEL__
void guac_heads_generic(u64 *heads, u64 block, u64 stride, size_t n);
#if defined(__x86_64__)
void guac_head_steps_sse2(u64 *heads, u64 block, u64 stride, size_t nsteps);
void guac_head_steps_avx2(u64 *heads, u64 block, u64 stride, size_t nsteps);
void guac_head_steps_avx512(u64 *heads, u64 block, u64 stride, size_t nsteps);
#elif defined(__aarch64__)
void guac_head_steps_neon(u64 *heads, u64 block, u64 stride, size_t nsteps);
#endif
#endif

#endif /* GUACRNG_CORE_H */
