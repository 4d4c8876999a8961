// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The shard choice (cmd/shard_env.c: guac_shard_choose) from --shard,
 * --shards and the batch systems' variables, given as the command layer
 * reads them (cmd/shard_env.c): JOB_COMPLETION_INDEX with GUAC_SHARDS
 * (Kubernetes Indexed Jobs), SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _STEP
 * (Slurm job arrays). The input is up to eight NUL-separated fields:
 * --shard, --shards, then the six variables (a field "\x01" means unset). Then
 * guac_shard_range() on a length and sector from the input. Oracles: an
 * accepted shard is K/N with K < N <= GUAC_SHARD_MAX; the N parts of any
 * length tile it, in order, on sector boundaries, their sizes differing by
 * at most one sector, whatever the length (up to 2^64-1); guac_shard_fits()
 * accepts the count exactly when no part is empty.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "fuzz_common.h"
#include "shard_env.h"

static void fuzz_tiling(const struct guac_shard *s, uint64_t length, unsigned int sector)
{
	struct guac_shard k = *s;
	uint64_t start, end, prev_end = 0, min = UINT64_MAX, max = 0;
	unsigned int i, step = s->count > 64 ? s->count / 64 : 1;

	/* Every part when there are few, else a sample and the neighbours it needs. */
	for (i = 0; i < s->count; i += (i + 1 < s->count && step > 1) ? step : 1) {
		uint64_t pstart, pend;

		k.index = i;
		guac_shard_range(&k, length, sector, &start, &end);
		if (start > end || end > length)
			fuzz_fail("shard %u/%u of %llu (sector %u): [%llu, %llu)", i, s->count,
				  (unsigned long long)length, sector, (unsigned long long)start,
				  (unsigned long long)end);
		if (i && step == 1 && start != prev_end)
			fuzz_fail("shard %u/%u of %llu (sector %u) starts at %llu, the one before "
				  "ends at %llu", i, s->count, (unsigned long long)length, sector,
				  (unsigned long long)start, (unsigned long long)prev_end);
		if (!i && start)
			fuzz_fail("shard 0/%u of %llu starts at %llu", s->count,
				  (unsigned long long)length, (unsigned long long)start);
		if ((start % sector && start != length) || (end % sector && end != length))
			fuzz_fail("shard %u/%u of %llu: [%llu, %llu) not on %u-byte sectors", i,
				  s->count, (unsigned long long)length, (unsigned long long)start,
				  (unsigned long long)end, sector);
		if (i + 1 < s->count) {
			k.index = i + 1;
			guac_shard_range(&k, length, sector, &pstart, &pend);
			if (pstart != end)
				fuzz_fail("shard %u/%u of %llu (sector %u) ends at %llu, the next "
					  "starts at %llu", i, s->count, (unsigned long long)length,
					  sector, (unsigned long long)end, (unsigned long long)pstart);
		}
		if (end != length) {
			if (end - start < min)
				min = end - start;
			if (end - start > max)
				max = end - start;
		}
		prev_end = end;
	}
	k.index = s->count - 1;
	guac_shard_range(&k, length, sector, &start, &end);
	if (end != length)
		fuzz_fail("the last of %u shards of %llu (sector %u) ends at %llu", s->count,
			  (unsigned long long)length, sector, (unsigned long long)end);
	if (min != UINT64_MAX && max - min > sector)
		fuzz_fail("%u shards of %llu (sector %u): parts of %llu and %llu bytes", s->count,
			  (unsigned long long)length, sector, (unsigned long long)min,
			  (unsigned long long)max);
}

/* guac_shard_fits() accepts a count exactly when no part is empty (the last is the smallest). */
static void fuzz_fits(const struct guac_shard *s, uint64_t length, unsigned int sector)
{
	struct guac_shard k = *s;
	uint64_t start, end;
	bool fits = guac_shard_fits(s, length, sector);

	k.index = s->count - 1;
	guac_shard_range(&k, length, sector, &start, &end);
	if (fits != (start < end))
		fuzz_fail("%u shards of %llu (sector %u): fits says %d, the last part is [%llu, %llu)",
			  s->count, (unsigned long long)length, sector, fits,
			  (unsigned long long)start, (unsigned long long)end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512], *field[8] = { NULL };
	struct guac_shard s;
	struct guac_shard_env env;
	uint64_t length = 0;
	unsigned int sector, nf = 0, i;
	size_t n;

	fuzz_init();
	/* The first 9 bytes: the length and the sector's power of two. */
	if (size < 9)
		return 0;
	memcpy(&length, data, 8);
	sector = 512u << (data[8] % 8);
	data += 9;
	size -= 9;
	n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;
	memcpy(buf, data, n);
	buf[n] = 0;
	field[nf++] = buf;
	for (i = 0; i < n && nf < 8; i++)
		if (!buf[i])
			field[nf++] = buf + i + 1;
	for (i = 0; i < 8; i++)
		if (field[i] && !strcmp(field[i], "\x01"))
			field[i] = NULL;
	env = (struct guac_shard_env){ field[2], field[3], field[4], field[5], field[6], field[7] };
	if (guac_shard_choose(&s, field[0], field[1], &env)) {
		if (!s.count || s.index >= s.count || s.count > GUAC_SHARD_MAX)
			fuzz_fail("accepted shard %u/%u", s.index, s.count);
		fuzz_tiling(&s, length, sector);
		fuzz_fits(&s, length, sector);
	}
	return 0;
}
