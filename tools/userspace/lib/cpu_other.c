// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CPU feature detection where the core has no SIMD implementation: none,
 * and the portable implementation needs nothing.
 */
#include "libguac.h"

const unsigned int guac_impl_needs[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = 0,
};

unsigned int guac_cpu_detect(void)
{
	return 0;
}
