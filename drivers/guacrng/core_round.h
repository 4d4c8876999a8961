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
 *
 * Every word index below must be a compile-time constant once inlined, or
 * the state leaves the registers: no loops over words, only written-out calls
 * and reads of static const tables at constant positions.
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

/* An includer with a better rotate for its vectors defines GUAC_HAVE_ROTL. */
#ifndef GUAC_HAVE_ROTL
static __always_inline GUAC_WORD guac_rotl(GUAC_WORD v, int n)
{
	return (v << n) | (v >> (32 - n));
}
#endif

/* x[w] ^= (x[s] + x[t]) <<< r in each of the @n states. */
static __always_inline void guac_mix(GUAC_WORD (*x)[16], int n, int w, int s,
				     int t, int r)
{
	x[0][w] ^= guac_rotl(x[0][s] + x[0][t], r);
	if (n > 1)
		x[1][w] ^= guac_rotl(x[1][s] + x[1][t], r);
}

/*
 * A quarter round on words (a, b, c, d) is four steps, each sum using the two
 * words ahead of the one it changes (not Salsa20's order):
 *   b ^= (c + d) <<< 7, c ^= (d + a) <<< 9, d ^= (a + b) <<< 13,
 *   a ^= (b + c) <<< 18.
 * The four quarter rounds of a half round touch disjoint words, so they are
 * written step by step across all four: here step @k of each quarter round
 * in @q, which changes word (k + 1) & 3 of it. Four independent chains then
 * sit side by side in the instruction stream, where the scheduler finds them
 * at once; one quarter round after another made it look past the dependent
 * steps of one (docs/cost-model.md: 6% faster on Zen 4 with AVX2).
 */
static __always_inline void guac_mix4(GUAC_WORD (*x)[16], int n,
				      const int q[4][4], int k, int r)
{
	const int w = (k + 1) & 3, s = (k + 2) & 3, t = (k + 3) & 3;

	/* Written out: the indices must be constants once inlined. */
	guac_mix(x, n, q[0][w], q[0][s], q[0][t], r);
	guac_mix(x, n, q[1][w], q[1][s], q[1][t], r);
	guac_mix(x, n, q[2][w], q[2][s], q[2][t], r);
	guac_mix(x, n, q[3][w], q[3][s], q[3][t], r);
}

/* The four quarter rounds @q (each as a, b, c, d) of a half round. */
static __always_inline void guac_half_round(GUAC_WORD (*x)[16], int n,
					    const int q[4][4])
{
	guac_mix4(x, n, q, 0, 7);
	guac_mix4(x, n, q, 1, 9);
	guac_mix4(x, n, q, 2, 13);
	guac_mix4(x, n, q, 3, 18);
}

static __always_inline void guac_double_round(GUAC_WORD (*x)[16], int n)
{
	static const int columns[4][4] = {
		{ 0, 4, 8, 12 }, { 5, 9, 13, 1 }, { 10, 14, 2, 6 }, { 15, 3, 7, 11 },
	};
	static const int rows[4][4] = {
		{ 0, 1, 2, 3 }, { 5, 6, 7, 4 }, { 10, 11, 8, 9 }, { 15, 12, 13, 14 },
	};

	guac_half_round(x, n, columns);
	guac_half_round(x, n, rows);
}

#endif /* GUACRNG_CORE_ROUND_H */
