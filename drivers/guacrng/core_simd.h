/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Multi-block guacamole step, instantiated once per vector width by
 * core_sse2.c, core_avx2.c and core_avx512.c with GUAC_LANES and
 * GUAC_STEPS_FN defined. Lane j of every state vector belongs to block
 * (block + j), so the rounds are plain lane-wise arithmetic; only the output
 * needs a transpose, done in 4x4 tiles inside each 128-bit chunk.
 *
 * Every translation unit including this file is built with SIMD code
 * generation and must hold nothing but the step function: in the kernel it
 * may only ever run inside kernel_fpu_begin()/kernel_fpu_end().
 */
#include <guacrng/core.h>

typedef u32 guac_vec __attribute__((vector_size(GUAC_LANES * 4)));
#define GUAC_WORD guac_vec
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

/*
 * UNPACK_* interleave within each 128-bit chunk as punpck{l,h}{dq,qdq} do;
 * the CHUNKS_* shuffles move whole 128-bit chunks (A and B are the operands).
 */
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
#define GUAC_CHUNKS_A0_B0(a, b) GUAC_SHUFFLE(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define GUAC_CHUNKS_A1_B1(a, b) GUAC_SHUFFLE(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
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
#define GUAC_CHUNKS_A0_B0_A2_B2(a, b) GUAC_SHUFFLE(a, b, 0, 1, 2, 3, 16, 17, 18, 19, \
						   8, 9, 10, 11, 24, 25, 26, 27)
#define GUAC_CHUNKS_A1_B1_A3_B3(a, b) GUAC_SHUFFLE(a, b, 4, 5, 6, 7, 20, 21, 22, 23, \
						   12, 13, 14, 15, 28, 29, 30, 31)
#define GUAC_CHUNKS_A0_A1_B0_B1(a, b) GUAC_SHUFFLE(a, b, 0, 1, 2, 3, 4, 5, 6, 7, \
						   16, 17, 18, 19, 20, 21, 22, 23)
#define GUAC_CHUNKS_A2_A3_B2_B3(a, b) GUAC_SHUFFLE(a, b, 8, 9, 10, 11, 12, 13, 14, 15, \
						   24, 25, 26, 27, 28, 29, 30, 31)
#else
#error "GUAC_LANES must be 4, 8 or 16"
#endif

/*
 * 4x4 transpose of 32-bit words inside every 128-bit chunk: afterwards chunk c
 * of r[k] holds words (a, b, c, d) of block 4c + k, i.e. one 16-byte row.
 */
static inline void guac_transpose4(guac_vec a, guac_vec b, guac_vec c,
				   guac_vec d, guac_vec r[4])
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

static inline void guac_storeu(u8 *dst, guac_vec v)
{
	__builtin_memcpy(dst, &v, sizeof(v));
}

/*
 * Row q of block 4c + k is chunk c of row[q][k]. Gather the rows of each block
 * with 128-bit chunk shuffles so that every store writes whole vectors.
 */
static inline void guac_store_blocks(u8 *out, guac_vec row[4][4])
{
	unsigned int k;

	for (k = 0; k < 4; k++) {
#if GUAC_LANES == 4
		guac_storeu(out + 64 * k, row[0][k]);
		guac_storeu(out + 64 * k + 16, row[1][k]);
		guac_storeu(out + 64 * k + 32, row[2][k]);
		guac_storeu(out + 64 * k + 48, row[3][k]);
#elif GUAC_LANES == 8
		guac_storeu(out + 64 * k, GUAC_CHUNKS_A0_B0(row[0][k], row[1][k]));
		guac_storeu(out + 64 * k + 32, GUAC_CHUNKS_A0_B0(row[2][k], row[3][k]));
		guac_storeu(out + 64 * (4 + k), GUAC_CHUNKS_A1_B1(row[0][k], row[1][k]));
		guac_storeu(out + 64 * (4 + k) + 32, GUAC_CHUNKS_A1_B1(row[2][k], row[3][k]));
#else
		/* p = A0 B0 A2 B2, q = A1 B1 A3 B3, likewise r and s for C and D. */
		guac_vec p = GUAC_CHUNKS_A0_B0_A2_B2(row[0][k], row[1][k]);
		guac_vec q = GUAC_CHUNKS_A1_B1_A3_B3(row[0][k], row[1][k]);
		guac_vec r = GUAC_CHUNKS_A0_B0_A2_B2(row[2][k], row[3][k]);
		guac_vec s = GUAC_CHUNKS_A1_B1_A3_B3(row[2][k], row[3][k]);

		guac_storeu(out + 64 * k, GUAC_CHUNKS_A0_A1_B0_B1(p, r));
		guac_storeu(out + 64 * (4 + k), GUAC_CHUNKS_A0_A1_B0_B1(q, s));
		guac_storeu(out + 64 * (8 + k), GUAC_CHUNKS_A2_A3_B2_B3(p, r));
		guac_storeu(out + 64 * (12 + k), GUAC_CHUNKS_A2_A3_B2_B3(q, s));
#endif
	}
}

static inline void guac_step(u8 *out, u64 block)
{
	const guac_vec zero = { 0 };
	const guac_vec iota = GUAC_IOTA;
	const guac_vec lo_base = zero + (u32)block;
	guac_vec x[16], row[4][4], lo, hi;
	int i;

	/* Lane j holds block + j; a lane whose low word wrapped carries. */
	lo = lo_base + iota;
	hi = zero + (u32)(block >> 32);
	hi -= (guac_vec)(lo < lo_base);

	for (i = 0; i < 16; i++)
		x[i] = zero;
	x[0] += GUAC_C0;
	x[5] += GUAC_C1;
	x[10] += GUAC_C2;
	x[15] += GUAC_C3;
	x[6] = lo;
	x[7] = hi;

	for (i = 0; i < GUAC_DOUBLE_ROUNDS; i++)
		guac_double_round(x);

	x[0] += GUAC_C0;
	x[5] += GUAC_C1;
	x[10] += GUAC_C2;
	x[15] += GUAC_C3;
	x[6] += lo;
	x[7] += hi;

	/* The rows of the output order: 4 9 14 3 | 8 13 2 7 | 12 1 6 11 | 0 5 10 15. */
	guac_transpose4(x[4], x[9], x[14], x[3], row[0]);
	guac_transpose4(x[8], x[13], x[2], x[7], row[1]);
	guac_transpose4(x[12], x[1], x[6], x[11], row[2]);
	guac_transpose4(x[0], x[5], x[10], x[15], row[3]);
	guac_store_blocks(out, row);
}

void GUAC_STEPS_FN(u8 *out, u64 block, size_t nsteps)
{
	while (nsteps--) {
		guac_step(out, block);
		block += GUAC_LANES;
		out += GUAC_LANES * GUAC_BLOCK_SIZE;
	}
}
