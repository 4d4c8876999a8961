/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The order of a random-pattern pass: a seeded bijection of block indices
 * [0, n), so that a pass writes every block exactly once in an order that
 * looks random to the device, while the program keeps O(1) memory and can
 * say in O(1), for any block, at which step of the pass it is written (and
 * so what it must hold after any step), without replaying the pass.
 *
 * A balanced Feistel network over the smallest even number of bits that
 * covers n is a bijection of that power-of-two domain whatever its round
 * function; indices that fall outside [0, n) are mapped again until they
 * land inside (cycle walking), which keeps the bijection on [0, n). The
 * domain is under 4n, so a step walks fewer than four times on average.
 *
 * The order is part of what a manifest records (seed and pattern): changing
 * the round function or the key schedule changes every recorded random
 * fill's expected content, so tests pin it.
 */
#ifndef GUAC_PERMUTATION_H
#define GUAC_PERMUTATION_H

#include <stdint.h>

/* Six rounds: four make a Feistel network a pseudo-random permutation; small domains want more. */
#define GUAC_PERMUTATION_ROUNDS 6

struct guac_permutation {
	uint64_t n;			/* the indices permuted: [0, n) */
	unsigned int half_bits;		/* each Feistel half's width */
	uint64_t half_mask;
	uint64_t key[GUAC_PERMUTATION_ROUNDS];
};

/* The permutation of [0, @n) that @seed names (@n >= 1). */
void guac_permutation_init(struct guac_permutation *p, uint64_t n, uint64_t seed);

/*
 * The seed of pass @pass of a random fill seeded @seed: mixed, since seeds
 * one apart would share all but one round key (the init's key schedule).
 */
uint64_t guac_permutation_pass_seed(uint64_t seed, unsigned int pass);

/* The block written at step @step (< n) of the pass. */
uint64_t guac_permute(const struct guac_permutation *p, uint64_t step);

/* The step of the pass at which block @block (< n) is written: guac_permute's inverse. */
uint64_t guac_unpermute(const struct guac_permutation *p, uint64_t block);

#endif
