/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libguac: the shared guacamole core plus userspace CPU feature detection,
 * implementation choice and stream-position helpers.
 */
#ifndef LIBGUAC_H
#define LIBGUAC_H

#include <stdbool.h>
#include <guacrng/core.h>
#include <uapi/linux/guacrng.h>

/*
 * Feature bits are the uapi GUAC_FEAT_* ones, so tools compare what the
 * device reports with what they detect. AVX2 and AVX512 need OS support for
 * the YMM and ZMM state as well as the instructions. x86-64: SSE2, AVX2,
 * AVX512, RDRAND, RDSEED; arm64: NEON and RNDR (FEAT_RNG: RNDR and RNDRRS).
 */
#define GUAC_CPU_SSE2 GUAC_FEAT_SSE2
#define GUAC_CPU_AVX2 GUAC_FEAT_AVX2
#define GUAC_CPU_AVX512 GUAC_FEAT_AVX512
#define GUAC_CPU_RDRAND GUAC_FEAT_RDRAND
#define GUAC_CPU_RDSEED GUAC_FEAT_RDSEED
#define GUAC_CPU_NEON GUAC_FEAT_NEON
#define GUAC_CPU_RNDR GUAC_FEAT_RNDR

/*
 * Features of this CPU and OS: on x86-64 as cpuid and xgetbv report them
 * (cpu_x86.c), on arm64 as the kernel's hwcaps do (cpu_arm64.c), none
 * elsewhere (cpu_other.c).
 */
unsigned int guac_cpu_detect(void);

#ifdef __x86_64__
#include <stdio.h>
/* @features less the RDRAND and RDSEED the kernel withholds (its /proc/cpuinfo, @cpuinfo). */
unsigned int guac_cpu_kernel_filter(unsigned int features, FILE *cpuinfo);
#endif

/* The features each implementation of this architecture needs (the arch's file). */
extern const unsigned int guac_impl_needs[GUAC_IMPL_COUNT];

/*
 * Features in effect: the detected ones, less any masked off with
 * guac_cpu_restrict() (for tests and benchmarks that force a subset).
 */
unsigned int guac_cpu_features(void);
void guac_cpu_restrict(unsigned int mask);

/*
 * An implementation needs its own feature and every narrower one, because
 * each hands its remainder down the chain.
 */
bool guac_impl_usable(enum guac_impl impl, unsigned int features);

/* The widest usable implementation under the features in effect. */
enum guac_impl guac_impl_best(void);

/* Parse an implementation name ("auto" gives guac_impl_best()); -1 if unknown. */
int guac_impl_parse(const char *name);

/*
 * What guac_impl_parse() takes in this build, for help texts and errors:
 * "auto, generic, sse2, avx2 or avx512" on x86-64, "auto, generic or neon"
 * on arm64.
 */
const char *guac_impl_choices(void);

/*
 * Stream bytes [offset, offset + len) of the stream seen from block @origin,
 * i.e. byte offset % 64 of block origin + offset / 64 (mod 2^64), onwards.
 */
static inline void guac_stream_fill(enum guac_impl impl, u8 *out, u64 origin,
				    u64 offset, size_t len)
{
	guac_fill(impl, out, origin + (offset >> GUAC_BLOCK_SHIFT),
		  (unsigned int)(offset & (GUAC_BLOCK_SIZE - 1)), len);
}

#endif /* LIBGUAC_H */
