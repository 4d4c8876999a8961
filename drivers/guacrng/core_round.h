/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The guacamole block function, written once for scalars and vector types
 * (the vector_size extension GCC and clang share) alike: the includer defines
 * GUAC_WORD (u32, or a vector of u32 lanes) and every operation below is
 * lane-wise, so the same code gives the portable implementation and the
 * multi-block SIMD ones.
 */
#ifndef GUACRNG_CORE_ROUND_H
#define GUACRNG_CORE_ROUND_H

#define GUAC_C0 0x61707865U
#define GUAC_C1 0x3320646eU
#define GUAC_C2 0x79622d32U
#define GUAC_C3 0x6b206574U

#define GUAC_DOUBLE_ROUNDS 4

static inline GUAC_WORD guac_rotl(GUAC_WORD v, int n)
{
	return (v << n) | (v >> (32 - n));
}

/* Not Salsa20's quarter round: each sum uses the two words ahead of it. */
static inline void guac_quarter_round(GUAC_WORD *x, int a, int b, int c, int d)
{
	x[b] ^= guac_rotl(x[c] + x[d], 7);
	x[c] ^= guac_rotl(x[d] + x[a], 9);
	x[d] ^= guac_rotl(x[a] + x[b], 13);
	x[a] ^= guac_rotl(x[b] + x[c], 18);
}

static inline void guac_double_round(GUAC_WORD *x)
{
	guac_quarter_round(x, 0, 4, 8, 12);
	guac_quarter_round(x, 5, 9, 13, 1);
	guac_quarter_round(x, 10, 14, 2, 6);
	guac_quarter_round(x, 15, 3, 7, 11);
	guac_quarter_round(x, 0, 1, 2, 3);
	guac_quarter_round(x, 5, 6, 7, 4);
	guac_quarter_round(x, 10, 11, 8, 9);
	guac_quarter_round(x, 15, 12, 13, 14);
}

#endif /* GUACRNG_CORE_ROUND_H */
