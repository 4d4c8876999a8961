// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing and running an implementation in the kernel.
 *
 * The CPU's features, the impl= parameter and the self-tests decide once, at
 * load, which implementation serves reads; static keys then make that choice
 * free on every read. SIMD code only runs inside kernel_fpu_begin() and
 * kernel_fpu_end(), in sections of at most GUAC_FPU_CHUNK bytes so that
 * preemption is never held off for long, and never around anything that can
 * fault or sleep: callers generate into kernel memory and copy out afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/simd.h>
#include <uapi/linux/guacrng.h>
#include "guacrng.h"

/* Below this, saving the FPU state costs more than SIMD saves. */
#define GUAC_SIMD_MIN_BYTES 256

static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_sse2);
static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_avx2);
static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_avx512);

static u32 guac_features __ro_after_init;

u32 guac_cpu_features(void)
{
	return guac_features;
}

static u32 guac_detect_features(void)
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

/*
 * Each implementation hands its remainder to the next narrower one, so it
 * needs their features too.
 */
bool guac_impl_supported(enum guac_impl impl)
{
	static const u32 needs[GUAC_IMPL_COUNT] = {
		[GUAC_IMPL_GENERIC] = 0,
		[GUAC_IMPL_SSE2] = GUAC_FEAT_SSE2,
		[GUAC_IMPL_AVX2] = GUAC_FEAT_SSE2 | GUAC_FEAT_AVX2,
		[GUAC_IMPL_AVX512] = GUAC_FEAT_SSE2 | GUAC_FEAT_AVX2 |
				     GUAC_FEAT_AVX512,
	};

	if ((unsigned int)impl >= GUAC_IMPL_COUNT)
		return false;
	return (guac_features & needs[impl]) == needs[impl];
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

bool guac_generate_impl(enum guac_impl impl, u8 *buf, u64 block,
			unsigned int skip, size_t len)
{
	if (impl == GUAC_IMPL_GENERIC) {
		guac_fill(GUAC_IMPL_GENERIC, buf, block, skip, len);
		return true;
	}
	if (!may_use_simd())
		return false;

	while (len) {
		size_t chunk = min_t(size_t, len, GUAC_FPU_CHUNK);

		kernel_fpu_begin();
		guac_fill(impl, buf, block, skip, chunk);
		kernel_fpu_end();

		guac_pos_advance(&block, &skip, chunk);
		buf += chunk;
		len -= chunk;
	}
	return true;
}

void guac_generate(u8 *buf, u64 block, unsigned int skip, size_t len)
{
	enum guac_impl impl = guac_impl_active();

	if (impl != GUAC_IMPL_GENERIC && len >= GUAC_SIMD_MIN_BYTES &&
	    guac_generate_impl(impl, buf, block, skip, len))
		return;
	guac_fill(GUAC_IMPL_GENERIC, buf, block, skip, len);
}

static int guac_impl_lookup(const char *name)
{
	int impl;

	if (!strcmp(name, "auto"))
		return GUAC_IMPL_COUNT;
	for (impl = 0; impl < GUAC_IMPL_COUNT; impl++)
		if (!strcmp(name, guac_impl_names[impl]))
			return impl;
	return -EINVAL;
}

/*
 * Detect, self-test every supported implementation, then apply impl=. An
 * implementation is usable when it and every narrower one passed; a failing
 * portable implementation refuses the load.
 */
int guac_simd_init(const char *impl_param)
{
	int requested = guac_impl_lookup(impl_param);
	int impl, usable = -1;
	bool all_passed = true;

	if (requested < 0) {
		pr_err("impl=%s: unknown implementation (auto, avx512, avx2, sse2, generic)\n",
		       impl_param);
		return -EINVAL;
	}

	guac_features = guac_detect_features();
	for (impl = GUAC_IMPL_GENERIC; impl < GUAC_IMPL_COUNT; impl++) {
		if (!guac_impl_supported(impl))
			break;
		if (!guac_selftest_impl(impl)) {
			pr_err("%s self-test failed: implementation disabled\n",
			       guac_impl_names[impl]);
			all_passed = false;
			break;
		}
		usable = impl;
	}
	if (usable < 0) {
		pr_err("generic self-test failed: refusing to load\n");
		return -ENOTRECOVERABLE;
	}
	if (all_passed)
		pr_info("core self-tests: pass\n");

	if (requested == GUAC_IMPL_COUNT) {
		requested = usable;
	} else if (requested > usable) {
		pr_err("impl=%s: %s on this CPU\n", impl_param,
		       guac_impl_supported(requested) ? "failed its self-test" :
							"not supported");
		return -ENODEV;
	}

	if (requested >= GUAC_IMPL_SSE2)
		static_branch_enable(&guac_use_sse2);
	if (requested >= GUAC_IMPL_AVX2)
		static_branch_enable(&guac_use_avx2);
	if (requested >= GUAC_IMPL_AVX512)
		static_branch_enable(&guac_use_avx512);
	return 0;
}
