// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64's part of choosing and running an implementation (simd_arch.h):
 * SSE2, AVX2 and AVX-512 as the CPU and the kernel's saved FPU state allow,
 * kernel_fpu_begin() and kernel_fpu_end() around each section, and AVX2 by
 * default where 512-bit code lowers the clock.
 */
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/processor.h>
#include <uapi/linux/guacrng.h>
#include "guacrng.h"
#include "simd_arch.h"

static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_sse2);
static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_avx2);
static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_avx512);

u32 guac_arch_detect_features(void)
{
	u32 features = 0;

	if (boot_cpu_has(X86_FEATURE_XMM2))
		features |= GUAC_FEAT_SSE2;
	if (boot_cpu_has(X86_FEATURE_AVX) && boot_cpu_has(X86_FEATURE_AVX2) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		features |= GUAC_FEAT_AVX2;
	if (boot_cpu_has(X86_FEATURE_AVX512F) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
			      XFEATURE_MASK_AVX512, NULL))
		features |= GUAC_FEAT_AVX512;
	if (boot_cpu_has(X86_FEATURE_RDRAND))
		features |= GUAC_FEAT_RDRAND;
	if (boot_cpu_has(X86_FEATURE_RDSEED))
		features |= GUAC_FEAT_RDSEED;
	return features;
}

const u32 guac_arch_impl_needs[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = 0,
	[GUAC_IMPL_SSE2] = GUAC_FEAT_SSE2,
	[GUAC_IMPL_AVX2] = GUAC_FEAT_SSE2 | GUAC_FEAT_AVX2,
	[GUAC_IMPL_AVX512] = GUAC_FEAT_SSE2 | GUAC_FEAT_AVX2 | GUAC_FEAT_AVX512,
};

const u32 guac_arch_impl_ids[GUAC_IMPL_COUNT] = {
	[GUAC_IMPL_GENERIC] = GUAC_IMPL_ID_GENERIC,
	[GUAC_IMPL_SSE2] = GUAC_IMPL_ID_SSE2,
	[GUAC_IMPL_AVX2] = GUAC_IMPL_ID_AVX2,
	[GUAC_IMPL_AVX512] = GUAC_IMPL_ID_AVX512,
};

void guac_arch_impl_enable(enum guac_impl impl)
{
	if (impl >= GUAC_IMPL_SSE2)
		static_branch_enable(&guac_use_sse2);
	if (impl >= GUAC_IMPL_AVX2)
		static_branch_enable(&guac_use_avx2);
	if (impl >= GUAC_IMPL_AVX512)
		static_branch_enable(&guac_use_avx512);
}

enum guac_impl guac_impl_active(void)
{
	if (static_branch_likely(&guac_use_avx512))
		return GUAC_IMPL_AVX512;
	if (static_branch_likely(&guac_use_avx2))
		return GUAC_IMPL_AVX2;
	if (static_branch_likely(&guac_use_sse2))
		return GUAC_IMPL_SSE2;
	return GUAC_IMPL_GENERIC;
}

void guac_simd_begin(struct guac_simd_state *state)
{
	kernel_fpu_begin();
}

void guac_simd_end(struct guac_simd_state *state)
{
	kernel_fpu_end();
}

/*
 * CPUs whose clock drops while 512-bit instructions run, by Intel family 6
 * model: the zmm_exclusion_list of arch/x86/crypto/aesni-intel_glue.c (6.12).
 * There, the AVX-512 code runs slower than AVX2 once the drop is counted, and
 * it slows everything else on the core too. Rocket Lake and later, Sapphire
 * Rapids and later, and AMD's Zen 4 and later run it at full speed.
 */
static const u8 guac_zmm_downclock_models[] = {
	0x55,	/* Skylake-X, Cascade Lake, Cooper Lake */
	0x6a,	/* Ice Lake-X */
	0x6c,	/* Ice Lake-D */
	0x7d,	/* Ice Lake */
	0x7e,	/* Ice Lake-L */
	0x9d,	/* Ice Lake NNPI */
	0x8c,	/* Tiger Lake-L */
	0x8d,	/* Tiger Lake */
};

bool guac_zmm_downclocks(u8 vendor, u8 family, u8 model)
{
	size_t i;

	if (vendor != X86_VENDOR_INTEL || family != 6)
		return false;
	for (i = 0; i < ARRAY_SIZE(guac_zmm_downclock_models); i++)
		if (model == guac_zmm_downclock_models[i])
			return true;
	return false;
}

/* AVX2, not AVX-512, where 512-bit code lowers the clock. */
enum guac_impl guac_arch_impl_auto(enum guac_impl usable, char *reason,
				   size_t size)
{
	if (usable == GUAC_IMPL_AVX512 &&
	    guac_zmm_downclocks(boot_cpu_data.x86_vendor, boot_cpu_data.x86,
				boot_cpu_data.x86_model)) {
		snprintf(reason, size,
			 "auto: avx512 lowers the clock of this CPU (family 6 model %#x); impl=avx512 forces it",
			 boot_cpu_data.x86_model);
		return GUAC_IMPL_AVX2;
	}
	return usable;
}
