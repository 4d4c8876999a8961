// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing and running an implementation in the kernel.
 *
 * The CPU's features, the impl= parameter and the self-tests decide once, at
 * load, which implementation serves reads; static keys then make that choice
 * free on every read. SIMD code only runs inside an FPU (x86) or NEON (arm64)
 * section, in sections of at most GUAC_FPU_CHUNK bytes so that preemption is
 * never held off for long, and never around anything that can fault or
 * sleep: callers generate into kernel memory and copy out afterwards. This
 * file is the same on every architecture; simd_x86.c and simd_arm64.c
 * (simd_arch.h) have what differs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <asm/simd.h>
#include "guacrng.h"
#include "simd_arch.h"
#include "testing.h"

/* Below this, saving the FPU state costs more than SIMD saves. */
#define GUAC_SIMD_MIN_BYTES 256

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

u32 guac_impl_id(enum guac_impl impl)
{
	return guac_arch_impl_ids[impl];
}

/*
 * Each implementation hands its remainder to the next narrower one, so it
 * needs their features too (guac_arch_impl_needs[] has them all).
 */
bool guac_impl_supported(enum guac_impl impl)
{
	u32 needs;

	if ((unsigned int)impl >= GUAC_IMPL_COUNT)
		return false;
	needs = guac_arch_impl_needs[impl];
	return (guac_features & needs) == needs;
}

bool guac_generate_impl(enum guac_impl impl, u8 *buf, u64 block,
			unsigned int skip, size_t len)
{
	/* Written by each section's begin before anything reads it. */
	struct guac_simd_state state guac_uninitialized;

	if (impl == GUAC_IMPL_GENERIC) {
		guac_fill(GUAC_IMPL_GENERIC, buf, block, skip, len);
		return true;
	}
	if (!may_use_simd())
		return false;

	while (len) {
		size_t chunk = min_t(size_t, len, GUAC_FPU_CHUNK);

		guac_simd_begin(&state);
		guac_fill(impl, buf, block, skip, chunk);
		guac_simd_end(&state);

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

/* "auto, avx512, avx2, sse2, generic": what impl= takes on this architecture. */
static void guac_impl_choices(char *buf, size_t size)
{
	int impl, len = scnprintf(buf, size, "auto");

	for (impl = GUAC_IMPL_COUNT - 1; impl >= 0; impl--)
		len += scnprintf(buf + len, size - len, ", %s",
				 guac_impl_names[impl]);
}

/*
 * impl=auto: the widest usable implementation, unless the architecture's
 * policy says otherwise for this CPU (x86: AVX2 where 512-bit code lowers
 * the clock). Records why in guac_reason.
 */
static enum guac_impl guac_impl_auto(int usable, bool all_passed)
{
	enum guac_impl impl = guac_arch_impl_auto(usable, guac_reason,
						  sizeof(guac_reason));

	if (impl != usable)
		return impl;
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
		char choices[64];

		guac_impl_choices(choices, sizeof(choices));
		pr_err("impl=%s: unknown implementation (%s)\n", impl_param,
		       choices);
		return -EINVAL;
	}

	guac_features = guac_arch_detect_features();
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

	guac_arch_impl_enable(requested);
	pr_info("implementation %s: %s\n", guac_impl_names[requested],
		guac_reason);
	return guac_test_init_fault("simd");
}
