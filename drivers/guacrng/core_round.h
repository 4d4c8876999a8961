/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The guacamole block function, written once for scalars and for GCC vector
 * types alike: every operation here is lane-wise, so the same macros give the
 * portable implementation and the multi-block SIMD ones.
 */
#ifndef GUACRNG_CORE_ROUND_H
#define GUACRNG_CORE_ROUND_H

#define GUAC_C0 0x61707865U
#define GUAC_C1 0x3320646eU
#define GUAC_C2 0x79622d32U
#define GUAC_C3 0x6b206574U

#define GUAC_ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

/* Not Salsa20's quarter round: each sum uses the two words ahead of it. */
#define GUAC_QR(x, a, b, c, d) do {					\
	(x)[b] ^= GUAC_ROTL((x)[c] + (x)[d], 7);			\
	(x)[c] ^= GUAC_ROTL((x)[d] + (x)[a], 9);			\
	(x)[d] ^= GUAC_ROTL((x)[a] + (x)[b], 13);			\
	(x)[a] ^= GUAC_ROTL((x)[b] + (x)[c], 18);			\
} while (0)

#define GUAC_DOUBLE_ROUND(x) do {					\
	GUAC_QR(x, 0, 4, 8, 12);					\
	GUAC_QR(x, 5, 9, 13, 1);					\
	GUAC_QR(x, 10, 14, 2, 6);					\
	GUAC_QR(x, 15, 3, 7, 11);					\
	GUAC_QR(x, 0, 1, 2, 3);						\
	GUAC_QR(x, 5, 6, 7, 4);						\
	GUAC_QR(x, 10, 11, 8, 9);					\
	GUAC_QR(x, 15, 12, 13, 14);					\
} while (0)

#define GUAC_DOUBLE_ROUNDS 4

/*
 * Output word order: word k of the block is state word GUAC_OUT(k). Grouped
 * in fours, this is what the SIMD transposes gather into each 16-byte row.
 */
#define GUAC_OUT_ORDER 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11, 0, 5, 10, 15

#endif /* GUACRNG_CORE_ROUND_H */
