// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guacamole, 4 blocks per step with SSE2; built with SIMD code generation. */
#define GUAC_LANES 4
#define GUAC_STEPS_FN guac_steps_sse2
#define GUAC_HEAD_STEPS_FN guac_head_steps_sse2
#include "core_simd.h"
