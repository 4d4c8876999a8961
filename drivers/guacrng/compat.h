/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel versions differ. Kbuild probes the headers of
 * the kernel being built for (GUAC_HAVE_*, GUAC_HWRNG_*) or the code tests a
 * symbol the newer kernels define; the rest of the module uses what this
 * header defines and never asks which kernel it is.
 */
#ifndef GUACRNG_COMPAT_H
#define GUACRNG_COMPAT_H

#include <linux/fs.h>

/* copy_splice_read() replaced generic_file_splice_read() in 6.5. */
#ifdef GUAC_HAVE_COPY_SPLICE_READ
#define guac_splice_read copy_splice_read
#else
#define guac_splice_read generic_file_splice_read
#endif

/*
 * Unsigned file offsets: a file_operations flag since 6.12, a per-file mode
 * bit set at open before.
 */
#ifdef FOP_UNSIGNED_OFFSET
#define GUAC_FOP_FLAGS .fop_flags = FOP_UNSIGNED_OFFSET,
static inline void guac_file_unsigned_offset(struct file *file)
{
}
#else
#define GUAC_FOP_FLAGS
static inline void guac_file_unsigned_offset(struct file *file)
{
	file->f_mode |= FMODE_UNSIGNED_OFFSET;
}
#endif

/*
 * The smallest entropy credit the hw_random core allows. Newer cores (their
 * hw_random.h documents "0 for maximum") read quality 0 as 1024, so the least
 * is 1 bit per 1024; older ones (6.1) read 0 as their default_quality
 * parameter, which is 0, no credit, unless the admin sets it.
 */
#ifdef GUAC_HWRNG_ZERO_IS_MAX
#define GUAC_HWRNG_MIN_QUALITY 1
#else
#define GUAC_HWRNG_MIN_QUALITY 0
#endif

/*
 * The show and store of a struct module_attribute take the attribute as
 * const since 6.14; before, not. The module's own show functions are declared
 * with GUAC_MODATTR_CONST to match the kernel's function pointer type.
 */
#ifdef GUAC_HAVE_CONST_MODULE_ATTRIBUTE
#define GUAC_MODATTR_CONST const
#else
#define GUAC_MODATTR_CONST
#endif

/*
 * Kernel-mode NEON on arm64, in three generations:
 *   - up to 6.7 (5.10, 6.1): kernel_neon_begin() holds off preemption and
 *     softirqs until kernel_neon_end(), and may_use_simd() is false while a
 *     section is open (fpsimd_context_busy): a nested attempt falls back;
 *   - 6.8 on: a section is preemptible (the kernel saves its NEON state
 *     with the task) and may_use_simd() no longer sees it open in task
 *     context, where opening a second one is a bug (the module never does);
 *   - 6.19 on (7.x): kernel_neon_begin() and kernel_neon_end() take a buffer
 *     for that state, which the caller keeps on its stack (scoped_ksimd()).
 * Kbuild probes asm/simd.h (GUAC_HAVE_NEON_CONTEXT_BUSY) and asm/neon.h
 * (GUAC_NEON_STATE_BUFFER). The module keeps its sections to about 4 KiB on
 * all three, as arch/arm64/crypto's glue code does.
 */
#ifdef CONFIG_ARM64
#include <asm/neon.h>

struct guac_neon_state {
#ifdef GUAC_NEON_STATE_BUFFER
	struct user_fpsimd_state fpsimd;
#endif
};

static inline void guac_kernel_neon_begin(struct guac_neon_state *state)
{
#ifdef GUAC_NEON_STATE_BUFFER
	kernel_neon_begin(&state->fpsimd);
#else
	kernel_neon_begin();
#endif
}

static inline void guac_kernel_neon_end(struct guac_neon_state *state)
{
#ifdef GUAC_NEON_STATE_BUFFER
	kernel_neon_end(&state->fpsimd);
#else
	kernel_neon_end();
#endif
}
#endif /* CONFIG_ARM64 */

/*
 * A stack variable CONFIG_INIT_STACK_ALL_ZERO need not zero, because it is
 * written before it is read: the kernel's __uninitialized where it has one
 * (with 7.x's scoped_ksimd(), for the same NEON state buffer).
 */
#ifdef __uninitialized
#define guac_uninitialized __uninitialized
#else
#define guac_uninitialized
#endif

/*
 * Whether may_use_simd() is false inside a section the task has open:
 * always on x86 (irq_fpu_usable() sees kernel_fpu_begin()), on arm64 only
 * up to 6.7.
 */
#if defined(CONFIG_X86_64) || defined(GUAC_HAVE_NEON_CONTEXT_BUSY)
#define GUAC_SIMD_SEES_OPEN_SECTION true
#else
#define GUAC_SIMD_SEES_OPEN_SECTION false
#endif

#endif /* GUACRNG_COMPAT_H */
