// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the guacamole core as the module runs it. Every implementation the
 * CPU supports must give the published vectors and the portable
 * implementation's bytes for any (block, skip, length), including runs that
 * span several FPU sections and the 2^64 block wrap; where the FPU is not
 * usable the SIMD paths must refuse and guac_generate() must fall back.
 */
#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/string.h>
#include <asm/processor.h>
#include <asm/simd.h>
#include <guacrng/vectors.h>
#include "../../drivers/guacrng/guacrng.h"
#include "../../drivers/guacrng/simd_arch.h"

/* Long enough for three FPU sections and a partial fourth. */
#define CORE_TEST_MAX_LEN (3 * GUAC_FPU_CHUNK + 200)
#define CORE_TEST_RANDOM_RUNS 200

/* The narrowest SIMD implementation: x86-64's SSE2, arm64's NEON. */
#define CORE_FIRST_SIMD (GUAC_IMPL_GENERIC + 1)

/*
 * Whether SIMD is usable in a hardirq that did not interrupt a section with
 * softirqs disabled: x86 lends the FPU there (irq_fpu_usable()), arm64's
 * may_use_simd() is false in every hardirq.
 */
#ifdef CONFIG_X86_64
#define CORE_SIMD_IN_HARDIRQ true
#else
#define CORE_SIMD_IN_HARDIRQ false
#endif

static void core_test_require_simd(struct kunit *test)
{
	if (!guac_impl_supported(CORE_FIRST_SIMD))
		kunit_skip(test, "CPU has no SIMD implementation");
}

/* Each implementation, at the vector's block, alone and mid-run. */
static void core_test_vectors(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, 40 * GUAC_BLOCK_SIZE, GFP_KERNEL);
	enum guac_impl impl;
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (impl = GUAC_IMPL_GENERIC; impl < GUAC_IMPL_COUNT; impl++) {
		if (!guac_impl_supported(impl))
			continue;
		for (i = 0; i < ARRAY_SIZE(guac_vectors); i++) {
			const struct guac_vector *v = &guac_vectors[i];

			KUNIT_ASSERT_TRUE(test, guac_generate_impl(impl, buf, v->block, 0,
								   v->len));
			KUNIT_EXPECT_MEMEQ_MSG(test, buf, v->bytes, v->len,
					       "%s, vector %zu alone",
					       guac_impl_names[impl], i);

			/* Block v->block sits at index 21 of a 40-block run. */
			KUNIT_ASSERT_TRUE(test, guac_generate_impl(impl, buf, v->block - 21, 0,
								   40 * GUAC_BLOCK_SIZE));
			KUNIT_EXPECT_MEMEQ_MSG(test, buf + 21 * GUAC_BLOCK_SIZE, v->bytes,
					       v->len, "%s, vector %zu in a run",
					       guac_impl_names[impl], i);
		}
	}
}

/* guac_generate() with whatever implementation is active. */
static void core_test_active_vectors(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, GUAC_FPU_CHUNK + GUAC_BLOCK_SIZE, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(guac_vectors); i++) {
		const struct guac_vector *v = &guac_vectors[i];

		/* Short and long enough to take the SIMD path. */
		guac_generate(buf, v->block, 0, v->len);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, v->bytes, v->len, "short, vector %zu", i);
		guac_generate(buf, v->block - 1, 0, GUAC_FPU_CHUNK + GUAC_BLOCK_SIZE);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf + GUAC_BLOCK_SIZE, v->bytes, v->len,
				       "long, vector %zu", i);
	}
}

/*
 * guac_generate(), the path every read takes, with the active
 * implementation against the portable one at odd offsets: skips that are not
 * multiples of anything, lengths that are not multiples of 64 and long enough
 * for the SIMD path (several FPU sections, too), around 1000 MiB and across
 * the 2^64 block wrap. Loaded with impl=X, the active implementation must be
 * X: with impl=avx512 on a CPU that has it (the Bochs suite, make
 * check-avx512) this is AVX-512 code run by the kernel, checked byte for byte.
 */
static void core_test_active_odd_offsets(struct kunit *test)
{
	static const struct {
		u64 block;
		unsigned int skip;
		size_t len;
	} runs[] = {
		{ (1000ULL << 20) / GUAC_BLOCK_SIZE, 13, 1000 },
		{ (1000ULL << 20) / GUAC_BLOCK_SIZE, 13, 3 * GUAC_FPU_CHUNK + 77 },
		{ 12345, 1, 257 },
		{ 12345, 63, GUAC_FPU_CHUNK + 1 },
		{ 0x0123456789abcdefULL, 31, 2 * GUAC_FPU_CHUNK - 3 },
		{ U64_MAX - 5, 7, 1001 },
		{ U64_MAX, 61, GUAC_FPU_CHUNK + 333 },
	};
	enum guac_impl active = guac_impl_active();
	const char *reason = guac_impl_reason();
	u8 *buf = kunit_kmalloc(test, CORE_TEST_MAX_LEN + 1, GFP_KERNEL);
	u8 *ref = kunit_kmalloc(test, CORE_TEST_MAX_LEN, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	kunit_info(test, "active implementation %s (%s)\n", guac_impl_names[active], reason);
	if (!strncmp(reason, "impl=", 5))
		KUNIT_EXPECT_STREQ_MSG(test, guac_impl_names[active], reason + 5,
				       "forced with %s, but %s is active", reason,
				       guac_impl_names[active]);

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		size_t len = runs[i].len;

		memset(buf, 0xa5, len + 1);
		guac_fill(GUAC_IMPL_GENERIC, ref, runs[i].block, runs[i].skip, len);
		guac_generate(buf, runs[i].block, runs[i].skip, len);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, ref, len,
				       "%s: block %#llx skip %u len %zu",
				       guac_impl_names[active], runs[i].block,
				       runs[i].skip, len);
		KUNIT_EXPECT_EQ_MSG(test, buf[len], 0xa5, "%s: wrote past len %zu",
				    guac_impl_names[active], len);
	}
}

/* Compare @impl with the portable implementation at one (block, skip, len). */
static void core_expect_same(struct kunit *test, enum guac_impl impl, u8 *buf,
			     u8 *ref, u64 block, unsigned int skip, size_t len)
{
	/* A canary after the run catches writes past the end. */
	memset(buf, 0xa5, len + 1);
	guac_fill(GUAC_IMPL_GENERIC, ref, block, skip, len);
	KUNIT_ASSERT_TRUE(test, guac_generate_impl(impl, buf, block, skip, len));
	/* Hundreds of runs: stop at the first that differs. */
	KUNIT_ASSERT_MEMEQ_MSG(test, buf, ref, len, "%s: block %#llx skip %u len %zu",
			       guac_impl_names[impl], block, skip, len);
	KUNIT_ASSERT_EQ_MSG(test, buf[len], 0xa5, "%s: wrote past len %zu",
			    guac_impl_names[impl], len);
}

/* Lengths around each FPU section boundary, from odd starts, at the wrap. */
static void core_test_section_boundaries(struct kunit *test)
{
	static const unsigned int skips[] = { 0, 1, 31, 63 };
	static const int deltas[] = { -65, -64, -1, 0, 1, 63, 64 };
	static const u64 blocks[] = { 0, 12345, U64_MAX - 64, U64_MAX };
	u8 *buf = kunit_kmalloc(test, CORE_TEST_MAX_LEN + 1, GFP_KERNEL);
	u8 *ref = kunit_kmalloc(test, CORE_TEST_MAX_LEN, GFP_KERNEL);
	unsigned int s, d, b, sections;
	enum guac_impl impl;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	core_test_require_simd(test);
	for (impl = CORE_FIRST_SIMD; impl < GUAC_IMPL_COUNT; impl++) {
		if (!guac_impl_supported(impl))
			continue;
		for (sections = 1; sections <= 3; sections++)
			for (d = 0; d < ARRAY_SIZE(deltas); d++)
				for (s = 0; s < ARRAY_SIZE(skips); s++)
					for (b = 0; b < ARRAY_SIZE(blocks); b++)
						core_expect_same(test, impl, buf, ref, blocks[b],
								 skips[s],
								 sections * GUAC_FPU_CHUNK +
								 deltas[d]);
	}
}

/* Random positions, lengths from 1 byte to several sections; some at the wrap. */
static void core_test_random_runs(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, CORE_TEST_MAX_LEN + 1, GFP_KERNEL);
	u8 *ref = kunit_kmalloc(test, CORE_TEST_MAX_LEN, GFP_KERNEL);
	struct rnd_state rnd;
	enum guac_impl impl;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	core_test_require_simd(test);
	/* A fixed seed: a failure must reproduce. */
	prandom_seed_state(&rnd, 0x6775616361ULL);
	for (impl = CORE_FIRST_SIMD; impl < GUAC_IMPL_COUNT; impl++) {
		if (!guac_impl_supported(impl))
			continue;
		for (i = 0; i < CORE_TEST_RANDOM_RUNS; i++) {
			u64 block = ((u64)prandom_u32_state(&rnd) << 32) |
				    prandom_u32_state(&rnd);
			unsigned int skip = prandom_u32_state(&rnd) % GUAC_BLOCK_SIZE;
			size_t len = 1 + prandom_u32_state(&rnd) % CORE_TEST_MAX_LEN;

			/* One run in four ends past block 2^64 - 1. */
			if (i % 4 == 0)
				block = -(u64)(1 + prandom_u32_state(&rnd) % 200);
			core_expect_same(test, impl, buf, ref, block, skip, len);
		}
	}
}

/*
 * Inside an FPU section the FPU cannot be taken again. On arm64 from 6.8 on
 * the kernel no longer tells (may_use_simd() is true in a task's open
 * section, and a second kernel_neon_begin() is a bug): skipped there.
 */
static void core_test_no_simd_in_fpu_section(struct kunit *test)
{
	size_t len = GUAC_FPU_CHUNK + 100;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *ref = kunit_kmalloc(test, len, GFP_KERNEL);
	bool usable, took_simd = false;
	struct guac_simd_state *state;
	enum guac_impl impl;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	core_test_require_simd(test);
	if (!GUAC_SIMD_SEES_OPEN_SECTION)
		kunit_skip(test, "this kernel's may_use_simd() does not see an open NEON section");
	state = kunit_kzalloc(test, sizeof(*state), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, state);
	guac_fill(GUAC_IMPL_GENERIC, ref, U64_MAX - 3, 5, len);

	for (impl = CORE_FIRST_SIMD; impl < GUAC_IMPL_COUNT; impl++) {
		if (!guac_impl_supported(impl))
			continue;
		memset(buf, 0, len);
		guac_simd_begin(state);
		usable = may_use_simd();
		took_simd |= guac_generate_impl(impl, buf, U64_MAX - 3, 5, len);
		guac_simd_end(state);
		KUNIT_EXPECT_FALSE_MSG(test, usable, "FPU usable inside kernel_fpu_begin()");
		KUNIT_EXPECT_FALSE_MSG(test, took_simd, "%s ran with the FPU taken",
				       guac_impl_names[impl]);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(buf, 0, len),
				      "%s wrote although it refused", guac_impl_names[impl]);
	}

	memset(buf, 0, len);
	guac_simd_begin(state);
	guac_generate(buf, U64_MAX - 3, 5, len);
	guac_simd_end(state);
	KUNIT_EXPECT_MEMEQ(test, buf, ref, len);
}

/*
 * Hard interrupt context: on x86 the FPU is usable there unless the interrupt
 * hit with softirqs disabled (irq_fpu_usable()); on arm64 NEON never is, and
 * the portable path serves. A pinned hardirq hrtimer fires on this CPU while
 * the test spins, with or without softirqs disabled.
 */
struct core_irq_probe {
	struct hrtimer timer;
	enum guac_impl impl;
	u8 *buf;
	size_t len;
	bool usable, took_simd, fired;
};

static enum hrtimer_restart core_irq_probe_fn(struct hrtimer *timer)
{
	struct core_irq_probe *p = container_of(timer, struct core_irq_probe, timer);

	p->usable = may_use_simd();
	p->took_simd = guac_generate_impl(p->impl, p->buf, U64_MAX, 7, p->len);
	if (!p->took_simd)
		guac_generate(p->buf, U64_MAX, 7, p->len);
	WRITE_ONCE(p->fired, true);
	return HRTIMER_NORESTART;
}

static bool core_run_in_hardirq(struct core_irq_probe *p, bool bh_disabled)
{
	ktime_t deadline = ktime_add_ms(ktime_get(), 2000);

	p->fired = false;
	hrtimer_init(&p->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	p->timer.function = core_irq_probe_fn;

	if (bh_disabled)
		local_bh_disable();
	else
		preempt_disable();
	hrtimer_start(&p->timer, ns_to_ktime(100 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
	while (!READ_ONCE(p->fired) && ktime_before(ktime_get(), deadline))
		cpu_relax();
	if (bh_disabled)
		local_bh_enable();
	else
		preempt_enable();
	hrtimer_cancel(&p->timer);
	return p->fired;
}

static void core_test_hardirq(struct kunit *test)
{
	struct core_irq_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	size_t len = 2 * GUAC_BLOCK_SIZE + 300;
	u8 *ref = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	p->buf = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p->buf);
	core_test_require_simd(test);
	guac_fill(GUAC_IMPL_GENERIC, ref, U64_MAX, 7, len);
	p->len = len;

	for (p->impl = CORE_FIRST_SIMD; p->impl < GUAC_IMPL_COUNT; p->impl++) {
		if (!guac_impl_supported(p->impl))
			continue;

		/* Softirqs disabled under the interrupt: no FPU, the portable path. */
		memset(p->buf, 0, len);
		KUNIT_ASSERT_TRUE_MSG(test, core_run_in_hardirq(p, true), "timer never fired");
		KUNIT_EXPECT_FALSE(test, p->usable);
		KUNIT_EXPECT_FALSE_MSG(test, p->took_simd, "%s used the FPU",
				       guac_impl_names[p->impl]);
		KUNIT_EXPECT_MEMEQ(test, p->buf, ref, len);

		/* Softirqs enabled: on x86 the SIMD path runs in the interrupt. */
		memset(p->buf, 0, len);
		KUNIT_ASSERT_TRUE_MSG(test, core_run_in_hardirq(p, false), "timer never fired");
		KUNIT_EXPECT_EQ(test, p->usable, CORE_SIMD_IN_HARDIRQ);
		KUNIT_EXPECT_EQ_MSG(test, p->took_simd, CORE_SIMD_IN_HARDIRQ,
				    "%s in a plain hardirq: took SIMD %d",
				    guac_impl_names[p->impl], p->took_simd);
		KUNIT_EXPECT_MEMEQ(test, p->buf, ref, len);
	}
}

#ifdef CONFIG_X86_64
/*
 * The default implementation avoids 512-bit code where it lowers the clock,
 * by the kernel crypto's own list; impl=avx512 still forces it.
 */
static void core_test_zmm_policy(struct kunit *test)
{
	static const struct {
		u8 vendor, family, model;
		bool downclocks;
		const char *cpu;
	} cpus[] = {
		{ X86_VENDOR_INTEL, 6, 0x55, true, "Skylake-X" },
		{ X86_VENDOR_INTEL, 6, 0x6a, true, "Ice Lake-X" },
		{ X86_VENDOR_INTEL, 6, 0x7e, true, "Ice Lake-L" },
		{ X86_VENDOR_INTEL, 6, 0x8c, true, "Tiger Lake-L" },
		{ X86_VENDOR_INTEL, 6, 0x8d, true, "Tiger Lake" },
		{ X86_VENDOR_INTEL, 6, 0xa7, false, "Rocket Lake" },
		{ X86_VENDOR_INTEL, 6, 0x8f, false, "Sapphire Rapids" },
		{ X86_VENDOR_INTEL, 6, 0xcf, false, "Emerald Rapids" },
		{ X86_VENDOR_AMD, 0x19, 0x11, false, "Zen 4 (Genoa)" },
		{ X86_VENDOR_AMD, 0x1a, 0x02, false, "Zen 5" },
		{ X86_VENDOR_AMD, 6, 0x55, false, "another vendor, same numbers" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cpus); i++)
		KUNIT_EXPECT_EQ_MSG(test, guac_zmm_downclocks(cpus[i].vendor, cpus[i].family,
							      cpus[i].model),
				    cpus[i].downclocks, "%s", cpus[i].cpu);
	KUNIT_EXPECT_GT(test, strlen(guac_impl_reason()), 0);
}
#endif

static struct kunit_case core_test_cases[] = {
	KUNIT_CASE(core_test_vectors),
	KUNIT_CASE(core_test_active_vectors),
	KUNIT_CASE(core_test_active_odd_offsets),
	KUNIT_CASE(core_test_section_boundaries),
	KUNIT_CASE(core_test_random_runs),
	KUNIT_CASE(core_test_no_simd_in_fpu_section),
	KUNIT_CASE(core_test_hardirq),
#ifdef CONFIG_X86_64
	KUNIT_CASE(core_test_zmm_policy),
#endif
	{}
};

static struct kunit_suite core_test_suite = {
	.name = "guacrng-core",
	.test_cases = core_test_cases,
};

kunit_test_suite(core_test_suite);
