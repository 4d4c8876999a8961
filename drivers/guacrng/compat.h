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

#endif /* GUACRNG_COMPAT_H */
