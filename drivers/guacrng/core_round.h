/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The guacamole block function, written once for scalars and vector types
 * (the vector_size extension GCC and clang share) alike: the includer defines
 * GUAC_WORD (u32, or a vector of u32 lanes) and every operation below is
 * lane-wise, so the same code gives the portable implementation and the
 * multi-block SIMD ones.
 *
 * The rounds work on @n independent states at once (1 or 2, a constant once
 * inlined), one step of each in turn, so that a SIMD implementation can keep
 * two groups of blocks in flight: while one group waits on a rotate, the
 * other has work for the execution ports (docs/cost-model.md).
 */
#ifndef GUACRNG_CORE_ROUND_H
#define GUACRNG_CORE_ROUND_H

/*
 * The kernel and glibc (<sys/cdefs.h>) define __always_inline; with another
 * libc it is plain inline, which compilers may decline: correct, but slower.
 */
#ifndef __always_inline
#define __always_inline inline
#endif

#define GUAC_C0 0x61707865U
#define GUAC_C1 0x3320646eU
#define GUAC_C2 0x79622d32U
#define GUAC_C3 0x6b206574U

#define GUAC_DOUBLE_ROUNDS 4

/* The most states guac_double_round() takes at once. */
#define GUAC_MAX_STATES 2

static __always_inline GUAC_WORD guac_rotl(GUAC_WORD v, int n)
{
	return (v << n) | (v >> (32 - n));
}

/* x[w] ^= (x[s] + x[t]) <<< r in each of the @n states. */
static __always_inline void guac_mix(GUAC_WORD (*x)[16], int n, int w, int s,
				     int t, int r)
{
	x[0][w] ^= guac_rotl(x[0][s] + x[0][t], r);
	if (n > 1)
		x[1][w] ^= guac_rotl(x[1][s] + x[1][t], r);
}

/* Not Salsa20's quarter round: each sum uses the two words ahead of it. */
static __always_inline void guac_quarter_round(GUAC_WORD (*x)[16], int n,
					       int a, int b, int c, int d)
{
	guac_mix(x, n, b, c, d, 7);
	guac_mix(x, n, c, d, a, 9);
	guac_mix(x, n, d, a, b, 13);
	guac_mix(x, n, a, b, c, 18);
}

static __always_inline void guac_double_round(GUAC_WORD (*x)[16], int n)
{
	guac_quarter_round(x, n, 0, 4, 8, 12);
	guac_quarter_round(x, n, 5, 9, 13, 1);
	guac_quarter_round(x, n, 10, 14, 2, 6);
	guac_quarter_round(x, n, 15, 3, 7, 11);
	guac_quarter_round(x, n, 0, 1, 2, 3);
	guac_quarter_round(x, n, 5, 6, 7, 4);
	guac_quarter_round(x, n, 10, 11, 8, 9);
	guac_quarter_round(x, n, 15, 12, 13, 14);
}

#endif /* GUACRNG_CORE_ROUND_H */
