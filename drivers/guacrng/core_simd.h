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
#include "core_round.h"

typedef u32 guac_vec __attribute__((vector_size(GUAC_LANES * 4)));

#if GUAC_LANES == 4
#define GUAC_CHUNKS(m) m(0)
#define GUAC_IOTA 0, 1, 2, 3
#elif GUAC_LANES == 8
#define GUAC_CHUNKS(m) m(0), m(1)
#define GUAC_IOTA 0, 1, 2, 3, 4, 5, 6, 7
#elif GUAC_LANES == 16
#define GUAC_CHUNKS(m) m(0), m(1), m(2), m(3)
#define GUAC_IOTA 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#else
#error "GUAC_LANES must be 4, 8 or 16"
#endif

/* Interleaves as unpck{l,h}{ps,pd} do, within each 128-bit chunk. */
#define GUAC_L GUAC_LANES
#define GUAC_LO32(c) 4 * (c), GUAC_L + 4 * (c), 4 * (c) + 1, GUAC_L + 4 * (c) + 1
#define GUAC_HI32(c) 4 * (c) + 2, GUAC_L + 4 * (c) + 2, 4 * (c) + 3, GUAC_L + 4 * (c) + 3
#define GUAC_LO64(c) 4 * (c), 4 * (c) + 1, GUAC_L + 4 * (c), GUAC_L + 4 * (c) + 1
#define GUAC_HI64(c) 4 * (c) + 2, 4 * (c) + 3, GUAC_L + 4 * (c) + 2, GUAC_L + 4 * (c) + 3

/* Lanes of chunk c (of a) and chunk d (of b), as __builtin_shuffle indices. */
#define GUAC_CH(c) 4 * (c), 4 * (c) + 1, 4 * (c) + 2, 4 * (c) + 3
#define GUAC_CH_B(c) GUAC_CH(GUAC_LANES / 4 + (c))

/*
 * 4x4 transpose of 32-bit words inside every 128-bit chunk: afterwards chunk c
 * of r[k] holds words (a, b, c, d) of block 4c + k, i.e. one 16-byte row.
 */
static inline void guac_transpose4(guac_vec a, guac_vec b, guac_vec c,
				   guac_vec d, guac_vec r[4])
{
	const guac_vec m_lo32 = { GUAC_CHUNKS(GUAC_LO32) };
	const guac_vec m_hi32 = { GUAC_CHUNKS(GUAC_HI32) };
	const guac_vec m_lo64 = { GUAC_CHUNKS(GUAC_LO64) };
	const guac_vec m_hi64 = { GUAC_CHUNKS(GUAC_HI64) };
	guac_vec t0 = __builtin_shuffle(a, b, m_lo32);
	guac_vec t1 = __builtin_shuffle(a, b, m_hi32);
	guac_vec t2 = __builtin_shuffle(c, d, m_lo32);
	guac_vec t3 = __builtin_shuffle(c, d, m_hi32);

	r[0] = __builtin_shuffle(t0, t2, m_lo64);
	r[1] = __builtin_shuffle(t0, t2, m_hi64);
	r[2] = __builtin_shuffle(t1, t3, m_lo64);
	r[3] = __builtin_shuffle(t1, t3, m_hi64);
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
		const guac_vec m_c0 = { GUAC_CH(0), GUAC_CH_B(0) };
		const guac_vec m_c1 = { GUAC_CH(1), GUAC_CH_B(1) };

		guac_storeu(out + 64 * k, __builtin_shuffle(row[0][k], row[1][k], m_c0));
		guac_storeu(out + 64 * k + 32, __builtin_shuffle(row[2][k], row[3][k], m_c0));
		guac_storeu(out + 64 * (4 + k), __builtin_shuffle(row[0][k], row[1][k], m_c1));
		guac_storeu(out + 64 * (4 + k) + 32, __builtin_shuffle(row[2][k], row[3][k], m_c1));
#else
		const guac_vec m_even = { GUAC_CH(0), GUAC_CH_B(0), GUAC_CH(2), GUAC_CH_B(2) };
		const guac_vec m_odd = { GUAC_CH(1), GUAC_CH_B(1), GUAC_CH(3), GUAC_CH_B(3) };
		const guac_vec m_lo = { GUAC_CH(0), GUAC_CH(1), GUAC_CH_B(0), GUAC_CH_B(1) };
		const guac_vec m_hi = { GUAC_CH(2), GUAC_CH(3), GUAC_CH_B(2), GUAC_CH_B(3) };
		/* p = A0 B0 A2 B2, q = A1 B1 A3 B3, likewise r and s for C and D. */
		guac_vec p = __builtin_shuffle(row[0][k], row[1][k], m_even);
		guac_vec q = __builtin_shuffle(row[0][k], row[1][k], m_odd);
		guac_vec r = __builtin_shuffle(row[2][k], row[3][k], m_even);
		guac_vec s = __builtin_shuffle(row[2][k], row[3][k], m_odd);

		guac_storeu(out + 64 * k, __builtin_shuffle(p, r, m_lo));
		guac_storeu(out + 64 * (4 + k), __builtin_shuffle(q, s, m_lo));
		guac_storeu(out + 64 * (8 + k), __builtin_shuffle(p, r, m_hi));
		guac_storeu(out + 64 * (12 + k), __builtin_shuffle(q, s, m_hi));
#endif
	}
}

static inline void guac_step(u8 *out, u64 block)
{
	const guac_vec zero = { 0 };
	const guac_vec iota = { GUAC_IOTA };
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
		GUAC_DOUBLE_ROUND(x);

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
