// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's part of choosing and running an implementation (simd_arch.h):
 * NEON (AdvSIMD) where the CPU has it and the kernel lets modules use it,
 * kernel_neon_begin() and kernel_neon_end() around each section (compat.h
 * has their three generations), and the widest usable by default.
 */
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <asm/cpufeature.h>
#include <uapi/linux/guacrng.h>
#include "guacrng.h"
#include "simd_arch.h"

static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_neon);

/*
 * NEON from the kernel's system-wide view: every CPU has FP/AdvSIMD
 * (system_supports_fpsimd(), which kernel_neon_begin() insists on) and says
 * so in its hwcaps. FEAT_RNG (RNDR, RNDRRS) counts only when every CPU has
 * it, as the kernel's hwcaps do.
 */
u32 guac_arch_detect_features(void)
{
	u32 features = 0;

	if (system_supports_fpsimd() && cpu_have_named_feature(ASIMD))
		features |= GUAC_FEAT_NEON;
	if (cpu_have_named_feature(RNG))
		features |= GUAC_FEAT_RNDR;
	return features;
}

const u32 guac_arch_impl_needs[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = 0,
	[GUAC_IMPL_NEON] = GUAC_FEAT_NEON,
};

const u32 guac_arch_impl_ids[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = GUAC_IMPL_ID_GENERIC,
	[GUAC_IMPL_NEON] = GUAC_IMPL_ID_NEON,
};

void guac_arch_impl_enable(enum guac_impl impl)
{
	if (impl >= GUAC_IMPL_NEON)
		static_branch_enable(&guac_use_neon);
}

enum guac_impl guac_impl_active(void)
{
	if (static_branch_likely(&guac_use_neon))
		return GUAC_IMPL_NEON;
	return GUAC_IMPL_GENERIC;
}

void guac_simd_begin(struct guac_simd_state *state)
{
	guac_kernel_neon_begin(&state->neon);
}

void guac_simd_end(struct guac_simd_state *state)
{
	guac_kernel_neon_end(&state->neon);
}

/* No clock penalty to avoid: the widest usable. */
enum guac_impl guac_arch_impl_auto(enum guac_impl usable, char *reason,
				   size_t size)
{
	return usable;
}
