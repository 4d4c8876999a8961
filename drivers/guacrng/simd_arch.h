/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each architecture gives the common simd.c: its CPU features, what
 * each of its implementations needs, the static keys that pick one, the
 * FPU (x86) or NEON (arm64) sections and the impl=auto policy. simd_x86.c
 * and simd_arm64.c implement it; Kbuild builds the one of the kernel's
 * architecture.
 */
#ifndef GUACRNG_SIMD_ARCH_H
#define GUACRNG_SIMD_ARCH_H

#include <linux/types.h>
#include <guacrng/core.h>
#include "compat.h"

/* The GUAC_FEAT_* bits of this CPU, SIMD and random number instructions. */
u32 guac_arch_detect_features(void);

/* The GUAC_FEAT_* bits each implementation needs, narrower ones included. */
extern const u32 guac_arch_impl_needs[GUAC_IMPL_COUNT];

/* Its GUAC_IMPL_ID_* in struct guac_info. */
extern const u32 guac_arch_impl_ids[GUAC_IMPL_COUNT];

/* Turn on the static keys that make @impl the active implementation. */
void guac_arch_impl_enable(enum guac_impl impl);

/*
 * impl=auto on this CPU: @usable is the widest implementation that is
 * supported and passed its self-test. Returns the one to use; when that is
 * not @usable, writes why into @reason.
 */
enum guac_impl guac_arch_impl_auto(enum guac_impl usable, char *reason,
				   size_t size);

/*
 * One SIMD section: the state the kernel needs saved across it (empty where
 * the kernel keeps it itself), and its begin and end, which must be called
 * only where may_use_simd() is true and never around anything that can
 * fault or sleep.
 */
struct guac_simd_state {
#ifdef CONFIG_ARM64
	struct guac_neon_state neon;
#endif
};

void guac_simd_begin(struct guac_simd_state *state);
void guac_simd_end(struct guac_simd_state *state);

#endif /* GUACRNG_SIMD_ARCH_H */
