// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guacamole, 8 blocks per step with AVX2; built with SIMD code generation. */
#define GUAC_LANES 8
#define GUAC_STEPS_FN guac_steps_avx2
#define GUAC_HEAD_STEPS_FN guac_head_steps_avx2
#include "core_simd.h"
