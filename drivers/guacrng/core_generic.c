// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Portable guacamole implementation: one block at a time, no SIMD, correct on
 * any architecture and endianness. The reference every other path must match,
 * and the path the kernel uses where the FPU is not usable.
 */
#include <guacrng/core.h>

#define GUAC_WORD u32
#include "core_round.h"

/* Word k of a block's output is state word guac_out_order[k]. */
static const unsigned char guac_out_order[16] = {
	4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11, 0, 5, 10, 15
};

static void guac_put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static void guac_block_generic(u8 *out, u64 block)
{
	u32 start[16] = {
		[0] = GUAC_C0, [5] = GUAC_C1, [10] = GUAC_C2, [15] = GUAC_C3,
		[6] = (u32)block, [7] = (u32)(block >> 32),
	};
	u32 x[1][16];
	int i;

	for (i = 0; i < 16; i++)
		x[0][i] = start[i];
	for (i = 0; i < GUAC_DOUBLE_ROUNDS; i++)
		guac_double_round(x, 1);
	for (i = 0; i < 16; i++) {
		int w = guac_out_order[i];

		guac_put_le32(out + 4 * i, x[0][w] + start[w]);
	}
}

void guac_blocks_generic(u8 *out, u64 block, size_t nblocks)
{
	while (nblocks--) {
		guac_block_generic(out, block++);
		out += GUAC_BLOCK_SIZE;
	}
}

#ifndef __KERNEL__	/* heads: guac verify's diagnosis only (core.h) */
void guac_heads_generic(u64 *heads, u64 block, u64 stride, size_t n)
{
	u8 out[GUAC_BLOCK_SIZE];
	int b;

	for (; n--; block += stride) {
		guac_block_generic(out, block);
		*heads = 0;
		for (b = 7; b >= 0; b--)
			*heads = *heads << 8 | out[b];
		heads++;
	}
}
#endif
