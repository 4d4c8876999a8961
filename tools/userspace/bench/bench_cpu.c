// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench sources: the RDRAND and RDSEED instructions from userspace,
 * counting every try so the harness can report success rates and retries.
 */
#include <errno.h>
#include <string.h>
#include "bench.h"
#include "libguac.h"

/*
 * RDRAND may fail transiently (Intel advises 10 tries); RDSEED fails often
 * under load and recovers after a pause. Past this many tries in a row the
 * source counts as failing.
 */
#define BENCH_CPU_MAX_TRIES 1000

static int bench_cpu_open(struct bench_thread *t)
{
	return guac_cpu_features() & (unsigned int)t->src->impl ? 0 : ENOTSUP;
}

static inline bool bench_rdrand64(uint64_t *v)
{
	unsigned char ok;

	__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static inline bool bench_rdseed64(uint64_t *v)
{
	unsigned char ok;

	__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static ssize_t bench_cpu_fill(struct bench_thread *t)
{
	bool seed = t->src->impl == GUAC_CPU_RDSEED;
	size_t off;

	for (off = 0; off < t->size; off += sizeof(uint64_t)) {
		size_t n = t->size - off < sizeof(uint64_t) ? t->size - off : sizeof(uint64_t);
		unsigned int tries = 0;
		uint64_t v;

		for (;;) {
			tries++;
			if (seed ? bench_rdseed64(&v) : bench_rdrand64(&v))
				break;
			if (tries == BENCH_CPU_MAX_TRIES) {
				t->attempts += tries;
				return -EIO;
			}
			__builtin_ia32_pause();
		}
		t->attempts += tries;
		t->words++;
		memcpy(t->buf + off, &v, n);
	}
	return (ssize_t)t->size;
}

const struct bench_source bench_cpu_sources[] = {
	{ .name = "rdrand", .impl = GUAC_CPU_RDRAND, .open = bench_cpu_open,
	  .fill = bench_cpu_fill },
	{ .name = "rdseed", .impl = GUAC_CPU_RDSEED, .open = bench_cpu_open,
	  .fill = bench_cpu_fill },
	{ .name = NULL },
};
