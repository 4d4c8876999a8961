// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guacamole, 4 blocks per step with NEON (AdvSIMD, 128-bit); built with SIMD
 * code generation. 128 bits is also the most the kernel saves across a
 * kernel-mode SIMD section: no SVE here.
 */
#define GUAC_LANES 4
#define GUAC_STEPS_FN guac_steps_neon
#define GUAC_HEAD_STEPS_FN guac_head_steps_neon
#include "core_simd.h"
