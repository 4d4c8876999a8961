// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guacamole, 16 blocks per step with AVX512; built with SIMD code generation. */
#define GUAC_LANES 16
#define GUAC_STEPS_FN guac_steps_avx512
#define GUAC_HEAD_STEPS_FN guac_head_steps_avx512
#include "core_simd.h"
