// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A seeded permutation of block indices for random-pattern passes
 * (permutation.h says why a Feistel network with cycle walking).
 */
#include "permutation.h"

/* SplitMix64's finaliser: a cheap 64-bit mixer with full avalanche. */
static uint64_t perm_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void guac_permutation_init(struct guac_permutation *p, uint64_t n, uint64_t seed)
{
	unsigned int bits = 1, i;

	/* The smallest half width h with 2^(2h) >= n (n up to 2^64 - 1: h up to 32). */
	while (bits < 32 && (n - 1) >> (2 * bits))
		bits++;
	p->n = n;
	p->half_bits = bits;
	p->half_mask = bits == 32 ? 0xffffffffULL : (1ULL << bits) - 1;
	for (i = 0; i < GUAC_PERMUTATION_ROUNDS; i++) {
		seed += 0x9e3779b97f4a7c15ULL;	/* SplitMix64's sequence */
		p->key[i] = perm_mix(seed);
	}
}

uint64_t guac_permutation_pass_seed(uint64_t seed, unsigned int pass)
{
	return perm_mix(seed ^ perm_mix(0xd1b54a32d192ed03ULL * ((uint64_t)pass + 1)));
}

static uint64_t perm_round(const struct guac_permutation *p, unsigned int i, uint64_t half)
{
	return perm_mix(half ^ p->key[i]) & p->half_mask;
}

/* One pass of the network over the power-of-two domain, and its inverse. */
static uint64_t perm_forward(const struct guac_permutation *p, uint64_t x)
{
	uint64_t left = x >> p->half_bits, right = x & p->half_mask, next;
	unsigned int i;

	for (i = 0; i < GUAC_PERMUTATION_ROUNDS; i++) {
		next = left ^ perm_round(p, i, right);
		left = right;
		right = next;
	}
	return left << p->half_bits | right;
}

static uint64_t perm_backward(const struct guac_permutation *p, uint64_t x)
{
	uint64_t left = x >> p->half_bits, right = x & p->half_mask, prev;
	unsigned int i = GUAC_PERMUTATION_ROUNDS;

	while (i--) {
		prev = right ^ perm_round(p, i, left);
		right = left;
		left = prev;
	}
	return left << p->half_bits | right;
}

uint64_t guac_permute(const struct guac_permutation *p, uint64_t step)
{
	uint64_t x = perm_forward(p, step);

	while (x >= p->n)
		x = perm_forward(p, x);
	return x;
}

uint64_t guac_unpermute(const struct guac_permutation *p, uint64_t block)
{
	uint64_t x = perm_backward(p, block);

	while (x >= p->n)
		x = perm_backward(p, x);
	return x;
}
