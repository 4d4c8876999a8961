/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Multi-block guacamole step, instantiated once per vector width by
 * core_sse2.c, core_avx2.c and core_avx512.c on x86-64 and core_neon.c on
 * arm64, with GUAC_LANES, GUAC_STEPS_FN and GUAC_HEAD_STEPS_FN defined. Lane
 * j of every state vector belongs to block (block + j) (or, for heads, block
 * + j * stride), so the rounds are plain lane-wise arithmetic; only the
 * output needs a transpose, done in 4x4 tiles inside each 128-bit chunk, whose
 * 16-byte rows are stored straight to their blocks.
 *
 * docs/cost-model.md counts the operations per block that this code compiles
 * to and derives each width's ceiling; the choices below are explained there.
 *
 * Every translation unit including this file is built with SIMD code
 * generation and must hold nothing but the step functions (of consecutive
 * blocks, and of heads at a stride): in the kernel they may only ever run
 * inside kernel_fpu_begin()/kernel_fpu_end().
 */
#include <guacrng/core.h>

typedef u32 guac_vec __attribute__((vector_size(GUAC_LANES * 4)));
#define GUAC_WORD guac_vec

#if defined(__aarch64__) && GUAC_LANES == 4 && !defined(__CHECKER__)
/*
 * NEON has no vector rotate. GCC 12 makes shl, ushr and orr of the portable
 * one; shl and sri (shift right and insert) do it in two instructions, as
 * arch/arm64/crypto/chacha-neon-core.S does: 128 fewer a step of 4 blocks
 * (docs/cost-model.md). The cases are the round's rotations, spelled as
 * literals because sri's shift is an immediate; after inlining with a
 * constant @n the switch folds away.
 */
#define GUAC_NEON_ROTL(v, left, right) ({				\
	guac_vec __v = (v), __r = __v << (left);			\
	__asm__("sri %0.4s, %1.4s, #" #right : "+w" (__r) : "w" (__v));	\
	__r;								\
})
#define GUAC_HAVE_ROTL
static __always_inline guac_vec guac_rotl(guac_vec v, int n)
{
	switch (n) {
	case 7:
		return GUAC_NEON_ROTL(v, 7, 25);
	case 9:
		return GUAC_NEON_ROTL(v, 9, 23);
	case 13:
		return GUAC_NEON_ROTL(v, 13, 19);
	case 18:
		return GUAC_NEON_ROTL(v, 18, 14);
	default:
		return (v << n) | (v >> (32 - n));
	}
}
#endif
#include "core_round.h"

/*
 * Lane shuffles, given as index lists: 0..L-1 pick from the first operand,
 * L..2L-1 from the second. clang and GCC 12+ take the indices as arguments of
 * __builtin_shufflevector; GCC 10 and 11 only have the GCC-only
 * __builtin_shuffle, which takes them as a mask vector. sparse knows neither
 * and ignores vector_size (guac_vec is a plain u32 to it), so it gets
 * stand-ins that keep the operands' types checked.
 */
#ifdef __CHECKER__
#define GUAC_VEC(...) ((guac_vec)0)
#define GUAC_SHUFFLE(a, b, ...) ((void)(b), (a))
#else
#define GUAC_VEC(...) ((guac_vec) { __VA_ARGS__ })
#if __has_builtin(__builtin_shufflevector)
#define GUAC_SHUFFLE(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define GUAC_SHUFFLE(a, b, ...) __builtin_shuffle(a, b, GUAC_VEC(__VA_ARGS__))
#endif
#endif

/* UNPACK_* interleave within each 128-bit chunk as punpck{l,h}{dq,qdq} do. */
#if GUAC_LANES == 4
#define GUAC_IOTA GUAC_VEC(0, 1, 2, 3)
#define GUAC_UNPACK_LO32(a, b) GUAC_SHUFFLE(a, b, 0, 4, 1, 5)
#define GUAC_UNPACK_HI32(a, b) GUAC_SHUFFLE(a, b, 2, 6, 3, 7)
#define GUAC_UNPACK_LO64(a, b) GUAC_SHUFFLE(a, b, 0, 1, 4, 5)
#define GUAC_UNPACK_HI64(a, b) GUAC_SHUFFLE(a, b, 2, 3, 6, 7)
#elif GUAC_LANES == 8
#define GUAC_IOTA GUAC_VEC(0, 1, 2, 3, 4, 5, 6, 7)
#define GUAC_UNPACK_LO32(a, b) GUAC_SHUFFLE(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define GUAC_UNPACK_HI32(a, b) GUAC_SHUFFLE(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define GUAC_UNPACK_LO64(a, b) GUAC_SHUFFLE(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define GUAC_UNPACK_HI64(a, b) GUAC_SHUFFLE(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#elif GUAC_LANES == 16
#define GUAC_IOTA GUAC_VEC(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define GUAC_UNPACK_LO32(a, b) GUAC_SHUFFLE(a, b, 0, 16, 1, 17, 4, 20, 5, 21, \
					    8, 24, 9, 25, 12, 28, 13, 29)
#define GUAC_UNPACK_HI32(a, b) GUAC_SHUFFLE(a, b, 2, 18, 3, 19, 6, 22, 7, 23, \
					    10, 26, 11, 27, 14, 30, 15, 31)
#define GUAC_UNPACK_LO64(a, b) GUAC_SHUFFLE(a, b, 0, 1, 16, 17, 4, 5, 20, 21, \
					    8, 9, 24, 25, 12, 13, 28, 29)
#define GUAC_UNPACK_HI64(a, b) GUAC_SHUFFLE(a, b, 2, 3, 18, 19, 6, 7, 22, 23, \
					    10, 11, 26, 27, 14, 15, 30, 31)
#else
#error "GUAC_LANES must be 4, 8 or 16"
#endif

/*
 * Independent groups of GUAC_LANES blocks per pass of the main loop
 * (docs/cost-model.md). AVX2 and AVX-512 run two: one group's four
 * quarter-round chains of add, rotate and xor are too few to keep the vector
 * pipes busy (AVX2: three or four pipes and a 4-cycle step; AVX-512 on Zen 4:
 * a 4-cycle step in 512-bit pipes), and the second group's spills go to load
 * and store ports the rounds leave idle. SSE2 runs one: with two, its 16
 * registers and two-operand instructions cost so many copies and spills that
 * 4- and 5-wide front ends become the limit.
 *
 * The second group's state costs stack where the compiler cannot keep it in
 * registers, and the kernel warns past 2048 bytes a frame. Measured for the
 * kernel (docs/cost-model.md): GCC 12 to 16 give 1.3 to 1.4 KB for AVX2 and
 * 1.6 to 1.9 KB for AVX-512; GCC 10, which builds Debian's 5.10 kernels,
 * 2.2 KB for AVX2, so GCC before 12 runs one group (GCC 11 builds none of
 * the kernels tested). So does clang: in the KCSAN test kernel clang 14
 * gives AVX-512 a 3.1 KB frame with two groups (1.9 KB with one), and AVX2
 * with two runs at 0.7x of one, which is what clang makes of their spills.
 */
#if GUAC_LANES == 4 || defined(__clang__) || (defined(__GNUC__) && __GNUC__ < 12)
#define GUAC_GROUPS 1
#else
#define GUAC_GROUPS 2
#endif

/*
 * The first double round is always written out: in it, the words that start
 * as constants fold away at compile time. With one group the other three are
 * too; with two, they are a loop, which keeps the main loop within the
 * decoded-uop cache of older cores (Skylake's holds 1536 uops).
 */
#if GUAC_GROUPS == 1
#define GUAC_UNROLL_ROUNDS 1
#else
#define GUAC_UNROLL_ROUNDS 0
#endif

/*
 * Heads keep 2 of 16 words and store nothing else, so the second group's
 * spills have no idle store ports to hide in: AVX-512, whose 32 registers
 * hold one group's state, runs one.
 */
#if GUAC_LANES == 16
#define GUAC_HEAD_GROUPS 1
#else
#define GUAC_HEAD_GROUPS GUAC_GROUPS
#endif

#if GUAC_GROUPS > GUAC_MAX_STATES
#error "GUAC_GROUPS exceeds what guac_double_round() takes"
#endif
#if GUAC_DOUBLE_ROUNDS != 4
#error "guac_step() writes out four double rounds"
#endif

/*
 * 4x4 transpose of 32-bit words inside every 128-bit chunk of the state words
 * @a, @b, @c, @d, which are words 4q..4q+3 of the output order: afterwards
 * chunk c of r[k] holds (a, b, c, d) of block 4c + k, its row q.
 */
static __always_inline void guac_transpose(guac_vec r[4], guac_vec a, guac_vec b,
					   guac_vec c, guac_vec d)
{
	guac_vec t0 = GUAC_UNPACK_LO32(a, b);
	guac_vec t1 = GUAC_UNPACK_HI32(a, b);
	guac_vec t2 = GUAC_UNPACK_LO32(c, d);
	guac_vec t3 = GUAC_UNPACK_HI32(c, d);

	r[0] = GUAC_UNPACK_LO64(t0, t2);
	r[1] = GUAC_UNPACK_HI64(t0, t2);
	r[2] = GUAC_UNPACK_LO64(t1, t3);
	r[3] = GUAC_UNPACK_HI64(t1, t3);
}

#if GUAC_LANES == 8
/*
 * Rows q and q + 1 of blocks k and 4 + k, from chunks 0 and 1 of @q0 and @q1
 * (r[k] of guac_transpose() for rows q and q + 1): two lane-crossing shuffles
 * and two 32-byte stores, where 16-byte stores take four, two of them
 * extracts. Zen stores one vector a cycle, and its extracts to memory take a
 * vector pipe too, so the end of a step was bound by its 64 stores
 * (docs/cost-model.md: 2% faster on Zen 4).
 */
static __always_inline void guac_store_rows(u8 *blk, guac_vec q0, guac_vec q1)
{
	guac_vec lo = GUAC_SHUFFLE(q0, q1, 0, 1, 2, 3, 8, 9, 10, 11);
	guac_vec hi = GUAC_SHUFFLE(q0, q1, 4, 5, 6, 7, 12, 13, 14, 15);

	__builtin_memcpy(blk, &lo, 32);
	__builtin_memcpy(blk + 4 * GUAC_BLOCK_SIZE, &hi, 32);
}
#else
/* Bytes 16c..16c+15 of @v to @dst: a store for c = 0, else an extract to memory. */
static __always_inline void guac_store_chunk(u8 *dst, guac_vec v, unsigned int c)
{
	__builtin_memcpy(dst, (const u8 *)&v + 16 * c, 16);
}

/* Chunk c of @v is one 16-byte row of block 4c + k: @dst is that row of block k. */
static __always_inline void guac_store_row(u8 *dst, guac_vec v)
{
	guac_store_chunk(dst, v, 0);
#if GUAC_LANES == 16
	guac_store_chunk(dst + 4 * GUAC_BLOCK_SIZE, v, 1);
	guac_store_chunk(dst + 8 * GUAC_BLOCK_SIZE, v, 2);
	guac_store_chunk(dst + 12 * GUAC_BLOCK_SIZE, v, 3);
#endif
}

/* Row q of blocks k, 4 + k, ... (k < 4) from r[k] of guac_transpose(). */
static __always_inline void guac_store_quad(u8 *out, guac_vec r[4])
{
	guac_store_row(out, r[0]);
	guac_store_row(out + GUAC_BLOCK_SIZE, r[1]);
	guac_store_row(out + 2 * GUAC_BLOCK_SIZE, r[2]);
	guac_store_row(out + 3 * GUAC_BLOCK_SIZE, r[3]);
}
#endif

/*
 * Rows q and q + 1 of every block, from words @a to @d and @e to @h of the
 * output order: @out points at row q of the first block.
 */
static __always_inline void guac_transpose_store(u8 *out, guac_vec a, guac_vec b,
						 guac_vec c, guac_vec d, guac_vec e,
						 guac_vec f, guac_vec g, guac_vec h)
{
#if GUAC_LANES == 8
	guac_vec r0[4], r1[4];

	guac_transpose(r0, a, b, c, d);
	guac_transpose(r1, e, f, g, h);
	guac_store_rows(out, r0[0], r1[0]);
	guac_store_rows(out + GUAC_BLOCK_SIZE, r0[1], r1[1]);
	guac_store_rows(out + 2 * GUAC_BLOCK_SIZE, r0[2], r1[2]);
	guac_store_rows(out + 3 * GUAC_BLOCK_SIZE, r0[3], r1[3]);
#else
	guac_vec r[4];

	guac_transpose(r, a, b, c, d);
	guac_store_quad(out, r);
	guac_transpose(r, e, f, g, h);
	guac_store_quad(out + 16, r);
#endif
}

/* The starting state of the blocks whose indices' words are @lo and @hi. */
static __always_inline void guac_init_words(guac_vec x[16], guac_vec lo, guac_vec hi)
{
	const guac_vec zero = { 0 };
	int i;

	for (i = 0; i < 16; i++)
		x[i] = zero;
	x[0] += GUAC_C0;
	x[5] += GUAC_C1;
	x[10] += GUAC_C2;
	x[15] += GUAC_C3;
	x[6] = lo;
	x[7] = hi;
}

/* The starting state of blocks @block.. @block + GUAC_LANES - 1. */
static __always_inline void guac_init(guac_vec x[16], guac_vec *lo, guac_vec *hi,
				      u64 block)
{
	const guac_vec zero = { 0 };
	const guac_vec iota = GUAC_IOTA;
	const guac_vec lo_base = zero + (u32)block;

	/* Lane j holds block + j; a lane whose low word wrapped carries. */
	*lo = lo_base + iota;
	*hi = zero + (u32)(block >> 32);
	*hi -= (guac_vec)(*lo < lo_base);
	guac_init_words(x, *lo, *hi);
}

/* Feed-forward (only the words that did not start at zero), transpose, store. */
static __always_inline void guac_finish(u8 *out, guac_vec x[16], guac_vec lo,
					guac_vec hi)
{
	x[0] += GUAC_C0;
	x[5] += GUAC_C1;
	x[10] += GUAC_C2;
	x[15] += GUAC_C3;
	x[6] += lo;
	x[7] += hi;

	/* The rows of the output order: 4 9 14 3 | 8 13 2 7 | 12 1 6 11 | 0 5 10 15. */
	guac_transpose_store(out, x[4], x[9], x[14], x[3], x[8], x[13], x[2], x[7]);
	guac_transpose_store(out + 32, x[12], x[1], x[6], x[11], x[0], x[5], x[10], x[15]);
}

/* The four double rounds on @n states, all written out if @unroll. */
static __always_inline void guac_rounds(guac_vec (*x)[16], int n, bool unroll)
{
	int i;

	guac_double_round(x, n);
	if (unroll) {
		guac_double_round(x, n);
		guac_double_round(x, n);
		guac_double_round(x, n);
	} else {
		for (i = 1; i < GUAC_DOUBLE_ROUNDS; i++)
			guac_double_round(x, n);
	}
}

/* @n groups (1 or GUAC_GROUPS) of GUAC_LANES blocks each, from @block on. */
static __always_inline void guac_step(u8 *out, u64 block, int n)
{
	guac_vec x[GUAC_MAX_STATES][16], lo[GUAC_MAX_STATES], hi[GUAC_MAX_STATES];

	guac_init(x[0], &lo[0], &hi[0], block);
	if (n > 1)
		guac_init(x[1], &lo[1], &hi[1], block + GUAC_LANES);

	guac_rounds(x, n, GUAC_UNROLL_ROUNDS);

	guac_finish(out, x[0], lo[0], hi[0]);
	if (n > 1)
		guac_finish(out + GUAC_LANES * GUAC_BLOCK_SIZE, x[1], lo[1], hi[1]);
}

void GUAC_STEPS_FN(u8 *out, u64 block, size_t nsteps)
{
	for (; nsteps >= GUAC_GROUPS; nsteps -= GUAC_GROUPS) {
		guac_step(out, block, GUAC_GROUPS);
		block += GUAC_GROUPS * GUAC_LANES;
		out += GUAC_GROUPS * GUAC_LANES * GUAC_BLOCK_SIZE;
	}
	if (nsteps)
		guac_step(out, block, 1);
}

#ifndef __KERNEL__	/* heads: guac verify's diagnosis only (core.h) */
/*
 * Heads (core.h) of GUAC_LANES blocks @block + j * @stride, in @n groups (1
 * or GUAC_HEAD_GROUPS). A head is output words 0 and 1, state words 4 and 9,
 * which start at zero: no feed-forward and no transpose, only the rounds.
 * The lanes' indices are not consecutive, so they are set one by one.
 */
static __always_inline void guac_head_step(u64 *heads, u64 block, u64 stride, int n)
{
	guac_vec x[GUAC_MAX_STATES][16], lo[GUAC_MAX_STATES], hi[GUAC_MAX_STATES];
	u32 w[2][GUAC_MAX_STATES * GUAC_LANES];
	int i;

	for (i = 0; i < n * GUAC_LANES; i++) {
		u64 index = block + (u64)i * stride;

		w[0][i] = (u32)index;
		w[1][i] = (u32)(index >> 32);
	}
	for (i = 0; i < n; i++) {
		__builtin_memcpy(&lo[i], w[0] + i * GUAC_LANES, sizeof(guac_vec));
		__builtin_memcpy(&hi[i], w[1] + i * GUAC_LANES, sizeof(guac_vec));
		guac_init_words(x[i], lo[i], hi[i]);
	}

	/*
	 * Written out at every width: without guac_finish()'s transpose and
	 * stores the step stays small (AVX2 4%, SSE2 9% faster on Zen 5).
	 */
	guac_rounds(x, n, true);

	for (i = 0; i < n; i++) {
		__builtin_memcpy(w[0] + i * GUAC_LANES, &x[i][4], sizeof(guac_vec));
		__builtin_memcpy(w[1] + i * GUAC_LANES, &x[i][9], sizeof(guac_vec));
	}
	for (i = 0; i < n * GUAC_LANES; i++)
		heads[i] = (u64)w[0][i] | (u64)w[1][i] << 32;
}

void GUAC_HEAD_STEPS_FN(u64 *heads, u64 block, u64 stride, size_t nsteps)
{
	for (; nsteps >= GUAC_HEAD_GROUPS; nsteps -= GUAC_HEAD_GROUPS) {
		guac_head_step(heads, block, stride, GUAC_HEAD_GROUPS);
		block += GUAC_HEAD_GROUPS * GUAC_LANES * stride;
		heads += GUAC_HEAD_GROUPS * GUAC_LANES;
	}
	if (nsteps)
		guac_head_step(heads, block, stride, 1);
}
#endif
