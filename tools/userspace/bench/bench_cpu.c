// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench sources: the CPU's random number instructions from userspace,
 * counting every try so the harness can report success rates and retries:
 * RDRAND and RDSEED on x86-64, RNDR and RNDRRS (FEAT_RNG) on arm64, none
 * elsewhere.
 */
#include <errno.h>
#include <string.h>
#include "bench.h"
#include "libguac.h"

/*
 * RDRAND may fail transiently (Intel advises 10 tries); RDSEED fails often
 * under load and recovers after a pause; RNDR and RNDRRS fail (Z set) when
 * the entropy source cannot deliver in time. Past this many tries in a row
 * the source counts as failing.
 */
#define BENCH_CPU_MAX_TRIES 1000

#if defined(__x86_64__) || defined(__aarch64__)
/* .impl is the feature bit the instruction needs. */
static int bench_cpu_open(struct bench_thread *t)
{
	return guac_cpu_features() & (unsigned int)t->src->impl ? 0 : ENOTSUP;
}
#endif

#if defined(__x86_64__)
static inline bool bench_rand64(uint64_t *v)
{
	unsigned char ok;

	__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static inline bool bench_seed64(uint64_t *v)
{
	unsigned char ok;

	__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static inline void bench_cpu_pause(void)
{
	__builtin_ia32_pause();
}
#elif defined(__aarch64__)
/*
 * RNDR and RNDRRS by their system register encodings (assemblers before
 * ARMv8.5 do not know the names); NZCV is 0000 on success, 0100 on failure.
 * RNDRRS reseeds from the entropy source first, as RDSEED does.
 */
static inline bool bench_rand64(uint64_t *v)
{
	unsigned int ok;

	__asm__ volatile("mrs %0, s3_3_c2_c4_0\n\tcset %w1, ne" : "=r"(*v), "=r"(ok) : : "cc");
	return ok;
}

static inline bool bench_seed64(uint64_t *v)
{
	unsigned int ok;

	__asm__ volatile("mrs %0, s3_3_c2_c4_1\n\tcset %w1, ne" : "=r"(*v), "=r"(ok) : : "cc");
	return ok;
}

static inline void bench_cpu_pause(void)
{
	__asm__ volatile("yield");
}
#endif

#if defined(__x86_64__) || defined(__aarch64__)
static ssize_t bench_cpu_fill_with(struct bench_thread *t, bool seed)
{
	size_t off;

	for (off = 0; off < t->size; off += sizeof(uint64_t)) {
		size_t n = t->size - off < sizeof(uint64_t) ? t->size - off : sizeof(uint64_t);
		unsigned int tries = 0;
		uint64_t v;

		for (;;) {
			tries++;
			if (seed ? bench_seed64(&v) : bench_rand64(&v))
				break;
			if (tries == BENCH_CPU_MAX_TRIES) {
				t->attempts += tries;
				return -EIO;
			}
			bench_cpu_pause();
		}
		t->attempts += tries;
		t->words++;
		memcpy(t->buf + off, &v, n);
	}
	return (ssize_t)t->size;
}

static ssize_t bench_cpu_fill(struct bench_thread *t)
{
	return bench_cpu_fill_with(t, false);
}

static ssize_t bench_cpu_seed_fill(struct bench_thread *t)
{
	return bench_cpu_fill_with(t, true);
}
#endif

const struct bench_source bench_cpu_sources[] = {
#if defined(__x86_64__)
	{ .name = "rdrand", .impl = GUAC_CPU_RDRAND, .open = bench_cpu_open,
	  .fill = bench_cpu_fill },
	{ .name = "rdseed", .impl = GUAC_CPU_RDSEED, .open = bench_cpu_open,
	  .fill = bench_cpu_seed_fill },
#elif defined(__aarch64__)
	/* Both need FEAT_RNG. */
	{ .name = "rndr", .impl = GUAC_CPU_RNDR, .open = bench_cpu_open,
	  .fill = bench_cpu_fill },
	{ .name = "rndrrs", .impl = GUAC_CPU_RNDR, .open = bench_cpu_open,
	  .fill = bench_cpu_seed_fill },
#endif
	{ .name = NULL },
};
