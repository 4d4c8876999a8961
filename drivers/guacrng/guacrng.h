/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guacrng internals: the pieces main.c strings together.
 */
#ifndef GUACRNG_H
#define GUACRNG_H

#include <linux/types.h>
#include <guacrng/core.h>

/*
 * simd.c and simd_<arch>.c: CPU features, the implementation in use, FPU
 * (x86) or NEON (arm64) sections.
 */
int guac_simd_init(const char *impl_param);
enum guac_impl guac_impl_active(void);
/* Why the active implementation was chosen, for sysfs and the load log. */
const char *guac_impl_reason(void);
#ifdef CONFIG_X86_64
/*
 * Whether 512-bit code lowers this CPU's clock (Intel family 6 @model:
 * Skylake-X, Ice Lake, Tiger Lake), as the kernel's own crypto judges.
 */
bool guac_zmm_downclocks(u8 vendor, u8 family, u8 model);
#endif
bool guac_impl_supported(enum guac_impl impl);
/* The GUAC_FEAT_* bits of this CPU. */
u32 guac_cpu_features(void);
/* @impl's GUAC_IMPL_ID_*, the same number on every architecture. */
u32 guac_impl_id(enum guac_impl impl);

/*
 * Fill a kernel buffer with the stream at (@block, @skip) using the active
 * implementation, in FPU sections of at most GUAC_FPU_CHUNK bytes, or the
 * portable one where the FPU is not usable or @len is too small to pay for it.
 */
void guac_generate(u8 *buf, u64 block, unsigned int skip, size_t len);

/*
 * The same with a forced implementation, which must be supported; returns
 * false without writing if @impl needs the FPU and it is not usable here.
 */
bool guac_generate_impl(enum guac_impl impl, u8 *buf, u64 block,
			unsigned int skip, size_t len);

#define GUAC_FPU_CHUNK 4096

/* selftest.c: the vectors and cross-checks, per implementation. */
bool guac_selftest_impl(enum guac_impl impl);

/* device.c: /dev/guac. */
int guac_device_init(void);
void guac_device_uninit(void);

/*
 * hwrng.c: the CPU's random number instructions as a hwrng (x86: RDSEED or
 * RDRAND, arm64: RNDRRS), when the CPU has them and the kernel the hw_random
 * core.
 */
#ifdef GUAC_HAVE_HWRNG	/* Kbuild: the kernel has CONFIG_HW_RANDOM */
int guac_hwrng_init(void);
void guac_hwrng_uninit(void);
#else
static inline int guac_hwrng_init(void)
{
	return 0;
}

static inline void guac_hwrng_uninit(void)
{
}
#endif

#endif /* GUACRNG_H */
