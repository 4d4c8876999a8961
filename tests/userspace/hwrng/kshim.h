/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's API for drivers/guacrng/hwrng_read.c and
 * hwrng_health.c to build unchanged in userspace: the Makefile makes each
 * <linux/...> header they include a file that includes this one. The
 * harness is one thread, as the hw_random core's reading_mutex makes the
 * read op, so the atomics need not be atomic.
 */
#ifndef GUAC_KSHIM_H
#define GUAC_KSHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

typedef struct {
	s64 counter;
} atomic64_t;

#define atomic64_read(v) ((v)->counter)
#define atomic64_add(i, v) ((v)->counter += (i))
#define atomic64_inc(v) ((v)->counter++)

#define KBUILD_MODNAME "guacrng"
/* Counted, not printed: the harness checks that failures are reported. */
extern unsigned int kshim_warnings, kshim_infos;
static inline __attribute__((format(printf, 2, 3)))
void kshim_log(unsigned int *count, const char *fmt, ...)
{
	(*count)++;
}

#define pr_warn_ratelimited(fmt, ...) kshim_log(&kshim_warnings, fmt, ##__VA_ARGS__)
#define pr_info_ratelimited(fmt, ...) kshim_log(&kshim_infos, fmt, ##__VA_ARGS__)

#define udelay(us) ((void)(us))
#define cond_resched() ((void)0)
#define memzero_explicit(p, n) memset((p), 0, (n))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define READ_ONCE(x) (x)
#define WRITE_ONCE(x, v) ((x) = (v))

#define GFP_KERNEL 0
/* How many allocations may succeed before one fails; -1: all. */
extern int kshim_alloc_budget;
static inline void *kshim_alloc(size_t n)
{
	if (kshim_alloc_budget == 0)
		return NULL;
	if (kshim_alloc_budget > 0)
		kshim_alloc_budget--;
	void *p = malloc(n);

	/* Poisoned, as kmalloc's memory is not zeroed either. */
	return p ? memset(p, 0x5a, n) : NULL;
}

#define kvmalloc(n, gfp) kshim_alloc(n)
#define kvmalloc_array(n, size, gfp) kshim_alloc((n) * (size))
static inline void kvfree_sensitive(const void *p, size_t n)
{
	memset((void *)p, 0, n);
	free((void *)p);
}

#define sort(base, num, size, cmp, swap) qsort(base, num, size, cmp)

#endif /* GUAC_KSHIM_H */
