// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Number and size parsing (lib/util.c: guac_parse_u64, what every --offset,
 * --length, --bs, --jobs ... goes through), held to a second parser written
 * here from the rules in util.h and guac(1): decimal or 0x hex, never octal,
 * suffixes K..E and KiB..EiB (1024^n, any case), kB/KB, MB ... EB (1000^n),
 * nothing else, no overflow. Both must accept the same strings with the
 * same value. Also the stream positions' arithmetic (util.h): the position
 * of offset + n computed in blocks and bytes equals the 128-bit sum mod 2^70.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "fuzz_common.h"
#include "util.h"

__extension__ typedef unsigned __int128 u128;

static bool ref_parse(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	u128 v = 0, scale = 1;
	unsigned int base = 10, i, n;
	const char *p = s, *u;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p || !isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p)))
		return false;
	for (; *p; p++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = (unsigned int)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		v = v * base + d;
		if (v > UINT64_MAX)
			return false;
	}
	if (*p) {
		u = strchr(units, toupper((unsigned char)*p));
		if (!u)
			return false;
		n = (unsigned int)(u - units) + 1;
		if (!p[1] || !strcmp(p + 1, "iB")) {
			for (i = 0; i < n; i++)
				scale *= 1024;
		} else if (!strcmp(p + 1, "B") && (*p == 'k' || isupper((unsigned char)*p))) {
			for (i = 0; i < n; i++)
				scale *= 1000;
		} else {
			return false;
		}
	}
	if (v * scale > UINT64_MAX)
		return false;
	*out = (uint64_t)(v * scale);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[80];
	uint64_t got = 0, want = 0, a, b;
	bool ok, ref;
	struct guac_spos p;
	u128 sum;

	fuzz_init();
	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	ok = guac_parse_u64("fuzzed number", s, &got);
	ref = ref_parse(s, &want);
	if (strlen(s) == size && ok != ref)
		fuzz_fail("'%s': guac_parse_u64 %s it, the reference %s it", s,
			  ok ? "accepts" : "refuses", ref ? "accepts" : "refuses");
	if (ok && ref && got != want)
		fuzz_fail("'%s': guac_parse_u64 gives %llu, the reference %llu", s,
			  (unsigned long long)got, (unsigned long long)want);

	/* Positions: two 64-bit numbers from the input, offset and distance. */
	if (size >= 16) {
		memcpy(&a, data, 8);
		memcpy(&b, data + 8, 8);
		p = guac_spos_add(guac_spos_of(a), b);
		sum = ((u128)a + b) & (((u128)1 << 70) - 1);
		if (p.byte > 63 || ((u128)p.block * 64 + p.byte) != sum)
			fuzz_fail("spos(%llu) + %llu is block %llu byte %u", (unsigned long long)a,
				  (unsigned long long)b, (unsigned long long)p.block, p.byte);
		if (guac_spos_low64(p) != a + b)
			fuzz_fail("spos_low64 of %llu + %llu", (unsigned long long)a,
				  (unsigned long long)b);
	}
	return 0;
}
