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
#include <asm/processor.h>
#include <asm/simd.h>
#include <uapi/linux/guacrng.h>
#include "guacrng.h"
#include "testing.h"

/* Below this, saving the FPU state costs more than SIMD saves. */
#define GUAC_SIMD_MIN_BYTES 256

static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_sse2);
static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_avx2);
static __ro_after_init DEFINE_STATIC_KEY_FALSE(guac_use_avx512);

static u32 guac_features __ro_after_init;
static char guac_reason[96] __ro_after_init;

const char *guac_impl_reason(void)
{
	return guac_reason;
}

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
 * impl=auto: the widest usable implementation, but AVX2 where 512-bit code
 * lowers the clock. Records why in guac_reason.
 */
static enum guac_impl guac_impl_auto(int usable, bool all_passed)
{
	if (usable == GUAC_IMPL_AVX512 &&
	    guac_zmm_downclocks(boot_cpu_data.x86_vendor, boot_cpu_data.x86,
				boot_cpu_data.x86_model)) {
		snprintf(guac_reason, sizeof(guac_reason),
			 "auto: avx512 lowers the clock of this CPU (family 6 model %#x); impl=avx512 forces it",
			 boot_cpu_data.x86_model);
		return GUAC_IMPL_AVX2;
	}
	if (all_passed)
		strscpy(guac_reason, "auto: the widest this CPU supports",
			sizeof(guac_reason));
	else
		snprintf(guac_reason, sizeof(guac_reason),
			 "auto: %s failed its self-test", guac_impl_names[usable + 1]);
	return usable;
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
		requested = guac_impl_auto(usable, all_passed);
	} else if (requested <= usable) {
		snprintf(guac_reason, sizeof(guac_reason), "impl=%s", impl_param);
	} else {
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
	pr_info("implementation %s: %s\n", guac_impl_names[requested],
		guac_reason);
	return guac_test_init_fault("simd");
}
